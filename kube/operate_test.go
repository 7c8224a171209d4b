package kube_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// opNamespace enforces Pod Security baseline, so that guard passes.
func opNamespace() *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "demo",
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}}}
}

func opDeployment(name string) *appsv1.Deployment {
	two := int32(2)
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "demo", UID: types.UID("uid-" + name), ResourceVersion: "10", Generation: 3,
			Annotations: map[string]string{"deployment.kubernetes.io/revision": "2"}},
		Spec: appsv1.DeploymentSpec{Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:2"}}}}},
	}
}

func opStatefulSet(scaled, deleted appsv1.PersistentVolumeClaimRetentionPolicyType) *appsv1.StatefulSet {
	three := int32(3)
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "demo", UID: "uid-db", ResourceVersion: "20", Generation: 1},
		Spec: appsv1.StatefulSetSpec{Replicas: &three, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
			PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenScaled: scaled, WhenDeleted: deleted},
			VolumeClaimTemplates:                 []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}}}},
	}
}

func opClaims() []runtime.Object {
	var out []runtime.Object
	for _, n := range []string{"data-db-0", "data-db-1", "data-db-2", "data-dbx-1", "other"} {
		out = append(out, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: "demo"}})
	}
	return out
}

// opClient is a Client over a fake clientset holding objs (and the demo
// namespace) under policy, answering every access review with allowed.
func opClient(t *testing.T, opts kube.Options, objs ...runtime.Object) (*kube.Client, *fake.Clientset) {
	cs := fake.NewClientset(append([]runtime.Object{opNamespace()}, objs...)...)
	cs.PrependReactor("create", "selfsubjectaccessreviews", kubetest.AllowAccessReviews)
	opts.Registry = kinds.Builtin()
	c := kube.NewFromClientset(cs, opts)
	t.Cleanup(c.Close)
	cs.ClearActions()
	return c, cs
}

func refOf(kind kube.Kind, o metav1.Object) kube.ObjectRef {
	return kube.ObjectRef{Kind: kind, Namespace: o.GetNamespace(), Name: o.GetName(), UID: string(o.GetUID())}
}

// writesOf returns the fake's write actions (access reviews aside).
func writesOf(cs *fake.Clientset) []k8stesting.Action {
	var out []k8stesting.Action
	for _, a := range cs.Actions() {
		switch a.GetVerb() {
		case "create":
			if a.GetResource().Resource == "selfsubjectaccessreviews" {
				continue
			}
		case "patch", "update", "delete":
		default:
			continue
		}
		out = append(out, a)
	}
	return out
}

func reviewsOf(cs *fake.Clientset) []authorizationv1.ResourceAttributes {
	var out []authorizationv1.ResourceAttributes
	for _, a := range cs.Actions() {
		if a.GetVerb() == "create" && a.GetResource().Resource == "selfsubjectaccessreviews" {
			out = append(out, *a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).Spec.ResourceAttributes)
		}
	}
	return out
}

func wantRefusal(t *testing.T, out kube.OperateOutcome, err error, want kube.Reason) {
	t.Helper()
	var r *kube.Refusal
	if !errors.As(err, &r) || r.Reason != want || out.Reason != want || out.Written {
		t.Fatalf("outcome %+v, error %v; want a %s refusal", out, err, want)
	}
}

func onePatch(t *testing.T, cs *fake.Clientset) k8stesting.PatchAction {
	t.Helper()
	ws := writesOf(cs)
	if len(ws) != 1 || ws[0].GetVerb() != "patch" {
		t.Fatalf("writes %v, want one patch", ws)
	}
	return ws[0].(k8stesting.PatchAction)
}

