package shells

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/vocab"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"
)

// fakeStream is a Streamer whose behaviour a test writes; established is
// the Run's callback.
type fakeStream struct {
	run         func(ctx context.Context, o remotecommand.StreamOptions, established func()) error
	established func()
}

func (f *fakeStream) StreamWithContext(ctx context.Context, o remotecommand.StreamOptions) error {
	return f.run(ctx, o, f.established)
}

// fakeDialer records the calls and answers each with run.
type fakeDialer struct {
	mu    sync.Mutex
	calls []Call
	run   func(call Call) func(ctx context.Context, o remotecommand.StreamOptions, established func()) error
}

func (d *fakeDialer) dial(call Call, established func()) (Streamer, *Transport, error) {
	d.mu.Lock()
	d.calls = append(d.calls, call)
	d.mu.Unlock()
	return &fakeStream{run: d.run(call), established: established}, &Transport{}, nil
}

// sessionWith returns a session whose streams run runs.
func sessionWith(run func(ctx context.Context, o remotecommand.StreamOptions, established func()) error, tty bool) *execSession {
	d := &fakeDialer{run: func(Call) func(context.Context, remotecommand.StreamOptions, func()) error { return run }}
	c := &Shells{Dial: d.dial}
	return &execSession{client: c, call: Call{namespace: "demo", pod: "web", container: "web", argv: []string{"sh"}, tty: tty}}
}

// configShells returns a Shells streaming with cfg, as kube.Client's
// NewFromConfig builds it.
func configShells(t *testing.T, cfg *rest.Config) *Shells {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &Shells{CS: cs, Config: cfg, Guards: guards.New(cs, vocab.PolicyInteractive, false)}
}

// TestC42ExitCode: `sh -c 'exit 5'` reports exit code 5, never 0 and
// never a generic error (client-go's exec.CodeExitError carries it).
func TestC42ExitCode(t *testing.T) {
	s := sessionWith(func(ctx context.Context, o remotecommand.StreamOptions, up func()) error {
		up()
		return utilexec.CodeExitError{Err: errors.New("command terminated with exit code 5"), Code: 5}
	}, false)
	res, err := s.Run(context.Background(), vocab.ExecStreams{Stdout: io.Discard}, vocab.ExecLimits{})
	if err != nil || res.ExitCode != 5 {
		t.Fatalf("Run = %+v, %v; want exit code 5 and no error", res, err)
	}
}

// TestC42StdinEOF: input `foo` then end of input, piped to cat without a
// TTY, prints foo and ends with exit 0 (the server's success).
func TestC42StdinEOF(t *testing.T) {
	s := sessionWith(func(ctx context.Context, o remotecommand.StreamOptions, up func()) error {
		if o.Tty || o.Stdin == nil {
			return errors.New("want stdin without a TTY")
		}
		_, err := io.Copy(o.Stdout, o.Stdin) // cat: until end of input
		return err
	}, false)
	var out bytes.Buffer
	res, err := s.Run(context.Background(), vocab.ExecStreams{Stdin: strings.NewReader("foo"), Stdout: &out, Stderr: io.Discard}, vocab.ExecLimits{})
	if err != nil || res.ExitCode != 0 || out.String() != "foo" {
		t.Fatalf("Run = %+v, %v, output %q; want foo and exit 0", res, err, out.String())
	}
}

// TestExecEnds: every way a session ends other than an exit status.
func TestExecEnds(t *testing.T) {
	block := func(ctx context.Context, o remotecommand.StreamOptions, up func()) error {
		up()
		<-ctx.Done()
		return ctx.Err()
	}
	cases := []struct {
		name   string
		run    func(ctx context.Context, o remotecommand.StreamOptions, up func()) error
		limits vocab.ExecLimits
		cancel bool
		want   error
		wantIn string
	}{
		{name: "connection lost is closed, not exit 0", want: vocab.ErrExecClosed, wantIn: "connection lost",
			run: func(ctx context.Context, o remotecommand.StreamOptions, up func()) error {
				up()
				return errors.New("error reading from error stream: websocket: close 1006 (abnormal closure)")
			}},
		{name: "ended by the caller", run: block, cancel: true, want: vocab.ErrExecClosed},
		{name: "idle", run: block, limits: vocab.ExecLimits{Idle: 20 * time.Millisecond}, want: vocab.ErrExecIdle},
		{name: "lifetime", run: block, limits: vocab.ExecLimits{Lifetime: 20 * time.Millisecond}, want: vocab.ErrExecLifetime},
		{name: "setup", limits: vocab.ExecLimits{Setup: 20 * time.Millisecond}, want: vocab.ErrExecSetup,
			run: func(ctx context.Context, o remotecommand.StreamOptions, up func()) error {
				<-ctx.Done() // never established
				return ctx.Err()
			}},
		{name: "refused before the stream is up", wantIn: "403",
			run: func(ctx context.Context, o remotecommand.StreamOptions, up func()) error {
				return errors.New("unable to upgrade connection: 403 Forbidden")
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := sessionWith(tc.run, true)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				time.AfterFunc(10*time.Millisecond, cancel)
			}
			res, err := s.Run(ctx, vocab.ExecStreams{Stdin: strings.NewReader(""), Stdout: io.Discard}, tc.limits)
			if err == nil {
				t.Fatalf("Run = %+v, nil error; want %v", res, tc.want)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("Run error %v; want %v", err, tc.want)
			}
			if tc.want == nil && errors.Is(err, vocab.ErrExecClosed) {
				t.Fatalf("a refused upgrade is not a closed session: %v", err)
			}
			if !strings.Contains(err.Error(), tc.wantIn) {
				t.Fatalf("Run error %q does not say %q", err, tc.wantIn)
			}
		})
	}
}

