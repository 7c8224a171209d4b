package shells

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/internal/reviewtest"
	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/remotecommand"
)

func i64(v int64) *int64 { return &v }

// debugObjects are a namespace ns (enforce level label when not "") and
// a running pod "app-1" in it whose pod securityContext is psc and whose
// container "app" meets the restricted level, as a pod the API server
// admitted there does (runAsNonRoot on the container when psc does not set
// it).
func debugObjects(level string, psc *corev1.PodSecurityContext) []runtime.Object {
	objs := plainDebugObjects(level, psc)
	yes, no := true, false
	sc := &corev1.SecurityContext{AllowPrivilegeEscalation: &no, Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
	if psc == nil || psc.RunAsNonRoot == nil {
		sc.RunAsNonRoot = &yes
	}
	objs[1].(*corev1.Pod).Spec.Containers[0].SecurityContext = sc
	return objs
}

// plainDebugObjects are debugObjects with a container "app" without any
// securityContext (a pod made before its namespace's label).
func plainDebugObjects(level string, psc *corev1.PodSecurityContext) []runtime.Object {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}
	if level != "" {
		ns.Labels = map[string]string{guards.PodSecurityEnforceLabel: level}
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "app-1", Namespace: "ns", UID: "uid-1", ResourceVersion: "7"},
		Spec:       corev1.PodSpec{SecurityContext: psc, Containers: []corev1.Container{{Name: "app", Image: "distroless"}}},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
	return []runtime.Object{ns, pod}
}

// debugFake is a fake cluster for OpenDebug: the patches sent are kept,
// and once one is, the container reports state (nil: no status at all,
// as kwok).
type debugFake struct {
	mu      sync.Mutex
	patches [][]byte
	state   *corev1.ContainerState
}

func debugClient(t *testing.T, f *debugFake, objs ...runtime.Object) (*Shells, *fake.Clientset) {
	t.Helper()
	cs := fake.NewClientset(objs...)
	cs.PrependReactor("create", "selfsubjectaccessreviews", reviewtest.Allow)
	cs.PrependReactor("patch", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		p := a.(k8stesting.PatchAction)
		if p.GetSubresource() != "ephemeralcontainers" {
			t.Errorf("patch of subresource %q", p.GetSubresource())
		}
		f.mu.Lock()
		f.patches = append(f.patches, p.GetPatch())
		f.mu.Unlock()
		return false, nil, nil
	})
	cs.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		obj, err := cs.Tracker().Get(corev1.SchemeGroupVersion.WithResource("pods"), a.GetNamespace(), a.(k8stesting.GetAction).GetName())
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*corev1.Pod).DeepCopy()
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.state != nil {
			for _, ec := range pod.Spec.EphemeralContainers {
				pod.Status.EphemeralContainerStatuses = append(pod.Status.EphemeralContainerStatuses,
					corev1.ContainerStatus{Name: ec.Name, State: *f.state})
			}
		}
		return true, pod, nil
	})
	c := newShells(cs, options{})
	c.DebugStream = func(context.Context, *DebugSession, remotecommand.StreamOptions) (string, string, error) {
		return "websocket", "", nil
	}
	return c, cs
}

func running() *corev1.ContainerState {
	return &corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
}

// sentContainer decodes the ephemeral container of the first patch.
func sentContainer(t *testing.T, f *debugFake) corev1.EphemeralContainer {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.patches) != 1 {
		t.Fatalf("%d patches sent", len(f.patches))
	}
	var body struct {
		Metadata struct{ ResourceVersion string }
		Spec     struct{ EphemeralContainers []corev1.EphemeralContainer }
	}
	if err := json.Unmarshal(f.patches[0], &body); err != nil {
		t.Fatal(err)
	}
	if body.Metadata.ResourceVersion != "7" || len(body.Spec.EphemeralContainers) != 1 {
		t.Fatalf("patch %s", f.patches[0])
	}
	return body.Spec.EphemeralContainers[0]
}