func TestOperateRestartStampsRestartedAt(t *testing.T) {
	for _, obj := range []runtime.Object{opDeployment("web"), opStatefulSet("Retain", "Retain"),
		&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "demo", UID: "uid-agent", ResourceVersion: "7"}}} {
		c, cs := opClient(t, kube.Options{}, obj)
		m := obj.(metav1.Object)
		var kind kube.Kind
		switch obj.(type) {
		case *appsv1.Deployment:
			kind = kube.KindDeployments
		case *appsv1.StatefulSet:
			kind = kube.KindStatefulSets
		case *appsv1.DaemonSet:
			kind = kube.KindDaemonSets
		}
		before := time.Now().Truncate(time.Second)
		out, err := c.Operate(context.Background(), kube.Operation{Ref: refOf(kind, m), Action: kube.ActionRestart})
		if err != nil || !out.OK() || !out.Written {
			t.Fatalf("%s restart: %+v %v", kind, out, err)
		}
		p := onePatch(t, cs)
		if p.GetPatchType() != types.StrategicMergePatchType || p.GetResource().Resource != string(kind) {
			t.Fatalf("patch %s of %s", p.GetPatchType(), p.GetResource())
		}
		var body struct {
			Metadata struct{ ResourceVersion string }
			Spec     struct {
				Template struct {
					Metadata struct{ Annotations map[string]string }
				}
			}
		}
		if err := json.Unmarshal(p.GetPatch(), &body); err != nil {
			t.Fatal(err)
		}
		at, err := time.Parse(time.RFC3339, body.Spec.Template.Metadata.Annotations[kube.RestartedAtAnnotation])
		if err != nil || at.Before(before) || body.Metadata.ResourceVersion != m.GetResourceVersion() {
			t.Fatalf("%s restart patch %s", kind, p.GetPatch())
		}
		if rv := reviewsOf(cs); len(rv) != 1 || rv[0].Verb != "patch" || rv[0].Group != "apps" || rv[0].Resource != string(kind) || rv[0].Namespace != "demo" {
			t.Fatalf("access reviews %+v", rv)
		}
	}
}

func TestC31PausedRestart(t *testing.T) {
	d := opDeployment("web")
	d.Spec.Paused = true
	c, cs := opClient(t, kube.Options{}, d)
	out, err := c.Operate(context.Background(), kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionRestart,
		Confirmed: []kube.Reason{kube.ReasonPaused}})
	wantRefusal(t, out, err, kube.ReasonPaused)
	if out.Detail != "can't restart paused deployment (run rollout resume first)" {
		t.Fatalf("detail %q, want kubectl's", out.Detail)
	}
	if ws := writesOf(cs); len(ws) != 0 {
		t.Fatalf("a paused restart wrote %v", ws)
	}
}

// scaleReactor answers an update of a scale subresource, keeping the Scale.
func scaleReactor(got *[]*autoscalingv1.Scale) k8stesting.ReactionFunc {
	return func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "scale" {
			return false, nil, nil
		}
		s := a.(k8stesting.UpdateAction).GetObject().(*autoscalingv1.Scale).DeepCopy()
		*got = append(*got, s)
		out := s.DeepCopy()
		out.ResourceVersion = "99"
		return true, out, nil
	}
}

func TestOperateScaleThroughTheScaleSubresource(t *testing.T) {
	d := opDeployment("web")
	c, cs := opClient(t, kube.Options{}, d)
	var scales []*autoscalingv1.Scale
	cs.PrependReactor("update", "deployments", scaleReactor(&scales))
	out, err := c.Operate(context.Background(), kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionScale, Replicas: 5})
	if err != nil || out.ResourceVersion != "99" || out.Detail != "scaled demo/deployments/web from 2 to 5 replicas" {
		t.Fatalf("scale: %+v %v", out, err)
	}
	if len(scales) != 1 || scales[0].Spec.Replicas != 5 || scales[0].ResourceVersion != "10" {
		t.Fatalf("scale updates %+v", scales)
	}
	if rv := reviewsOf(cs); len(rv) != 1 || rv[0].Verb != "update" || rv[0].Resource != "deployments" || rv[0].Subresource != "scale" {
		t.Fatalf("access reviews %+v", rv)
	}
	cs.ClearActions()
	if out, err := c.Operate(context.Background(), kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionScale, Replicas: 2}); err != nil || out.Written {
		t.Fatalf("scale to the same replicas: %+v %v", out, err)
	}
	if ws := writesOf(cs); len(ws) != 0 {
		t.Fatalf("a scale to the same replicas wrote %v", ws)
	}
}

