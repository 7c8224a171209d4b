package shells

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	apihttpstream "k8s.io/apimachinery/pkg/util/httpstream"
	apispdy "k8s.io/apimachinery/pkg/util/httpstream/spdy"
	"k8s.io/client-go/rest"
)

// spdyServer serves exec over SPDY only (its WebSocket upgrade answers
// 403, so the session falls back, as against an API server older than
// 1.29 or behind a proxy that refuses WebSockets): it negotiates one of
// protocols, writes "hello\n" on stdout and then ends as end says. When
// end is "lost" it waits for seen (the client has the output) and closes
// the TCP connection under the session, as a stopped API server or a
// broken network does.
func spdyServer(t *testing.T, protocols []string, end string, seen <-chan struct{}) *httptest.Server {
	t.Helper()
	hijacked := make(chan net.Conn, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		if _, err := apihttpstream.Handshake(r, w, protocols); err != nil {
			return
		}
		streams := make(chan apihttpstream.Stream, 8)
		conn := apispdy.NewResponseUpgrader().UpgradeResponse(w, r, func(s apihttpstream.Stream, _ <-chan struct{}) error {
			streams <- s
			return nil
		})
		if conn == nil {
			return
		}
		defer conn.Close()
		var errStream, stdout apihttpstream.Stream
		for errStream == nil || stdout == nil {
			select {
			case s := <-streams:
				switch s.Headers().Get(corev1.StreamType) {
				case corev1.StreamTypeError:
					errStream = s
				case corev1.StreamTypeStdout:
					stdout = s
				}
			case <-time.After(10 * time.Second):
				t.Error("the client made no error and stdout streams")
				return
			}
		}
		_, _ = io.WriteString(stdout, "hello\n")
		switch end {
		case "lost":
			<-seen
			(<-hijacked).Close()
			return
		case "success":
			_, _ = io.WriteString(errStream, `{"metadata":{},"status":"Success"}`)
		case "exit 3":
			_, _ = io.WriteString(errStream, `{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: exit status 3",`+
				`"reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}`)
		case "nothing":
		}
		_ = stdout.Close()
		_ = errStream.Close()
		<-conn.CloseChan()
	}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateHijacked {
			hijacked <- c
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// seenWriter closes seen once it has been written "hello".
type seenWriter struct {
	mu   sync.Mutex
	b    strings.Builder
	seen chan struct{}
	once sync.Once
}

func (w *seenWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if strings.Contains(w.b.String(), "hello") {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// TestExecSPDYConnectionLost: over SPDY, a connection lost in the middle
// of a command is ErrExecClosed (the exit status unknown), never exit 0:
// client-go alone takes the empty error stream of a broken connection for
// success (kubernetes/kubectl#1208). The server's own ends are kept as
// they are: Success is exit 0, NonZeroExitCode its code; and a protocol
// older than v4, whose server writes nothing on success, still ends with
// exit 0 when nothing came.
func TestExecSPDYConnectionLost(t *testing.T) {
	v5 := []string{"v5.channel.k8s.io", "v4.channel.k8s.io"}
	cases := []struct {
		name, end string
		protocols []string
		want      func(vocab.ExecResult, error) bool
	}{
		{"lost", "lost", v5, func(r vocab.ExecResult, err error) bool { return errors.Is(err, vocab.ErrExecClosed) }},
		{"lost v4", "lost", []string{"v4.channel.k8s.io"}, func(r vocab.ExecResult, err error) bool { return errors.Is(err, vocab.ErrExecClosed) }},
		{"ended without status", "nothing", v5, func(r vocab.ExecResult, err error) bool { return errors.Is(err, vocab.ErrExecClosed) }},
		{"success", "success", v5, func(r vocab.ExecResult, err error) bool { return err == nil && r.ExitCode == 0 }},
		{"exit 3", "exit 3", v5, func(r vocab.ExecResult, err error) bool { return err == nil && r.ExitCode == 3 }},
		{"v3 ends without status", "nothing", []string{"v3.channel.k8s.io"}, func(r vocab.ExecResult, err error) bool { return err == nil && r.ExitCode == 0 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := &seenWriter{seen: make(chan struct{})}
			srv := spdyServer(t, tc.protocols, tc.end, out.seen)
			c := configShells(t, &rest.Config{Host: srv.URL})
			s := &execSession{client: c, call: Call{namespace: "demo", pod: "web", container: "web", argv: []string{"sleep", "60"}}}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := s.Run(ctx, vocab.ExecStreams{Stdout: out}, vocab.ExecLimits{})
			if res.Transport != "spdy" {
				t.Fatalf("transport %+v: the test's server serves SPDY only", res)
			}
			if !tc.want(res, err) {
				t.Fatalf("Run = %+v, %v; output %q", res, err, out.b.String())
			}
			if ctx.Err() != nil {
				t.Fatal("the session did not end")
			}
		})
	}
}
