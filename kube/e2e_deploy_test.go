package kube_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/render"
)

// deployEnv is a namespace of the test's own ("kdep-..."), enforcing Pod
// Security restricted unless asked otherwise, and the admin clientset.
type deployEnv struct {
	t   *testing.T
	cfg *rest.Config
	cs  kubernetes.Interface
	ns  string
}

// newDeployEnv makes the namespace; restricted labels it
// pod-security.kubernetes.io/enforce: restricted.
func newDeployEnv(t *testing.T, restricted bool) *deployEnv {
	t.Helper()
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	e := &deployEnv{t: t, cfg: cfg, cs: cs, ns: kubetest.TempNamespace(t, cs, "kdep")}
	if restricted {
		ns, err := cs.CoreV1().Namespaces().Get(context.Background(), e.ns, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ns.Labels["pod-security.kubernetes.io/enforce"] = "restricted"
		if _, err := cs.CoreV1().Namespaces().Update(context.Background(), ns, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// client is a kube.Client with its own user agent (to find its requests
// in the audit log).
func (e *deployEnv) client(opts kube.Options) (*kube.Client, string) {
	cfg := rest.CopyConfig(e.cfg)
	cfg.UserAgent = fmt.Sprintf("kyyard-deploy-%d", time.Now().UnixNano())
	opts.Registry = kinds.Builtin()
	c, err := kube.NewFromConfig(cfg, opts)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(c.Close)
	return c, cfg.UserAgent
}

// kwokToleration lets the namespace's pods onto the tainted kwok nodes
// without render knowing of kwok: a MutatingAdmissionPolicy (bound to this
// namespace only, deleted after the test) adds the toleration
// kwok.x-k8s.io/node=fake:NoSchedule to every pod created in it. It
// returns once a dry-run pod comes back with the toleration.
func (e *deployEnv) kwokToleration() {
	t, ctx := e.t, context.Background()
	name := "kdep-toleration-" + e.ns
	fail := admissionregistrationv1.Fail
	never := admissionregistrationv1.NeverReinvocationPolicy
	policy := &admissionregistrationv1.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}}},
			FailurePolicy: &fail, ReinvocationPolicy: never,
			Mutations: []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeJSONPatch,
				JSONPatch: &admissionregistrationv1.JSONPatch{Expression: `[JSONPatch{op: "add", path: "/spec/tolerations/-", ` +
					`value: Object.spec.tolerations{key: "kwok.x-k8s.io/node", operator: "Equal", value: "fake", effect: "NoSchedule"}}]`}}},
		}}
	binding := &admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: name,
			MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"kubernetes.io/metadata.name": e.ns}}}}}
	ar := e.cs.AdmissionregistrationV1()
	if _, err := ar.MutatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ar.MutatingAdmissionPolicies().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	if _, err := ar.MutatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = ar.MutatingAdmissionPolicyBindings().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	no := false
	probe := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "probe"}, Spec: corev1.PodSpec{
		SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
		Containers: []corev1.Container{{Name: "c", Image: "busybox", SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: &no, Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}}}}}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		got, err := e.cs.CoreV1().Pods(e.ns).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil {
			for _, tol := range got.Spec.Tolerations {
				if tol.Key == "kwok.x-k8s.io/node" {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the toleration policy is not applied after 30 s: %v", err)
		}
	}
}

// claimVolume makes a PersistentVolume bound in advance to the claim
// ns/name (the local cluster has no provisioner), deleted after the test.
func (e *deployEnv) claimVolume(claim string) {
	name := "kdep-pv-" + e.ns + "-" + claim
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeSpec{
		Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
		AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		ClaimRef:               &corev1.ObjectReference{Namespace: e.ns, Name: claim},
		PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/" + name}},
	}}
	if _, err := e.cs.CoreV1().PersistentVolumes().Create(context.Background(), pv, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		_ = e.cs.CoreV1().PersistentVolumes().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
}

// confirmedPending accepts the claim_pending warning: the local cluster
// has no default StorageClass, and the tests bind their claims to
// PersistentVolumes made for them (claimVolume).
var confirmedPending = []kube.Reason{kube.ReasonClaimPending}

// deploy plans and deploys req with c; it returns the result and error.
func (e *deployEnv) deploy(c *kube.Client, req render.Request, timeout time.Duration) (kube.DeployResult, error) {
	e.t.Helper()
	plan, err := c.PlanDeploy(context.Background(), req)
	if err != nil {
		e.t.Fatal(err)
	}
	return c.Deploy(context.Background(), req, kube.DeployOptions{RecordVersion: plan.RecordVersion,
		RecordGeneration: plan.RecordGeneration, Timeout: timeout, Confirmed: confirmedPending})
}

