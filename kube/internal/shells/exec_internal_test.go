package shells

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/remotecommand"
)

// execPod is a Running pod with running containers named names.
func execPod(uid string, names ...string) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-x2k", UID: "uid-" + "web"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	if uid != "" {
		pod.UID = types.UID(uid)
	}
	for _, n := range names {
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: n, Image: "img"})
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, corev1.ContainerStatus{Name: n,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}})
	}
	return pod
}

func execNamespace(level string) *corev1.Namespace {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}
	if level != "" {
		ns.Labels = map[string]string{guards.PodSecurityEnforceLabel: level}
	}
	return ns
}

// options are the kube.Options a test's Shells is built from.
type options struct {
	Policy   vocab.Policy
	ReadOnly bool
	Shell    []string
}

// newShells returns a Shells over cs with the guards and shell of o, as
// kube.Client builds it (without a REST config).
func newShells(cs kubernetes.Interface, o options) *Shells {
	return &Shells{CS: cs, Guards: guards.New(cs, o.Policy, o.ReadOnly), Shell: o.Shell}
}

// execClient is a Shells over a fake clientset holding objs, answering
// access reviews with allow, whose streams run the probe's fake: it prints
// probeOut (or fails with probeErr) for the probe and ends with exit 0
// for anything else.
func execClient(t *testing.T, opts options, allow bool, probeOut string, probeErr error, objs ...runtime.Object) (*Shells, *fake.Clientset, *fakeDialer) {
	cs := fake.NewClientset(objs...)
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).DeepCopy()
		r.Status.Allowed = allow
		return true, r, nil
	})
	c := newShells(cs, opts)
	d := &fakeDialer{run: func(call Call) func(context.Context, remotecommand.StreamOptions, func()) error {
		return func(ctx context.Context, o remotecommand.StreamOptions, up func()) error {
			up()
			if probeErr != nil {
				return probeErr
			}
			if call.argv[0] == "sh" && call.argv[1] == "-c" {
				_, _ = io.WriteString(o.Stdout, probeOut)
			}
			return nil
		}
	}}
	c.Dial = d.dial
	return c, cs, d
}

const bothShells = "kyyard-shell bash /bin/bash\nkyyard-shell sh /bin/sh\n"

