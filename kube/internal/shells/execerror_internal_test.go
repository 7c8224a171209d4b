package shells

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kyyard/kyyard/kube/vocab"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/remotecommand"
)

// The texts the local cluster's API server sent (kubectl exec on kwok,
// reference section 8) and a container runtime's.
const (
	noExecText   = `Internal error occurred: Internal error occurred: error executing command in container: no exec found for container "app" in pod "trial/p1"`
	kwokExitText = `Internal error occurred: Internal error occurred: error executing command in container: cmd wait: sh -c exit 3: exit status 3`
	ociText      = `Internal error occurred: error executing command in container: failed to exec in container: OCI runtime exec failed: exec failed: unable to start container process: exec: "sh": executable file not found in $PATH: unknown`
	// containerdText is what the local cluster's real node (containerd
	// v2, runc) answers for sh in an image without it.
	containerdText = `Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "709cd72e847d5032a30227233a76d5ba5910f615e452c87a5a41a65088904c74": OCI runtime exec failed: exec failed: unable to start container process: exec: "sh": executable file not found in $PATH`
)

func TestSplitCause(t *testing.T) {
	cases := []struct{ msg, cause, context string }{
		{noExecText, `no exec found for container "app" in pod "trial/p1"`, "Internal error occurred: error executing command in container"},
		{kwokExitText, "exit status 3", "Internal error occurred: error executing command in container: cmd wait: sh -c exit 3"},
		{ociText, `unable to start container process: exec: "sh": executable file not found in $PATH: unknown`,
			"Internal error occurred: error executing command in container: failed to exec in container: OCI runtime exec failed: exec failed"},
		{containerdText, `exec: "sh": executable file not found in $PATH`,
			`Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "709cd72e847d5032a30227233a76d5ba5910f615e452c87a5a41a65088904c74": OCI runtime exec failed: exec failed: unable to start container process`},
		{"plain message", "plain message", ""},
		{"a: a: A", "a", ""},
		{"line one\nline two: cause here", "cause here", "line one line two"},
		{"", "", ""},
	}
	for _, tc := range cases {
		cause, context := vocab.SplitCause(tc.msg)
		if cause != tc.cause || context != tc.context {
			t.Errorf("splitCause(%q) = %q, %q; want %q, %q", tc.msg, cause, context, tc.cause, tc.context)
		}
	}
}

func FuzzSplitCause(f *testing.F) {
	for _, s := range []string{noExecText, kwokExitText, ociText, containerdText, "", ": : :", "x:y: z", "exit status 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		cause, context := vocab.SplitCause(msg)
		if strings.TrimSpace(msg) != "" && strings.Trim(msg, ": \t\r\n") != "" && cause == "" {
			t.Fatalf("splitCause(%q) lost the cause", msg)
		}
		if utf8.ValidString(msg) && (!utf8.ValidString(cause) || !utf8.ValidString(context)) {
			t.Fatalf("invalid UTF-8 out of %q", msg)
		}
		if strings.ContainsAny(cause+context, "\n\r") {
			t.Fatalf("a line break kept: %q %q", cause, context)
		}
		// Every part is kept once: nothing of the message is lost but repeats.
		for _, p := range strings.Split(strings.Join(strings.Fields(msg), " "), ": ") {
			if p = strings.TrimSpace(p); p != "" && !strings.Contains(strings.ToLower(cause+": "+context), strings.ToLower(p)) {
				t.Fatalf("part %q of %q lost: %q / %q", p, msg, cause, context)
			}
		}
	})
}