// C44: a pod with runAsNonRoot in a namespace enforcing restricted gets a
// debug container the level admits; it runs, and the session attaches.
func TestC44DebugContainerUnderRestricted(t *testing.T) {
	yes := true
	f := &debugFake{state: running()}
	c, _ := debugClient(t, f, debugObjects("restricted", &corev1.PodSecurityContext{RunAsNonRoot: &yes})...)
	var progress []string
	s, err := c.OpenDebug(context.Background(), vocab.DebugRequest{Namespace: "ns", Pod: "app-1", UID: "uid-1", Target: "app"},
		func(p string) { progress = append(progress, p) })
	if err != nil {
		t.Fatal(err)
	}
	ec := sentContainer(t, f)
	if !regexp.MustCompile(`^debugger-[bcdfghjklmnpqrstvwxz2456789]{5}$`).MatchString(ec.Name) || s.Container() != ec.Name {
		t.Fatalf("name %q / %q", ec.Name, s.Container())
	}
	if ec.Image != vocab.DefaultDebugImage || ec.TargetContainerName != "app" || !ec.Stdin || !ec.TTY {
		t.Fatalf("container %+v", ec)
	}
	sc := ec.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" ||
		sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault ||
		sc.RunAsUser == nil || *sc.RunAsUser != debugNonRootUser {
		t.Fatalf("securityContext %+v", sc)
	}
	if last := progress[len(progress)-1]; !strings.Contains(last, "running") {
		t.Fatalf("progress %q", progress)
	}
}

// C44: the API server's rejection is shown in its own words.
func TestC44DebugAdmissionDenied(t *testing.T) {
	f := &debugFake{state: running()}
	c, cs := debugClient(t, f, debugObjects("restricted", nil)...)
	text := `pods "app-1" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false`
	cs.PrependReactor("patch", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "app-1", errors.New(text[len(`pods "app-1" is forbidden: `):]))
	})
	_, err := c.OpenDebug(context.Background(), vocab.DebugRequest{Namespace: "ns", Pod: "app-1", Target: "app"}, nil)
	var r *vocab.Refusal
	if !errors.As(err, &r) || r.Reason != vocab.ReasonAdmissionDenied || !strings.Contains(r.Detail, text) {
		t.Fatalf("rejection: %v", err)
	}
}

// C44: a container that never starts ends the wait with its reason.
func TestC44DebugNeverStarts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		state *corev1.ContainerState
		want  string
	}{
		{"back-off", &corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "Back-off pulling image"}}, "ImagePullBackOff: Back-off pulling image"},
		{"no status (kwok)", nil, "no status reported yet"},
		{"hopeless", &corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "InvalidImageName"}}, "InvalidImageName"},
		{"terminated", &corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 127, Reason: "Error"}}, "terminated (exit code 127, Error)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := debugClient(t, &debugFake{state: tc.state}, debugObjects("baseline", nil)...)
			var progress []string
			_, err := c.OpenDebug(context.Background(), vocab.DebugRequest{Namespace: "ns", Pod: "app-1", Target: "app", Image: "busybox:1.37",
				StartTimeout: 1200 * time.Millisecond}, func(p string) { progress = append(progress, p) })
			if !errors.Is(err, ErrDebugNotStarted) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if !strings.Contains(strings.Join(progress, "\n"), tc.want) {
				t.Fatalf("progress %q", progress)
			}
		})
	}
}

func TestDebugSecurityContextPerLevel(t *testing.T) {
	pod := func(podUser, targetUser *int64) *corev1.Pod {
		p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}}}
		if podUser != nil {
			p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: podUser}
		}
		if targetUser != nil {
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{RunAsUser: targetUser}
		}
		return p
	}
	for _, tc := range []struct {
		label    string
		pod      *corev1.Pod
		plain    bool
		wantUser *int64 // nil: inherited from the pod
	}{
		{"restricted", pod(nil, nil), false, i64(debugNonRootUser)},
		{"restricted", pod(i64(1000), nil), false, nil},
		{"restricted", pod(i64(1000), i64(2000)), false, i64(2000)},
		{"restricted", pod(nil, i64(3000)), false, i64(3000)},
		{"restricted", pod(i64(0), nil), false, i64(debugNonRootUser)},
		{"nonsense", pod(nil, nil), false, i64(debugNonRootUser)},
		{"baseline", pod(nil, nil), true, nil},
		{"privileged", pod(nil, nil), true, nil},
		{"", pod(nil, nil), true, nil},
	} {
		sc := debugSecurityContext(debugLevel(tc.label), tc.pod, "app")
		if tc.plain {
			if sc != nil {
				t.Errorf("%q: %+v, want a plain container", tc.label, sc)
			}
			continue
		}
		if sc == nil || !*sc.RunAsNonRoot || *sc.AllowPrivilegeEscalation || sc.Capabilities.Drop[0] != "ALL" ||
			sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
			t.Errorf("%q: %+v", tc.label, sc)
			continue
		}
		if (tc.wantUser == nil) != (sc.RunAsUser == nil) || tc.wantUser != nil && *tc.wantUser != *sc.RunAsUser {
			t.Errorf("%q %+v: runAsUser %v, want %v", tc.label, tc.pod.Spec, sc.RunAsUser, tc.wantUser)
		}
	}
}

