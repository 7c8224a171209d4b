package kube_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/render"
)

// shopRequest is a two-service app: web (a port and a secret value) and
// db (a port and a claim), in namespace ns, web's image img.
func shopRequest(ns, img string) render.Request {
	return render.Request{Instance: "shop", Namespace: ns, Services: []render.Service{
		{Name: "web", Image: img, Replicas: 2, Ports: []render.Port{{Name: "http", Port: 8080}},
			Secrets: []render.EnvVar{{Name: "API_TOKEN", Value: "s3cret"}}},
		{Name: "db", Image: "postgres:16", Replicas: 1, Ports: []render.Port{{Port: 5432}},
			Volumes: []render.Volume{{Name: "data", MountPath: "/var/lib/postgresql", Size: "1Gi"}}},
	}}
}

// restrictedNS is a namespace enforcing Pod Security restricted.
func restrictedNS(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name,
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}}}
}

// defaultClass is a StorageClass marked the cluster's default, so that
// claims without a class are provisioned (no claim_pending warning).
func defaultClass() *storagev1.StorageClass {
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "standard",
		Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}}, Provisioner: "example.com/disk"}
}

// versioned makes the fake clientset keep resourceVersions as an API
// server does: every create and update sets a new one, and an update or
// delete whose resourceVersion precondition is not the stored one is a
// conflict.
func versioned(cs *fake.Clientset) {
	n := 100
	stored := func(a k8stesting.Action, name string) metav1.Object {
		obj, err := cs.Tracker().Get(a.GetResource(), a.GetNamespace(), name)
		if err != nil {
			return nil
		}
		return obj.(metav1.Object)
	}
	cs.PrependReactor("*", "*", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if action.GetResource().Resource == "selfsubjectaccessreviews" || action.GetSubresource() != "" {
			return false, nil, nil
		}
		gr := action.GetResource().GroupResource()
		switch a := action.(type) {
		case k8stesting.CreateAction:
			m := a.GetObject().(metav1.Object)
			if dryRun(action) {
				return true, a.GetObject(), nil
			}
			if action.GetVerb() == "update" {
				old := stored(action, m.GetName())
				if old != nil && m.GetResourceVersion() != "" && m.GetResourceVersion() != old.GetResourceVersion() {
					return true, nil, apierrors.NewConflict(gr, m.GetName(), errors.New("the object has been modified"))
				}
				n++
				m.SetResourceVersion(fmt.Sprint(n))
				if old != nil {
					m.SetUID(old.GetUID())
				}
				return false, nil, nil
			}
			if m.GetResourceVersion() != "" {
				return true, nil, apierrors.NewBadRequest("resourceVersion should not be set on objects to be created")
			}
			n++
			m.SetResourceVersion(fmt.Sprint(n))
			if m.GetUID() == "" {
				m.SetUID(types.UID(fmt.Sprintf("uid-%d", n)))
			}
		case k8stesting.DeleteAction:
			old := stored(action, a.GetName())
			pre := a.GetDeleteOptions().Preconditions
			if old != nil && pre != nil && ((pre.ResourceVersion != nil && *pre.ResourceVersion != old.GetResourceVersion()) ||
				(pre.UID != nil && *pre.UID != old.GetUID())) {
				return true, nil, apierrors.NewConflict(gr, a.GetName(), errors.New("precondition failed"))
			}
		}
		return false, nil, nil
	})
}

// dryRun reports whether a create or update asks for dryRun=All (the
// fake clientset would store it).
func dryRun(action k8stesting.Action) bool {
	switch a := action.(type) {
	case k8stesting.CreateActionImpl:
		return len(a.GetCreateOptions().DryRun) > 0
	case k8stesting.UpdateActionImpl:
		return len(a.GetUpdateOptions().DryRun) > 0
	}
	return false
}