// TestOperateScaleSeesAScaleInBetween: the scale dialog showed 3 replicas
// and the person asked for 5; someone scaled to 7 in between (the tester's
// trial: kubectl scale while the dialog was open). The scale is refused as
// a conflict naming both counts and nothing is written, as kubectl scale
// --current-replicas refuses; with the replicas seen unchanged it is done.
func TestOperateScaleSeesAScaleInBetween(t *testing.T) {
	d := opDeployment("web") // 2 replicas
	c, cs := opClient(t, kube.Options{}, d)
	var scales []*autoscalingv1.Scale
	cs.PrependReactor("update", "deployments", scaleReactor(&scales))
	seen := int32(3)
	out, err := c.Operate(context.Background(), kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionScale, Replicas: 5, CurrentReplicas: &seen})
	if err == nil || out.Written || out.Reason != kube.ReasonConflict || len(scales) != 0 ||
		!strings.Contains(out.Detail, "has 2 replicas now, not the 3 you saw") {
		t.Fatalf("a scale over one made in between: %+v %v, %d writes", out, err, len(scales))
	}
	seen = 2
	if out, err := c.Operate(context.Background(), kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionScale, Replicas: 5, CurrentReplicas: &seen}); err != nil || !out.Written || len(scales) != 1 {
		t.Fatalf("a scale from the replicas seen: %+v %v", out, err)
	}
}

func TestOperateRefusedBeforeAnyRequest(t *testing.T) {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "demo", UID: "uid-agent"}}
	d := opDeployment("web")
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "demo", UID: "uid-p"}}
	ten := int64(10)
	for name, op := range map[string]kube.Operation{
		"daemonset scale":     {Ref: refOf(kube.KindDaemonSets, ds), Action: kube.ActionScale, Replicas: 1},
		"replicas above max":  {Ref: refOf(kube.KindDeployments, d), Action: kube.ActionScale, Replicas: kube.MaxReplicas + 1},
		"negative replicas":   {Ref: refOf(kube.KindDeployments, d), Action: kube.ActionScale, Replicas: -1},
		"pod restart":         {Ref: refOf(kube.KindPods, pod), Action: kube.ActionRestart},
		"statefulset pause":   {Ref: kube.ObjectRef{Kind: kube.KindStatefulSets, Namespace: "demo", Name: "db", UID: "u"}, Action: kube.ActionPause},
		"force with grace":    {Ref: refOf(kube.KindPods, pod), Action: kube.ActionDelete, Force: true, GracePeriodSeconds: &ten},
		"grace on deployment": {Ref: refOf(kube.KindDeployments, d), Action: kube.ActionDelete, GracePeriodSeconds: &ten},
	} {
		c, cs := opClient(t, kube.Options{}, ds, d, pod)
		out, err := c.Operate(context.Background(), op)
		wantRefusal(t, out, err, kube.ReasonInvalid)
		if len(cs.Actions()) != 0 {
			t.Errorf("%s: requests %v", name, cs.Actions())
		}
	}
}

func TestOperateReadOnlySendsNothing(t *testing.T) {
	d := opDeployment("web")
	c, cs := opClient(t, kube.Options{ReadOnly: true}, d)
	for _, a := range []kube.Action{kube.ActionRestart, kube.ActionScale, kube.ActionDelete, kube.ActionPause, kube.ActionResume, kube.ActionUndo} {
		out, err := c.Operate(context.Background(), kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: a, Replicas: 1})
		wantRefusal(t, out, err, kube.ReasonReadOnly)
	}
	if len(cs.Actions()) != 0 {
		t.Fatalf("read-only sent %v", cs.Actions())
	}
}

func TestOperateForbidden(t *testing.T) {
	d := opDeployment("web")
	c, cs := opClient(t, kube.Options{}, d)
	cs.PrependReactor("create", "selfsubjectaccessreviews", kubetest.DenyAccessReviews)
	out, err := c.Operate(context.Background(), kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionDelete})
	wantRefusal(t, out, err, kube.ReasonForbidden)
	if !strings.Contains(out.Detail, "you may not delete deployments in demo") {
		t.Fatalf("detail %q", out.Detail)
	}
	for _, a := range cs.Actions() {
		if a.GetResource().Resource != "selfsubjectaccessreviews" {
			t.Fatalf("a forbidden action sent %s %s", a.GetVerb(), a.GetResource())
		}
	}
}