// FuzzDebugSecurityContext: under any label but baseline and privileged,
// the debug container never runs as root.
func FuzzDebugSecurityContext(f *testing.F) {
	f.Add("restricted", int64(0), int64(0), false, false)
	f.Add("baseline", int64(1000), int64(0), true, false)
	f.Add("Restricted ", int64(0), int64(5), false, true)
	f.Fuzz(func(t *testing.T, label string, podUser, targetUser int64, setPod, setTarget bool) {
		p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}}}
		if setPod {
			p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: &podUser}
		}
		if setTarget {
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{RunAsUser: &targetUser}
		}
		level := debugLevel(label)
		sc := debugSecurityContext(level, p, "app")
		if level != guards.PodSecurityRestricted {
			return
		}
		user := sc.RunAsUser
		if user == nil && setPod && (!setTarget || targetUser == 0) {
			user = &podUser
		}
		if user == nil || *user == 0 || !*sc.RunAsNonRoot {
			t.Fatalf("%q pod %v/%v target %v/%v: %+v", label, setPod, podUser, setTarget, targetUser, sc)
		}
	})
}

func TestDebugGuards(t *testing.T) {
	ctx := context.Background()
	req := vocab.DebugRequest{Namespace: "ns", Pod: "app-1", UID: "uid-1", Target: "app"}

	// Read-only: refused before any request.
	f := &debugFake{state: running()}
	c, cs := debugClient(t, f, debugObjects("restricted", nil)...)
	c.Guards = guards.New(c.CS, vocab.PolicyInteractive, true)
	cs.ClearActions()
	if _, err := c.OpenDebug(ctx, req, nil); vocab.ReasonOf(err) != vocab.ReasonReadOnly || len(cs.Actions()) != 0 {
		t.Fatalf("read-only: %v, %d requests", err, len(cs.Actions()))
	}

	// Replaced, not running, no such target.
	c, cs = debugClient(t, f, debugObjects("restricted", nil)...)
	stale := req
	stale.UID = "uid-0"
	if _, err := c.OpenDebug(ctx, stale, nil); vocab.ReasonOf(err) != vocab.ReasonConflict || !strings.Contains(err.Error(), "replaced") {
		t.Fatalf("replaced: %v", err)
	}
	other := req
	other.Target = "nope"
	if _, err := c.OpenDebug(ctx, other, nil); vocab.ReasonOf(err) != vocab.ReasonInvalid {
		t.Fatalf("no target: %v", err)
	}
	gone := req
	gone.Pod = "gone"
	if _, err := c.OpenDebug(ctx, gone, nil); vocab.ReasonOf(err) != vocab.ReasonNotFound {
		t.Fatalf("gone: %v", err)
	}

	// Forbidden: no patch is sent.
	c, cs = debugClient(t, f, debugObjects("restricted", nil)...)
	cs.PrependReactor("create", "selfsubjectaccessreviews", reviewtest.Deny)
	vs, err := c.PlanDebug(ctx, req)
	if err != nil || vs.Refusal() == nil || vs.Refusal().Reason != vocab.ReasonForbidden ||
		!strings.Contains(vs.Refusal().Detail, "patch pods/ephemeralcontainers in ns") {
		t.Fatalf("forbidden: %+v %v", vs, err)
	}
	if _, err := c.OpenDebug(ctx, req, nil); vocab.ReasonOf(err) != vocab.ReasonForbidden || len(f.patches) != 0 {
		t.Fatalf("forbidden open: %v, %d patches", err, len(f.patches))
	}

	// No Pod Security level: a warning to confirm (strict: refused).
	c, _ = debugClient(t, f, debugObjects("", nil)...)
	if _, err := c.OpenDebug(ctx, req, nil); vocab.ReasonOf(err) != vocab.ReasonPodSecurity {
		t.Fatalf("unconfirmed: %v", err)
	}
	confirmed := req
	confirmed.Confirmed = []vocab.Reason{vocab.ReasonPodSecurity}
	if _, err := c.OpenDebug(ctx, confirmed, nil); err != nil {
		t.Fatalf("confirmed: %v", err)
	}
	if ec := sentContainer(t, f); ec.SecurityContext != nil {
		t.Fatalf("a privileged namespace got %+v", ec.SecurityContext)
	}
	c.Guards = guards.New(c.CS, vocab.PolicyStrict, false)
	vs, _ = c.PlanDebug(ctx, confirmed)
	if r := vs.Unconfirmed(confirmed.Confirmed); r == nil || r.Reason != vocab.ReasonPodSecurity {
		t.Fatalf("strict: %+v", vs)
	}

	// A malformed image is refused before anything is sent.
	bad := req
	bad.Image = "Busybox@123"
	if _, err := c.PlanDebug(ctx, bad); vocab.ReasonOf(err) != vocab.ReasonInvalid {
		t.Fatalf("bad image: %v", err)
	}
}

