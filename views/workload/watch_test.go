package workload

import (
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sfake "k8s.io/client-go/kubernetes/fake"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// twoWritersFixture is deployments/web in demo (replicas 2, container app
// with env A=1 and FOO=a0) and its namespace, whose Pod Security level
// the guards read.
func twoWritersFixture() (*appsv1.Deployment, *corev1.Namespace) {
	two := int32(2)
	labels := map[string]string{"app": "web"}
	return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "demo", UID: "u1", ResourceVersion: "100", Generation: 1},
			Spec: appsv1.DeploymentSpec{Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1",
						Env: []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "FOO", Value: "a0"}}}}}}}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "demo",
			Labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}}}
}

// openTwoWriters opens the form over kube's own Client on a fake
// clientset holding twoWritersFixture.
func openTwoWriters(t *testing.T, w, ht int) (*harness, *k8sfake.Clientset) {
	t.Helper()
	d, ns := twoWritersFixture()
	client, cs := kubetest.FakeClient(t, d, ns)
	h := openAs(t, nil, client, webRef, w, ht)
	if h.m.mode != modeForm {
		t.Fatalf("not open: %v", h.m.loadErr)
	}
	return h, cs
}

// otherWriter is a second writer's change of deployments/web: edit on the
// object, its resourceVersion moved and (spec) its generation raised, as
// the API server moves them.
func otherWriter(t *testing.T, cs *k8sfake.Clientset, spec bool, edit func(d *appsv1.Deployment)) {
	t.Helper()
	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	obj, err := cs.Tracker().Get(gvr, "demo", "web")
	if err != nil {
		t.Fatal(err)
	}
	d := obj.(*appsv1.Deployment).DeepCopy()
	edit(d)
	rv, _ := strconv.Atoi(d.ResourceVersion)
	d.ResourceVersion = strconv.Itoa(rv + 1)
	if spec {
		d.Generation++
	}
	if err := cs.Tracker().Update(gvr, d, "demo"); err != nil {
		t.Fatal(err)
	}
}

func setFOO(v string) func(d *appsv1.Deployment) {
	return func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Env[1].Value = v }
}

func setReplicas(n int32) func(d *appsv1.Deployment) {
	return func(d *appsv1.Deployment) { d.Spec.Replicas = &n }
}

// flat is the view's words joined by single spaces (lines wrap at spaces).
func flat(v string) string { return strings.Join(strings.Fields(v), " ") }

// typeFOO types "a" into env FOO's value.
func typeFOO(h *harness) {
	h.t.Helper()
	h.focusOn(fkEnvValue, 0, 1)
	h.replace("a")
}

// TestFormShowsServerChangeAtOnce: the form read FOO=a0 and the person
// typed "a"; another writer sets FOO=b and replicas 5. The next re-read
// says at once, in the form, that the server's object changed, that FOO
// is "b" there now against the person's "a", and that the other change
// does not touch their fields; the preview's refusal and its history
// entry say the same; r rebases (C21) and the line is gone.
func TestFormShowsServerChangeAtOnce(t *testing.T) {
	h, cs := openTwoWriters(t, 80, 24)
	typeFOO(h)
	h.reread()
	if strings.Contains(h.view(), "server now") {
		t.Fatalf("a line before anyone wrote:\n%s", h.view())
	}
	otherWriter(t, cs, true, func(d *appsv1.Deployment) { setFOO("b")(d); setReplicas(5)(d) })
	h.reread()
	want := `container app env FOO: server now "b", yours "a"; the other change (replicas 2 → 5) does not touch your fields`
	if v := flat(h.view()); !strings.Contains(v, "the server's deployments/web changed since you read it (resourceVersion 100 is now 101, generation 1 is now 2)") ||
		!strings.Contains(v, want) {
		t.Fatalf("the form does not say what the server changed:\n%s", h.view())
	}
	h.goldens("watch_clash")

	h.press("ctrl+s")
	if v := flat(h.view()); !strings.Contains(v, want) || !strings.Contains(v, "(conflict)") || strings.Contains(v, "r reads it again keeping your edits") {
		t.Fatalf("the preview's refusal does not name the clash (once):\n%s", h.view())
	}
	if o := h.oneReported(); o.Reason != kube.ReasonConflict || o.Written || !strings.Contains(o.Detail, want) || !strings.Contains(o.Detail, "not sent") {
		t.Fatalf("history %+v", o)
	}
	h.press("r")
	if h.m.mode != modeForm || h.m.form.base.ResourceVersion != "101" || strings.Contains(h.view(), "server now") {
		t.Fatalf("after r:\n%s", h.view())
	}
	if c := h.m.form.clashes[clashKey("app", "env FOO")]; c.Before != "b" || c.After != "a" {
		t.Fatalf("FOO not marked as a clash after r: %+v", h.m.form.clashes)
	}
}

