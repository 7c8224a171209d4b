package kube_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// opEnv is a namespace of the test's own that enforces Pod Security
// baseline (so the strict policy's pod_security guard passes), the admin
// clientset for fixtures and writers in between, and kube.Clients each
// with a user agent of its own, to find their requests in the audit log.
type opEnv struct {
	t   *testing.T
	cfg *rest.Config
	cs  kubernetes.Interface
	ns  string
}

func newOpEnv(t *testing.T) *opEnv {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := kubetest.TempNamespace(t, cs, "kyyard-operate")
	n, err := cs.CoreV1().Namespaces().Get(context.Background(), ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Labels["pod-security.kubernetes.io/enforce"] = "baseline"
	if _, err := cs.CoreV1().Namespaces().Update(context.Background(), n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	return &opEnv{t: t, cfg: cfg, cs: cs, ns: ns}
}

// client returns a kube.Client over cfg with opts and a new user agent.
func (e *opEnv) client(cfg *rest.Config, opts kube.Options) (*kube.Client, string) {
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = fmt.Sprintf("kyyard-operate-%d", time.Now().UnixNano())
	opts.Registry = kinds.Builtin()
	c, err := kube.NewFromConfig(cfg, opts)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(c.Close)
	return c, cfg.UserAgent
}

// deployment creates a Deployment of 2 replicas of image on the fake nodes.
func (e *opEnv) deployment(name, image string) kube.WorkloadRef {
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr(int32(2)), Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: kwokPodSpec(image)}}}
	if _, err := e.cs.AppsV1().Deployments(e.ns).Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	return kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: e.ns, Name: name}
}

