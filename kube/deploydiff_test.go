package kube_test

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/render"
)

// serverDefaults sets on d what the API server defaults in a Deployment
// the render leaves unset (k8s.io/kubernetes pkg/apis/apps/v1 and core/v1
// defaults), and a revision annotation, as a live object has them.
func serverDefaults(d *appsv1.Deployment) {
	pds, rhl, tgp, mode := int32(600), int32(10), int64(30), int32(420)
	d.Spec.ProgressDeadlineSeconds, d.Spec.RevisionHistoryLimit = &pds, &rhl
	ps := &d.Spec.Template.Spec
	ps.DNSPolicy, ps.RestartPolicy, ps.SchedulerName = corev1.DNSClusterFirst, corev1.RestartPolicyAlways, "default-scheduler"
	ps.TerminationGracePeriodSeconds = &tgp
	for i := range ps.Containers {
		ps.Containers[i].ImagePullPolicy = corev1.PullIfNotPresent
		ps.Containers[i].TerminationMessagePath = "/dev/termination-log"
	}
	for i := range ps.Volumes {
		if s := ps.Volumes[i].Secret; s != nil {
			s.DefaultMode = &mode
		}
		if c := ps.Volumes[i].ConfigMap; c != nil {
			c.DefaultMode = &mode
		}
	}
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations["deployment.kubernetes.io/revision"] = "1"
}

// configRequest is shopRequest with a config file on web.
func configRequest(img string) render.Request {
	req := shopRequest("apps", img)
	req.Services[0].ConfigFile = &render.ConfigFile{Path: "/etc/web/app.conf", Content: "level=info\n"}
	return req
}

// TestPlanDiffUnchangedWithRecord: with an instance deployed and the
// server's defaults on its Deployments, planning the same request shows
// every object (keyed Kind/name) as unchanged, not as new, and a change
// shows only its lines.
func TestPlanDiffUnchangedWithRecord(t *testing.T) {
	c, cs := kubetest.FakeClient(t, restrictedNS("apps"), defaultClass())
	rollsOut(cs)
	req := configRequest("nginx:1.27")
	deployOK(t, c, req)
	for _, name := range []string{"shop-web", "shop-db"} {
		d, _ := cs.AppsV1().Deployments("apps").Get(context.Background(), name, metav1.GetOptions{})
		serverDefaults(d)
		if _, err := cs.AppsV1().Deployments("apps").Update(context.Background(), d, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	plan, err := c.PlanDeploy(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	objs, _ := render.Objects(req)
	if len(plan.Diff) != len(objs) {
		t.Errorf("Diff has %d keys for %d objects: %v", len(plan.Diff), len(objs), plan.Diff)
	}
	for _, o := range objs {
		m := o.Object.(metav1.Object)
		key := kindName(o.Object) + "/" + m.GetName()
		if d, ok := plan.Diff[key]; !ok || d != kube.DiffUnchanged {
			t.Errorf("Diff[%s] = %q (present %v), want unchanged", key, d, ok)
		}
	}
	next := configRequest("nginx:1.28")
	plan, err = c.PlanDeploy(context.Background(), next)
	if err != nil {
		t.Fatal(err)
	}
	d := plan.Diff["Deployment/shop-web"]
	if !strings.Contains(d, "-        image: nginx:1.27") || !strings.Contains(d, "+        image: nginx:1.28") {
		t.Errorf("diff misses the image change:\n%s", d)
	}
	for _, noise := range []string{"progressDeadlineSeconds", "revisionHistoryLimit", "imagePullPolicy", "terminationMessagePath",
		"dnsPolicy", "restartPolicy", "schedulerName", "terminationGracePeriodSeconds", "defaultMode", "revision"} {
		if strings.Contains(d, noise) {
			t.Errorf("diff shows the server default %s:\n%s", noise, d)
		}
	}
	if plan.Diff["Service/shop-web"] != kube.DiffUnchanged || plan.Diff["ConfigMap/shop-web-config"] != kube.DiffUnchanged {
		t.Errorf("unchanged objects: %q %q", plan.Diff["Service/shop-web"], plan.Diff["ConfigMap/shop-web-config"])
	}
}

// TestPlanDiffAdoptedLiveNormalised: objects of the instance that exist
// without a record are compared live, cut to what the render sets: the
// server's defaults and metadata do not show, a changed image does.
func TestPlanDiffAdoptedLiveNormalised(t *testing.T) {
	c, cs := kubetest.FakeClient(t, restrictedNS("apps"), defaultClass())
	req := configRequest("nginx:1.27")
	objs, err := render.Objects(req)
	if err != nil {
		t.Fatal(err)
	}
	tracker := cs.Tracker()
	for _, o := range objs {
		obj := o.Object.DeepCopyObject()
		m := obj.(metav1.Object)
		m.SetUID(types.UID("uid-" + m.GetName()))
		m.SetResourceVersion("7")
		m.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kubectl"}})
		if d, ok := obj.(*appsv1.Deployment); ok {
			serverDefaults(d)
		}
		if s, ok := obj.(*corev1.Service); ok {
			s.Spec.ClusterIP, s.Spec.SessionAffinity = "10.0.0.7", corev1.ServiceAffinityNone
		}
		if err := tracker.Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	plan, err := c.PlanDeploy(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for key, d := range plan.Diff {
		if d != kube.DiffUnchanged {
			t.Errorf("adopted %s shows a difference:\n%s", key, d)
		}
	}
	next := configRequest("nginx:1.28")
	next.Services[0].Secrets[0].Value = "othe"
	plan, err = c.PlanDeploy(context.Background(), next)
	if err != nil {
		t.Fatal(err)
	}
	if d := plan.Diff["Deployment/shop-web"]; !strings.Contains(d, "+        image: nginx:1.28") || strings.Contains(d, "dnsPolicy") ||
		strings.Contains(d, "uid") || strings.Contains(d, "clusterIP") {
		t.Errorf("adopted diff:\n%s", d)
	}
	if d := plan.Diff["Secret/shop-web-secret"]; strings.Contains(d, "s3cret") || strings.Contains(d, "othe") || !strings.Contains(d, "(4 bytes)") {
		t.Errorf("secret diff:\n%s", d)
	}
}

// kindName names a rendered object's kind.
func kindName(o runtime.Object) string {
	switch o.(type) {
	case *corev1.Service:
		return "Service"
	case *corev1.PersistentVolumeClaim:
		return "PersistentVolumeClaim"
	case *corev1.ConfigMap:
		return "ConfigMap"
	case *corev1.Secret:
		return "Secret"
	case *appsv1.Deployment:
		return "Deployment"
	}
	return ""
}