func TestOperateConflicts(t *testing.T) {
	d := opDeployment("web")
	ctx := context.Background()
	t.Run("uid changed", func(t *testing.T) {
		c, cs := opClient(t, kube.Options{}, d)
		ref := refOf(kube.KindDeployments, d)
		ref.UID = "an-older-uid"
		out, err := c.Operate(ctx, kube.Operation{Ref: ref, Action: kube.ActionRestart})
		wantRefusal(t, out, err, kube.ReasonConflict)
		if len(writesOf(cs)) != 0 {
			t.Fatal("wrote")
		}
	})
	t.Run("resourceVersion and generation moved", func(t *testing.T) {
		c, _ := opClient(t, kube.Options{}, d)
		ref := refOf(kube.KindDeployments, d)
		ref.ResourceVersion, ref.Generation = "8", 2
		out, err := c.Operate(ctx, kube.Operation{Ref: ref, Action: kube.ActionRestart})
		wantRefusal(t, out, err, kube.ReasonConflict)
	})
	t.Run("only status moved", func(t *testing.T) {
		c, _ := opClient(t, kube.Options{}, d)
		ref := refOf(kube.KindDeployments, d)
		ref.ResourceVersion, ref.Generation = "8", 3
		if _, err := c.Operate(ctx, kube.Operation{Ref: ref, Action: kube.ActionPause}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("409 of a writer", func(t *testing.T) {
		c, cs := opClient(t, kube.Options{}, d)
		gr := schema.GroupResource{Group: "apps", Resource: "deployments"}
		cs.PrependReactor("patch", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
			moved := d.DeepCopy()
			moved.Generation, moved.ResourceVersion = 4, "12"
			_ = cs.Tracker().Update(appsv1.SchemeGroupVersion.WithResource("deployments"), moved, "demo")
			return true, nil, apierrors.NewConflict(gr, "web", errors.New("the object has been modified"))
		})
		out, err := c.Operate(ctx, kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionRestart})
		wantRefusal(t, out, err, kube.ReasonConflict)
		if n := len(writesOf(cs)); n != 1 {
			t.Fatalf("%d patches, want 1 (no retry of a writer's conflict)", n)
		}
	})
	t.Run("409 of a status race is retried", func(t *testing.T) {
		c, cs := opClient(t, kube.Options{}, d)
		gr := schema.GroupResource{Group: "apps", Resource: "deployments"}
		var bodies []string
		cs.PrependReactor("patch", "deployments", func(a k8stesting.Action) (bool, runtime.Object, error) {
			bodies = append(bodies, string(a.(k8stesting.PatchAction).GetPatch()))
			if len(bodies) > 1 {
				return false, nil, nil
			}
			moved := d.DeepCopy()
			moved.ResourceVersion = "11"
			_ = cs.Tracker().Update(appsv1.SchemeGroupVersion.WithResource("deployments"), moved, "demo")
			return true, nil, apierrors.NewConflict(gr, "web", errors.New("the object has been modified"))
		})
		if _, err := c.Operate(ctx, kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionPause}); err != nil {
			t.Fatal(err)
		}
		if len(bodies) != 2 || !strings.Contains(bodies[1], `"resourceVersion":"11"`) {
			t.Fatalf("patches %v", bodies)
		}
	})
}

func TestOperatePauseResume(t *testing.T) {
	d := opDeployment("web")
	c, cs := opClient(t, kube.Options{}, d)
	ctx := context.Background()
	if _, err := c.Operate(ctx, kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionPause}); err != nil {
		t.Fatal(err)
	}
	if got := string(onePatch(t, cs).GetPatch()); got != `{"metadata":{"resourceVersion":"10"},"spec":{"paused":true}}` {
		t.Fatalf("pause patch %s", got)
	}
	cs.ClearActions()
	// Before the person confirms, the verdicts say there is nothing to do
	// (they said "kubectl would allow pause", which kubectl refuses).
	verdicts, err := c.PlanOperation(ctx, kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionPause})
	if nothing, ok := verdicts.NothingToDo(); err != nil || !ok || nothing != "demo/deployments/web already paused: nothing to send" {
		t.Fatalf("plan of a second pause: %+v %v", verdicts, err)
	}
	out, err := c.Operate(ctx, kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionPause})
	if err != nil || out.Written || out.Detail != "demo/deployments/web already paused" || len(writesOf(cs)) != 0 {
		t.Fatalf("second pause: %+v %v", out, err)
	}
	if _, err := c.Operate(ctx, kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionResume}); err != nil {
		t.Fatal(err)
	}
	if got := string(onePatch(t, cs).GetPatch()); !strings.Contains(got, `"spec":{"paused":false}`) {
		t.Fatalf("resume patch %s", got)
	}
}

