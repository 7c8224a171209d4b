package kube_test

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// TestE2ECreateTemplates: on the local cluster, every kind :create has a
// template of (and a custom resource's skeleton) starts from a text the
// API server takes as it is: its server dry run passes with nothing but
// the namespace filled in, nothing is written by reading a template or
// planning it, and a template applied creates its object with kyyard as
// its field manager. The read-only user is refused before the editor
// (the access review of create), kyyard's --readonly sends nothing, an
// unknown kind is not found and a namespace that is no DNS-1123 label is
// invalid.
func TestE2ECreateTemplates(t *testing.T) {
	e := newOpEnv(t)
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(e.cfg)
	gvr := kubetest.WidgetCRD(t, dyn)
	c, agent := e.client(e.cfg, kube.Options{TablePlugin: kinds.NewTable})
	c.SetNamespace(e.ns)

	kindsToTry := []kube.Kind{"configmaps", "secrets", "services", "serviceaccounts", "persistentvolumeclaims",
		"deployments", "statefulsets", "daemonsets", "jobs", "cronjobs", "ingresses", "poddisruptionbudgets",
		"namespaces", kube.Kind(gvr.Resource)}
	since := time.Now()
	for _, k := range kindsToTry {
		text, err := c.CreateTemplate(ctx, k, "")
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if k != "namespaces" && !strings.Contains(text, "namespace: "+e.ns+"\n") {
			t.Errorf("%s: the template is not in %s:\n%s", k, e.ns, text)
		}
		if k == "namespaces" {
			// The Namespace template's name must not collide with a
			// parallel run: the test names its own.
			text = strings.Replace(text, "name: my-namespace", "name: "+e.ns+"-new", 1)
		}
		plan, err := c.PlanApply(ctx, "the "+string(k)+" template", []byte(text))
		if err != nil {
			t.Fatalf("%s: the template is refused whole: %v\n%s", k, err, text)
		}
		for _, s := range plan.Steps {
			if s.Err != nil || s.Exists || !strings.Contains(s.Diff, "+") {
				t.Errorf("%s: the template's dry run: %+v\n%s", k, s, text)
			}
		}
	}
	noRealWrites(t, agent, since)

	// A template applied: created, kyyard's field manager.
	text, err := c.CreateTemplate(ctx, "configmaps", e.ns)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := c.PlanApply(ctx, "the configmaps template", []byte(strings.Replace(text, "name: my-config", "name: made", 1)))
	if err != nil {
		t.Fatal(err)
	}
	outs := c.ApplyManifests(ctx, plan, false)
	if len(outs) != 1 || !outs[0].Written || !strings.HasPrefix(outs[0].Detail, "created ") {
		t.Fatalf("outcomes %+v", outs)
	}
	cm, err := e.cs.CoreV1().ConfigMaps(e.ns).Get(ctx, "made", metav1.GetOptions{})
	if err != nil || managerOf(cm, "kyyard") != "Apply" {
		t.Fatalf("the created ConfigMap %+v: %v", cm, err)
	}

	// Refusals before the editor.
	viewer, viewerAgent := e.client(kubetest.LocalReadOnly(t), kube.Options{})
	since = time.Now()
	if _, err := viewer.CreateTemplate(ctx, "configmaps", e.ns); kube.ReasonOf(err) != kube.ReasonForbidden {
		t.Errorf("the read-only user: %v, want forbidden", err)
	}
	if ws := auditWrites(t, viewerAgent, since); len(ws) != 0 {
		t.Errorf("the read-only user's template wrote %+v", ws)
	}
	ro, roAgent := e.client(e.cfg, kube.Options{ReadOnly: true})
	since = time.Now()
	if _, err := ro.CreateTemplate(ctx, "configmaps", e.ns); kube.ReasonOf(err) != kube.ReasonReadOnly {
		t.Errorf("--readonly: %v, want read_only", err)
	}
	if ws := auditWrites(t, roAgent, since); len(ws) != 0 {
		t.Errorf("--readonly sent %+v", ws)
	}
	if _, err := c.CreateTemplate(ctx, "gizmos", e.ns); kube.ReasonOf(err) != kube.ReasonNotFound {
		t.Errorf("an unknown kind: %v (%s), want not_found", err, kube.ReasonOf(err))
	}
	if _, err := c.CreateTemplate(ctx, "configmaps", "Not_A_Namespace"); kube.ReasonOf(err) != kube.ReasonInvalid {
		t.Errorf("a bad namespace: %v (%s), want invalid", err, kube.ReasonOf(err))
	}
}
