package kube_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// TestE2EYAMLEditConfigMap: on the local cluster, a ConfigMap read for a
// YAML edit shows neither managedFields nor status; an edit of one key is
// planned by a dry run (no real write in the audit log) whose diff shows
// that key, and applied as one strategic merge patch of that key alone
// with the resourceVersion read as its precondition; a text without
// changes, an empty text, malformed YAML and a renamed object are refused
// before any request; another writer racing the person makes the apply a
// conflict that writes nothing and reopens on the fresh object with the
// person's change re-applied, the colliding key named; the read-only user
// and read-only mode are refused before the editor opens.
func TestE2EYAMLEditConfigMap(t *testing.T) {
	e := newOpEnv(t)
	ctx := context.Background()
	cm, err := e.cs.CoreV1().ConfigMaps(e.ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"},
		Data: map[string]string{"color": "blue", "size": "m"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, agent := e.client(e.cfg, kube.Options{})
	ed, err := c.OpenYAMLEdit(ctx, kube.Kind("configmaps"), e.ns, "settings")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ed.Text, "managedFields") || !strings.Contains(ed.Text, "color: blue") || ed.Patch != "strategic merge patch" ||
		ed.Ref.ResourceVersion != cm.ResourceVersion || ed.Ref.UID != string(cm.UID) {
		t.Fatalf("edit %+v\n%s", ed.Ref, ed.Text)
	}

	// Refused before any request: nothing changed, empty, malformed, renamed.
	since := time.Now()
	for _, c2 := range []struct {
		text string
		want func(error) bool
	}{
		{"# a comment on top\n" + ed.Text, func(err error) bool { return errors.Is(err, kube.ErrNoChange) }},
		{"# nothing\n", func(err error) bool { return errors.Is(err, kube.ErrEditEmpty) }},
		{strings.Replace(ed.Text, "color: blue", "color: [blue", 1), func(err error) bool {
			return kube.ReasonOf(err) == kube.ReasonInvalid && strings.Contains(err.Error(), "line")
		}},
		{strings.Replace(ed.Text, "name: settings", "name: other", 1), func(err error) bool {
			return kube.ReasonOf(err) == kube.ReasonInvalid && strings.Contains(err.Error(), "metadata.name cannot be changed")
		}},
	} {
		if _, err := c.PlanYAMLEdit(ctx, ed, c2.text); !c2.want(err) {
			t.Errorf("text %q: %v", c2.text, err)
		}
	}
	if ws := auditWrites(t, agent, since); len(ws) != 0 {
		t.Fatalf("refused texts sent %+v", ws)
	}

	// Planned: a dry run; the diff shows the key.
	text := strings.Replace(ed.Text, "color: blue", "color: teal", 1)
	since = time.Now()
	plan, err := c.PlanYAMLEdit(ctx, ed, text)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan.Diff, "-  color: blue") || !strings.Contains(plan.Diff, "+  color: teal") || strings.Contains(plan.Diff, "-  size") || strings.Contains(plan.Diff, "+  size") {
		t.Fatalf("diff:\n%s", plan.Diff)
	}
	noRealWrites(t, agent, since)

	// Applied: one patch of that key with the precondition.
	since = time.Now()
	out, err := c.ApplyYAMLEdit(ctx, plan, nil)
	if err != nil || !out.Written || out.Op.Action != kube.ActionEditYAML {
		t.Fatalf("apply %+v %v", out, err)
	}
	w := oneWrite(t, agent, since, "patch", "configmaps")
	var body map[string]any
	if err := json.Unmarshal(w.Request, &body); err != nil {
		t.Fatal(err)
	}
	if d, _ := body["data"].(map[string]any); len(d) != 1 || d["color"] != "teal" {
		t.Fatalf("patch body %s: want data.color alone", w.Request)
	}
	if md, _ := body["metadata"].(map[string]any); md["resourceVersion"] != cm.ResourceVersion {
		t.Fatalf("patch body %s: no resourceVersion precondition %s", w.Request, cm.ResourceVersion)
	}
	if !strings.Contains(w.URI, "strategic") && !strings.Contains(string(w.Request), "teal") {
		t.Fatalf("write %+v", w)
	}

	// A racing writer: between the person's read and apply, another writer
	// changes size (which the person changes too) and adds a key.
	ed, err = c.OpenYAMLEdit(ctx, kube.Kind("configmaps"), e.ns, "settings")
	if err != nil {
		t.Fatal(err)
	}
	text = strings.Replace(strings.Replace(ed.Text, "size: m", "size: xl", 1), "color: teal", "color: red", 1)
	plan, err = c.PlanYAMLEdit(ctx, ed, text)
	if err != nil {
		t.Fatal(err)
	}
	live, _ := e.cs.CoreV1().ConfigMaps(e.ns).Get(ctx, "settings", metav1.GetOptions{})
	live.Data["size"], live.Data["owner"] = "s", "ops"
	if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Update(ctx, live, metav1.UpdateOptions{FieldManager: "ops-script"}); err != nil {
		t.Fatal(err)
	}
	since = time.Now()
	out, err = c.ApplyYAMLEdit(ctx, plan, nil)
	var conflict *kube.EditConflict
	if out.Written || out.Reason != kube.ReasonConflict || !errors.As(err, &conflict) {
		t.Fatalf("racing apply: %+v %v", out, err)
	}
	if ws := realWrites(t, agent, since); len(ws) != 1 || ws[0].Response.Code != 409 {
		t.Fatalf("racing apply wrote %+v", ws)
	}
	fresh := conflict.Fresh
	if !strings.Contains(fresh.Text, "color: red") || !strings.Contains(fresh.Text, "size: s") || !strings.Contains(fresh.Text, "owner: ops") ||
		len(fresh.Collisions) != 1 || fresh.Collisions[0].Field != ".data.size" || fresh.Collisions[0].Mine != `"xl"` {
		t.Fatalf("rebased %+v\n%s", fresh.Collisions, fresh.Text)
	}
	// The rebased text applies on the fresh object.
	plan, err = c.PlanYAMLEdit(ctx, fresh, fresh.Text)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ApplyYAMLEdit(ctx, plan, nil); err != nil {
		t.Fatal(err)
	}
	if live, _ = e.cs.CoreV1().ConfigMaps(e.ns).Get(ctx, "settings", metav1.GetOptions{}); live.Data["color"] != "red" || live.Data["size"] != "s" || live.Data["owner"] != "ops" {
		t.Fatalf("after the rebased apply: %v", live.Data)
	}

	// A conflict met at plan time (the object changed before the dry run).
	ed, _ = c.OpenYAMLEdit(ctx, kube.Kind("configmaps"), e.ns, "settings")
	live.Data["owner"] = "dev"
	if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Update(ctx, live, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PlanYAMLEdit(ctx, ed, strings.Replace(ed.Text, "color: red", "color: gold", 1)); !errors.As(err, &conflict) ||
		!strings.Contains(conflict.Fresh.Text, "color: gold") || !strings.Contains(conflict.Fresh.Text, "owner: dev") {
		t.Fatalf("plan-time conflict: %v", err)
	}

	// Deleted and made again between the plan and the apply: refused, not
	// rebased onto the other object.
	ed, _ = c.OpenYAMLEdit(ctx, kube.Kind("configmaps"), e.ns, "settings")
	plan, err = c.PlanYAMLEdit(ctx, ed, strings.Replace(ed.Text, "color: red", "color: plum", 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.cs.CoreV1().ConfigMaps(e.ns).Delete(ctx, "settings", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"},
		Data: map[string]string{"color": "new"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if out, err := c.ApplyYAMLEdit(ctx, plan, nil); out.Written || kube.ReasonOf(err) != kube.ReasonConflict || errors.As(err, &conflict) ||
		!strings.Contains(err.Error(), "deleted and made again") {
		t.Fatalf("replaced object: %+v %v", out, err)
	}
	// A value YAML reads as a number: refused with the hint to quote it.
	ed, _ = c.OpenYAMLEdit(ctx, kube.Kind("configmaps"), e.ns, "settings")
	if _, err := c.PlanYAMLEdit(ctx, ed, strings.Replace(ed.Text, "color: new", "color: 0123", 1)); kube.ReasonOf(err) != kube.ReasonInvalid ||
		!strings.Contains(err.Error(), "quote the value") {
		t.Fatalf("unquoted number: %v", err)
	}

	// The read-only user, and read-only mode: refused before the editor.
	viewer, viewerAgent := e.client(kubetest.LocalReadOnly(t), kube.Options{})
	since = time.Now()
	if _, err := viewer.OpenYAMLEdit(ctx, kube.Kind("configmaps"), e.ns, "settings"); kube.ReasonOf(err) != kube.ReasonForbidden {
		t.Fatalf("read-only user: %v", err)
	}
	if ws := auditWrites(t, viewerAgent, since); len(ws) != 0 {
		t.Fatalf("the read-only user sent %+v", ws)
	}
	ro, _ := e.client(e.cfg, kube.Options{ReadOnly: true})
	if _, err := ro.OpenYAMLEdit(ctx, kube.Kind("configmaps"), e.ns, "settings"); kube.ReasonOf(err) != kube.ReasonReadOnly {
		t.Fatalf("read-only mode: %v", err)
	}
	// Gone: not found.
	if _, err := c.OpenYAMLEdit(ctx, kube.Kind("configmaps"), e.ns, "nothing-here"); kube.ReasonOf(err) != kube.ReasonNotFound {
		t.Fatalf("missing object: %v", err)
	}
}

// TestE2EYAMLEditServiceInvalidAndSecret: a Service's port edited by a
// strategic merge patch; an invalid edit (a port out of range) is refused
// by the server's dry run with its own text, nothing written; a Secret is
// edited as decoded text (its values under stringData), written back as
// base64 data, its diff showing sizes only; a custom resource goes as a
// merge patch.
func TestE2EYAMLEditServiceInvalidAndSecret(t *testing.T) {
	e := newOpEnv(t)
	ctx := context.Background()
	if _, err := e.cs.CoreV1().Services(e.ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c, agent := e.client(e.cfg, kube.Options{TablePlugin: kinds.NewTable})
	ed, err := c.OpenYAMLEdit(ctx, kube.Kind("services"), e.ns, "web")
	if err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	if _, err := c.PlanYAMLEdit(ctx, ed, strings.Replace(ed.Text, "port: 80", "port: 99999", 1)); kube.ReasonOf(err) != kube.ReasonInvalid ||
		!strings.Contains(err.Error(), "99999") {
		t.Fatalf("invalid port: %v", err)
	}
	noRealWrites(t, agent, since)
	plan, err := c.PlanYAMLEdit(ctx, ed, strings.Replace(ed.Text, "port: 80", "port: 81", 1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ApplyYAMLEdit(ctx, plan, nil); err != nil {
		t.Fatal(err)
	}
	svc, _ := e.cs.CoreV1().Services(e.ns).Get(ctx, "web", metav1.GetOptions{})
	if svc.Spec.Ports[0].Port != 81 || svc.Spec.Ports[0].TargetPort.IntValue() != 8080 {
		t.Fatalf("service ports %+v", svc.Spec.Ports)
	}

	// A Secret: decoded text in, base64 data out, sizes in the diff.
	if _, err := e.cs.CoreV1().Secrets(e.ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Data: map[string][]byte{"password": []byte("hunter2"), "bin": {0, 1, 0xff}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sed, err := c.OpenYAMLEdit(ctx, kube.Kind("secrets"), e.ns, "db")
	if err != nil {
		t.Fatal(err)
	}
	if !sed.Secret || !strings.Contains(sed.Text, "password: hunter2") || !strings.Contains(sed.Text, "bin: AAH/") {
		t.Fatalf("secret text:\n%s", sed.Text)
	}
	splan, err := c.PlanYAMLEdit(ctx, sed, strings.Replace(sed.Text, "password: hunter2", "password: correct-horse", 1))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(splan.Diff, "hunter2") || strings.Contains(splan.Diff, "correct-horse") || !strings.Contains(splan.Diff, "(13 bytes, changed)") ||
		splan.PatchBody != "" {
		t.Fatalf("secret diff shows values:\n%s\npatch %q", splan.Diff, splan.PatchBody)
	}
	// Another writer adds a key before the apply: a conflict, the edited
	// key re-applied on the fresh Secret, then written with both.
	s, _ := e.cs.CoreV1().Secrets(e.ns).Get(ctx, "db", metav1.GetOptions{})
	s.Data["user"] = []byte("admin")
	if _, err := e.cs.CoreV1().Secrets(e.ns).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	var conflict *kube.EditConflict
	if out, err := c.ApplyYAMLEdit(ctx, splan, nil); !errors.As(err, &conflict) || out.Written ||
		!strings.Contains(conflict.Fresh.Text, "password: correct-horse") || !strings.Contains(conflict.Fresh.Text, "user: admin") ||
		strings.Contains(out.Detail, "correct-horse") || strings.Contains(err.Error(), "correct-horse") {
		t.Fatalf("racing secret edit: %+v %v", out, err)
	}
	if splan, err = c.PlanYAMLEdit(ctx, conflict.Fresh, conflict.Fresh.Text); err != nil {
		t.Fatal(err)
	}
	if out, err := c.ApplyYAMLEdit(ctx, splan, nil); err != nil || strings.Contains(out.Detail, "correct-horse") {
		t.Fatal(out, err)
	}
	s, _ = e.cs.CoreV1().Secrets(e.ns).Get(ctx, "db", metav1.GetOptions{})
	if string(s.Data["password"]) != "correct-horse" || string(s.Data["bin"]) != "\x00\x01\xff" || string(s.Data["user"]) != "admin" || len(s.StringData) != 0 {
		t.Fatalf("secret after edit %v", s.Data)
	}
	// The decoded view's read: values decoded, a binary one said so; the
	// read-only user may not read them.
	sd, err := c.SecretValues(ctx, e.ns, "db")
	if err != nil || len(sd.Values) != 3 || sd.Values[0].Key != "bin" || sd.Values[0].Text ||
		string(sd.Values[1].Value) != "correct-horse" || !sd.Values[1].Text || sd.Ref.UID != string(s.UID) {
		t.Fatalf("secret values %+v %v", sd, err)
	}
	viewer, _ := e.client(kubetest.LocalReadOnly(t), kube.Options{})
	if _, err := viewer.SecretValues(ctx, e.ns, "db"); kube.ReasonOf(err) != kube.ReasonForbidden {
		t.Fatalf("read-only user's secret read: %v", err)
	}

	// A custom resource: a merge patch.
	dyn := dynamic.NewForConfigOrDie(e.cfg)
	gvr := kubetest.WidgetCRD(t, dyn)
	kind := "Widget" + strings.TrimPrefix(gvr.Resource, "widgets")
	if _, err := dyn.Resource(gvr).Namespace(e.ns).Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gvr.GroupVersion().String(), "kind": kind, "metadata": map[string]any{"name": "gizmo"},
		"spec": map[string]any{"color": "red", "parts": []any{"a", "b"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.Rediscover(ctx)
	ced, err := c.OpenYAMLEdit(ctx, kube.Kind(gvr.Resource+"."+gvr.Group), e.ns, "gizmo")
	if err != nil {
		t.Fatal(err)
	}
	if ced.Patch != "merge patch" {
		t.Fatalf("custom resource patch %q", ced.Patch)
	}
	cplan, err := c.PlanYAMLEdit(ctx, ced, strings.Replace(ced.Text, "color: red", "color: green", 1))
	if err != nil {
		t.Fatal(err)
	}
	if cplan.PatchBody != `{"metadata":{"resourceVersion":"`+ced.Ref.ResourceVersion+`"},"spec":{"color":"green"}}` {
		t.Fatalf("merge patch %s", cplan.PatchBody)
	}
	if _, err := c.ApplyYAMLEdit(ctx, cplan, nil); err != nil {
		t.Fatal(err)
	}
	got, _ := dyn.Resource(gvr).Namespace(e.ns).Get(ctx, "gizmo", metav1.GetOptions{})
	if color, _, _ := unstructured.NestedString(got.Object, "spec", "color"); color != "green" {
		t.Fatalf("widget %v", got.Object["spec"])
	}
}