// TestExecRunsOnce: a second Run is refused without streaming.
func TestExecRunsOnce(t *testing.T) {
	n := 0
	s := sessionWith(func(ctx context.Context, o remotecommand.StreamOptions, up func()) error { n++; return nil }, false)
	if _, err := s.Run(context.Background(), vocab.ExecStreams{}, vocab.ExecLimits{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), vocab.ExecStreams{}, vocab.ExecLimits{}); !errors.Is(err, errRanTwice) || n != 1 {
		t.Fatalf("second Run = %v after %d streams; want errRanTwice and one stream", err, n)
	}
}

// sizes is a TerminalSizeQueue of fixed sizes, then nil.
type sizes struct{ list []vocab.TerminalSize }

func (s *sizes) Next() *vocab.TerminalSize {
	if len(s.list) == 0 {
		return nil
	}
	sz := s.list[0]
	s.list = s.list[1:]
	return &sz
}

// TestExecSizesPassedOn: with a TTY the size queue reaches the executor,
// first size first (casebook C15's unit half).
func TestExecSizesPassedOn(t *testing.T) {
	var got []remotecommand.TerminalSize
	s := sessionWith(func(ctx context.Context, o remotecommand.StreamOptions, up func()) error {
		if !o.Tty || o.Stderr != nil {
			return errors.New("want a TTY and no stderr")
		}
		for sz := o.TerminalSizeQueue.Next(); sz != nil; sz = o.TerminalSizeQueue.Next() {
			got = append(got, *sz)
		}
		return nil
	}, true)
	q := &sizes{list: []vocab.TerminalSize{{Width: 195, Height: 41}, {Width: 100, Height: 30}}}
	if _, err := s.Run(context.Background(), vocab.ExecStreams{Stdout: io.Discard, Stderr: io.Discard, Sizes: q}, vocab.ExecLimits{}); err != nil {
		t.Fatal(err)
	}
	want := []remotecommand.TerminalSize{{Width: 195, Height: 41}, {Width: 100, Height: 30}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("sizes %v; want %v", got, want)
	}
}

// TestC43WebSocketRefused: the WebSocket upgrade answers 403 (or 200,
// no 101): the session falls back to SPDY once, and when SPDY fails too
// the error names both.
func TestC43WebSocketRefused(t *testing.T) {
	for _, wsStatus := range []int{http.StatusForbidden, http.StatusOK} {
		t.Run(http.StatusText(wsStatus), func(t *testing.T) {
			var mu sync.Mutex
			var methods []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				methods = append(methods, r.Method+" "+r.Header.Get("Upgrade"))
				mu.Unlock()
				if r.Method == http.MethodGet { // the WebSocket executor
					w.WriteHeader(wsStatus)
					_, _ = io.WriteString(w, "websocket-refused-here")
					return
				}
				w.WriteHeader(http.StatusInternalServerError) // SPDY
				_, _ = io.WriteString(w, "spdy-broken-here")
			}))
			defer srv.Close()
			c := configShells(t, &rest.Config{Host: srv.URL})
			s := &execSession{client: c, call: Call{namespace: "demo", pod: "web", container: "web", argv: []string{"sh"}, tty: true}}
			res, err := s.Run(context.Background(), vocab.ExecStreams{Stdin: strings.NewReader(""), Stdout: io.Discard}, vocab.ExecLimits{Setup: 10 * time.Second})
			if err == nil {
				t.Fatal("Run succeeded against a server that refuses both")
			}
			if res.Transport != "spdy" || res.Fallback == "" {
				t.Fatalf("result %+v: want the SPDY fallback recorded", res)
			}
			msg := err.Error()
			if !strings.Contains(msg, "websocket:") || !strings.Contains(msg, "spdy:") || !strings.Contains(msg, "spdy-broken-here") {
				t.Fatalf("error %q does not report both executors' failures", msg)
			}
			if wsStatus == http.StatusForbidden && !strings.Contains(msg, "403") {
				t.Fatalf("error %q does not say the WebSocket upgrade was refused with 403", msg)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(methods) != 2 || !strings.HasPrefix(methods[0], "GET websocket") || !strings.HasPrefix(methods[1], "POST SPDY") {
				t.Fatalf("requests %q; want one WebSocket upgrade, then one SPDY upgrade", methods)
			}
		})
	}
}

// TestShouldFallback: kubectl's rule, including the HTTPS-proxy error of
// gorilla/websocket (C43's third case).
func TestShouldFallback(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{errors.New(`proxy: unknown scheme: https`), true},
		{errors.New("connection refused"), false},
		{nil, false},
	}
	for _, tc := range cases {
		if got := shouldFallback(tc.err); got != tc.want {
			t.Errorf("shouldFallback(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