// mustDeploy deploys req and fails on any failure.
func (e *deployEnv) mustDeploy(c *kube.Client, req render.Request) kube.DeployResult {
	e.t.Helper()
	res, err := e.deploy(c, req, 90*time.Second)
	if err != nil {
		e.t.Fatalf("deploy: %v\n%s", err, outcomes(res.Steps))
	}
	return res
}

// image is the image of Deployment name's first container.
func (e *deployEnv) image(name string) string {
	d, err := e.cs.AppsV1().Deployments(e.ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return d.Spec.Template.Spec.Containers[0].Image
}

// TestE2EDeployLifecycle: a two-service app (db with a claim, web with a
// Secret) deployed and rolled out on kwok; changed (web's image) and db
// dropped: web updated, db's Deployment and Service pruned, its claim
// kept; two deploys of the instance at once: one wins, the other is a
// conflict and the audit log shows no accepted write of it; removed:
// claims and objects without the labels kept.
func TestE2EDeployLifecycle(t *testing.T) {
	e := newDeployEnv(t, true)
	e.kwokToleration()
	e.claimVolume("shop-db-data")
	ctx := context.Background()
	c, _ := e.client(kube.Options{Policy: kube.PolicyStrict})

	res := e.mustDeploy(c, shopRequest(e.ns, "nginx:1.27"))
	for _, s := range res.Steps {
		if s.Action == kube.StepRollout && !strings.HasSuffix(s.Detail, "available") {
			t.Errorf("rollout %s: %q", s.Name, s.Detail)
		}
	}
	if s := res.Steps[4]; s.Action != kube.StepRollout || s.Detail != "2/2 available" {
		t.Errorf("web rollout step %+v", s)
	}
	pods, _ := e.cs.CoreV1().Pods(e.ns).List(ctx, metav1.ListOptions{LabelSelector: render.LabelInstance + "=shop"})
	running := 0
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning {
			running++
		}
	}
	if running != 3 {
		t.Errorf("%d pods running, want 3", running)
	}
	apps, err := c.Apps(ctx, e.ns)
	if err != nil || len(apps) != 1 || !apps[0].Recorded || len(apps[0].Services) != 2 || apps[0].Services[1].Status != "2/2 available" {
		t.Errorf("Apps = %+v, %v", apps, err)
	}

	// The same request again: every object exists and nothing changes
	// (the server's defaults do not show; issue 11's diff fault).
	same, err := c.PlanDeploy(ctx, shopRequest(e.ns, "nginx:1.27"))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"Service/shop-web", "Secret/shop-web-secret", "Deployment/shop-web", "Service/shop-db",
		"PersistentVolumeClaim/shop-db-data", "Deployment/shop-db"} {
		if d, ok := same.Diff[key]; !ok || d != kube.DiffUnchanged {
			t.Errorf("re-plan: Diff[%s] = %q (present %v), want unchanged", key, d, ok)
		}
	}
	// Without the record the live objects are compared, cut to the
	// rendered fields: still unchanged.
	if err := e.cs.CoreV1().Secrets(e.ns).Delete(ctx, kube.RecordPrefix+"shop", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	adopted, err := c.PlanDeploy(ctx, shopRequest(e.ns, "nginx:1.27"))
	if err != nil {
		t.Fatal(err)
	}
	for key, d := range adopted.Diff {
		if d != kube.DiffUnchanged {
			t.Errorf("adopted re-plan: Diff[%s]:\n%s", key, d)
		}
	}
	e.mustDeploy(c, shopRequest(e.ns, "nginx:1.27")) // the record again

	// Change it: web's image and secret, db dropped.
	next := shopRequest(e.ns, "nginx:1.28")
	next.Services[0].Secrets[0].Value = "rotated"
	next.Services = next.Services[:1]
	plan, err := c.PlanDeploy(ctx, next)
	if err != nil || strings.Join(plan.Prune, ",") != "Deployment/shop-db,Service/shop-db" || len(plan.Keep) != 1 {
		t.Fatalf("plan: %v prune %v keep %v", err, plan.Prune, plan.Keep)
	}
	for key, msg := range plan.DryRun {
		if msg != "" {
			t.Errorf("dry run of %s: %s", key, msg)
		}
	}
	if !strings.Contains(plan.Diff["Deployment/shop-web"], "+        image: nginx:1.28") {
		t.Errorf("diff:\n%s", plan.Diff["Deployment/shop-web"])
	}
	res = e.mustDeploy(c, next)
	if e.image("shop-web") != "nginx:1.28" {
		t.Errorf("web not updated")
	}
	// Pruned foreground: the Deployment goes once its pods have.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		_, err := e.cs.AppsV1().Deployments(e.ns).Get(ctx, "shop-db", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("shop-db not pruned: %v\n%s", err, outcomes(res.Steps))
		}
	}
	if _, err := e.cs.CoreV1().PersistentVolumeClaims(e.ns).Get(ctx, "shop-db-data", metav1.GetOptions{}); err != nil {
		t.Errorf("claim not kept: %v", err)
	}

	// Two deploys at once, planned against the same record.
	a, agentA := e.client(kube.Options{})
	b, agentB := e.client(kube.Options{})
	reqA, reqB := shopRequest(e.ns, "nginx:1.29"), shopRequest(e.ns, "nginx:1.30")
	reqA.Services, reqB.Services = reqA.Services[:1], reqB.Services[:1]
	planA, errA := a.PlanDeploy(ctx, reqA)
	planB, errB := b.PlanDeploy(ctx, reqB)
	if errA != nil || errB != nil || planA.RecordVersion != planB.RecordVersion {
		t.Fatalf("plans: %v %v %s %s", errA, errB, planA.RecordVersion, planB.RecordVersion)
	}
	since := time.Now()
	var wg sync.WaitGroup
	var resA, resB kube.DeployResult
	wg.Add(2)
	go func() {
		defer wg.Done()
		resA, errA = a.Deploy(ctx, reqA, kube.DeployOptions{RecordVersion: planA.RecordVersion, RecordGeneration: planA.RecordGeneration, Timeout: 90 * time.Second, Confirmed: confirmedPending})
	}()
	go func() {
		defer wg.Done()
		resB, errB = b.Deploy(ctx, reqB, kube.DeployOptions{RecordVersion: planB.RecordVersion, RecordGeneration: planB.RecordGeneration, Timeout: 90 * time.Second, Confirmed: confirmedPending})
	}()
	wg.Wait()
	winner, loserAgent, loserErr, loserRes, wantImage := "A", agentB, errB, resB, "nginx:1.29"
	if errA != nil {
		winner, loserAgent, loserErr, loserRes, wantImage = "B", agentA, errA, resA, "nginx:1.30"
		if errB != nil {
			t.Fatalf("both failed: %v / %v", errA, errB)
		}
	}
	if kube.ReasonOf(loserErr) != kube.ReasonConflict || loserRes.Steps[0].Outcome != kube.StepFailed {
		t.Fatalf("loser: %v\n%s", loserErr, outcomes(loserRes.Steps))
	}
	for _, w := range auditWrites(t, loserAgent, since) {
		if w.Response.Code < 300 {
			t.Errorf("the loser wrote: %s %s (%d)", w.Verb, w.URI, w.Response.Code)
		}
	}
	if got := e.image("shop-web"); got != wantImage {
		t.Errorf("winner %s, but web runs %s", winner, got)
	}
	t.Logf("winner %s; loser: %v", winner, loserErr)

	// Remove: objects without the labels and claims are kept.
	notOurs := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shop-notes", Labels: map[string]string{render.LabelInstance: "shop"}}}
	if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Create(ctx, notOurs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err = c.Remove(ctx, e.ns, "shop", nil)
	if err != nil {
		t.Fatalf("remove: %v\n%s", err, outcomes(res.Steps))
	}
	want := `delete Deployment/shop-web done
delete Service/shop-web done
delete Secret/shop-web-secret done
keep PersistentVolumeClaim/shop-db-data skipped
record Secret/kyyard-app-shop done
`
	if got := outcomes(res.Steps); got != want {
		t.Errorf("remove steps:\n%s\nwant:\n%s", got, want)
	}
	if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Get(ctx, "shop-notes", metav1.GetOptions{}); err != nil {
		t.Errorf("an object without the labels was touched: %v", err)
	}
	if _, err := e.cs.CoreV1().PersistentVolumeClaims(e.ns).Get(ctx, "shop-db-data", metav1.GetOptions{}); err != nil {
		t.Errorf("claim not kept: %v", err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		pods, _ := e.cs.CoreV1().Pods(e.ns).List(ctx, metav1.ListOptions{LabelSelector: render.LabelInstance + "=shop"})
		if len(pods.Items) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d pods left after remove", len(pods.Items))
		}
	}
	// Only the kept claim is left: the instance is still listed, with no
	// services and its claim retained (issue 11). A Deployment in
	// foreground deletion is listed ("deleting") until its finalizer goes,
	// a moment after its pods.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		apps, _ := c.Apps(ctx, e.ns)
		if len(apps) == 1 && len(apps[0].Services) == 0 && !apps[0].Recorded && strings.Join(apps[0].Retained, ",") == "shop-db-data" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Apps after remove: %+v", apps)
		}
	}
}