// rollsOut makes the fake clientset's Deployments available as soon as
// they are written, unless their first image starts with "stuck/".
func rollsOut(cs *fake.Clientset) {
	react := func(action k8stesting.Action) (bool, runtime.Object, error) {
		var d *appsv1.Deployment
		if a, ok := action.(k8stesting.CreateAction); ok {
			d, _ = a.GetObject().(*appsv1.Deployment)
		}
		if d == nil || action.GetSubresource() != "" || strings.HasPrefix(d.Spec.Template.Spec.Containers[0].Image, "stuck/") {
			if d != nil {
				d.Status = appsv1.DeploymentStatus{}
			}
			return false, nil, nil
		}
		n := *d.Spec.Replicas
		d.Status = appsv1.DeploymentStatus{Replicas: n, UpdatedReplicas: n, ReadyReplicas: n, AvailableReplicas: n}
		return false, nil, nil
	}
	cs.PrependReactor("create", "deployments", react)
	cs.PrependReactor("update", "deployments", react)
	versioned(cs)
}

// writes lists the write actions (create, update, delete, patch) sent,
// access reviews aside, as "verb resource/name".
func writes(cs *fake.Clientset) []string {
	var out []string
	for _, a := range cs.Actions() {
		if a.GetResource().Resource == "selfsubjectaccessreviews" {
			continue
		}
		switch a := a.(type) {
		case k8stesting.CreateAction:
			out = append(out, a.GetVerb()+" "+a.GetResource().Resource+"/"+a.GetObject().(metav1.Object).GetName())
		case k8stesting.DeleteAction:
			out = append(out, "delete "+a.GetResource().Resource+"/"+a.GetName())
		case k8stesting.PatchAction:
			out = append(out, "patch "+a.GetResource().Resource+"/"+a.GetName())
		}
	}
	return out
}

// outcomes summarises steps as "action Kind/name outcome".
func outcomes(steps []kube.DeployStep) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString(string(s.Action) + " " + s.Kind + "/" + s.Name + " " + string(s.Outcome) + "\n")
	}
	return b.String()
}

