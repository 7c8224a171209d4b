package kube

import (
	"errors"
	"net/url"

	"github.com/kyyard/kyyard/kube/internal/shells"
)

// UseSPDY makes c's exec sessions stream over SPDY only, with the executor
// they fall back to when the WebSocket upgrade is refused (shells'
// fallbackExecutor's second), for the tests that need that path against a
// server that accepts WebSockets.
func UseSPDY(c *Client) {
	c.execDialer = func(call shells.Call, established func()) (shells.Streamer, *shells.Transport, error) {
		cfg, raw := c.shells().Endpoint(call, established)
		u, err := url.Parse(raw)
		if err != nil {
			return nil, nil, err
		}
		ex, err := shells.NewSPDYExecutor(cfg, u)
		t := &shells.Transport{}
		t.SetFallback(errors.New("SPDY chosen by the test"))
		return ex, t, err
	}
}

// AttachSession returns the session OpenDebug attaches to its debug
// container (pods/attach with stdin and a TTY), attached to any running
// container of the pod: the attach path on its own, for tests.
func AttachSession(c *Client, namespace, pod, container string) ExecSession {
	return c.shells().Attach(namespace, pod, container, "attach")
}