// refused deploys req and checks the refusal's reason and that the
// client's audit log shows no accepted write.
func (e *deployEnv) refused(c *kube.Client, agent string, req render.Request, opts kube.DeployOptions, want kube.Reason) kube.DeployResult {
	e.t.Helper()
	since := time.Now()
	res, err := c.Deploy(context.Background(), req, opts)
	if kube.ReasonOf(err) != want || res.Reason != want {
		e.t.Fatalf("Deploy = %v, want %s\n%s", err, want, outcomes(res.Steps))
	}
	if agent != "" && want != kube.ReasonAdmissionDenied {
		for _, w := range auditWrites(e.t, agent, since) {
			if w.Response.Code < 300 {
				e.t.Errorf("refused deploy wrote: %s %s", w.Verb, w.URI)
			}
		}
	}
	e.t.Logf("%s: %v", want, err)
	return res
}

// TestE2EDeployRefusals: each refusal from a real situation on the local
// cluster.
func TestE2EDeployRefusals(t *testing.T) {
	ctx := context.Background()
	t.Run("name_taken", func(t *testing.T) {
		e := newDeployEnv(t, true)
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "shop-web"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
		if _, err := e.cs.CoreV1().Services(e.ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		c, agent := e.client(kube.Options{})
		e.refused(c, agent, shopRequest(e.ns, "nginx:1.27"), kube.DeployOptions{}, kube.ReasonNameTaken)
	})
	t.Run("claim_immutable", func(t *testing.T) {
		e := newDeployEnv(t, true)
		class := "kyyard-demo"
		pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "shop-db-data", Labels: render.Labels("shop", "db")},
			Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
		if _, err := e.cs.CoreV1().PersistentVolumeClaims(e.ns).Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		c, agent := e.client(kube.Options{})
		req := shopRequest(e.ns, "nginx:1.27")
		req.Services[1].Volumes[0].StorageClass = "kdep-fast"
		res := e.refused(c, agent, req, kube.DeployOptions{}, kube.ReasonClaimImmutable)
		if !strings.Contains(res.Steps[0].Detail, `storage class "kyyard-demo", planned "kdep-fast"`) {
			t.Errorf("detail %q", res.Steps[0].Detail)
		}
	})
	t.Run("forbidden", func(t *testing.T) {
		e := newDeployEnv(t, true)
		c := kubetest.Client(t, kubetest.LocalReadOnly(t))
		res := e.refused(c, "", shopRequest(e.ns, "nginx:1.27"), kube.DeployOptions{}, kube.ReasonForbidden)
		if !strings.Contains(res.Steps[0].Detail, "you may not") {
			t.Errorf("detail %q", res.Steps[0].Detail)
		}
	})
	t.Run("pod_security", func(t *testing.T) {
		e := newDeployEnv(t, false)
		c, agent := e.client(kube.Options{Policy: kube.PolicyStrict})
		e.refused(c, agent, shopRequest(e.ns, "nginx:1.27"), kube.DeployOptions{Confirmed: []kube.Reason{kube.ReasonPodSecurity}}, kube.ReasonPodSecurity)
	})
	t.Run("admission_denied", func(t *testing.T) {
		e := newDeployEnv(t, true)
		quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "no-services"},
			Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourceServices: resource.MustParse("0")}}}
		if _, err := e.cs.CoreV1().ResourceQuotas(e.ns).Create(ctx, quota, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			q, err := e.cs.CoreV1().ResourceQuotas(e.ns).Get(ctx, "no-services", metav1.GetOptions{})
			if err == nil && len(q.Status.Hard) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the quota controller never computed the quota's status")
			}
		}
		c, _ := e.client(kube.Options{})
		res := e.refused(c, "", shopRequest(e.ns, "nginx:1.27"), kube.DeployOptions{Confirmed: confirmedPending}, kube.ReasonAdmissionDenied)
		if s := res.Steps[1]; s.Kind != "Service" || s.Outcome != kube.StepFailed || !strings.Contains(s.Detail, "exceeded quota: no-services") {
			t.Errorf("step %+v", s)
		}
		if _, err := e.cs.CoreV1().Secrets(e.ns).Get(ctx, "kyyard-app-shop", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("the record of a failed first deploy was kept: %v", err)
		}
	})
	t.Run("rollout_timeout", func(t *testing.T) {
		e := newDeployEnv(t, true)
		e.kwokToleration()
		e.claimVolume("shop-db-data")
		c, _ := e.client(kube.Options{})
		e.mustDeploy(c, shopRequest(e.ns, "nginx:1.27"))
		bad := shopRequest(e.ns, "unpullable.invalid/nginx:1.28")
		plan, err := c.PlanDeploy(ctx, bad)
		if err != nil {
			t.Fatal(err)
		}
		res := e.refused(c, "", bad, kube.DeployOptions{RecordVersion: plan.RecordVersion, RecordGeneration: plan.RecordGeneration, Confirmed: confirmedPending,
			Timeout: 30 * time.Second}, kube.ReasonRolloutTimeout)
		var restored bool
		for _, s := range res.Steps {
			if s.Action == kube.StepRestore && s.Kind == "Deployment" && s.Name == "shop-web" && s.Outcome == kube.StepDone {
				restored = true
			}
		}
		if !restored || e.image("shop-web") != "nginx:1.27" {
			t.Errorf("not restored (image %s):\n%s", e.image("shop-web"), outcomes(res.Steps))
		}
		got, err := c.AppRecord(ctx, e.ns, "shop")
		if err != nil || got.Request.Services[0].Image != "nginx:1.27" {
			t.Errorf("record %+v, %v", got, err)
		}
		t.Logf("steps:\n%s", outcomes(res.Steps))
	})
}

