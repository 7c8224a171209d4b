package kube_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// TestE2EServerSideApply: on the local cluster, a YAML of a ConfigMap and
// a custom resource is planned (a dry run that writes nothing: no write
// without dryRun in the audit log) and applied (two patches, field manager
// kyyard); applied again it changes nothing; a field another manager owns
// is a conflict named with its manager, refused without force and taken
// over with it; a document of a kind the server does not serve is that
// step's refusal; the read-only user's apply is refused before any write;
// an object changed between plan and send is refused as a conflict.
func TestE2EServerSideApply(t *testing.T) {
	e := newOpEnv(t)
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(e.cfg)
	gvr := kubetest.WidgetCRD(t, dyn)
	kind := "Widget" + strings.TrimPrefix(gvr.Resource, "widgets")
	c, agent := e.client(e.cfg, kube.Options{TablePlugin: kinds.NewTable})

	doc := fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: %s
data:
  color: blue
---
apiVersion: %s
kind: %s
metadata:
  name: gadget
spec:
  color: red
`, e.ns, gvr.GroupVersion(), kind)

	// The plan: dry runs only.
	c.SetNamespace(e.ns)
	since := time.Now()
	plan, err := c.PlanApply(ctx, "web.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Steps) != 2 {
		t.Fatalf("steps %+v", plan.Steps)
	}
	for _, s := range plan.Steps {
		if s.Err != nil || s.Exists || len(s.Conflicts) != 0 || !strings.Contains(s.Diff, "+") {
			t.Fatalf("step %s: %+v", s.Source, s)
		}
	}
	if !strings.Contains(plan.Steps[0].Diff, "+  color: blue") || plan.Steps[1].Ref.Namespace != e.ns {
		t.Fatalf("diff:\n%s\nref %+v", plan.Steps[0].Diff, plan.Steps[1].Ref)
	}
	noRealWrites(t, agent, since)

	// Sent: two applies, both kyyard's.
	since = time.Now()
	for _, o := range c.ApplyManifests(ctx, plan, false) {
		if !o.Written || !strings.HasPrefix(o.Detail, "created ") {
			t.Fatalf("outcome %+v", o)
		}
	}
	ws := realWrites(t, agent, since)
	if len(ws) != 2 || ws[0].Verb != "patch" || ws[1].Verb != "patch" {
		t.Fatalf("writes %+v, want two patches", ws)
	}
	cm, err := e.cs.CoreV1().ConfigMaps(e.ns).Get(ctx, "settings", metav1.GetOptions{})
	if err != nil || cm.Data["color"] != "blue" || managerOf(cm, "kyyard") == "" {
		t.Fatalf("configmap %+v %v", cm, err)
	}

	// Again: nothing would change.
	plan, err = c.PlanApply(ctx, "web.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range plan.Steps {
		if s.Err != nil || !s.Exists || s.Diff != "" {
			t.Fatalf("second plan %s: %+v", s.Source, s)
		}
	}

	// Another manager takes .data.color; kyyard's apply meets it.
	cm.Data["color"] = "green"
	if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Update(ctx, cm, metav1.UpdateOptions{FieldManager: "ops-script"}); err != nil {
		t.Fatal(err)
	}
	plan, err = c.PlanApply(ctx, "web.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	st := plan.Steps[0]
	if st.Err != nil || len(st.Conflicts) != 1 || st.Conflicts[0].Manager != "ops-script" || st.Conflicts[0].Field != ".data.color" ||
		!strings.Contains(st.Diff, "-  color: green") || !strings.Contains(st.Diff, "+  color: blue") {
		t.Fatalf("conflict step %+v", st)
	}
	since = time.Now()
	outs := c.ApplyManifests(ctx, plan, false)
	if outs[0].Written || outs[0].Reason != kube.ReasonFieldConflict || !outs[1].Written {
		t.Fatalf("without force: %+v", outs)
	}
	if len(realWrites(t, agent, since)) != 1 {
		t.Fatal("the conflicted object was sent without force")
	}
	outs = c.ApplyManifests(ctx, plan, true)
	if !outs[0].Written || !strings.Contains(outs[0].Detail, `taking over 1 field(s) from "ops-script"`) {
		t.Fatalf("with force: %+v", outs[0])
	}
	if cm, _ = e.cs.CoreV1().ConfigMaps(e.ns).Get(ctx, "settings", metav1.GetOptions{}); cm.Data["color"] != "blue" {
		t.Fatalf("after force: %v", cm.Data)
	}

	// Changed between plan and send: the resourceVersion precondition.
	plan, err = c.PlanApply(ctx, "web.yaml", []byte(strings.Replace(doc, "color: blue", "color: teal", 1)))
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["other"] = "x"
	if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Update(ctx, cm, metav1.UpdateOptions{FieldManager: "ops-script"}); err != nil {
		t.Fatal(err)
	}
	if outs = c.ApplyManifests(ctx, plan, false); outs[0].Written || outs[0].Reason != kube.ReasonConflict {
		t.Fatalf("stale plan: %+v", outs[0])
	}
	if cm, _ = e.cs.CoreV1().ConfigMaps(e.ns).Get(ctx, "settings", metav1.GetOptions{}); cm.Data["color"] != "blue" {
		t.Fatalf("a stale plan was written: %v", cm.Data)
	}

	// A kind the server does not serve: that step alone is refused.
	plan, err = c.PlanApply(ctx, "mixed.yaml", []byte(doc+"---\napiVersion: nowhere.example/v1\nkind: Ghost\nmetadata:\n  name: boo\n"))
	if err != nil {
		t.Fatal(err)
	}
	if g := plan.Steps[2]; g.Err == nil || kube.ReasonOf(g.Err) != kube.ReasonUnknownKind || plan.Steps[0].Err != nil {
		t.Fatalf("unknown kind: %+v / %v", g, plan.Steps[0].Err)
	}

	// Malformed: refused whole, no request.
	if _, err := c.PlanApply(ctx, "bad.yaml", []byte("kind: ConfigMap\nmetadata: {name: x}\n")); err == nil || !strings.Contains(err.Error(), "bad.yaml, document 1") {
		t.Fatalf("malformed: %v", err)
	}

	// The read-only user: forbidden by the access review, nothing sent.
	viewer, viewerAgent := e.client(kubetest.LocalReadOnly(t), kube.Options{})
	viewer.SetNamespace(e.ns)
	since = time.Now()
	plan, err = viewer.PlanApply(ctx, "web.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if s := plan.Steps[0]; s.Err == nil || kube.ReasonOf(s.Err) != kube.ReasonForbidden {
		t.Fatalf("read-only plan %+v", s)
	}
	for _, o := range viewer.ApplyManifests(ctx, plan, true) {
		if o.Written || o.Reason != kube.ReasonForbidden {
			t.Fatalf("read-only outcome %+v", o)
		}
	}
	if ws := auditWrites(t, viewerAgent, since); len(ws) != 0 {
		t.Fatalf("the read-only user's apply sent %+v", ws)
	}

	// kyyard's own client in read-only mode: no request at all.
	ro, _ := e.client(e.cfg, kube.Options{ReadOnly: true})
	ro.SetNamespace(e.ns)
	plan, err = ro.PlanApply(ctx, "web.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if kube.ReasonOf(plan.Steps[0].Err) != kube.ReasonReadOnly {
		t.Fatalf("read-only mode: %+v", plan.Steps[0])
	}
}

// managerOf is the operation of manager's managedFields entry on o ("" when
// manager has none).
func managerOf(o *corev1.ConfigMap, manager string) string {
	for _, m := range o.ManagedFields {
		if m.Manager == manager {
			return string(m.Operation)
		}
	}
	return ""
}

// realWrites are agent's writes since, dry runs left out.
func realWrites(t *testing.T, agent string, since time.Time) []auditWrite {
	t.Helper()
	var out []auditWrite
	for _, w := range auditWrites(t, agent, since) {
		if !strings.Contains(w.URI, "dryRun") {
			out = append(out, w)
		}
	}
	return out
}

// noRealWrites fails t when agent wrote anything since but dry runs.
func noRealWrites(t *testing.T, agent string, since time.Time) {
	t.Helper()
	if ws := realWrites(t, agent, since); len(ws) != 0 {
		t.Fatalf("the plan wrote %+v", ws)
	}
}