// TestDebugPlanChecksTheWholePod: the API server's Pod Security admission
// checks the whole pod when an ephemeral container is added, so a pod that
// does not meet its namespace's level (made before the label) gets no debug
// container however the debug container itself is made: the plan says so
// (a warning naming what the pod lacks; strict refuses) instead of passing
// and meeting the server's rejection. A pod that meets the level passes.
func TestDebugPlanChecksTheWholePod(t *testing.T) {
	ctx := context.Background()
	req := vocab.DebugRequest{Namespace: "ns", Pod: "app-1", UID: "uid-1", Target: "app"}
	privileged := plainDebugObjects("baseline", nil)
	yes := true
	privileged[1].(*corev1.Pod).Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: &yes}
	cases := []struct {
		name string
		objs []runtime.Object
		want string // "" for no warning
	}{
		{"restricted, pod made before the label", plainDebugObjects("restricted", nil), "allowPrivilegeEscalation != false"},
		{"restricted, pod meets it", debugObjects("restricted", nil), ""},
		{"baseline, privileged pod", privileged, "privileged"},
		{"baseline, plain pod", plainDebugObjects("baseline", nil), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &debugFake{state: running()}
			c, _ := debugClient(t, f, tc.objs...)
			vs, err := c.PlanDebug(ctx, req)
			if err != nil || vs.Refusal() != nil {
				t.Fatalf("plan: %+v, %v", vs, err)
			}
			ws := vs.Warnings()
			if tc.want == "" {
				if len(ws) != 0 {
					t.Fatalf("warnings %+v for a pod that meets the level", ws)
				}
				return
			}
			if len(ws) != 1 || ws[0].Reason != vocab.ReasonPodSecurity || !strings.Contains(ws[0].Sentence, tc.want) ||
				!strings.Contains(ws[0].Sentence, "pod app-1 with the debug container does not meet it") {
				t.Fatalf("warnings %+v; want one pod_security warning naming %q", ws, tc.want)
			}
			if _, err := c.OpenDebug(ctx, req, nil); vocab.ReasonOf(err) != vocab.ReasonPodSecurity || len(f.patches) != 0 {
				t.Fatalf("unconfirmed open: %v, %d patches", err, len(f.patches))
			}
			c.Guards = guards.New(c.CS, vocab.PolicyStrict, false)
			vs, _ = c.PlanDebug(ctx, req)
			if r := vs.Refusal(); r == nil || r.Reason != vocab.ReasonPodSecurity {
				t.Fatalf("strict: %+v", vs)
			}
		})
	}
}

// exitErr is what client-go's executors return for a non-zero exit.
type exitErr int

