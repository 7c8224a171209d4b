package inventory_test

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/inventory"
)

func opDeployment(name string, replicas int32) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name, UID: types.UID("uid-" + name)},
		Spec:   appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}},
		Status: appsv1.DeploymentStatus{Replicas: replicas, ReadyReplicas: replicas}}
}

// readOnly is a client that runs read-only.
type readOnly struct{ *kube.Client }

func (readOnly) ReadOnly() bool { return true }

func TestActionKeys(t *testing.T) {
	client, _ := kubetest.FakeClient(t, opDeployment("api", 2), opDeployment("web", 3), opDeployment("worker", 1),
		testPod("demo", "web-7d9f-abcde", time.Hour, run, true, 0))
	m, _ := load(t, client, "deployments", "demo", 80, 8)
	// The cursor row: api.
	msg, ok := press(m, "r")().(views.OperateMsg)
	if !ok || msg.Action != kube.ActionRestart || len(msg.Targets) != 1 ||
		msg.Targets[0] != (kube.ObjectRef{Kind: kube.KindDeployments, Namespace: "demo", Name: "api", UID: "uid-api"}) {
		t.Fatalf("r: %#v", msg)
	}
	press(m, "j")
	if msg, _ := press(m, "s")().(views.OperateMsg); msg.Action != kube.ActionScale || msg.Replicas != 3 || msg.Targets[0].Name != "web" {
		t.Fatalf("s: %#v", msg)
	}
	for k, a := range map[string]kube.Action{"z": kube.ActionPause, "Z": kube.ActionResume, "B": kube.ActionUndo} {
		if msg, _ := press(m, k)().(views.OperateMsg); msg.Action != a {
			t.Errorf("%s: %#v", k, msg)
		}
	}
	if msg, _ := press(m, "R")().(views.OpenRolloutMsg); msg.Ref != (kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: "demo", Name: "web"}) {
		t.Errorf("R: %#v", msg)
	}
	// Marked rows: every one, in the order shown.
	press(m, "g", " ", "j", " ")
	msg, _ = press(m, "ctrl+d")().(views.OperateMsg)
	if msg.Action != kube.ActionDelete || len(msg.Targets) != 2 || msg.Targets[0].Name != "api" || msg.Targets[1].UID != "uid-worker" {
		t.Fatalf("ctrl+d on marked rows: %#v", msg)
	}

	// On a pod: delete; s opens the shell; r says it is not offered.
	p, _ := load(t, client, "pods", "demo", 80, 8)
	if msg, _ := press(p, "ctrl+d")().(views.OperateMsg); msg.Targets[0].Kind != kube.KindPods {
		t.Errorf("ctrl+d on a pod: %#v", msg)
	}
	if msg, _ := press(p, "s")().(views.OpenShellMsg); msg != (views.OpenShellMsg{Namespace: "demo", Pod: "web-7d9f-abcde", UID: "demo/web-7d9f-abcde"}) {
		t.Errorf("s on a pod: %#v", msg)
	}
	if st, _ := press(p, "r")().(views.StatusMsg); st.Text != "restart is not offered on pods (pods offer logs, shell, edit its owner, delete, port-forward)" {
		t.Errorf("r on a pod: %#v", st)
	}
}

