package shells

// Exec: a session in a container (`kubectl exec -it`), in-process. PlanExec
// runs the guards without running anything; OpenExec runs them again,
// refuses what is refused or unconfirmed, chooses the shell with one exec
// (execshell.go) and returns the session (execsession.go) that Run
// streams.

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ExecPodSecuritySentence is the sentence of a shell's pod_security
// refusal, in place of the reason's own (which speaks of the pods a write
// creates): what a command run in the pod may do is bounded only by what
// the pod was admitted with.
const ExecPodSecuritySentence = "what a shell may do in this pod is not bounded by Pod Security baseline"

// execRefusal is the error of a refused exec: errors.Is finds its
// ErrExec* sentinel, errors.As the *Refusal (ReasonOf its reason).
type execRefusal struct {
	sentinel error
	refusal  *vocab.Refusal
}

// Error returns "<sentinel>: <detail>".
func (e *execRefusal) Error() string {
	if e.refusal.Detail == "" {
		return e.sentinel.Error()
	}
	return e.sentinel.Error() + ": " + e.refusal.Detail
}

// Unwrap returns the sentinel and the refusal.
func (e *execRefusal) Unwrap() []error { return []error{e.sentinel, e.refusal} }

// execRefused turns a refusing (or unconfirmed) verdict into its error:
// ErrExecForbidden for the access review, ErrExecPodReplaced for a UID
// that changed, ErrExecNotRunning, ErrExecPodSecurity; read-only answers
// its *Refusal alone.
func execRefused(vs vocab.Verdicts, r *vocab.Refusal) error {
	guard := vocab.GuardReadOnly
	for _, v := range vs {
		if v.Reason == r.Reason && strings.HasPrefix(r.Detail, v.Sentence) && v.Outcome != vocab.OutcomePass {
			guard = v.Guard
			break
		}
	}
	var sentinel error
	switch guard {
	case vocab.GuardAccess:
		sentinel = vocab.ErrExecForbidden
	case vocab.GuardFresh:
		sentinel = vocab.ErrExecPodReplaced
		if r.Reason == vocab.ReasonNotRunning {
			sentinel = vocab.ErrExecNotRunning
		}
	case vocab.GuardRunning:
		sentinel = vocab.ErrExecNotRunning
	case vocab.GuardPodSecurity:
		sentinel = vocab.ErrExecPodSecurity
		// The reason's own sentence speaks of pods a write creates; a
		// shell creates none.
		r = &vocab.Refusal{Reason: r.Reason, Detail: r.Detail, Sentence: ExecPodSecuritySentence}
	default:
		return r
	}
	return &execRefusal{sentinel: sentinel, refusal: r}
}

// validExec checks a request's shape. Errors wrap vocab.ErrInvalid.
func validExec(namespace, pod string) error {
	if namespace == "" || pod == "" {
		return fmt.Errorf("%w: a session needs a namespace and a pod", vocab.ErrInvalid)
	}
	return nil
}

