package shells

// The errors a server returns for a session (pure code): an exec the API
// server or the kubelet ended with an error of its own (a metav1.Status
// on the stream's error channel, which client-go's remotecommand turns
// into a plain error carrying the status message, or an APIStatus error
// when the upgrade itself was answered with one) is told apart from a
// broken connection, its message de-duplicated and its innermost cause
// put first, so that a status line cut to the terminal's width still
// shows it.

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/kyyard/kyyard/kube/vocab"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// ErrExecServer: the API server or the kubelet ended the session with an
// error of its own (errors.As finds the *ExecServerError with its cause):
// not a broken connection, so not ErrExecClosed.
var ErrExecServer = errors.New("the server ended the session")

// ExecServerError is an error the API server or the kubelet returned for
// a session, its message split at ": " into the innermost cause and the
// rest (outermost first), repeated parts removed. Error is "the server
// ended the session: <cause> (<context>)"; errors.Is(err, ErrExecServer).
type ExecServerError struct {
	// Cause is the innermost cause: `no exec found for container "app" in
	// pod "demo/web"`, "exit status 3", `unable to start container
	// process: exec: "sh": executable file not found in $PATH: unknown`.
	Cause string
	// Context is the rest of the message, outermost first, each part
	// once: "Internal error occurred: error executing command in
	// container: cmd wait: sh -c exit 3"; "" when the message was the
	// cause alone.
	Context string
}

// Error returns "the server ended the session: <cause> (<context>)".
func (e *ExecServerError) Error() string {
	s := ErrExecServer.Error() + ": " + e.Cause
	if e.Context != "" {
		s += " (" + e.Context + ")"
	}
	return s
}

// Unwrap returns ErrExecServer.
func (e *ExecServerError) Unwrap() error { return ErrExecServer }

// serverMarkers are texts only a server's status for a session carries:
// the API server's internal-error wrapper (apierrors.NewInternalError),
// the kubelet's (CRI streaming server's) "error executing command in
// container" / "error attaching to container", and kubelet answers for a
// container that is not there.
var serverMarkers = []string{
	"internal error occurred:",
	"error executing command in container",
	"error attaching to container",
	"container not found",
	"unable to upgrade connection",
}

// execServerError returns err as an *ExecServerError when a server said
// it: an APIStatus error (its status message), or an error whose text
// carries one of serverMarkers (what client-go's remotecommand makes of a
// Failure status on the error channel: errors.New(status.Message)).
// Transport errors (EOF, a reset, a WebSocket close, "error reading from
// error stream") are not; nor is an *ExecServerError already made (it is
// returned as it is).
func execServerError(err error) (*ExecServerError, bool) {
	if err == nil {
		return nil, false
	}
	var done *ExecServerError
	if errors.As(err, &done) {
		return done, true
	}
	var status apierrors.APIStatus
	msg := ""
	if errors.As(err, &status) {
		msg = status.Status().Message
		if msg == "" {
			msg = err.Error()
		}
	} else {
		lower := strings.ToLower(err.Error())
		for _, m := range serverMarkers {
			if strings.Contains(lower, m) {
				msg = err.Error()
				break
			}
		}
	}
	if strings.TrimSpace(msg) == "" {
		return nil, false
	}
	cause, context := vocab.SplitCause(msg)
	return &ExecServerError{Cause: cause, Context: context}, true
}

// exitStatusText is the text of Go's os/exec.ExitError for a process that
// exited: "exit status N".
var exitStatusText = regexp.MustCompile(`^exit status ([0-9]{1,3})$`)

// reportedExitCode reads the exit code out of a server error whose cause
// is exactly "exit status N" inside the kubelet's "error executing
// command in container": what the local cluster's kwok answers for a
// command that exited non-zero (it loses the exit-code status, reference
// section 8: "cmd wait: sh -c exit 3: exit status 3"). ok is false for
// anything else (a signal, another text): that stays an error.
func reportedExitCode(e *ExecServerError) (code int, ok bool) {
	m := exitStatusText.FindStringSubmatch(e.Cause)
	if m == nil || !strings.Contains(strings.ToLower(e.Context), "error executing command in container") {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n < 1 || n > 255 {
		return 0, false
	}
	return n, true
}