// deployOK plans and deploys req, failing the test on any failure.
func deployOK(t *testing.T, c *kube.Client, req render.Request) kube.DeployResult {
	t.Helper()
	plan, err := c.PlanDeploy(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Deploy(context.Background(), req, kube.DeployOptions{RecordVersion: plan.RecordVersion,
		RecordGeneration: plan.RecordGeneration, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("deploy: %v\n%s", err, outcomes(res.Steps))
	}
	return res
}

func TestDeployCreatesRecordsAndLists(t *testing.T) {
	c, cs := kubetest.FakeClient(t, restrictedNS("apps"), defaultClass())
	rollsOut(cs)
	req := shopRequest("apps", "nginx:1.27")
	var seen []kube.DeployStep
	plan, err := c.PlanDeploy(context.Background(), req)
	if err != nil || plan.Verdicts.Refusal() != nil || len(plan.Verdicts.Warnings()) != 0 {
		t.Fatalf("plan: %v %+v", err, plan.Verdicts)
	}
	for _, s := range plan.Steps {
		if s.Outcome != kube.StepPending {
			t.Errorf("planned step %+v is not pending", s)
		}
	}
	res, err := c.Deploy(context.Background(), req, kube.DeployOptions{RecordVersion: plan.RecordVersion,
		Progress: func(s kube.DeployStep) { seen = append(seen, s) }})
	if err != nil {
		t.Fatalf("%v\n%s", err, outcomes(res.Steps))
	}
	want := `record Secret/kyyard-app-shop done
create Service/shop-web done
create Secret/shop-web-secret done
create Deployment/shop-web done
rollout Deployment/shop-web done
create Service/shop-db done
create PersistentVolumeClaim/shop-db-data done
create Deployment/shop-db done
rollout Deployment/shop-db done
record Secret/kyyard-app-shop done
`
	if got := outcomes(res.Steps); got != want || res.Reason != "" {
		t.Errorf("steps:\n%s\nwant:\n%s", got, want)
	}
	if len(seen) != 2*len(res.Steps) {
		t.Errorf("progress reported %d changes for %d steps", len(seen), len(res.Steps))
	}
	if s := res.Steps[4]; s.Detail != "2/2 available" {
		t.Errorf("rollout detail %q", s.Detail)
	}
	got, err := c.AppRecord(context.Background(), "apps", "shop")
	if err != nil || got.Request.Services[0].Secrets[0].Value != "s3cret" || got.Version == "" {
		t.Errorf("AppRecord = %+v, %v", got, err)
	}
	apps, err := c.Apps(context.Background(), "")
	if err != nil || len(apps) != 1 || !apps[0].Recorded || len(apps[0].Services) != 2 ||
		apps[0].Services[1] != (kube.AppService{Name: "web", Status: "2/2 available", Health: kube.HealthOK}) {
		t.Errorf("Apps = %+v, %v", apps, err)
	}
	sec, _ := cs.CoreV1().Secrets("apps").Get(context.Background(), "kyyard-app-shop", metav1.GetOptions{})
	if sec.Type != kube.RecordType || sec.Labels[kube.RecordLabel] != "true" || sec.Annotations["kyyard.dev/state"] != "deployed" ||
		sec.Annotations["kyyard.dev/generation"] != "1" {
		t.Errorf("record %+v", sec.ObjectMeta)
	}
}

func TestDeployUpdatesPrunesAndDiffs(t *testing.T) {
	c, cs := kubetest.FakeClient(t, restrictedNS("apps"), defaultClass())
	rollsOut(cs)
	deployOK(t, c, shopRequest("apps", "nginx:1.27"))
	// Someone else's annotation on the Deployment survives the update.
	d, _ := cs.AppsV1().Deployments("apps").Get(context.Background(), "shop-web", metav1.GetOptions{})
	d.Annotations = map[string]string{"team": "blue"}
	if _, err := cs.AppsV1().Deployments("apps").Update(context.Background(), d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	next := shopRequest("apps", "nginx:1.28")
	next.Services[0].Secrets[0].Value = "n3wone"
	next.Services = next.Services[:1] // db goes: pruned, its claim kept
	plan, err := c.PlanDeploy(context.Background(), next)
	if err != nil {
		t.Fatal(err)
	}
	if diff := plan.Diff["Deployment/shop-web"]; !strings.Contains(diff, "-        image: nginx:1.27") || !strings.Contains(diff, "+        image: nginx:1.28") {
		t.Errorf("diff:\n%s", diff)
	}
	if diff := plan.Diff["Secret/shop-web-secret"]; strings.Contains(diff, "s3cret") || strings.Contains(diff, "n3wone") ||
		!strings.Contains(diff, "(6 bytes, changed)") {
		t.Errorf("secret diff shows values or misses the change:\n%s", diff)
	}
	if strings.Join(plan.Prune, ",") != "Deployment/shop-db,Service/shop-db" || strings.Join(plan.Keep, ",") != "PersistentVolumeClaim/shop-db-data" {
		t.Errorf("prune %v keep %v", plan.Prune, plan.Keep)
	}
	for key, msg := range plan.DryRun {
		if msg != "" {
			t.Errorf("dry run of %s: %s", key, msg)
		}
	}
	res, err := c.Deploy(context.Background(), next, kube.DeployOptions{RecordVersion: plan.RecordVersion, RecordGeneration: plan.RecordGeneration})
	if err != nil {
		t.Fatalf("%v\n%s", err, outcomes(res.Steps))
	}
	want := `record Secret/kyyard-app-shop done
update Service/shop-web done
update Secret/shop-web-secret done
update Deployment/shop-web done
rollout Deployment/shop-web done
prune Deployment/shop-db done
keep PersistentVolumeClaim/shop-db-data skipped
prune Service/shop-db done
record Secret/kyyard-app-shop done
`
	if got := outcomes(res.Steps); got != want {
		t.Errorf("steps:\n%s\nwant:\n%s", got, want)
	}
	d, _ = cs.AppsV1().Deployments("apps").Get(context.Background(), "shop-web", metav1.GetOptions{})
	if d.Spec.Template.Spec.Containers[0].Image != "nginx:1.28" || d.Annotations["team"] != "blue" {
		t.Errorf("updated Deployment: image %s annotations %v", d.Spec.Template.Spec.Containers[0].Image, d.Annotations)
	}
	if _, err := cs.CoreV1().PersistentVolumeClaims("apps").Get(context.Background(), "shop-db-data", metav1.GetOptions{}); err != nil {
		t.Errorf("the claim was not kept: %v", err)
	}
	if _, err := cs.AppsV1().Deployments("apps").Get(context.Background(), "shop-db", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("shop-db was not pruned: %v", err)
	}
}

// refused deploys req on c and checks it is refused with reason before
// any write.
func refused(t *testing.T, c *kube.Client, cs *fake.Clientset, req render.Request, opts kube.DeployOptions, reason kube.Reason) kube.DeployResult {
	t.Helper()
	cs.ClearActions()
	res, err := c.Deploy(context.Background(), req, opts)
	if kube.ReasonOf(err) != reason || res.Reason != reason {
		t.Fatalf("Deploy = %v (result reason %q), want %s\n%s", err, res.Reason, reason, outcomes(res.Steps))
	}
	for _, s := range res.Steps {
		if s.Outcome != kube.StepSkipped || s.Reason != reason {
			t.Errorf("step %+v not skipped with %s", s, reason)
		}
	}
	if w := writes(cs); len(w) != 0 {
		t.Errorf("writes sent: %v", w)
	}
	return res
}

func TestDeployNameTaken(t *testing.T) {
	theirs := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "shop-web", Namespace: "apps", Labels: map[string]string{"app": "theirs"}}}
	c, cs := kubetest.FakeClient(t, restrictedNS("apps"), defaultClass(), theirs)
	res := refused(t, c, cs, shopRequest("apps", "nginx:1.27"), kube.DeployOptions{}, kube.ReasonNameTaken)
	if !strings.Contains(res.Steps[0].Detail, "Service/shop-web exists and was not made by instance shop") {
		t.Errorf("detail %q", res.Steps[0].Detail)
	}
	// Another instance's object is not this one's either.
	other := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "kyyard-app-shop", Namespace: "apps",
		Labels: map[string]string{render.LabelManagedBy: render.ManagedBy, render.LabelInstance: "other"}}}
	c, cs = kubetest.FakeClient(t, restrictedNS("apps"), defaultClass(), other)
	refused(t, c, cs, shopRequest("apps", "nginx:1.27"), kube.DeployOptions{}, kube.ReasonNameTaken)
}

