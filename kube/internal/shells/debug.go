package shells

// Ephemeral debug containers: what `kubectl debug -it <pod> --image=<image>
// --target=<container>` does (k8s.io/kubectl/pkg/cmd/debug), run after
// the guards of kube/internal/guards. PlanDebug answers the guards' verdicts;
// OpenDebug runs them, adds the container through the pod's
// ephemeralcontainers subresource, waits for it to run and returns a
// session attached to it (debugattach.go).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/internal/validate"
	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// DefaultDebugStart is how long OpenDebug waits for a debug container to
// run when DebugRequest.StartTimeout is 0: long enough for an image pull
// on a slow registry, short enough that a container that never starts
// ends in an error naming its waiting reason (casebook C44).
const DefaultDebugStart = 2 * time.Minute

// debugPoll is how often the pod is read while a debug container starts.
const debugPoll = 500 * time.Millisecond

// ErrDebugNotStarted: the debug container did not run within the wait
// (DebugRequest.StartTimeout), terminated, or waits for a reason waiting
// cannot change (InvalidImageName, ErrImageNeverPull,
// CreateContainerConfigError). The error's text names the container and
// its last waiting reason; the container stays in the pod (an ephemeral
// container cannot be removed) and ends with it.
var ErrDebugNotStarted = errors.New("the debug container did not start")

// debugPlan is what the guards found: the pod read fresh and the level of
// its namespace.
type debugPlan struct {
	verdicts vocab.Verdicts
	pod      *corev1.Pod
	level    string
}

// PlanDebug runs the guards of a debug container without writing, through
// the guard pipeline (guards.Checker.Run): read-only (refused before any request),
// the SelfSubjectAccessReviews of patch pods/ephemeralcontainers (the verb
// of the request OpenDebug sends) and create pods/attach, the pod read
// fresh (gone: not_found; another UID than req.UID: conflict, the pod was
// replaced; not Running, or no container req.Target: invalid), and the
// namespace's Pod Security level (guards' PodSecurityOf: a namespace enforcing
// no level warns, strict refuses), then the pod with the debug container
// added checked against that level as the API server's admission checks
// it, the whole pod (debugAdmitted: a pod that does not meet it warns,
// strict refuses, since the server is expected to reject the patch). It
// stops after the stage of the first refusal. Errors: req has no
// namespace, pod or target (invalid), or a read failed for another reason
// than the pod being gone.
func (c *Shells) PlanDebug(ctx context.Context, req vocab.DebugRequest) (vocab.Verdicts, error) {
	p, err := c.planDebug(ctx, req)
	return p.verdicts, err
}

func (c *Shells) planDebug(ctx context.Context, req vocab.DebugRequest) (debugPlan, error) {
	var p debugPlan
	if req.Namespace == "" || req.Pod == "" || req.Target == "" {
		return p, fmt.Errorf("%w: a debug container needs a namespace, a pod and a target container", vocab.ErrInvalid)
	}
	if req.Image != "" {
		if err := validate.ValidateImage(req.Image); err != nil {
			return p, fmt.Errorf("%w: image %q: %v", vocab.ErrInvalid, req.Image, err)
		}
	}
	vs, err := c.Guards.Run(ctx, guards.Write{
		Access: []guards.AccessCheck{
			{Verb: "patch", Resource: "pods", Subresource: "ephemeralcontainers", Namespace: req.Namespace},
			{Verb: "create", Resource: "pods", Subresource: "attach", Namespace: req.Namespace},
		},
		Object: func(ctx context.Context) (vocab.Verdicts, error) {
			pod, err := c.CS.CoreV1().Pods(req.Namespace).Get(ctx, req.Pod, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return vocab.Verdicts{guards.Gone("pod " + req.Namespace + "/" + req.Pod + " is gone")}, nil
			}
			if err != nil {
				return nil, err
			}
			p.pod = pod
			return vocab.Verdicts{debugFresh(pod, req)}, nil
		},
		Risks: func(ctx context.Context) (vocab.Verdicts, error) { return c.debugRisks(ctx, req, &p), nil },
	})
	p.verdicts = vs
	return p, err
}

