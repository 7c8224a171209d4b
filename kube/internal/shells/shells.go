package shells

import (
	"net/http"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Shells opens exec sessions and debug containers on one cluster. The
// zero value is not usable: CS and Guards are required. It is safe for
// concurrent use as long as its fields are not changed meanwhile; a
// session keeps the *Shells it was opened with.
type Shells struct {
	// CS reads the pods and namespaces the guards check, sends the debug
	// container's patch and builds the URLs of pods/exec and pods/attach.
	CS kubernetes.Interface
	// Config is the REST config the streams are made with (speaking JSON);
	// nil means no stream can be made (ErrExecUnavailable) unless Dial or
	// DebugStream is set.
	Config *rest.Config
	// Guards runs the guards of every exec and debug container: read-only,
	// the access reviews, the policy.
	Guards *guards.Checker
	// Shell is the context's configured shell argv (config: a context's
	// shell), tried before bash and sh when an exec names no command and
	// its ExecRequest.Shell is empty; empty means none configured.
	Shell []string
	// Dial, when set (tests), builds exec streams instead of client-go's
	// executors (execsession.go).
	Dial Dialer
	// DebugStream, when set (tests), streams debug sessions instead of
	// client-go's attach executors (debugattach.go).
	DebugStream DebugStreamer
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

// RoundTrip calls f.
func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