func TestActionKeysReadOnly(t *testing.T) {
	client, cs := kubetest.FakeClient(t, opDeployment("web", 3))
	m, _ := load(t, readOnly{client}, "deployments", "demo", 80, 8)
	// The informers' own lists and watches go on in the background (one
	// landed during the keys once, under CI's load): only the requests
	// the keys could send are counted.
	sent := func() int {
		n := 0
		for _, a := range cs.Actions() {
			if v := a.GetVerb(); v != "list" && v != "watch" {
				n++
			}
		}
		return n
	}
	before := sent()
	// Each key says why on the status line and its refusal goes to the
	// history: read_only, on the row, nothing written.
	for _, k := range []string{"r", "s", "ctrl+d", "z", "Z", "B"} {
		out, ok := press(m, k)().(views.OutcomesMsg)
		st := out.Status
		if !ok || !st.Error || !strings.Contains(st.Text, "is disabled: kyyard runs read-only") {
			t.Errorf("%s in read-only mode: %#v", k, out)
			continue
		}
		if len(out.Outcomes) != 1 || out.Outcomes[0].Reason != kube.ReasonReadOnly || out.Outcomes[0].Written ||
			out.Outcomes[0].Op.Ref.Name != "web" || out.Outcomes[0].Detail != st.Text {
			t.Errorf("%s in read-only mode: outcomes %+v", k, out.Outcomes)
		}
	}
	if n := sent(); n != before {
		t.Errorf("read-only action keys sent %d requests", n-before)
	}
	var off int
	for _, b := range m.Bindings() {
		if strings.Contains(b.Help().Desc, "(off: read-only)") {
			off++
		}
	}
	if want := len(views.Actions) + 3; off != want { // every action, e (the workload form's apply), E (the YAML edit) and D (drain)
		t.Errorf("%d bindings shown disabled, want %d", off, want)
	}
}

// denying loads the Deployment demo/api on a client whose
// SelfSubjectAccessReviews deny verb and allow the rest; it returns the
// screen and its help, a binding per line.
func denying(t *testing.T, verb string) (*inventory.Model, string) {
	t.Helper()
	return denyingOn(t, "deployments", opDeployment("api", 2), func(ra *authorizationv1.ResourceAttributes) bool { return ra.Verb == verb })
}

// denyingOn loads kind in demo, holding obj, on a client whose
// SelfSubjectAccessReviews deny what deny says and allow the rest; it
// returns the screen and its help, a binding per line.
func denyingOn(t *testing.T, kind kube.Kind, obj runtime.Object, deny func(*authorizationv1.ResourceAttributes) bool) (*inventory.Model, string) {
	t.Helper()
	client, cs := kubetest.FakeClient(t, obj)
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(action k8stesting.Action) (bool, runtime.Object, error) {
		review := action.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview)
		if deny(review.Spec.ResourceAttributes) {
			return kubetest.DenyAccessReviews(action)
		}
		return kubetest.AllowAccessReviews(action)
	})
	m, _ := load(t, client, kind, "demo", 80, 8)
	var help []string
	for _, b := range m.Bindings() {
		help = append(help, b.Help().Key+" "+b.Help().Desc)
	}
	return m, strings.Join(help, "\n")
}

// TestForbiddenActionsAreOff: the API server denies delete of
// Deployments (a SelfSubjectAccessReview answered not allowed): the help
// marks ctrl+d off with the reason, ctrl+d says why and sends nothing,
// and restart, which is allowed, still asks.
func TestForbiddenActionsAreOff(t *testing.T) {
	m, h := denying(t, "delete")
	if !strings.Contains(h, "ctrl+d delete (off: forbidden)") || strings.Contains(h, "restart (off") {
		t.Fatalf("help:\n%s", h)
	}
	msg := press(m, "ctrl+d")()
	if out, ok := msg.(views.OutcomesMsg); !ok || !strings.Contains(out.Status.Text, "delete is disabled: you may not delete deployments in demo") ||
		len(out.Outcomes) != 1 || out.Outcomes[0].Reason != kube.ReasonForbidden || out.Outcomes[0].Op.Action != kube.ActionDelete {
		t.Fatalf("ctrl+d on a forbidden delete: %#v", msg)
	}
	if _, ok := press(m, "r")().(views.OperateMsg); !ok {
		t.Fatal("r no longer asks")
	}
}