func TestOpenExecGuards(t *testing.T) {
	privileged := execPod("u1", "web")
	yes := true
	privileged.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: &yes}
	pending := execPod("u1", "web")
	pending.Status.Phase = corev1.PodPending
	waiting := execPod("u1", "web")
	waiting.Status.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}
	cases := []struct {
		name    string
		opts    options
		deny    bool
		objs    []runtime.Object
		req     vocab.ExecRequest
		want    error
		reason  vocab.Reason
		sayIn   string
		noReads bool
	}{
		{name: "read-only refuses before any request", opts: options{ReadOnly: true}, objs: []runtime.Object{execPod("u1", "web"), execNamespace("baseline")},
			req: vocab.ExecRequest{UID: "u1"}, reason: vocab.ReasonReadOnly, noReads: true},
		{name: "forbidden", deny: true, objs: []runtime.Object{execPod("u1", "web"), execNamespace("baseline")},
			req: vocab.ExecRequest{UID: "u1"}, want: vocab.ErrExecForbidden, reason: vocab.ReasonForbidden, sayIn: "create pods/exec in shop"},
		{name: "pod replaced", objs: []runtime.Object{execPod("u2", "web"), execNamespace("baseline")},
			req: vocab.ExecRequest{UID: "u1"}, want: vocab.ErrExecPodReplaced, reason: vocab.ReasonConflict, sayIn: "UID changed"},
		{name: "pod pending", objs: []runtime.Object{pending, execNamespace("baseline")},
			req: vocab.ExecRequest{UID: "u1"}, want: vocab.ErrExecNotRunning, reason: vocab.ReasonNotRunning, sayIn: "Pending, not Running"},
		{name: "container waiting", objs: []runtime.Object{waiting, execNamespace("baseline")},
			req: vocab.ExecRequest{UID: "u1"}, want: vocab.ErrExecNotRunning, reason: vocab.ReasonNotRunning, sayIn: "CrashLoopBackOff"},
		{name: "no such container", objs: []runtime.Object{execPod("u1", "web"), execNamespace("baseline")},
			req: vocab.ExecRequest{UID: "u1", Container: "db"}, want: vocab.ErrExecPodReplaced, reason: vocab.ReasonConflict, sayIn: "no container db"},
		{name: "strict: namespace without enforce label", opts: options{Policy: vocab.PolicyStrict}, objs: []runtime.Object{execPod("u1", "web"), execNamespace("")},
			req: vocab.ExecRequest{UID: "u1"}, want: vocab.ErrExecPodSecurity, reason: vocab.ReasonPodSecurity, sayIn: "namespace shop enforces no Pod Security level: a shell here is not bounded by baseline"},
		{name: "interactive: unconfirmed warning", objs: []runtime.Object{execPod("u1", "web"), execNamespace("privileged")},
			req: vocab.ExecRequest{UID: "u1"}, want: vocab.ErrExecPodSecurity, reason: vocab.ReasonPodSecurity, sayIn: "not confirmed"},
		{name: "privileged pod in a baseline namespace", objs: []runtime.Object{privileged, execNamespace("baseline")},
			req: vocab.ExecRequest{UID: "u1"}, want: vocab.ErrExecPodSecurity, reason: vocab.ReasonPodSecurity, sayIn: "pod web-x2k does not meet baseline: privileged"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, cs, d := execClient(t, tc.opts, !tc.deny, bothShells, nil, tc.objs...)
			tc.req.Namespace, tc.req.Pod = "shop", "web-x2k"
			s, err := c.OpenExec(context.Background(), tc.req)
			if err == nil {
				t.Fatalf("OpenExec opened %v; want a refusal", s.Argv())
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("error %v; want %v", err, tc.want)
			}
			if got := vocab.ReasonOf(err); got != tc.reason {
				t.Fatalf("ReasonOf(%v) = %s, want %s", err, got, tc.reason)
			}
			if !strings.Contains(err.Error(), tc.sayIn) {
				t.Fatalf("error %q does not say %q", err, tc.sayIn)
			}
			if strings.Contains(err.Error(), "pods this creates") {
				t.Fatalf("error %q speaks of pods a shell does not create", err)
			}
			if len(d.calls) != 0 {
				t.Fatalf("a refused exec ran %d streams", len(d.calls))
			}
			if tc.noReads && len(cs.Actions()) != 0 {
				t.Fatalf("read-only sent %d requests", len(cs.Actions()))
			}
		})
	}
}

