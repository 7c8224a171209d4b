package kube_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// conflictBase is a Deployment's form as read: replicas 2, container app
// with image app:1 and env A=1, FOO=a0, Z=z, each entry numbered as a read
// numbers it.
func conflictBase() kube.Workload {
	return kube.Workload{Ref: kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: "demo", Name: "web"},
		UID: "u1", ResourceVersion: "100", Generation: 1, HasReplicas: true, Replicas: 2,
		Containers: []kube.Container{{Name: "app", Image: "app:1", Resources: kube.Resources{CPURequest: "100m"}, Env: []kube.EnvVar{
			{Name: "A", Source: kube.EnvLiteral, Value: "1", Read: 1},
			{Name: "FOO", Source: kube.EnvLiteral, Value: "a0", Read: 2},
			{Name: "Z", Source: kube.EnvLiteral, Value: "z", Read: 3},
		}}}}
}

// copyOf copies w deeply enough to edit its first container.
func copyOf(w kube.Workload) kube.Workload {
	w.Containers = append([]kube.Container(nil), w.Containers...)
	w.Containers[0].Env = append([]kube.EnvVar(nil), w.Containers[0].Env...)
	return w
}

// TestConflictOfNamesClashesAndOthers: a conflict names each field the
// person changed that the server changed too, with the server's value now
// and the person's, and says whether the server's other changes touch the
// person's fields.
func TestConflictOfNamesClashesAndOthers(t *testing.T) {
	base := conflictBase()
	yours := func(edit func(w *kube.Workload)) kube.Workload { w := copyOf(base); edit(&w); return w }
	server := func(edit func(w *kube.Workload)) kube.Workload {
		w := copyOf(base)
		w.ResourceVersion, w.Generation = "101", 2
		edit(&w)
		return w
	}
	fooA := func(w *kube.Workload) { w.Containers[0].Env[1].Value = "a" }
	for _, tc := range []struct {
		name            string
		edited, fresh   kube.Workload
		want            []string
		clashes, others int
	}{
		{"both changed FOO, the server replicas too", yours(fooA),
			server(func(w *kube.Workload) { w.Containers[0].Env[1].Value = "b"; w.Replicas = 5 }),
			[]string{`container app env FOO: server now "b", yours "a"; the other change (replicas 2 → 5) does not touch your fields`}, 1, 1},
		{"both changed FOO, nothing else", yours(fooA),
			server(func(w *kube.Workload) { w.Containers[0].Env[1].Value = "b" }),
			[]string{`container app env FOO: server now "b", yours "a"; nothing else the form shows changed`}, 1, 0},
		{"the server changed replicas only", yours(fooA),
			server(func(w *kube.Workload) { w.Replicas = 5 }),
			[]string{`your fields are untouched: the server's change (replicas 2 → 5) does not touch them`}, 0, 1},
		{"the server changed what the form does not show", yours(fooA), server(func(*kube.Workload) {}),
			[]string{"your fields are untouched: what changed is outside the form's fields"}, 0, 0},
		{"the server added an entry before FOO: an addition, not renames", yours(fooA),
			server(func(w *kube.Workload) {
				w.Containers[0].Env = append([]kube.EnvVar{{Name: "NEW", Source: kube.EnvLiteral, Value: "n", Read: 1}}, w.Containers[0].Env...)
				for i := range w.Containers[0].Env {
					w.Containers[0].Env[i].Read = i + 1
				}
			}),
			[]string{`your fields are untouched: the server's change (container app env NEW (none) → "n") does not touch them`}, 0, 1},
		{"a renamed entry touches both its names", yours(func(w *kube.Workload) { w.Containers[0].Env[1].Name = "BAR" }),
			server(func(w *kube.Workload) { w.Containers[0].Env[1].Value = "b"; w.Containers[0].Image = "app:3" }),
			[]string{`container app env BAR: server now "b", yours "a0"`, `the other change (container app image "app:1" → "app:3") does not touch your fields`}, 1, 1},
		{"a removed entry the server changed", yours(func(w *kube.Workload) { w.Containers[0].Env = w.Containers[0].Env[:1] }),
			server(func(w *kube.Workload) {
				w.Containers[0].Env[1].Value = "b"
				w.Containers[0].Resources.CPURequest = "250m"
			}),
			[]string{`container app env FOO: server now "b", yours (removed)`, "the other change (container app cpu request 100m → 250m) does not touch your fields"}, 1, 1},
		{"many other changes are counted", yours(fooA),
			server(func(w *kube.Workload) {
				w.Replicas, w.Containers[0].Image = 5, "app:3"
				w.Containers[0].Env[0].Value, w.Containers[0].Env[2].Value = "2", "y"
				w.Containers[0].Resources.CPURequest = "1"
			}),
			[]string{"your fields are untouched: the server's 5 changes (replicas 2 → 5, ", ", and 2 more) do not touch them"}, 0, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := kube.ConflictOf(base, tc.edited, tc.fresh)
			if !c.Written() || len(c.Clashes) != tc.clashes || len(c.Others) != tc.others {
				t.Fatalf("written %v, clashes %+v, others %+v", c.Written(), c.Clashes, c.Others)
			}
			for _, w := range tc.want {
				if !strings.Contains(c.Text(), w) {
					t.Errorf("text %q\nwant %q", c.Text(), w)
				}
			}
		})
	}
	statusOnly := copyOf(base)
	statusOnly.ResourceVersion = "101"
	if c := kube.ConflictOf(base, yours(fooA), statusOnly); c.Written() {
		t.Errorf("a resourceVersion moved by status alone is told as a write: %+v", c)
	}
	again := copyOf(base)
	again.UID, again.ResourceVersion = "u2", "300"
	if c := kube.ConflictOf(base, yours(fooA), again); !c.Written() || !c.Recreated || !strings.Contains(c.Text(), "created again") {
		t.Errorf("a recreated object: %+v %q", c, c.Text())
	}
}