func replicaSetOf(d *appsv1.Deployment, rev, image, hash string) *appsv1.ReplicaSet {
	yes := true
	tmpl := *d.Spec.Template.DeepCopy()
	tmpl.Labels = map[string]string{"app": d.Name, "pod-template-hash": hash}
	tmpl.Spec.Containers[0].Image = image
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: d.Name + "-" + hash, Namespace: d.Namespace, Labels: tmpl.Labels,
			Annotations:     map[string]string{"deployment.kubernetes.io/revision": rev, "team": "shop-" + rev},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID, Controller: &yes}}},
		Spec: appsv1.ReplicaSetSpec{Template: tmpl},
	}
}

func TestOperateUndoAsKubectl(t *testing.T) {
	d := opDeployment("web")
	d.Annotations["kubectl.kubernetes.io/last-applied-configuration"] = "{}"
	c, cs := opClient(t, kube.Options{}, d, replicaSetOf(d, "1", "app:1", "aaa"), replicaSetOf(d, "2", "app:2", "bbb"))
	out, err := c.Operate(context.Background(), kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionUndo})
	if err != nil || out.Detail != "rolled back demo/deployments/web to revision 1" {
		t.Fatalf("undo: %+v %v", out, err)
	}
	p := onePatch(t, cs)
	if p.GetPatchType() != types.JSONPatchType {
		t.Fatalf("patch type %s", p.GetPatchType())
	}
	var ops []struct {
		Op, Path string
		Value    json.RawMessage
	}
	if err := json.Unmarshal(p.GetPatch(), &ops); err != nil || len(ops) != 3 {
		t.Fatalf("patch %s", p.GetPatch())
	}
	if ops[0].Path != "/metadata/resourceVersion" || string(ops[0].Value) != `"10"` {
		t.Fatalf("precondition %+v", ops[0])
	}
	var tmpl corev1.PodTemplateSpec
	_ = json.Unmarshal(ops[1].Value, &tmpl)
	if ops[1].Path != "/spec/template" || tmpl.Spec.Containers[0].Image != "app:1" || tmpl.Labels["pod-template-hash"] != "" || tmpl.Labels["app"] != "web" {
		t.Fatalf("template %+v", ops[1])
	}
	var ann map[string]string
	_ = json.Unmarshal(ops[2].Value, &ann)
	want := map[string]string{"deployment.kubernetes.io/revision": "2", "kubectl.kubernetes.io/last-applied-configuration": "{}", "team": "shop-1"}
	if ops[2].Path != "/metadata/annotations" || len(ann) != len(want) {
		t.Fatalf("annotations %v, want %v", ann, want)
	}
	for k, v := range want {
		if ann[k] != v {
			t.Fatalf("annotations %v, want %v", ann, want)
		}
	}
}

func TestOperateUndoRefusals(t *testing.T) {
	d := opDeployment("web")
	c, _ := opClient(t, kube.Options{}, d, replicaSetOf(d, "2", "app:2", "bbb"))
	out, err := c.Operate(context.Background(), kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionUndo})
	wantRefusal(t, out, err, kube.ReasonNotFound)
	if out.Detail != `no rollout history found for deployment "web"` {
		t.Fatalf("detail %q", out.Detail)
	}
	paused := opDeployment("web")
	paused.Spec.Paused = true
	c, _ = opClient(t, kube.Options{}, paused, replicaSetOf(d, "1", "app:1", "aaa"), replicaSetOf(d, "2", "app:2", "bbb"))
	out, err = c.Operate(context.Background(), kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionUndo})
	wantRefusal(t, out, err, kube.ReasonPaused)
	c, cs := opClient(t, kube.Options{}, d, replicaSetOf(d, "1", "app:2", "aaa"), replicaSetOf(d, "2", "app:2", "bbb"))
	out, err = c.Operate(context.Background(), kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionUndo})
	if err != nil || out.Written || out.Detail != "skipped rollback (current template already matches revision 1)" || len(writesOf(cs)) != 0 {
		t.Fatalf("undo to the same template: %+v %v", out, err)
	}
}

