package kube_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/internal/helmdemo"
	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// TestE2EHelmSeededRelease: the Helm release the seed makes with Helm's
// SDK (demo/greeter, two revisions) is listed, its history, values,
// manifest and the diff of its revisions read, a Secret's values never
// shown; the read-only user's list is forbidden.
func TestE2EHelmSeededRelease(t *testing.T) {
	cfg := kubetest.Local(t)
	e := &opEnv{t: t, cfg: cfg}
	c, _ := e.client(cfg, kube.Options{})
	ctx := context.Background()
	rels, err := c.HelmReleases(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	var greeter *kube.HelmRelease
	for i := range rels {
		if rels[i].Name == "greeter" {
			greeter = &rels[i]
		}
	}
	if greeter == nil || greeter.Revision < 2 || greeter.Chart == "" || greeter.Updated.IsZero() {
		t.Fatalf("demo/greeter not listed as seeded: %+v", rels)
	}
	all, err := c.HelmReleases(ctx, "")
	if err != nil || len(all) < len(rels) {
		t.Fatalf("all namespaces: %d releases, %v", len(all), err)
	}
	hist, err := c.HelmHistory(ctx, "demo", "greeter")
	if err != nil || len(hist) < 2 || hist[len(hist)-1].Revision != 1 || hist[len(hist)-1].Status != "superseded" || hist[len(hist)-1].Chart != "greeter-0.1.0" {
		t.Fatalf("history %+v %v", hist, err)
	}
	v1, err := c.HelmValues(ctx, "demo", "greeter", 1, false)
	if err != nil || !strings.Contains(v1, "message: hello\n") {
		t.Fatalf("values of revision 1: %q %v", v1, err)
	}
	allValues, err := c.HelmValues(ctx, "demo", "greeter", 1, true)
	if err != nil || !strings.Contains(allValues, "replicas:") {
		t.Fatalf("values --all of revision 1: %q %v", allValues, err)
	}
	m, err := c.HelmManifest(ctx, "demo", "greeter", 2)
	if err != nil || !strings.Contains(m, "kind: ConfigMap") || !strings.Contains(m, "kind: Secret") || strings.Contains(m, "s3cret") {
		t.Fatalf("manifest of revision 2 (a Secret's value must not show):\n%s\n%v", m, err)
	}
	d, err := c.HelmDiff(ctx, "demo", "greeter", 1, 2)
	// Values show as Helm stores them (the chart takes its password as a
	// value); the manifest's Secret never shows its value.
	_, manifestDiff, _ := strings.Cut(d, "--- manifest of")
	if err != nil || !strings.Contains(d, "-message: hello\n") || !strings.Contains(d, "+message: hello again") ||
		!strings.Contains(manifestDiff, "revision 2's value") || strings.Contains(manifestDiff, "s3cret") {
		t.Fatalf("diff 1 → 2:\n%s\n%v", d, err)
	}

	ro, _ := e.client(kubetest.LocalReadOnly(t), kube.Options{})
	if _, err := ro.HelmReleases(ctx, "demo"); kube.ReasonOf(err) != kube.ReasonForbidden {
		t.Fatalf("the read-only user lists Helm's Secrets: %v", err)
	}
}

// TestE2EHelmRollback: a release of the test's own (two revisions, made
// with Helm's SDK) is rolled back with Helm's action.Rollback after the
// plan: another writer's upgrade between the plan and the rollback is a
// conflict and writes nothing; planned again, the rollback makes
// revision 4 from revision 1 (its ConfigMap's message back to revision
// 1's), and Helm's writes went out as the client's user. The read-only
// user is refused by the access review, --readonly before any request, a
// missing revision as not_found.
func TestE2EHelmRollback(t *testing.T) {
	e := newOpEnv(t)
	ctx := context.Background()
	path := os.Getenv(kubetest.KubeconfigEnv)
	revs := helmdemo.DefaultRevisions()
	if err := helmdemo.Seed(ctx, path, e.ns, "rb", revs); err != nil {
		t.Fatal(err)
	}
	c, agent := e.client(e.cfg, kube.Options{})

	p, err := c.PlanHelmRollback(ctx, e.ns, "rb", 2, 1)
	if err != nil {
		t.Fatalf("plan: %v (%+v)", err, p)
	}
	objs := strings.Join(p.Objects, "\n")
	for _, want := range []string{"update configmap " + e.ns + "/rb-config", "update secret " + e.ns + "/rb-secret", "update deployment " + e.ns + "/rb"} {
		if !strings.Contains(objs, want) {
			t.Fatalf("objects lack %q:\n%s", want, objs)
		}
	}
	if _, manifestDiff, _ := strings.Cut(p.Diff, "--- manifest of"); !strings.Contains(p.Diff, "+message: hello\n") || strings.Contains(manifestDiff, "s3cret") || manifestDiff == "" {
		t.Fatalf("plan diff:\n%s", p.Diff)
	}

	// Another writer upgrades the release after the plan.
	third := append(revs, helmdemo.Revision{ChartVersion: "0.3.0", AppVersion: "1.2", Values: map[string]any{"message": "third"}})
	if err := helmdemo.Seed(ctx, path, e.ns, "rb", third); err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	out := c.HelmRollback(ctx, p, nil)
	if out.Reason != kube.ReasonConflict || out.Written || !strings.Contains(out.Detail, "latest revision is 3") {
		t.Fatalf("raced rollback: %+v", out)
	}
	if w := auditWrites(t, agent, since); len(w) != 0 {
		t.Fatalf("a conflict wrote %+v", w)
	}

	p, err = c.PlanHelmRollback(ctx, e.ns, "rb", 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	since = time.Now()
	out = c.HelmRollback(ctx, p, nil)
	if !out.OK() || !out.Written || out.Op.Action != kube.ActionHelmRollback || out.Op.Ref.Kind != kube.KindHelmReleases {
		t.Fatalf("rollback: %+v", out)
	}
	hist, err := c.HelmHistory(ctx, e.ns, "rb")
	if err != nil || len(hist) != 4 || hist[0].Revision != 4 || hist[0].Status != "deployed" || hist[0].Description != "Rollback to 1" || hist[0].Chart != "greeter-0.1.0" {
		t.Fatalf("history after the rollback: %+v %v", hist, err)
	}
	cm, err := e.cs.CoreV1().ConfigMaps(e.ns).Get(ctx, "rb-config", metav1.GetOptions{})
	if err != nil || cm.Data["message"] != "hello" {
		t.Fatalf("the ConfigMap after the rollback: %v %v", cm.Data, err)
	}
	// Helm's writes are owned by "helm", as the helm CLI's: a release the
	// helm CLI made rolls back without conflicting with itself.
	for _, f := range cm.ManagedFields {
		if f.Manager != "helm" {
			t.Fatalf("the ConfigMap's fields are managed by %q, not helm: %+v", f.Manager, cm.ManagedFields)
		}
	}
	var secrets, configmaps int
	for _, w := range auditWrites(t, agent, since) {
		switch {
		case w.ObjectRef != nil && w.ObjectRef.Resource == "secrets" && w.Verb == "create":
			secrets++
		case w.ObjectRef != nil && w.ObjectRef.Resource == "configmaps":
			configmaps++
		}
	}
	if secrets == 0 || configmaps == 0 {
		t.Fatalf("Helm's writes as the client's user: %d secret creates, %d configmap writes", secrets, configmaps)
	}

	// A revision that is not there.
	if _, err := c.PlanHelmRollback(ctx, e.ns, "rb", 4, 9); kube.ReasonOf(err) != kube.ReasonNotFound {
		t.Fatalf("revision 9: %v", err)
	}
	// The read-only user: the access review refuses.
	ro, _ := e.client(kubetest.LocalReadOnly(t), kube.Options{})
	rp, err := ro.PlanHelmRollback(ctx, e.ns, "rb", 4, 2)
	if kube.ReasonOf(err) != kube.ReasonForbidden || rp == nil || rp.Verdicts.Refusal() == nil {
		t.Fatalf("the read-only user: %v %+v", err, rp)
	}
	// --readonly: refused before any request.
	quiet, quietAgent := e.client(e.cfg, kube.Options{ReadOnly: true})
	since = time.Now()
	if _, err := quiet.PlanHelmRollback(ctx, e.ns, "rb", 4, 2); kube.ReasonOf(err) != kube.ReasonReadOnly {
		t.Fatalf("--readonly: %v", err)
	}
	time.Sleep(500 * time.Millisecond)
	if got := readAuditAfter(t, os.Getenv(kubetest.AuditLogEnv), quietAgent, since); len(got) != 0 {
		t.Fatalf("--readonly sent %d requests", len(got))
	}
}
