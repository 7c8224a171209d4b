package kubetest

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// The demo app's two servers, reached through a port-forward on
// 127.0.0.1: `demoapp web -addr=:8080 -echo-addr=:9000` answers HTTP with
// its pod's hostname and echoes every byte on its TCP port.

// EchoThrough sends payload to the TCP echo server behind the forward's
// local port and fails the test unless every byte comes back. It tries
// again (10 times, 0.5 s apart) while the process in a new pod may not
// listen yet.
func EchoThrough(t testing.TB, port int32, payload []byte) {
	t.Helper()
	var last error
	for attempt := 0; attempt < 10; attempt++ {
		conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(int(port)), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
		go func() { _, _ = conn.Write(payload) }()
		back := make([]byte, len(payload))
		_, err = io.ReadFull(conn, back)
		conn.Close()
		if err == nil && bytes.Equal(back, payload) {
			return
		}
		if err == nil {
			err = fmt.Errorf("the bytes came back changed")
		}
		last = err
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("echo of %d bytes through the forward: %v", len(payload), last)
}

// GetThrough asks the demo app's HTTP server behind the forward's local
// port for path and returns the hostname of the pod that answered; it
// tries again (10 times, 0.5 s apart) while the process may not listen
// yet, and fails the test when no answer names path.
func GetThrough(t testing.TB, port int32, path string) string {
	t.Helper()
	var last error
	for attempt := 0; attempt < 10; attempt++ {
		cl := &http.Client{Timeout: 10 * time.Second}
		resp, err := cl.Get("http://127.0.0.1:" + strconv.Itoa(int(port)) + path)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var host, p string
			if _, err := fmt.Sscanf(string(body), "kyyard demo web: hostname=%s path=%s", &host, &p); err == nil && p == path {
				return host
			}
			last = fmt.Errorf("%s %q", resp.Status, body)
		} else {
			last = err
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("GET %s through the forward: %v", path, last)
	return ""
}