// seen returns what an inventory row shows of an object: its UID.
func (e *opEnv) seen(kind kube.Kind, namespace, name string) kube.ObjectRef {
	e.t.Helper()
	ctx := context.Background()
	var m metav1.Object
	var err error
	switch kind {
	case kube.KindDeployments:
		m, err = e.cs.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
	case kube.KindStatefulSets:
		m, err = e.cs.AppsV1().StatefulSets(namespace).Get(ctx, name, metav1.GetOptions{})
	case kube.KindPods:
		m, err = e.cs.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return kube.ObjectRef{Kind: kind, Namespace: namespace, Name: name, UID: string(m.GetUID())}
}

// settle waits until the Deployment's status stops moving (see
// editEnv.settle).
func (e *opEnv) settle(name string) *appsv1.Deployment {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	last, since := "", time.Now()
	for time.Now().Before(deadline) {
		d, err := e.cs.AppsV1().Deployments(e.ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil || d.Status.ObservedGeneration != d.Generation || d.ResourceVersion != last {
			if err == nil {
				last = d.ResourceVersion
			}
			since = time.Now()
		} else if time.Since(since) > time.Second {
			return d
		}
		time.Sleep(100 * time.Millisecond)
	}
	e.t.Fatalf("deployment %s did not settle", name)
	return nil
}

func (e *opEnv) operate(c *kube.Client, op kube.Operation) kube.OperateOutcome {
	e.t.Helper()
	out, err := c.Operate(context.Background(), op)
	if err != nil || !out.OK() {
		e.t.Fatalf("%s %s: %+v, %v", op.Action, op.Ref, out, err)
	}
	return out
}

func (e *opEnv) refused(c *kube.Client, op kube.Operation, want kube.Reason) kube.OperateOutcome {
	e.t.Helper()
	out, err := c.Operate(context.Background(), op)
	var r *kube.Refusal
	if !errors.As(err, &r) || r.Reason != want || out.Written {
		e.t.Fatalf("%s %s: %+v, %v; want %s", op.Action, op.Ref, out, err, want)
	}
	return out
}

// auditWrites returns agent's writes since (access reviews aside), after
// waiting a moment for the audit log to be flushed.
func auditWrites(t *testing.T, agent string, since time.Time) []auditWrite {
	t.Helper()
	path := os.Getenv(kubetest.AuditLogEnv)
	if path == "" {
		t.Fatalf("%s is not set", kubetest.AuditLogEnv)
	}
	time.Sleep(500 * time.Millisecond)
	return readWrites(t, path, agent, since)
}

// oneWrite checks that agent sent exactly one accepted write since (a 409
// of a status race aside), of verb on resource (and subresource), and
// returns it.
func oneWrite(t *testing.T, agent string, since time.Time, verb, resource string) auditWrite {
	t.Helper()
	var real []auditWrite
	for _, w := range auditWrites(t, agent, since) {
		if w.Response.Code != 409 {
			real = append(real, w)
		}
	}
	if len(real) != 1 || real[0].Verb != verb || real[0].ObjectRef == nil || real[0].ObjectRef.Resource != resource {
		t.Fatalf("writes %+v, want one %s of %s", real, verb, resource)
	}
	return real[0]
}

// TestE2EOperateRestartScalePauseUndo: restart rolls the Deployment to a
// new revision that completes; scale up and down through deployments/scale;
// pause (a paused restart is refused with kubectl's text, nothing
// written: C31) and resume; undo brings the previous image back.
func TestE2EOperateRestartScalePauseUndo(t *testing.T) {
	e := newOpEnv(t)
	ctx := context.Background()
	c, agent := e.client(e.cfg, kube.Options{Policy: kube.PolicyStrict})
	ref := e.deployment("web", "nginx:1.27.3")
	rolloutWatch(t, c, ref, complete)
	seen := e.seen(kube.KindDeployments, e.ns, "web")
	e.settle("web")

	since := time.Now()
	e.operate(c, kube.Operation{Ref: seen, Action: kube.ActionRestart})
	w := oneWrite(t, agent, since, "patch", "deployments")
	if !strings.Contains(string(w.Request), kube.RestartedAtAnnotation) || !strings.Contains(string(w.Request), `"resourceVersion"`) {
		t.Fatalf("restart patch %s", w.Request)
	}
	st, _ := rolloutWatch(t, c, ref, func(st kube.RolloutStatus) bool { return complete(st) && st.Revision == "2" })
	allNew(t, st, 2)

	for _, n := range []int32{4, 1} {
		e.settle("web")
		since = time.Now()
		out := e.operate(c, kube.Operation{Ref: seen, Action: kube.ActionScale, Replicas: n})
		if !out.Written {
			t.Fatalf("scale to %d wrote nothing: %+v", n, out)
		}
		w := oneWrite(t, agent, since, "update", "deployments")
		if !strings.HasSuffix(strings.Split(w.URI, "?")[0], "/deployments/web/scale") ||
			!strings.Contains(string(w.Request), `"resourceVersion"`) || !strings.Contains(string(w.Request), fmt.Sprintf(`"replicas":%d`, n)) {
			t.Fatalf("scale went to %s", w.URI)
		}
		rolloutWatch(t, c, ref, func(st kube.RolloutStatus) bool { return complete(st) && st.Desired == n && st.Available == n })
	}

	e.settle("web")
	e.operate(c, kube.Operation{Ref: seen, Action: kube.ActionPause})
	if d, _ := e.cs.AppsV1().Deployments(e.ns).Get(ctx, "web", metav1.GetOptions{}); !d.Spec.Paused {
		t.Fatal("pause did not pause")
	}
	e.settle("web")
	since = time.Now()
	out := e.refused(c, kube.Operation{Ref: seen, Action: kube.ActionRestart}, kube.ReasonPaused)
	if out.Detail != "can't restart paused deployment (run rollout resume first)" {
		t.Fatalf("paused restart detail %q (C31)", out.Detail)
	}
	if ws := auditWrites(t, agent, since); len(ws) != 0 {
		t.Fatalf("a paused restart wrote %+v (C31)", ws)
	}
	e.operate(c, kube.Operation{Ref: seen, Action: kube.ActionResume})
	if d, _ := e.cs.AppsV1().Deployments(e.ns).Get(ctx, "web", metav1.GetOptions{}); d.Spec.Paused {
		t.Fatal("resume did not resume")
	}

	patchTemplate(t, e.cs, ref, imagePatch("nginx:1.27.4"))
	rolloutWatch(t, c, ref, func(st kube.RolloutStatus) bool { return complete(st) && st.Revision == "3" })
	e.settle("web")
	since = time.Now()
	out = e.operate(c, kube.Operation{Ref: seen, Action: kube.ActionUndo})
	if out.Detail != "rolled back "+seen.String()+" to revision 2" {
		t.Fatalf("undo: %+v", out)
	}
	oneWrite(t, agent, since, "patch", "deployments")
	rolloutWatch(t, c, ref, func(st kube.RolloutStatus) bool { return complete(st) && st.Revision == "4" })
	d, err := e.cs.AppsV1().Deployments(e.ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil || d.Spec.Template.Spec.Containers[0].Image != "nginx:1.27.3" || d.Spec.Template.Annotations[kube.RestartedAtAnnotation] == "" {
		t.Fatalf("after undo: %v %+v", err, d.Spec.Template)
	}
	// The undo's precondition (a JSON patch replacing
	// /metadata/resourceVersion) is one to the API server: a stale one is 409.
	stale := `[{"op":"replace","path":"/metadata/resourceVersion","value":"1"},{"op":"replace","path":"/spec/paused","value":true}]`
	if _, err := e.cs.AppsV1().Deployments(e.ns).Patch(ctx, "web", types.JSONPatchType, []byte(stale), metav1.PatchOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("a JSON patch at a stale resourceVersion: %v, want 409", err)
	}
}

// TestE2EOperateDelete: a pod deleted with a grace period and one forced,
// each with its UID as precondition; a Deployment deleted with its UID
// and resourceVersion, its ReplicaSets going with it.
func TestE2EOperateDelete(t *testing.T) {
	e := newOpEnv(t)
	ctx := context.Background()
	c, agent := e.client(e.cfg, kube.Options{Policy: kube.PolicyStrict})
	for _, name := range []string{"graceful", "forced"} {
		spec := kwokPodSpec("nginx:1.27.3")
		spec.TerminationGracePeriodSeconds = ptr(int64(30))
		if _, err := e.cs.CoreV1().Pods(e.ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	since := time.Now()
	e.operate(c, kube.Operation{Ref: e.seen(kube.KindPods, e.ns, "graceful"), Action: kube.ActionDelete, GracePeriodSeconds: ptr(int64(5))})
	w := oneWrite(t, agent, since, "delete", "pods")
	if body := string(w.Request); body != "" && (!strings.Contains(body, `"gracePeriodSeconds":5`) || !strings.Contains(body, `"uid"`)) {
		t.Fatalf("graceful delete options %s", body)
	}
	since = time.Now()
	e.operate(c, kube.Operation{Ref: e.seen(kube.KindPods, e.ns, "forced"), Action: kube.ActionDelete, Force: true})
	w = oneWrite(t, agent, since, "delete", "pods")
	if body := string(w.Request); body != "" && !strings.Contains(body, `"gracePeriodSeconds":0`) {
		t.Fatalf("forced delete options %s", body)
	}
	if _, err := e.cs.CoreV1().Pods(e.ns).Get(ctx, "forced", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a forced delete left the pod: %v", err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, err := e.cs.CoreV1().Pods(e.ns).Get(ctx, "graceful", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the gracefully deleted pod is still there: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}

	ref := e.deployment("web", "nginx:1.27.3")
	rolloutWatch(t, c, ref, complete)
	seen := e.seen(kube.KindDeployments, e.ns, "web")
	e.settle("web")
	since = time.Now()
	e.operate(c, kube.Operation{Ref: seen, Action: kube.ActionDelete})
	w = oneWrite(t, agent, since, "delete", "deployments")
	if body := string(w.Request); body != "" && (!strings.Contains(body, `"resourceVersion"`) || !strings.Contains(body, `"Background"`)) {
		t.Fatalf("deployment delete options %s", body)
	}
	if _, err := e.cs.AppsV1().Deployments(e.ns).Get(ctx, "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the deleted Deployment is still there: %v", err)
	}
	// The same row again: the object is gone.
	e.refused(c, kube.Operation{Ref: seen, Action: kube.ActionDelete}, kube.ReasonNotFound)
}

// TestE2EOperateRefusals: each refusal from a real situation, none of
// them writing: forbidden for the list-only user; application_managed on
// the demo's Helm Deployment under strict (a typed-name confirmation
// interactively; C32); pvc_retention for a StatefulSet whose claims go on
// scale-down (C30) and on delete; a conflict after a writer in between;
// read-only sends no request at all.
func TestE2EOperateRefusals(t *testing.T) {
	e := newOpEnv(t)
	ctx := context.Background()
	helm := e.seen(kube.KindDeployments, kubetest.DemoNamespace, "helm-chart")

	viewer, _ := e.client(kubetest.LocalReadOnly(t), kube.Options{})
	for _, op := range []kube.Operation{{Ref: helm, Action: kube.ActionRestart}, {Ref: helm, Action: kube.ActionScale, Replicas: 3},
		{Ref: helm, Action: kube.ActionDelete}} {
		out := e.refused(viewer, op, kube.ReasonForbidden)
		if !strings.Contains(out.Detail, "you may not") {
			t.Fatalf("forbidden detail %q", out.Detail)
		}
	}

	strict, strictAgent := e.client(e.cfg, kube.Options{Policy: kube.PolicyStrict})
	inter, _ := e.client(e.cfg, kube.Options{})
	since := time.Now()
	for _, a := range []kube.Action{kube.ActionDelete, kube.ActionRestart, kube.ActionPause} {
		e.refused(strict, kube.Operation{Ref: helm, Action: a, Confirmed: confirmAll}, kube.ReasonApplicationManaged)
	}
	vs, err := inter.PlanOperation(ctx, kube.Operation{Ref: helm, Action: kube.ActionDelete})
	if err != nil {
		t.Fatal(err)
	}
	var managed kube.Verdict
	for _, v := range vs {
		if v.Guard == kube.GuardManaged {
			managed = v
		}
	}
	if managed.Outcome != kube.OutcomeWarn || managed.Confirm != "helm-chart" || !strings.Contains(managed.Sentence, "Helm") {
		t.Fatalf("interactive plan of the Helm Deployment's delete: %+v (C32)", vs)
	}
	if ws := auditWrites(t, strictAgent, since); len(ws) != 0 {
		t.Fatalf("refused actions on the Helm Deployment wrote %+v", ws)
	}

	claimingStatefulSet(t, e.cs, e.ns, appsv1.DeletePersistentVolumeClaimRetentionPolicyType)
	db := e.seen(kube.KindStatefulSets, e.ns, "db")
	since = time.Now()
	out := e.refused(strict, kube.Operation{Ref: db, Action: kube.ActionScale, Replicas: 1}, kube.ReasonPVCRetention)
	if !strings.Contains(out.Detail, "data-db-1, data-db-2 ") {
		t.Fatalf("scale-down detail %q (C30)", out.Detail)
	}
	out = e.refused(strict, kube.Operation{Ref: db, Action: kube.ActionDelete}, kube.ReasonPVCRetention)
	if !strings.Contains(out.Detail, "data-db-0, data-db-1, data-db-2 ") {
		t.Fatalf("delete detail %q", out.Detail)
	}
	if ws := auditWrites(t, strictAgent, since); len(ws) != 0 {
		t.Fatalf("refused StatefulSet actions wrote %+v", ws)
	}

	ref := e.deployment("web", "nginx:1.27.3")
	rolloutWatch(t, strict, ref, complete)
	d := e.settle("web")
	saw := kube.ObjectRef{Kind: kube.KindDeployments, Namespace: e.ns, Name: "web", UID: string(d.UID),
		ResourceVersion: d.ResourceVersion, Generation: d.Generation}
	patchTemplate(t, e.cs, ref, imagePatch("nginx:1.27.4"))
	since = time.Now()
	e.refused(strict, kube.Operation{Ref: saw, Action: kube.ActionRestart}, kube.ReasonConflict)
	e.refused(strict, kube.Operation{Ref: saw, Action: kube.ActionDelete}, kube.ReasonConflict)
	if ws := auditWrites(t, strictAgent, since); len(ws) != 0 {
		t.Fatalf("actions after a writer in between wrote %+v", ws)
	}

	ro, roAgent := e.client(e.cfg, kube.Options{ReadOnly: true})
	since = time.Now()
	for _, op := range []kube.Operation{{Ref: saw, Action: kube.ActionRestart}, {Ref: saw, Action: kube.ActionScale, Replicas: 3},
		{Ref: saw, Action: kube.ActionPause}, {Ref: saw, Action: kube.ActionResume}, {Ref: saw, Action: kube.ActionUndo},
		{Ref: saw, Action: kube.ActionDelete}, {Ref: db, Action: kube.ActionDelete}, {Ref: helm, Action: kube.ActionDelete}} {
		e.refused(ro, op, kube.ReasonReadOnly)
	}
	time.Sleep(500 * time.Millisecond)
	if evs := readAuditAfter(t, os.Getenv(kubetest.AuditLogEnv), roAgent, since); len(evs) != 0 {
		t.Fatalf("read-only sent %d requests, first %s %+v", len(evs), evs[0].Verb, evs[0].ObjectRef)
	}
}