func TestOpenExecChoosesShell(t *testing.T) {
	objs := []runtime.Object{execPod("u1", "web"), execNamespace("restricted")}
	c, _, d := execClient(t, options{}, true, "kyyard-shell bash \nkyyard-shell sh /bin/sh\n", nil, objs...)
	s, err := c.OpenExec(context.Background(), vocab.ExecRequest{Namespace: "shop", Pod: "web-x2k", UID: "u1", TTY: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Argv(), []string{"/bin/sh"}) || s.Note() != "bash not found, using sh" || s.Container() != "web" {
		t.Fatalf("session %q in %s, note %q", s.Argv(), s.Container(), s.Note())
	}
	probe := d.calls[0]
	if probe.tty || probe.stdin || probe.argv[0] != "sh" {
		t.Fatalf("probe %+v: want sh without a TTY and without stdin", probe)
	}
	res, err := s.Run(context.Background(), vocab.ExecStreams{Stdout: io.Discard}, vocab.ExecLimits{})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if run := d.calls[1]; !run.tty || !slices.Equal(run.argv, []string{"/bin/sh"}) {
		t.Fatalf("session call %+v", run)
	}
}

func TestOpenExecConfirmedAndConfiguredShell(t *testing.T) {
	objs := []runtime.Object{execPod("u1", "web"), execNamespace("")}
	c, _, _ := execClient(t, options{Shell: []string{"zsh", "-l"}}, true,
		"kyyard-shell zsh /bin/zsh\nkyyard-shell bash /bin/bash\nkyyard-shell sh /bin/sh\n", nil, objs...)
	plan, err := c.PlanExec(context.Background(), vocab.ExecRequest{Namespace: "shop", Pod: "web-x2k", UID: "u1"})
	if err != nil || len(plan.Verdicts.Warnings()) != 1 || plan.Container != "web" {
		t.Fatalf("plan %+v, %v; want one Pod Security warning", plan, err)
	}
	s, err := c.OpenExec(context.Background(), vocab.ExecRequest{Namespace: "shop", Pod: "web-x2k", UID: "u1", Confirmed: []vocab.Reason{vocab.ReasonPodSecurity}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Argv(), []string{"/bin/zsh", "-l"}) || s.Note() != "" {
		t.Fatalf("argv %q note %q; want the configured shell", s.Argv(), s.Note())
	}
}

func TestOpenExecContainerChoice(t *testing.T) {
	pod := execPod("u1", "web", "sidecar")
	pod.Annotations = map[string]string{objects.DefaultContainerAnnotation: "sidecar"}
	c, _, _ := execClient(t, options{}, true, bothShells, nil, pod, execNamespace("baseline"))
	_, err := c.OpenExec(context.Background(), vocab.ExecRequest{Namespace: "shop", Pod: "web-x2k", UID: "u1"})
	var choice *vocab.ContainerChoiceError
	if !errors.As(err, &choice) || !slices.Equal(choice.Containers, []string{"web", "sidecar"}) || choice.DefaultContainer != "sidecar" {
		t.Fatalf("error %v; want a choice of web and sidecar, sidecar by default", err)
	}
	if _, err := c.OpenExec(context.Background(), vocab.ExecRequest{Namespace: "shop", Pod: "web-x2k", UID: "u1", Container: "sidecar"}); err != nil {
		t.Fatal(err)
	}
}

// TestOpenExecNoShell: an image without sh (casebook C16's kind): the
// runtime refuses the probe, and OpenExec says ErrExecNoShell.
func TestOpenExecNoShell(t *testing.T) {
	runtimeErr := errors.New(`Internal error occurred: error executing command in container: failed to exec in container: OCI runtime exec failed: exec failed: unable to start container process: exec: "sh": executable file not found in $PATH: unknown`)
	c, _, _ := execClient(t, options{}, true, "", runtimeErr, execPod("u1", "web"), execNamespace("baseline"))
	_, err := c.OpenExec(context.Background(), vocab.ExecRequest{Namespace: "shop", Pod: "web-x2k", UID: "u1"})
	if !errors.Is(err, vocab.ErrExecNoShell) {
		t.Fatalf("error %v; want ErrExecNoShell", err)
	}
	c, _, _ = execClient(t, options{}, true, "kyyard-shell bash \nkyyard-shell sh \n", nil, execPod("u1", "web"), execNamespace("baseline"))
	if _, err := c.OpenExec(context.Background(), vocab.ExecRequest{Namespace: "shop", Pod: "web-x2k", UID: "u1"}); !errors.Is(err, vocab.ErrExecNoShell) {
		t.Fatalf("error %v; want ErrExecNoShell", err)
	}
}

func TestOpenExecUnavailable(t *testing.T) {
	c := newShells(fake.NewClientset(), options{})
	if _, err := c.OpenExec(context.Background(), vocab.ExecRequest{Namespace: "shop", Pod: "web"}); !errors.Is(err, vocab.ErrExecUnavailable) {
		t.Fatalf("error %v; want ErrExecUnavailable", err)
	}
}