// debugRisks is a debug container's risks stage (see PlanDebug): the
// namespace's Pod Security level (one read: guards' NamespaceLabels and
// PodSecurityOf), and whether the pod
// with the debug container meets the level it enforces (debugAdmitted); it
// sets p.level, the level the container's securityContext must meet.
func (c *Shells) debugRisks(ctx context.Context, req vocab.DebugRequest, p *debugPlan) vocab.Verdicts {
	labels, err := c.Guards.NamespaceLabels(ctx, req.Namespace)
	vs := vocab.Verdicts{c.Guards.PodSecurityOf(req.Namespace, labels[guards.PodSecurityEnforceLabel], err)}
	// The level the container's securityContext must meet, from the same
	// read; unreadable counts as restricted, which every level admits.
	level := guards.PodSecurityRestricted
	if err == nil {
		level = debugLevel(labels[guards.PodSecurityEnforceLabel])
	}
	p.level = level
	if err == nil {
		image := req.Image
		if image == "" {
			image = vocab.DefaultDebugImage
		}
		pod := p.pod
		if ok, lv, why := debugAdmitted(pod, labels, debugContainer("debugger", image, req.Target, level, pod)); !ok {
			vs = append(vs, c.Guards.Warn(vocab.Verdict{Guard: vocab.GuardPodSecurity, Reason: vocab.ReasonPodSecurity,
				Sentence: "namespace " + req.Namespace + " enforces Pod Security " + lv + " on the whole pod when a container is added, and pod " +
					pod.Name + " with the debug container does not meet it: " + why +
					" (the API server is expected to reject the debug container, unless Pod Security exempts you)"}))
		}
	}
	return vs
}

// debugFresh checks the pod read fresh against the request: the UID the
// person saw, not being deleted, Running, and the target container.
func debugFresh(pod *corev1.Pod, req vocab.DebugRequest) vocab.Verdict {
	name := "pod " + pod.Namespace + "/" + pod.Name
	refuse := func(r vocab.Reason, s string) vocab.Verdict {
		return vocab.Verdict{Guard: vocab.GuardFresh, Outcome: vocab.OutcomeRefuse, Reason: r, Sentence: s}
	}
	switch {
	case req.UID != "" && string(pod.UID) != req.UID:
		return refuse(vocab.ReasonConflict, name+" was replaced since it was listed (its UID changed)")
	case pod.DeletionTimestamp != nil:
		return refuse(vocab.ReasonConflict, name+" is being deleted")
	case pod.Status.Phase != corev1.PodRunning:
		return refuse(vocab.ReasonInvalid, fmt.Sprintf("%s is %s, not Running: a debug container starts only in a running pod", name, pod.Status.Phase))
	}
	found := false
	for _, ct := range pod.Spec.Containers {
		found = found || ct.Name == req.Target
	}
	if !found {
		return refuse(vocab.ReasonInvalid, fmt.Sprintf("%s has no container %q to debug", name, req.Target))
	}
	return vocab.Verdict{Guard: vocab.GuardFresh, Outcome: vocab.OutcomePass, Sentence: name + " is the one you saw, and running"}
}

// OpenDebug runs the guards (PlanDebug) and, when none refuses and every
// warning's reason is in req.Confirmed, adds an ephemeral container
// "debugger-<5 random characters>" (kubectl's naming) running req.Image
// (DefaultDebugImage when "") with stdin and a TTY, targeting req.Target's
// process namespace, with a securityContext the namespace's Pod Security
// level admits (debugSecurityContext, casebook C44). The write is a
// strategic merge patch of the pods/ephemeralcontainers subresource
// carrying the guards' resourceVersion as its precondition. It then reads
// the pod every 500 ms until the container runs, calling progress (may be
// nil) with each new waiting reason, for at most req.StartTimeout
// (DefaultDebugStart when 0), and returns a session attached to the
// container (pods/attach, as `kubectl debug -it` does).
// Errors: ErrExecUnavailable (no REST config to attach with), a
// *Refusal (a guard refused, a warning was not confirmed, or the API
// server refused the patch: admission_denied with its text for Pod
// Security or a webhook, conflict for a pod changed meanwhile), an
// ErrDebugNotStarted wrapping error naming the waiting reason, ctx's
// error, or a failed read; once the patch was sent, every error is a
// *DebugAddedError wrapping the cause.
func (c *Shells) OpenDebug(ctx context.Context, req vocab.DebugRequest, progress func(string)) (vocab.ExecSession, error) {
	if c.Config == nil && c.DebugStream == nil {
		return nil, vocab.ErrExecUnavailable
	}
	if progress == nil {
		progress = func(string) {}
	}
	p, err := c.planDebug(ctx, req)
	if err != nil {
		return nil, err
	}
	if r := p.verdicts.Unconfirmed(req.Confirmed); r != nil {
		return nil, r
	}
	image := req.Image
	if image == "" {
		image = vocab.DefaultDebugImage
	}
	name := debugName(ephemeralNames(p.pod))
	ec := debugContainer(name, image, req.Target, p.level, p.pod)
	body, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": p.pod.ResourceVersion},
		"spec":     map[string]any{"ephemeralContainers": []corev1.EphemeralContainer{ec}},
	})
	if err != nil {
		return nil, err
	}
	progress(fmt.Sprintf("adding debug container %s (%s) to %s/%s", name, image, req.Namespace, req.Pod))
	if _, err := c.CS.CoreV1().Pods(req.Namespace).Patch(ctx, req.Pod, types.StrategicMergePatchType, body,
		metav1.PatchOptions{}, "ephemeralcontainers"); err != nil {
		if ctx.Err() != nil {
			// Cancelled while the patch was under way: the API server may
			// have applied it.
			return nil, &DebugAddedError{Namespace: req.Namespace, Pod: req.Pod, Container: name, Image: image, Unsure: true, Err: ctx.Err()}
		}
		return nil, debugRefusal(err)
	}
	if err := c.waitDebug(ctx, req, name, progress); err != nil {
		return nil, &DebugAddedError{Namespace: req.Namespace, Pod: req.Pod, Container: name, Image: image, Err: err}
	}
	return c.Attach(req.Namespace, req.Pod, name, image), nil
}