func TestDeployClaimImmutable(t *testing.T) {
	class := "fast"
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "shop-db-data", Namespace: "apps",
		Labels: render.Labels("shop", "db")}, Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class,
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
	c, cs := kubetest.FakeClient(t, restrictedNS("apps"), defaultClass(), claim)
	req := shopRequest("apps", "nginx:1.27")
	req.Services[1].Volumes[0].StorageClass = "slow"
	res := refused(t, c, cs, req, kube.DeployOptions{}, kube.ReasonClaimImmutable)
	if !strings.Contains(res.Steps[0].Detail, `storage class "fast", planned "slow"`) {
		t.Errorf("detail %q", res.Steps[0].Detail)
	}
}

func TestDeployForbiddenAndReadOnly(t *testing.T) {
	c, cs := kubetest.FakeClient(t, restrictedNS("apps"), defaultClass())
	cs.PrependReactor("create", "selfsubjectaccessreviews", kubetest.DenyAccessReviews)
	refused(t, c, cs, shopRequest("apps", "nginx:1.27"), kube.DeployOptions{}, kube.ReasonForbidden)

	cs = fake.NewClientset(restrictedNS("apps"))
	ro := kube.NewFromClientset(cs, kube.Options{Registry: kinds.Builtin(), ReadOnly: true})
	t.Cleanup(ro.Close)
	refused(t, ro, cs, shopRequest("apps", "nginx:1.27"), kube.DeployOptions{}, kube.ReasonReadOnly)
	if n := len(cs.Actions()); n != 0 {
		t.Errorf("read-only sent %d requests", n)
	}
}

func TestDeployPodSecurity(t *testing.T) {
	open := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "apps"}}
	cs := fake.NewClientset(open, defaultClass())
	cs.PrependReactor("create", "selfsubjectaccessreviews", kubetest.AllowAccessReviews)
	strict := kube.NewFromClientset(cs, kube.Options{Registry: kinds.Builtin(), Policy: kube.PolicyStrict})
	t.Cleanup(strict.Close)
	refused(t, strict, cs, shopRequest("apps", "nginx:1.27"), kube.DeployOptions{}, kube.ReasonPodSecurity)

	c, cs := kubetest.FakeClient(t, open, defaultClass())
	rollsOut(cs)
	refused(t, c, cs, shopRequest("apps", "nginx:1.27"), kube.DeployOptions{}, kube.ReasonPodSecurity)
	res, err := c.Deploy(context.Background(), shopRequest("apps", "nginx:1.27"), kube.DeployOptions{Confirmed: []kube.Reason{kube.ReasonPodSecurity}})
	if err != nil {
		t.Errorf("confirmed: %v\n%s", err, outcomes(res.Steps))
	}
}