// conflictDeployment is conflictBase as the API server holds it.
func conflictDeployment() *appsv1.Deployment {
	two := int32(2)
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "demo", UID: "u1", ResourceVersion: "100", Generation: 1},
		Spec: appsv1.DeploymentSpec{Replicas: &two,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1",
					Env: []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "FOO", Value: "a0"}, {Name: "Z", Value: "z"}}}}}}}}
}

// write is another writer's change of deployments/web: its spec edited,
// its resourceVersion and generation moved as the API server moves them.
func write(t *testing.T, cs *fake.Clientset, edit func(d *appsv1.Deployment)) {
	t.Helper()
	obj, err := cs.Tracker().Get(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, "demo", "web")
	if err != nil {
		t.Fatal(err)
	}
	d := obj.(*appsv1.Deployment).DeepCopy()
	edit(d)
	d.ResourceVersion, d.Generation = "101", d.Generation+1
	if err := cs.Tracker().Update(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, d, "demo"); err != nil {
		t.Fatal(err)
	}
}

// patches counts the PATCH requests (dry runs included) the fake received.
func patches(cs *fake.Clientset) int {
	n := 0
	for _, a := range cs.Actions() {
		if a.GetVerb() == "patch" {
			n++
		}
	}
	return n
}

// TestConflictRefusalNamesTheClash: the form read env FOO=a0 and the person
// typed "a"; another writer set FOO=b (or only replicas) first. The
// preview's fresh guard and the apply refuse as a conflict, sending no
// patch, and name the clash with the server's value now and the person's,
// or say the person's fields are untouched.
func TestConflictRefusalNamesTheClash(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writer func(d *appsv1.Deployment)
		want   string
	}{
		{"the writer set FOO", func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Env[1].Value = "b"
			five := int32(5)
			d.Spec.Replicas = &five
		}, `container app env FOO: server now "b", yours "a"; the other change (replicas 2 → 5) does not touch your fields`},
		{"the writer set replicas only", func(d *appsv1.Deployment) {
			five := int32(5)
			d.Spec.Replicas = &five
		}, `your fields are untouched: the server's change (replicas 2 → 5) does not touch them`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, cs := kubetest.FakeClient(t, conflictDeployment())
			ctx := context.Background()
			before, err := c.ReadWorkload(ctx, kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: "demo", Name: "web"})
			if err != nil {
				t.Fatal(err)
			}
			after := copyOf(before)
			after.Containers[0].Env[1].Value = "a"
			write(t, cs, tc.writer)
			p, err := c.DryRun(ctx, before, after)
			if err != nil {
				t.Fatal(err)
			}
			r := p.Verdicts.Refusal()
			if r == nil || r.Reason != kube.ReasonConflict || !strings.Contains(r.Detail, "(generation 1 is now 2): "+tc.want) {
				t.Fatalf("preview's refusal %+v\nwant %q", r, tc.want)
			}
			_, err = c.ApplyWorkload(ctx, before, after, []kube.Reason{kube.ReasonPodSecurity})
			if !errors.As(err, &r) || r.Reason != kube.ReasonConflict || !strings.Contains(r.Detail, tc.want) {
				t.Fatalf("apply: %v\nwant %q", err, tc.want)
			}
			if n := patches(cs); n != 0 {
				t.Fatalf("a refused preview and apply sent %d patches", n)
			}
		})
	}
}

// TestConflict409NamesTheClash: the writer lands between the apply's fresh
// read and its patch, which the API server answers 409: the object read
// again names the clash as the guard does, and nothing is written.
func TestConflict409NamesTheClash(t *testing.T) {
	c, cs := kubetest.FakeClient(t, conflictDeployment())
	ctx := context.Background()
	before, err := c.ReadWorkload(ctx, kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: "demo", Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	after := copyOf(before)
	after.Containers[0].Env[1].Value = "a"
	sent := 0
	cs.PrependReactor("patch", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
		sent++
		write(t, cs, func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Env[1].Value = "b" })
		return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", errors.New("the object has been modified"))
	})
	_, err = c.ApplyWorkload(ctx, before, after, []kube.Reason{kube.ReasonPodSecurity})
	var r *kube.Refusal
	want := `container app env FOO: server now "b", yours "a"; nothing else the form shows changed`
	if !errors.As(err, &r) || r.Reason != kube.ReasonConflict || !strings.Contains(r.Detail, want) {
		t.Fatalf("apply answered 409: %v\nwant %q", err, want)
	}
	if sent != 1 {
		t.Fatalf("%d patches sent, want the one answered 409", sent)
	}
}