func TestOperateDeletePreconditions(t *testing.T) {
	d := opDeployment("web")
	grace := func(v int64) *int64 { return &v }
	owned := true
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "demo", UID: "uid-pod", ResourceVersion: "5",
		Labels:          map[string]string{"app.kubernetes.io/managed-by": "Helm"},
		OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-x", UID: "rs", Controller: &owned}}}}
	cases := []struct {
		name      string
		op        kube.Operation
		wantGrace *int64
		wantRV    bool
	}{
		{"deployment", kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionDelete}, nil, true},
		{"pod graceful", kube.Operation{Ref: refOf(kube.KindPods, pod), Action: kube.ActionDelete}, nil, false},
		{"pod grace 5", kube.Operation{Ref: refOf(kube.KindPods, pod), Action: kube.ActionDelete, GracePeriodSeconds: grace(5)}, grace(5), false},
		{"pod grace 0 is 1", kube.Operation{Ref: refOf(kube.KindPods, pod), Action: kube.ActionDelete, GracePeriodSeconds: grace(0)}, grace(1), false},
		{"pod forced", kube.Operation{Ref: refOf(kube.KindPods, pod), Action: kube.ActionDelete, Force: true}, grace(0), false},
	}
	for _, tc := range cases {
		c, cs := opClient(t, kube.Options{Policy: kube.PolicyStrict}, d, pod)
		out, err := c.Operate(context.Background(), tc.op)
		if err != nil || out.Detail == "" {
			t.Fatalf("%s: %+v %v", tc.name, out, err)
		}
		ws := writesOf(cs)
		if len(ws) != 1 || ws[0].GetVerb() != "delete" {
			t.Fatalf("%s: writes %v", tc.name, ws)
		}
		opts := ws[0].(k8stesting.DeleteAction).GetDeleteOptions()
		pre := opts.Preconditions
		if pre == nil || pre.UID == nil || string(*pre.UID) != tc.op.Ref.UID || (pre.ResourceVersion != nil) != tc.wantRV ||
			opts.PropagationPolicy == nil || *opts.PropagationPolicy != metav1.DeletePropagationBackground {
			t.Fatalf("%s: options %+v", tc.name, opts)
		}
		if (opts.GracePeriodSeconds == nil) != (tc.wantGrace == nil) || (tc.wantGrace != nil && *opts.GracePeriodSeconds != *tc.wantGrace) {
			t.Fatalf("%s: grace %v, want %v", tc.name, opts.GracePeriodSeconds, tc.wantGrace)
		}
	}
}

func TestC32DeleteManagedByHelm(t *testing.T) {
	d := opDeployment("shop")
	d.Labels = map[string]string{"app.kubernetes.io/managed-by": "Helm"}
	d.Annotations["meta.helm.sh/release-name"] = "shop"
	op := kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionDelete}
	c, cs := opClient(t, kube.Options{}, d)
	vs, err := c.PlanOperation(context.Background(), op)
	if err != nil {
		t.Fatal(err)
	}
	var managed kube.Verdict
	for _, v := range vs {
		if v.Guard == kube.GuardManaged {
			managed = v
		}
	}
	if managed.Outcome != kube.OutcomeWarn || managed.Confirm != "shop" || !strings.Contains(managed.Sentence, "Helm (release shop)") {
		t.Fatalf("managed verdict %+v", managed)
	}
	out, err := c.Operate(context.Background(), op)
	wantRefusal(t, out, err, kube.ReasonApplicationManaged)
	if len(writesOf(cs)) != 0 {
		t.Fatal("an unconfirmed delete wrote")
	}
	op.Confirmed = []kube.Reason{kube.ReasonApplicationManaged}
	if _, err := c.Operate(context.Background(), op); err != nil {
		t.Fatalf("confirmed delete: %v", err)
	}
	strict, cs := opClient(t, kube.Options{Policy: kube.PolicyStrict}, d)
	out, err = strict.Operate(context.Background(), op)
	wantRefusal(t, out, err, kube.ReasonApplicationManaged)
	if len(writesOf(cs)) != 0 {
		t.Fatal("a strict delete of a Helm Deployment wrote")
	}
}