// TestFormShowsServerChangeUntouched: the other writer changed only
// replicas: the form says the person's fields are untouched, and after r
// the apply lands with both changes (C21); a resourceVersion moved by
// status alone says nothing.
func TestFormShowsServerChangeUntouched(t *testing.T) {
	h, cs := openTwoWriters(t, 80, 24)
	typeFOO(h)
	otherWriter(t, cs, false, func(*appsv1.Deployment) {}) // status only
	h.reread()
	if strings.Contains(h.view(), "changed since you read it") {
		t.Fatalf("a status move is told as a write:\n%s", h.view())
	}
	otherWriter(t, cs, true, setReplicas(5))
	h.reread()
	want := "your fields are untouched: the server's change (replicas 2 → 5) does not touch them"
	if v := flat(h.view()); !strings.Contains(v, want) || !strings.Contains(v, "ctrl+r reads it again keeping your edits") {
		t.Fatalf("the form does not say the fields are untouched:\n%s", h.view())
	}
	h.goldens("watch_untouched")
	h.press("ctrl+r")
	h.press("ctrl+s")
	if p := h.m.pv; p == nil || p.blocked() != "" {
		t.Fatalf("preview after r:\n%s", h.view())
	}
	h.press("enter")
	d, err := cs.AppsV1().Deployments("demo").Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil || *d.Spec.Replicas != 5 || d.Spec.Template.Spec.Containers[0].Env[1].Value != "a" {
		t.Fatalf("after the rebased apply: %v %+v", err, d.Spec)
	}
}

// TestApplyRefusalNamesTheClash: the preview was accepted; then the other
// writer sets FOO=b: the next re-read says so on the preview; enter is
// refused as a conflict that names the clash, on the preview and in the
// history, and nothing is written.
func TestApplyRefusalNamesTheClash(t *testing.T) {
	h, cs := openTwoWriters(t, 100, 30)
	typeFOO(h)
	h.press("ctrl+s")
	if p := h.m.pv; p == nil || p.blocked() != "" {
		t.Fatalf("preview:\n%s", h.view())
	}
	otherWriter(t, cs, true, setFOO("b"))
	want := `container app env FOO: server now "b", yours "a"; nothing else the form shows changed`
	h.reread()
	if v := flat(h.view()); !strings.Contains(v, want) || !strings.Contains(v, "r reads it again keeping your edits") {
		t.Fatalf("the preview does not say at once what the server changed:\n%s", h.view())
	}
	h.press("enter")
	if v := flat(h.view()); !strings.Contains(v, "✗ apply refused") || !strings.Contains(v, want) {
		t.Fatalf("the apply's refusal does not name the clash:\n%s", h.view())
	}
	if o := h.oneReported(); o.Reason != kube.ReasonConflict || o.Written || !strings.Contains(o.Detail, want) {
		t.Fatalf("history %+v", o)
	}
	d, _ := cs.AppsV1().Deployments("demo").Get(t.Context(), "web", metav1.GetOptions{})
	if got := d.Spec.Template.Spec.Containers[0].Env[1].Value; got != "b" {
		t.Fatalf("the refused apply wrote FOO=%s", got)
	}
}