func (e exitErr) Error() string   { return "command terminated" }
func (e exitErr) ExitStatus() int { return int(e) }

func TestDebugSessionRun(t *testing.T) {
	ctx := context.Background()
	open := func(t *testing.T, state *corev1.ContainerState, stream DebugStreamer) vocab.ExecSession {
		f := &debugFake{state: running()}
		c, _ := debugClient(t, f, debugObjects("restricted", nil)...)
		s, err := c.OpenDebug(ctx, vocab.DebugRequest{Namespace: "ns", Pod: "app-1", Target: "app"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		f.mu.Lock()
		f.state = state
		f.mu.Unlock()
		c.DebugStream = stream
		return s
	}
	echo := func(_ context.Context, _ *DebugSession, o remotecommand.StreamOptions) (string, string, error) {
		line, _ := io.ReadAll(io.LimitReader(o.Stdin, 3))
		o.Stdout.Write(append([]byte("you said "), line...))
		if o.TerminalSizeQueue != nil {
			if sz := o.TerminalSizeQueue.Next(); sz == nil || sz.Width != 120 {
				return "spdy", "upgrade refused", errors.New("no size")
			}
		}
		return "spdy", "websocket upgrade refused (403)", nil
	}

	// The kubelet reports the container terminated: its exit code.
	s := open(t, &corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3}}, echo)
	var out bytes.Buffer
	res, err := s.Run(ctx, vocab.ExecStreams{Stdin: strings.NewReader("hey"), Stdout: &out, Sizes: fixedSize{120, 40}}, vocab.ExecLimits{})
	if err != nil || res.ExitCode != 3 || out.String() != "you said hey" || res.Transport != "spdy" || res.Fallback == "" {
		t.Fatalf("terminated: %+v %v %q", res, err, out.String())
	}
	if _, err := s.Run(ctx, vocab.ExecStreams{}, vocab.ExecLimits{}); !errors.Is(err, vocab.ErrExecClosed) {
		t.Fatalf("second run: %v", err)
	}

	// Still running after the stream closed: the exit status is unknown.
	s = open(t, running(), echo)
	if _, err := s.Run(ctx, vocab.ExecStreams{Stdin: strings.NewReader("hey"), Stdout: io.Discard}, vocab.ExecLimits{}); !errors.Is(err, vocab.ErrExecClosed) {
		t.Fatalf("still running: %v", err)
	}

	// An exit code the stream reports.
	s = open(t, running(), func(context.Context, *DebugSession, remotecommand.StreamOptions) (string, string, error) {
		return "websocket", "", exitErr(5)
	})
	if res, err := s.Run(ctx, vocab.ExecStreams{}, vocab.ExecLimits{}); err != nil || res.ExitCode != 5 {
		t.Fatalf("exit 5: %+v %v", res, err)
	}

	// A stream never established: the setup limit.
	block := func(ctx context.Context, _ *DebugSession, _ remotecommand.StreamOptions) (string, string, error) {
		<-ctx.Done()
		return "websocket", "", ctx.Err()
	}
	s = open(t, running(), block)
	if _, err := s.Run(ctx, vocab.ExecStreams{Stdin: strings.NewReader("")}, vocab.ExecLimits{Setup: 200 * time.Millisecond}); !errors.Is(err, vocab.ErrExecSetup) {
		t.Fatalf("setup: %v", err)
	}
	// Established (it asked for the size) but idle, then the lifetime.
	sized := func(ctx context.Context, _ *DebugSession, o remotecommand.StreamOptions) (string, string, error) {
		o.TerminalSizeQueue.Next()
		<-ctx.Done()
		return "websocket", "", ctx.Err()
	}
	s = open(t, running(), sized)
	if _, err := s.Run(ctx, vocab.ExecStreams{Sizes: fixedSize{80, 24}}, vocab.ExecLimits{Idle: 200 * time.Millisecond}); !errors.Is(err, vocab.ErrExecIdle) {
		t.Fatalf("idle: %v", err)
	}
	s = open(t, running(), sized)
	if _, err := s.Run(ctx, vocab.ExecStreams{Sizes: fixedSize{80, 24}}, vocab.ExecLimits{Lifetime: 200 * time.Millisecond}); !errors.Is(err, vocab.ErrExecLifetime) {
		t.Fatalf("lifetime: %v", err)
	}
	if n := s.Note(); !strings.Contains(n, s.Container()) || len(s.Argv()) == 0 {
		t.Fatalf("note %q argv %q", n, s.Argv())
	}
}