func TestDeployRecordConflict(t *testing.T) {
	c, cs := kubetest.FakeClient(t, restrictedNS("apps"), defaultClass())
	rollsOut(cs)
	deployOK(t, c, shopRequest("apps", "nginx:1.27"))
	stale, err := c.PlanDeploy(context.Background(), shopRequest("apps", "nginx:1.28"))
	if err != nil {
		t.Fatal(err)
	}
	deployOK(t, c, shopRequest("apps", "nginx:1.29")) // a later deploy
	cs.ClearActions()
	res, err := c.Deploy(context.Background(), shopRequest("apps", "nginx:1.28"),
		kube.DeployOptions{RecordVersion: stale.RecordVersion, RecordGeneration: stale.RecordGeneration})
	if kube.ReasonOf(err) != kube.ReasonConflict || !strings.Contains(err.Error(), "generation 1 is now 2") {
		t.Fatalf("stale deploy: %v\n%s", err, outcomes(res.Steps))
	}
	for _, w := range writes(cs) {
		if w != "update secrets/kyyard-app-shop" {
			t.Errorf("the loser wrote %s", w)
		}
	}
	if res.Steps[0].Outcome != kube.StepFailed || res.Steps[1].Outcome != kube.StepSkipped {
		t.Errorf("steps:\n%s", outcomes(res.Steps))
	}
	d, _ := cs.AppsV1().Deployments("apps").Get(context.Background(), "shop-web", metav1.GetOptions{})
	if img := d.Spec.Template.Spec.Containers[0].Image; img != "nginx:1.29" {
		t.Errorf("the later deploy was overwritten: %s", img)
	}
	// A first deploy racing another first deploy: the Create finds one.
	c2, cs2 := kubetest.FakeClient(t, restrictedNS("apps"), defaultClass())
	rollsOut(cs2)
	first, _ := c2.PlanDeploy(context.Background(), shopRequest("apps", "nginx:1.27"))
	deployOK(t, c2, shopRequest("apps", "nginx:1.27"))
	_, err = c2.Deploy(context.Background(), shopRequest("apps", "nginx:1.28"), kube.DeployOptions{RecordVersion: first.RecordVersion})
	if kube.ReasonOf(err) != kube.ReasonConflict {
		t.Errorf("second first deploy: %v", err)
	}
}