// TestShellReadOnlyGoesToHistory: s on a pod in read-only mode opens no
// shell; the status line says why and the refusal goes to the history.
func TestShellReadOnlyGoesToHistory(t *testing.T) {
	client, cs := kubetest.FakeClient(t, testPod("demo", "web-7d9f-abcde", time.Hour, run, true, 0))
	p, _ := load(t, readOnly{client}, "pods", "demo", 80, 8)
	before := len(cs.Actions())
	out, ok := press(p, "s")().(views.OutcomesMsg)
	if !ok || !out.Status.Error || !strings.Contains(out.Status.Text, "no shell is opened") || len(out.Outcomes) != 1 ||
		out.Outcomes[0].Reason != kube.ReasonReadOnly || out.Outcomes[0].Op.Action != kube.ActionShell ||
		out.Outcomes[0].Op.Ref.Kind != kube.KindPods || out.Outcomes[0].Op.Ref.Name != "web-7d9f-abcde" {
		t.Fatalf("s on a pod in read-only mode: %#v", out)
	}
	if n := len(cs.Actions()) - before; n != 0 {
		t.Fatalf("s in read-only mode sent %d requests", n)
	}
}

// TestForbiddenEditIsOff: the API server denies patch of Deployments: the
// help marks e (the workload form, whose apply is that patch) off, as it
// marks restart, pause, resume and undo; e still opens the form, to look
// (the form says up front that applying is forbidden).
func TestForbiddenEditIsOff(t *testing.T) {
	m, h := denying(t, "patch")
	for _, want := range []string{"e edit (form, or YAML) (off: forbidden)", "r restart (marked: each) (off: forbidden)"} {
		if !strings.Contains(h, want) {
			t.Fatalf("no %q in the help:\n%s", want, h)
		}
	}
	if strings.Contains(h, "delete (off") {
		t.Fatalf("delete is allowed:\n%s", h)
	}
	if _, ok := press(m, "e")().(views.OpenWorkloadMsg); !ok {
		t.Fatal("e no longer opens the form")
	}
}

// TestForbiddenShellAndPortForwardAreOff: the account may not create
// pods/exec nor pods/portforward (the readonly kubeconfig's role): on pods
// the help marks s (the shell) and shift+f off, s refuses to the history
// and shift+f says why, with no dialog opened (the tester's trial: the
// port-forward dialog opened, and refused only after enter).
func TestForbiddenShellAndPortForwardAreOff(t *testing.T) {
	m, h := denyingOn(t, "pods", testPod("demo", "web-7d9f-abcde", time.Hour, run, true, 0), func(ra *authorizationv1.ResourceAttributes) bool {
		return ra.Subresource == "exec" || ra.Subresource == "portforward"
	})
	for _, want := range []string{"(pods: shell) (off: forbidden)", "shift+f port-forward (off: forbidden)"} {
		if !strings.Contains(h, want) {
			t.Fatalf("no %q in the help:\n%s", want, h)
		}
	}
	if strings.Contains(h, "delete (off") {
		t.Fatalf("delete is allowed:\n%s", h)
	}
	if out, ok := press(m, "s")().(views.OutcomesMsg); !ok || len(out.Outcomes) != 1 || out.Outcomes[0].Reason != kube.ReasonForbidden ||
		out.Outcomes[0].Op.Action != kube.ActionShell {
		t.Fatalf("s with exec forbidden: %#v", out)
	}
	if st, ok := press(m, "F")().(views.StatusMsg); !ok || !st.Error || !strings.Contains(st.Text, "port-forward is disabled") {
		t.Fatalf("shift+f with port-forward forbidden: %#v", st)
	}
}

// TestShellOffFollowsTheKindsCapability: s is the shell on every kind
// whose plugin declares kube.CanExec, not only on pods: on a pod's
// containers, with pods/exec forbidden, the help marks s off, as s then
// refuses.
func TestShellOffFollowsTheKindsCapability(t *testing.T) {
	_, h := denyingOn(t, kube.KindContainers, testPod("demo", "web-7d9f-abcde", time.Hour, run, true, 0), func(ra *authorizationv1.ResourceAttributes) bool {
		return ra.Subresource == "exec"
	})
	if !strings.Contains(h, "(pods: shell) (off: forbidden)") {
		t.Fatalf("s is not marked off on containers with exec forbidden:\n%s", h)
	}
	if strings.Contains(h, "port-forward (off") {
		t.Fatalf("port-forward is allowed:\n%s", h)
	}
}