// TestE2EDeployClaimPendingSaysWhy (issue 11): a claim without a storage
// class in a cluster without a default is warned about (claim_pending);
// deployed anyway, its rollout step says while it runs and when it times
// out what holds it: the claim's Pending event from the PV controller and
// the scheduler's message, not only "0 of 1 updated replicas".
func TestE2EDeployClaimPendingSaysWhy(t *testing.T) {
	e := newDeployEnv(t, true)
	e.kwokToleration()
	ctx := context.Background()
	c, _ := e.client(kube.Options{})
	req := render.Request{Instance: "stuck", Namespace: e.ns, Services: []render.Service{{Name: "db", Image: "postgres:16", Replicas: 1,
		Volumes: []render.Volume{{Name: "data", MountPath: "/var/lib/postgresql", Size: "7Gi"}}}}}
	plan, err := c.PlanDeploy(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var warned bool
	for _, v := range plan.Verdicts {
		if v.Guard == kube.GuardStorageClass && v.Outcome == kube.OutcomeWarn && v.Reason == kube.ReasonClaimPending {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no claim_pending warning: %+v", plan.Verdicts)
	}
	var running []string
	res, err := c.Deploy(ctx, req, kube.DeployOptions{Confirmed: confirmedPending, Timeout: 25 * time.Second,
		Progress: func(s kube.DeployStep) {
			if s.Action == kube.StepRollout && s.Outcome == kube.StepRunning && s.Detail != "" {
				running = append(running, s.Detail)
			}
		}})
	if kube.ReasonOf(err) != kube.ReasonRolloutTimeout {
		t.Fatalf("Deploy = %v, want rollout_timeout\n%s", err, outcomes(res.Steps))
	}
	const why = "claim stuck-db-data is Pending: no persistent volumes available for this claim and no storage class is set"
	seen := false
	for _, d := range running {
		seen = seen || strings.Contains(d, why)
	}
	if !seen {
		t.Errorf("no running detail names the Pending claim: %q", running)
	}
	for _, s := range res.Steps {
		if s.Action == kube.StepRollout {
			if !strings.Contains(s.Detail, why) || !strings.Contains(s.Detail, "not available after 25s") ||
				strings.Index(s.Detail, why) > strings.Index(s.Detail, "not available") {
				t.Errorf("rollout detail %q: the cause must come first", s.Detail)
			}
			t.Logf("rollout detail: %s", s.Detail)
		}
	}
}