func TestDeployRecordMovedWithoutDeployIsRetried(t *testing.T) {
	c, cs := kubetest.FakeClient(t, restrictedNS("apps"), defaultClass())
	rollsOut(cs)
	deployOK(t, c, shopRequest("apps", "nginx:1.27"))
	plan, _ := c.PlanDeploy(context.Background(), shopRequest("apps", "nginx:1.28"))
	sec, _ := cs.CoreV1().Secrets("apps").Get(context.Background(), "kyyard-app-shop", metav1.GetOptions{})
	sec.Labels["backup"] = "nightly"
	if _, err := cs.CoreV1().Secrets("apps").Update(context.Background(), sec, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := c.Deploy(context.Background(), shopRequest("apps", "nginx:1.28"),
		kube.DeployOptions{RecordVersion: plan.RecordVersion, RecordGeneration: plan.RecordGeneration})
	if err != nil {
		t.Fatalf("%v\n%s", err, outcomes(res.Steps))
	}
}

func TestDeployRolloutTimeoutRestores(t *testing.T) {
	c, cs := kubetest.FakeClient(t, restrictedNS("apps"), defaultClass())
	rollsOut(cs)
	deployOK(t, c, shopRequest("apps", "nginx:1.27"))
	bad := shopRequest("apps", "stuck/nginx:1.28")
	bad.Services[0].Ports = append(bad.Services[0].Ports, render.Port{Name: "admin", Port: 9090})
	bad.Services = append(bad.Services, render.Service{Name: "cache", Image: "redis:7", Replicas: 1,
		ConfigFile: &render.ConfigFile{Path: "/etc/redis/redis.conf", Content: "maxmemory 10mb\n"}})
	plan, _ := c.PlanDeploy(context.Background(), bad)
	res, err := c.Deploy(context.Background(), bad, kube.DeployOptions{RecordVersion: plan.RecordVersion,
		RecordGeneration: plan.RecordGeneration, Timeout: 20 * time.Millisecond})
	if kube.ReasonOf(err) != kube.ReasonRolloutTimeout || res.Reason != kube.ReasonRolloutTimeout {
		t.Fatalf("Deploy = %v\n%s", err, outcomes(res.Steps))
	}
	want := `record Secret/kyyard-app-shop done
update Service/shop-web done
update Secret/shop-web-secret done
update Deployment/shop-web done
rollout Deployment/shop-web failed
update Service/shop-db skipped
keep PersistentVolumeClaim/shop-db-data skipped
update Deployment/shop-db skipped
rollout Deployment/shop-db skipped
create ConfigMap/shop-cache-config skipped
create Deployment/shop-cache skipped
rollout Deployment/shop-cache skipped
record Secret/kyyard-app-shop skipped
restore Service/shop-web done
restore Secret/shop-web-secret done
restore Deployment/shop-web done
restore Service/shop-db done
restore Deployment/shop-db done
record Secret/kyyard-app-shop done
`
	if got := outcomes(res.Steps); got != want {
		t.Errorf("steps:\n%s\nwant:\n%s", got, want)
	}
	d, _ := cs.AppsV1().Deployments("apps").Get(context.Background(), "shop-web", metav1.GetOptions{})
	svc, _ := cs.CoreV1().Services("apps").Get(context.Background(), "shop-web", metav1.GetOptions{})
	if d.Spec.Template.Spec.Containers[0].Image != "nginx:1.27" || len(svc.Spec.Ports) != 1 {
		t.Errorf("not restored: image %s, %d ports", d.Spec.Template.Spec.Containers[0].Image, len(svc.Spec.Ports))
	}
	got, err := c.AppRecord(context.Background(), "apps", "shop")
	if err != nil || got.Request.Services[0].Image != "nginx:1.27" {
		t.Errorf("record after restore: %+v, %v", got, err)
	}
	// A first deploy that times out leaves nothing but its claim.
	c2, cs2 := kubetest.FakeClient(t, restrictedNS("apps"), defaultClass())
	rollsOut(cs2)
	first := shopRequest("apps", "nginx:1.27")
	first.Services[1].Image = "stuck/postgres:16"
	res, err = c2.Deploy(context.Background(), first, kube.DeployOptions{Timeout: 20 * time.Millisecond})
	if kube.ReasonOf(err) != kube.ReasonRolloutTimeout {
		t.Fatalf("first: %v", err)
	}
	for _, kind := range []string{"deployments", "services", "secrets"} {
		var n int
		switch kind {
		case "deployments":
			l, _ := cs2.AppsV1().Deployments("apps").List(context.Background(), metav1.ListOptions{})
			n = len(l.Items)
		case "services":
			l, _ := cs2.CoreV1().Services("apps").List(context.Background(), metav1.ListOptions{})
			n = len(l.Items)
		case "secrets":
			l, _ := cs2.CoreV1().Secrets("apps").List(context.Background(), metav1.ListOptions{})
			n = len(l.Items)
		}
		if n != 0 {
			t.Errorf("%d %s left after a failed first deploy\n%s", n, kind, outcomes(res.Steps))
		}
	}
	if _, err := cs2.CoreV1().PersistentVolumeClaims("apps").Get(context.Background(), "shop-db-data", metav1.GetOptions{}); err != nil {
		t.Errorf("the claim was deleted: %v", err)
	}
}

func TestDeployAdmissionDeniedAndConflictRetry(t *testing.T) {
	c, cs := kubetest.FakeClient(t, restrictedNS("apps"), defaultClass())
	rollsOut(cs)
	cs.PrependReactor("create", "services", func(action k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "services"}, "shop-web",
			errors.New("exceeded quota: q, requested: services=1, used: services=0, limited: services=0"))
	})
	res, err := c.Deploy(context.Background(), shopRequest("apps", "nginx:1.27"), kube.DeployOptions{})
	if kube.ReasonOf(err) != kube.ReasonAdmissionDenied || !strings.Contains(res.Steps[1].Detail, "exceeded quota") {
		t.Fatalf("Deploy = %v\n%s", err, outcomes(res.Steps))
	}
	if last := res.Steps[len(res.Steps)-1]; last.Action != kube.StepRecord || last.Outcome != kube.StepDone ||
		!strings.HasPrefix(last.Detail, "deleted") {
		t.Errorf("the claim was not released: %+v", last)
	}

	// A 409 on an update is read again and retried once.
	c, cs = kubetest.FakeClient(t, restrictedNS("apps"), defaultClass())
	rollsOut(cs)
	deployOK(t, c, shopRequest("apps", "nginx:1.27"))
	once := true
	cs.PrependReactor("update", "deployments", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if once {
			once = false
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, "shop-web", errors.New("the object has been modified"))
		}
		return false, nil, nil
	})
	deployOK(t, c, shopRequest("apps", "nginx:1.28"))
	if once {
		t.Error("the conflict was never answered")
	}
}