func TestC29ScaleUnderAnAutoscaler(t *testing.T) {
	d := opDeployment("web")
	hpa := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "web-hpa", Namespace: "demo"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}}}
	op := kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionScale, Replicas: 4}
	c, cs := opClient(t, kube.Options{}, d, hpa)
	var scales []*autoscalingv1.Scale
	cs.PrependReactor("update", "deployments", scaleReactor(&scales))
	vs, err := c.PlanOperation(context.Background(), op)
	if err != nil || !hasVerdict(vs, kube.GuardAutoscaler, kube.OutcomeWarn) {
		t.Fatalf("plan %+v %v", vs, err)
	}
	out, err := c.Operate(context.Background(), op)
	wantRefusal(t, out, err, kube.ReasonAutoscaled)
	op.Confirmed = []kube.Reason{kube.ReasonAutoscaled}
	if _, err := c.Operate(context.Background(), op); err != nil || len(scales) != 1 {
		t.Fatalf("confirmed scale: %v, %d scales", err, len(scales))
	}
	strict, _ := opClient(t, kube.Options{Policy: kube.PolicyStrict}, d, hpa)
	out, err = strict.Operate(context.Background(), op)
	wantRefusal(t, out, err, kube.ReasonAutoscaled)
}

func TestC30StatefulSetScaleDownClaims(t *testing.T) {
	sts := opStatefulSet("Delete", "Retain")
	op := kube.Operation{Ref: refOf(kube.KindStatefulSets, sts), Action: kube.ActionScale, Replicas: 1}
	c, _ := opClient(t, kube.Options{}, append(opClaims(), sts)...)
	vs, err := c.PlanOperation(context.Background(), op)
	if err != nil {
		t.Fatal(err)
	}
	var claims kube.Verdict
	for _, v := range vs {
		if v.Guard == kube.GuardClaims {
			claims = v
		}
	}
	if claims.Outcome != kube.OutcomeWarn || claims.Confirm != "db" || !strings.Contains(claims.Sentence, "data-db-1, data-db-2 ") {
		t.Fatalf("claims verdict %+v", claims)
	}
	strict, cs := opClient(t, kube.Options{Policy: kube.PolicyStrict}, append(opClaims(), sts)...)
	out, err := strict.Operate(context.Background(), op)
	wantRefusal(t, out, err, kube.ReasonPVCRetention)
	if len(writesOf(cs)) != 0 {
		t.Fatal("a refused scale-down wrote")
	}
}

func TestOperateDeleteStatefulSetClaims(t *testing.T) {
	op := func(sts *appsv1.StatefulSet) kube.Operation {
		return kube.Operation{Ref: refOf(kube.KindStatefulSets, sts), Action: kube.ActionDelete}
	}
	sts := opStatefulSet("Retain", "Delete")
	strict, cs := opClient(t, kube.Options{Policy: kube.PolicyStrict}, append(opClaims(), sts)...)
	out, err := strict.Operate(context.Background(), op(sts))
	wantRefusal(t, out, err, kube.ReasonPVCRetention)
	if !strings.Contains(out.Detail, "data-db-0, data-db-1, data-db-2 ") || len(writesOf(cs)) != 0 {
		t.Fatalf("detail %q, writes %v", out.Detail, writesOf(cs))
	}
	kept := opStatefulSet("Delete", "Retain")
	strict, _ = opClient(t, kube.Options{Policy: kube.PolicyStrict}, append(opClaims(), kept)...)
	if _, err := strict.Operate(context.Background(), op(kept)); err != nil {
		t.Fatalf("delete keeping the claims: %v", err)
	}
}
