package kube

import (
	"errors"
	"net/url"
)

// UseSPDY makes c's exec sessions stream over SPDY only, with the executor
// they fall back to when the WebSocket upgrade is refused (fallbackExecutor's
// second), for the tests that need that path against a server that accepts
// WebSockets.
func UseSPDY(c *Client) {
	c.execDialer = func(call execCall, established func()) (streamer, *execTransport, error) {
		cfg, raw := c.execEndpoint(call, established)
		u, err := url.Parse(raw)
		if err != nil {
			return nil, nil, err
		}
		ex, err := newSPDYExecutor(cfg, u)
		return ex, &execTransport{fallback: errors.New("SPDY chosen by the test")}, err
	}
}

// AttachSession returns the session OpenDebug attaches to its debug
// container (pods/attach with stdin and a TTY), attached to any running
// container of the pod: the attach path on its own, for tests.
func AttachSession(c *Client, namespace, pod, container string) ExecSession {
	return &debugSession{c: c, namespace: namespace, pod: pod, container: container, image: "attach"}
}