func TestRemove(t *testing.T) {
	c, cs := kubetest.FakeClient(t, restrictedNS("apps"), defaultClass())
	rollsOut(cs)
	deployOK(t, c, shopRequest("apps", "nginx:1.27"))
	theirs := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shop-notes", Namespace: "apps", Labels: map[string]string{render.LabelInstance: "shop"}}}
	if _, err := cs.CoreV1().ConfigMaps("apps").Create(context.Background(), theirs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	plan, err := c.PlanRemove(context.Background(), "apps", "shop")
	want := `delete Deployment/shop-db pending
delete Deployment/shop-web pending
delete Service/shop-db pending
delete Service/shop-web pending
delete Secret/shop-web-secret pending
keep PersistentVolumeClaim/shop-db-data pending
record Secret/kyyard-app-shop pending
`
	if got := outcomes(plan.Steps); err != nil || got != want {
		t.Fatalf("PlanRemove = %v\n%s\nwant:\n%s", err, got, want)
	}
	cs.ClearActions()
	ro := kube.NewFromClientset(cs, kube.Options{Registry: kinds.Builtin(), ReadOnly: true})
	t.Cleanup(ro.Close)
	if res, err := ro.Remove(context.Background(), "apps", "shop", nil); kube.ReasonOf(err) != kube.ReasonReadOnly || res.Steps[0].Outcome != kube.StepSkipped {
		t.Errorf("read-only Remove = %v", err)
	}
	if w := writes(cs); len(w) != 0 {
		t.Errorf("read-only wrote %v", w)
	}
	res, err := c.Remove(context.Background(), "apps", "shop", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Steps {
		if (s.Action == kube.StepKeep) != (s.Outcome == kube.StepSkipped) || (s.Action == kube.StepKeep && s.Detail != "retained") {
			t.Errorf("step %+v", s)
		}
	}
	var deleted []string
	for _, a := range cs.Actions() {
		if d, ok := a.(k8stesting.DeleteAction); ok {
			deleted = append(deleted, d.GetResource().Resource+"/"+d.GetName())
			if o := d.GetDeleteOptions(); o.PropagationPolicy == nil || *o.PropagationPolicy != metav1.DeletePropagationForeground {
				t.Errorf("%s not deleted foreground", d.GetName())
			}
		}
	}
	if got := strings.Join(deleted, " "); got != "deployments/shop-db deployments/shop-web services/shop-db services/shop-web secrets/shop-web-secret secrets/kyyard-app-shop" {
		t.Errorf("deleted %s", got)
	}
	if _, err := c.AppRecord(context.Background(), "apps", "shop"); !errors.Is(err, kube.ErrNoRecord) || kube.ReasonOf(err) != kube.ReasonNotFound {
		t.Errorf("AppRecord after Remove = %v", err)
	}
}

// TestDeployClaimWithoutDefaultClassWarns (issue 11): a claim planned
// without a storage class in a cluster without a default StorageClass
// would stay Pending: PlanDeploy warns claim_pending (strict refuses); a
// default class, a named class or an existing claim do not warn.
func TestDeployClaimWithoutDefaultClassWarns(t *testing.T) {
	notDefault := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "slow"}, Provisioner: "example.com/disk"}
	warned := func(plan kube.DeployPlan) []kube.Verdict {
		var out []kube.Verdict
		for _, v := range plan.Verdicts {
			if v.Guard == kube.GuardStorageClass && v.Outcome != kube.OutcomePass {
				out = append(out, v)
			}
		}
		return out
	}
	c, cs := kubetest.FakeClient(t, restrictedNS("apps"), notDefault)
	rollsOut(cs)
	req := shopRequest("apps", "nginx:1.27")
	plan, err := c.PlanDeploy(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	w := warned(plan)
	if len(w) != 1 || w[0].Outcome != kube.OutcomeWarn || w[0].Reason != kube.ReasonClaimPending ||
		w[0].Sentence != "claim shop-db-data names no storage class and the cluster has no default: it will stay Pending" {
		t.Fatalf("verdicts %+v", plan.Verdicts)
	}
	// Deploy stops unless the warning is confirmed.
	res, err := c.Deploy(context.Background(), req, kube.DeployOptions{})
	if kube.ReasonOf(err) != kube.ReasonClaimPending || res.Reason != kube.ReasonClaimPending {
		t.Errorf("unconfirmed deploy: %v %q", err, res.Reason)
	}
	named := shopRequest("apps", "nginx:1.27")
	named.Services[1].Volumes[0].StorageClass = "slow"
	if plan, _ := c.PlanDeploy(context.Background(), named); len(warned(plan)) != 0 {
		t.Errorf("a named class warned: %+v", warned(plan))
	}
	_, scs := kubetest.FakeClient(t, restrictedNS("apps"))
	strict := kube.NewFromClientset(scs, kube.Options{Registry: kinds.Builtin(), Policy: kube.PolicyStrict})
	if plan, _ := strict.PlanDeploy(context.Background(), req); len(warned(plan)) != 1 || warned(plan)[0].Outcome != kube.OutcomeRefuse {
		t.Errorf("strict: %+v", plan.Verdicts)
	}
	withDefault, _ := kubetest.FakeClient(t, restrictedNS("apps"), defaultClass())
	if plan, _ := withDefault.PlanDeploy(context.Background(), req); len(warned(plan)) != 0 {
		t.Errorf("a default class warned: %+v", warned(plan))
	}
}

// TestAppsListsRetainedClaims (issue 11): Apps names every instance's
// claims (Retained), and an instance with only claims left after Remove is
// still listed, with no services.
func TestAppsListsRetainedClaims(t *testing.T) {
	c, cs := kubetest.FakeClient(t, restrictedNS("apps"), defaultClass())
	rollsOut(cs)
	deployOK(t, c, shopRequest("apps", "nginx:1.27"))
	apps, err := c.Apps(context.Background(), "apps")
	if err != nil || len(apps) != 1 || strings.Join(apps[0].Retained, ",") != "shop-db-data" || len(apps[0].Services) != 2 {
		t.Fatalf("Apps = %+v, %v", apps, err)
	}
	if _, err := c.Remove(context.Background(), "apps", "shop", nil); err != nil {
		t.Fatal(err)
	}
	// Someone else's claim with only the instance label is not kyyard's.
	foreign := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "theirs", Namespace: "apps",
		Labels: map[string]string{render.LabelInstance: "other"}}}
	if _, err := cs.CoreV1().PersistentVolumeClaims("apps").Create(context.Background(), foreign, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	apps, err = c.Apps(context.Background(), "")
	if err != nil || len(apps) != 1 {
		t.Fatalf("after Remove: Apps = %+v, %v", apps, err)
	}
	if a := apps[0]; a.Instance != "shop" || a.Recorded || len(a.Services) != 0 || strings.Join(a.Retained, ",") != "shop-db-data" {
		t.Errorf("after Remove: %+v, want shop with only its claim", a)
	}
}