// PlanExec runs an exec's guards without running anything, for a
// confirmation screen, through the guard pipeline (guards.Checker.Run), in this
// order, stopping at the first refusal:
// read-only (no request at all), the SelfSubjectAccessReview of create
// pods/exec in the namespace (cached 30 s), the pod read fresh against the
// UID the person saw (ReasonConflict when it changed), the container
// (Plan.Container), the pod Running with that container running
// (ReasonNotRunning), then Pod Security: a pass only when the namespace
// enforces baseline or restricted and the pod meets baseline (the official
// Pod Security Admission checks); otherwise a warning, a refusal under the
// strict policy (ReasonPodSecurity). Errors: a malformed request (vocab.ErrInvalid),
// the pod cannot be read (ReasonOf: not_found, forbidden, unavailable), or
// several containers and none named (*ContainerChoiceError, listing them
// with the kubectl.kubernetes.io/default-container annotation's).
func (c *Shells) PlanExec(ctx context.Context, req vocab.ExecRequest) (vocab.ExecPlan, error) {
	var plan vocab.ExecPlan
	if err := validExec(req.Namespace, req.Pod); err != nil {
		return plan, err
	}
	var pod *corev1.Pod
	vs, err := c.Guards.Run(ctx, guards.Write{
		Access: []guards.AccessCheck{{Verb: "create", Resource: "pods", Subresource: "exec", Namespace: req.Namespace}},
		Object: func(ctx context.Context) (vocab.Verdicts, error) {
			var err error
			pod, err = c.CS.CoreV1().Pods(req.Namespace).Get(ctx, req.Pod, metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			container, ch, missing := execContainer(pod, req.Container)
			v := guardPodUID(pod, req.UID)
			if v.Outcome == vocab.OutcomePass && missing != "" {
				v = vocab.Verdict{Guard: vocab.GuardFresh, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonConflict, Sentence: missing}
			}
			if v.Outcome == vocab.OutcomeRefuse {
				return vocab.Verdicts{v}, nil
			}
			if ch != nil {
				return vocab.Verdicts{v}, ch
			}
			plan.Container = container
			return vocab.Verdicts{v, guardContainerRunning(pod, container)}, nil
		},
		Risks: func(ctx context.Context) (vocab.Verdicts, error) {
			labels, err := c.Guards.NamespaceLabels(ctx, req.Namespace)
			v := execPodSecurity(pod, labels[guards.PodSecurityEnforceLabel], err == nil)
			if v.Outcome == vocab.OutcomeWarn {
				v = c.Guards.Warn(v)
			}
			return vocab.Verdicts{v}, nil
		},
	})
	plan.Verdicts = vs
	return plan, err
}

// probeLimit bounds what the shell probe's output is read to.
const probeLimit = 4096

// OpenExec runs the guards (PlanExec) and, when none refuses and every
// warning's reason is in req.Confirmed, chooses the argv: req.Command when
// set, else the shell found by one exec of a probe inside the container
// (no TTY, no stdin; the configured shell req.Shell, else
// Shells.Shell, then bash, then sh). Nothing else runs until the session's
// Run. Errors: ErrExecUnavailable (a client without cluster configuration,
// before any request); PlanExec's errors; a refusal as an error that
// errors.Is one of ErrExecForbidden, ErrExecPodReplaced, ErrExecNotRunning,
// ErrExecPodSecurity (and errors.As a *Refusal; read-only is the *Refusal
// alone); ErrExecNoShell when the container has no shell (casebook C16:
// the runtime cannot find sh, or the probe found none); the probe's own
// failure otherwise.
func (c *Shells) OpenExec(ctx context.Context, req vocab.ExecRequest) (vocab.ExecSession, error) {
	if c.Config == nil && c.Dial == nil {
		return nil, vocab.ErrExecUnavailable
	}
	plan, err := c.PlanExec(ctx, req)
	if err != nil {
		return nil, err
	}
	if r := plan.Verdicts.Unconfirmed(req.Confirmed); r != nil {
		return nil, execRefused(plan.Verdicts, r)
	}
	s := &execSession{client: c, call: Call{namespace: req.Namespace, pod: req.Pod, container: plan.Container, tty: req.TTY}}
	if len(req.Command) > 0 {
		s.call.argv = req.Command
		return s, nil
	}
	shell := req.Shell
	if len(shell) == 0 {
		shell = c.Shell
	}
	argv, note, err := c.probeShell(ctx, s.call, shell)
	if err != nil {
		return nil, err
	}
	s.call.argv, s.note = argv, note
	return s, nil
}

// probeShell runs the shell probe in call's container and chooses the
// shell from its output. A probe that fails before printing, with the
// runtime saying sh does not exist (or exit status 127), is
// ErrExecNoShell.
func (c *Shells) probeShell(ctx context.Context, call Call, shell []string) ([]string, string, error) {
	call.argv, call.tty, call.stdin = shellProbe(shell), false, false
	probe := &execSession{client: c, call: call}
	var out limitedBuffer
	out.limit = probeLimit
	res, err := probe.Run(ctx, vocab.ExecStreams{Stdout: &out, Stderr: &out}, vocab.ExecLimits{Lifetime: vocab.DefaultExecSetup})
	text := out.String()
	printed := strings.Contains(text, shellMarker)
	switch {
	case err != nil && !printed && (noShellText(err.Error()) || noShellText(text)):
		return nil, "", fmt.Errorf("%w (%v)", vocab.ErrExecNoShell, err)
	case err != nil && !printed:
		return nil, "", fmt.Errorf("choosing a shell: %w", err)
	case !printed && (res.ExitCode == 127 || res.ExitCode == 126):
		return nil, "", fmt.Errorf("%w (the probe exited with %d)", vocab.ErrExecNoShell, res.ExitCode)
	}
	return chooseShell(shell, text)
}

// limitedBuffer keeps the first limit bytes written and drops the rest.
type limitedBuffer struct {
	bytes.Buffer
	limit int
}

// Write keeps what fits and always reports the whole write.
func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// execOptions returns the PodExecOptions of a call.
func execOptions(call Call) *corev1.PodExecOptions {
	return &corev1.PodExecOptions{
		Container: call.container,
		Command:   call.argv,
		Stdin:     call.stdin,
		Stdout:    true,
		Stderr:    !call.tty,
		TTY:       call.tty,
	}
}