// fixedSize is a size queue of one size.
type fixedSize vocab.TerminalSize

func (f fixedSize) Next() *vocab.TerminalSize { s := vocab.TerminalSize(f); return &s }

// The real attach needs a REST config.
func TestDebugUnavailable(t *testing.T) {
	cs := fake.NewClientset(debugObjects("restricted", nil)...)
	c := newShells(cs, options{})
	if _, err := c.OpenDebug(context.Background(), vocab.DebugRequest{Namespace: "ns", Pod: "app-1", Target: "app"}, nil); !errors.Is(err, vocab.ErrExecUnavailable) {
		t.Fatalf("%v", err)
	}
	if len(cs.Actions()) != 0 {
		t.Fatalf("requests sent: %v", cs.Actions())
	}
}

// Once the patch was sent, OpenDebug's every error says so (a
// *DebugAddedError naming the container): a container that never starts,
// and a wait cancelled (the screen left with esc). A refusal before the
// patch is not one.
func TestDebugErrorsAfterThePatchSayItWasAdded(t *testing.T) {
	c, _ := debugClient(t, &debugFake{}, debugObjects("baseline", nil)...)
	req := vocab.DebugRequest{Namespace: "ns", Pod: "app-1", Target: "app", Image: "busybox:1.37", StartTimeout: 1200 * time.Millisecond}
	_, err := c.OpenDebug(context.Background(), req, nil)
	var added *DebugAddedError
	if !errors.As(err, &added) || added.Unsure || !strings.HasPrefix(added.Container, "debugger-") || added.Image != "busybox:1.37" ||
		!errors.Is(err, ErrDebugNotStarted) || !strings.Contains(err.Error(), "stays until the pod ends") {
		t.Fatalf("never started: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	req.StartTimeout = time.Minute
	_, err = c.OpenDebug(ctx, req, func(p string) {
		if strings.Contains(p, "no status reported yet") {
			cancel()
		}
	})
	if !errors.As(err, &added) || added.Unsure || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled while waiting: %v", err)
	}
	stale := req
	stale.UID = "not-the-uid"
	if _, err := c.OpenDebug(context.Background(), stale, nil); errors.As(err, &added) || vocab.ReasonOf(err) != vocab.ReasonConflict {
		t.Fatalf("refused before the patch: %v", err)
	}
}

// namespaceGets counts the gets of Namespace objects among cs's actions.
func namespaceGets(cs *fake.Clientset) int {
	n := 0
	for _, a := range cs.Actions() {
		if a.GetVerb() == "get" && a.GetResource().Resource == "namespaces" {
			n++
		}
	}
	return n
}

// TestPlansReadTheNamespaceOnce: a debug container's plan judges the
// namespace's Pod Security level and checks the whole pod against it from
// one read of the Namespace (it read it twice), and so does a shell's.
func TestPlansReadTheNamespaceOnce(t *testing.T) {
	ctx := context.Background()
	f := &debugFake{state: running()}
	c, cs := debugClient(t, f, debugObjects("baseline", nil)...)
	cs.ClearActions()
	if _, err := c.PlanDebug(ctx, vocab.DebugRequest{Namespace: "ns", Pod: "app-1", UID: "uid-1", Target: "app"}); err != nil {
		t.Fatal(err)
	}
	if n := namespaceGets(cs); n != 1 {
		t.Errorf("a debug plan read the namespace %d times; want 1", n)
	}
	e, ecs, _ := execClient(t, options{}, true, "kyyard-shell sh /bin/sh\n", nil, execPod("u1", "web"), execNamespace(""))
	ecs.ClearActions()
	if _, err := e.PlanExec(ctx, vocab.ExecRequest{Namespace: "shop", Pod: "web-x2k", UID: "u1"}); err != nil {
		t.Fatal(err)
	}
	if n := namespaceGets(ecs); n != 1 {
		t.Errorf("a shell's plan read the namespace %d times; want 1", n)
	}
}