// DebugAddedError is OpenDebug's error once its patch was sent: the debug
// container was added to the pod (the API server accepted the patch of
// pods/ephemeralcontainers), or, with Unsure, ctx ended while the patch
// was under way and it may have been, and no session followed (it did not
// start, ctx ended while it was waited for). The pod changed: an
// ephemeral container cannot be removed and stays until the pod ends
// (Kubernetes: ephemeral containers). Err is why no session followed
// (ErrDebugNotStarted's error, ctx's error, a failed read).
type DebugAddedError struct {
	// Namespace and Pod name the pod; Container is the debug container's
	// name ("debugger-xxxxx"), Image its image.
	Namespace, Pod, Container, Image string
	// Unsure is set when ctx ended before the API server answered the
	// patch.
	Unsure bool
	// Err is why no session followed.
	Err error
}

// Error says what was written and why no session followed.
func (e *DebugAddedError) Error() string {
	what := "debug container " + e.Container + " (" + e.Image + ") was added to pod " + e.Namespace + "/" + e.Pod
	if e.Unsure {
		what = "the patch adding debug container " + e.Container + " (" + e.Image + ") to pod " + e.Namespace + "/" + e.Pod +
			" was cancelled before the API server answered: it may have been added"
	}
	return what + " and stays until the pod ends: " + e.Err.Error()
}

// Unwrap returns Err.
func (e *DebugAddedError) Unwrap() error { return e.Err }

// debugRefusal turns the API server's answer to the patch into a
// *Refusal: a Pod Security or webhook rejection is admission_denied with
// the server's own text; a 409 is a conflict.
func debugRefusal(err error) *vocab.Refusal {
	r := guards.WriteRefusal(err)
	if strings.Contains(r.Detail, "violates PodSecurity") {
		r.Reason = vocab.ReasonAdmissionDenied
	}
	return r
}

// waitDebug reads the pod until the container name runs, reporting each
// new waiting reason through progress.
func (c *Shells) waitDebug(ctx context.Context, req vocab.DebugRequest, name string, progress func(string)) error {
	limit := req.StartTimeout
	if limit <= 0 {
		limit = DefaultDebugStart
	}
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(debugPoll)
	defer tick.Stop()
	last := ""
	for {
		pod, err := c.CS.CoreV1().Pods(req.Namespace).Get(ctx, req.Pod, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return fmt.Errorf("%w: pod %s/%s was deleted", ErrDebugNotStarted, req.Namespace, req.Pod)
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case err == nil:
			st := debugStatus(pod, name)
			why := st.why
			if why == "" {
				why = "no status reported yet"
			}
			if why != last {
				last = why
				progress(fmt.Sprintf("debug container %s: %s", name, why))
			}
			switch {
			case st.running:
				return nil
			case st.ended, st.hopeless:
				return fmt.Errorf("%w: %s %s", ErrDebugNotStarted, name, why)
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("%w within %s: %s %s", ErrDebugNotStarted, limit, name, last)
		case <-tick.C:
		}
	}
}