func TestExecServerError(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		ok    bool
		cause string
	}{
		{"kwok without an exec", errors.New(noExecText), true, `no exec found for container "app" in pod "trial/p1"`},
		{"an APIStatus", apierrors.NewInternalError(errors.New("error dialing backend: dial tcp: refused")), true, "dial tcp: refused"},
		{"runtime's no sh", errors.New(ociText), true, `unable to start container process: exec: "sh": executable file not found in $PATH: unknown`},
		{"a broken stream", errors.New("error reading from error stream: EOF"), false, ""},
		{"a websocket close", errors.New("websocket: close 1006 (abnormal closure): unexpected EOF"), false, ""},
		{"nil", nil, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			se, ok := execServerError(tc.err)
			if ok != tc.ok || (ok && se.Cause != tc.cause) {
				t.Fatalf("execServerError(%v) = %+v, %v; want %v with cause %q", tc.err, se, ok, tc.ok, tc.cause)
			}
			if ok && (!errors.Is(se, ErrExecServer) || errors.Is(se, vocab.ErrExecClosed) || !strings.HasPrefix(se.Error(), "the server ended the session: "+tc.cause)) {
				t.Fatalf("error %q: want ErrExecServer, the cause first", se)
			}
		})
	}
}

func TestReportedExitCode(t *testing.T) {
	for msg, want := range map[string]int{
		kwokExitText: 3,
		`Internal error occurred: error executing command in container: cmd wait: /bin/sh: exit status 130`: 130,
		`Internal error occurred: error executing command in container: cmd wait: sh: signal: killed`:       -1,
		`Internal error occurred: something else: exit status 3`:                                            -1,
		`error executing command in container: exit status 0`:                                               -1,
		`error executing command in container: exit status 3 and more`:                                      -1,
	} {
		se, ok := execServerError(errors.New(msg))
		if !ok {
			t.Fatalf("%q is not a server error", msg)
		}
		code, ok := reportedExitCode(se)
		if (want < 0 && ok) || (want >= 0 && (!ok || code != want)) {
			t.Errorf("reportedExitCode(%q) = %d, %v; want %d", msg, code, ok, want)
		}
	}
}

// TestExecServerEnded: a session the server ends with its own error is
// reported as that error, cause first, never as ErrExecClosed ("connection
// lost"); kwok's "exit status 3" is exit code 3, marked as read from an
// error.
func TestExecServerEnded(t *testing.T) {
	run := func(err error) (vocab.ExecResult, error) {
		s := sessionWith(func(ctx context.Context, o remotecommand.StreamOptions, up func()) error {
			up()
			return err
		}, true)
		return s.Run(context.Background(), vocab.ExecStreams{Stdout: io.Discard}, vocab.ExecLimits{})
	}
	res, err := run(errors.New(noExecText))
	var se *ExecServerError
	if !errors.As(err, &se) || errors.Is(err, vocab.ErrExecClosed) || se.Cause != `no exec found for container "app" in pod "trial/p1"` {
		t.Fatalf("Run = %+v, %v; want the server's error, not a lost connection", res, err)
	}
	if strings.Count(err.Error(), "Internal error occurred") != 1 {
		t.Fatalf("error %q: the repeated part is kept twice", err)
	}
	res, err = run(errors.New(kwokExitText))
	if err != nil || res.ExitCode != 3 || !strings.Contains(res.ExitReportedAsError, "exit status 3") {
		t.Fatalf("Run = %+v, %v; want exit 3 reported as an error", res, err)
	}
	res, err = run(fmt.Errorf("read: %w", io.ErrUnexpectedEOF))
	if !errors.Is(err, vocab.ErrExecClosed) || errors.Is(err, ErrExecServer) {
		t.Fatalf("Run = %+v, %v; a broken connection is ErrExecClosed", res, err)
	}
}

// TestOpenExecProbeServerError: the shell probe ended by the server (kwok
// without an Exec for the pod) says the server's cause, not "connection
// lost".
func TestOpenExecProbeServerError(t *testing.T) {
	c, _, _ := execClient(t, options{}, true, "", errors.New(noExecText), execPod("u1", "web"), execNamespace("baseline"))
	_, err := c.OpenExec(context.Background(), vocab.ExecRequest{Namespace: "shop", Pod: "web-x2k", UID: "u1"})
	var se *ExecServerError
	if !errors.As(err, &se) || errors.Is(err, vocab.ErrExecClosed) || errors.Is(err, vocab.ErrExecNoShell) || !strings.Contains(se.Cause, "no exec found") {
		t.Fatalf("error %v; want the server's error", err)
	}
}
