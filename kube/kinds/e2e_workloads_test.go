package kinds_test

// End-to-end tests of the kinds of this package against the local cluster
// of hack/cluster (see kube/e2e_test.go): rows equal the API server's own
// Table answer, the oracle for `kubectl get`; drilling down lists what the
// parent object selects. They read namespace demo and write only in a
// namespace of their own, deleted when the test ends. Run alone, they skip.

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// e2eClient returns a Client over the local cluster with every plugin of
// this package (DaemonSets included whether or not Builtin has it yet).
func e2eClient(t *testing.T, cfg *rest.Config) *kube.Client {
	t.Helper()
	reg, err := kube.NewRegistry(kinds.Pods{}, kinds.Containers{}, kinds.Deployments{}, kinds.ReplicaSets{}, kinds.StatefulSets{},
		kinds.DaemonSets{}, kinds.Jobs{}, kinds.CronJobs{}, kinds.HorizontalPodAutoscalers{}, kinds.PodDisruptionBudgets{},
		kinds.Nodes{}, kinds.Namespaces{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := kube.NewFromConfig(cfg, kube.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// compareWorkload compares one kind's rows with the API server's Table of
// group/version (kubetest.CompareWithServer), every named column.
func compareWorkload(t *testing.T, c *kube.Client, cfg *rest.Config, kind kube.Kind, group, version, ns string, columns []string) kube.Table {
	t.Helper()
	return kubetest.CompareWithServer(t, c, cfg, kind, group, version, string(kind), ns, columns, 10)
}

// TestE2EWorkloadsMatchServerTable compares the demo namespace's
// replicasets, statefulsets, daemonsets, jobs and cronjobs with the API
// server's Table, every column but the ages, the wide ones included.
func TestE2EWorkloadsMatchServerTable(t *testing.T) {
	cfg := kubetest.Local(t)
	c := e2eClient(t, cfg)
	ns := kubetest.DemoNamespace
	wide := []string{"Containers", "Images", "Selector"}
	tests := []struct {
		kind           kube.Kind
		group, version string
		columns        []string
		want           string // an object the seeded demo must hold
	}{
		{"replicasets", "apps", "v1", append([]string{"Name", "Desired", "Current", "Ready"}, wide...), ""},
		{"statefulsets", "apps", "v1", []string{"Name", "Ready", "Containers", "Images"}, "db"},
		{"daemonsets", "apps", "v1", append([]string{"Name", "Desired", "Current", "Ready", "Up-to-date", "Available", "Node Selector"}, wide...), "node-agent"},
		{"jobs", "batch", "v1", append([]string{"Name", "Status", "Completions", "Duration"}, wide...), "migrate"},
		{"cronjobs", "batch", "v1", append([]string{"Name", "Schedule", "Timezone", "Suspend", "Active"}, wide...), "nightly-report"},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			table := compareWorkload(t, c, cfg, tt.kind, tt.group, tt.version, ns, tt.columns)
			if len(table.Rows) == 0 {
				t.Fatalf("no %s in %s: is the demo seeded?", tt.kind, ns)
			}
			if tt.want != "" && !slices.ContainsFunc(table.Rows, func(r kube.Row) bool { return r.Name == tt.want }) {
				t.Errorf("no %s %s in %s", tt.kind, tt.want, ns)
			}
		})
	}

	// The seeded states, judged: db and node-agent ready, migrate complete,
	// the crash-looping Deployment's ReplicaSet without a ready pod.
	snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"sts", "ds", "jobs", "rs"}, Namespace: ns})
	judged := map[string]kube.Health{}
	for _, table := range snap.Tables {
		for _, r := range table.Rows {
			judged[string(table.Kind)+"/"+r.Name] = r.Health
		}
	}
	for key, want := range map[string]kube.Health{"statefulsets/db": kube.HealthOK, "daemonsets/node-agent": kube.HealthOK, "jobs/migrate": kube.HealthOK} {
		if got, ok := judged[key]; !ok || got != want {
			t.Errorf("%s: health %v (found %v), want %v", key, got, ok, want)
		}
	}
	for key, h := range judged {
		if strings.HasPrefix(key, "replicasets/crashy-") && h != kube.HealthFailed {
			t.Errorf("%s: health %v, want failed (no pod ready)", key, h)
		}
	}
}

// kwokPodSpec is a pod that kwok's fake nodes run.
func kwokPodSpec(name string) corev1.PodSpec {
	return corev1.PodSpec{
		NodeSelector: map[string]string{"type": "kwok"},
		Tolerations:  []corev1.Toleration{{Key: "kwok.x-k8s.io/node", Operator: corev1.TolerationOpEqual, Value: "fake", Effect: corev1.TaintEffectNoSchedule}},
		Containers: []corev1.Container{{Name: name, Image: "nginx:1.27.3", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: mustQuantity("50m")}}}},
	}
}

// TestE2EAutoscalersAndBudgetsMatchServerTable creates a Deployment, an
// HPA scaling it on CPU (the local cluster has no metrics server, so the
// controller cannot read metrics) and a PDB over its pods, and compares
// their rows with the API server's Table.
func TestE2EAutoscalersAndBudgetsMatchServerTable(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := kubetest.TempNamespace(t, cs, "kyyard-e2e-kinds-a")
	ctx := context.Background()
	labels := map[string]string{"app": "web"}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{
		Replicas: int32p(2), Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: kwokPodSpec("web")}}}
	hpa := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
		MinReplicas:    int32p(2), MaxReplicas: 4,
		Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
			Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: int32p(50)}}}},
	}}
	one := intstr.FromInt32(1)
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: policyv1.PodDisruptionBudgetSpec{
		MinAvailable: &one, Selector: &metav1.LabelSelector{MatchLabels: labels}}}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.AutoscalingV2().HorizontalPodAutoscalers(ns).Create(ctx, hpa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// Wait until the HPA and disruption controllers have written status, so
	// the comparison covers more than the spec.
	deadline := time.Now().Add(60 * time.Second)
	for {
		h, err := cs.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := cs.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Status.Conditions) > 0 && p.Status.ObservedGeneration >= p.Generation && p.Status.CurrentHealthy == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("controllers wrote no status within a minute: hpa %+v, pdb %+v", h.Status, p.Status)
		}
		time.Sleep(500 * time.Millisecond)
	}

	c := e2eClient(t, cfg)
	hpas := compareWorkload(t, c, cfg, "horizontalpodautoscalers", "autoscaling", "v2", ns,
		[]string{"Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas"})
	pdbs := compareWorkload(t, c, cfg, "poddisruptionbudgets", "policy", "v1", ns,
		[]string{"Name", "Min Available", "Max Unavailable", "Allowed Disruptions"})
	if len(hpas.Rows) != 1 || len(pdbs.Rows) != 1 {
		t.Fatalf("%d HPAs and %d PDBs, want one each", len(hpas.Rows), len(pdbs.Rows))
	}
	t.Logf("HPA row %q %s/%v; PDB row %q %s/%v", texts(hpas.Rows[0]), hpas.Rows[0].Status, hpas.Rows[0].Health, texts(pdbs.Rows[0]), pdbs.Rows[0].Status, pdbs.Rows[0].Health)
	if r := pdbs.Rows[0]; r.Status != "SufficientPods" || r.Health != kube.HealthOK {
		t.Errorf("PDB allowing one disruption of two healthy pods: %s/%v, want SufficientPods/ok", r.Status, r.Health)
	}
	// Without a metrics server the HPA's ScalingActive condition is False
	// (FailedGetResourceMetric): kyyard names the reason as a warning.
	h, err := cs.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cond := range h.Status.Conditions {
		if cond.Type == autoscalingv2.ScalingActive && cond.Status == corev1.ConditionFalse {
			if r := hpas.Rows[0]; r.Status != cond.Reason || r.Health != kube.HealthWarning {
				t.Errorf("HPA with ScalingActive False (%s): row %s/%v, want %s/warning", cond.Reason, r.Status, r.Health, cond.Reason)
			}
		}
	}
}

// TestE2EDrillDown: the StatefulSet db opens exactly its pods db-0 and
// db-1; the CronJob nightly-report opens the Jobs it owns (none, if it has
// not run); a CronJob of this test's own opens its Job and not another;
// the pod sidecar-demo opens its containers, as its spec lists them.
func TestE2EDrillDown(t *testing.T) {
	cfg := kubetest.Local(t)
	c := e2eClient(t, cfg)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	demo := kubetest.DemoNamespace

	rows := func(req kube.SnapshotRequest, kind kube.Kind) []kube.Row {
		t.Helper()
		snap := c.Snapshot(ctx, req)
		table, ok := snap.Table(kind)
		if !ok {
			t.Fatalf("%s truncated: %+v", kind, snap.Truncated)
		}
		return table.Rows
	}
	names := func(rs []kube.Row) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = r.Name
		}
		return out
	}

	req, err := c.DrillDown(ctx, "statefulsets", demo, "db")
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Kinds) != 1 || req.Kinds[0] != "pods" || req.Namespace != demo || req.Selector.Labels == "" {
		t.Fatalf("db opens %+v", req)
	}
	equal(t, names(rows(req, "pods")), []string{"db-0", "db-1"})

	cj, err := cs.BatchV1().CronJobs(demo).Get(ctx, "nightly-report", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	req, err = c.DrillDown(ctx, "cronjobs", demo, "nightly-report")
	if err != nil {
		t.Fatal(err)
	}
	want := kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: demo, Selector: kube.Selector{Owner: string(cj.UID), Via: "jobs"}}
	if len(req.Kinds) != 1 || req.Kinds[0] != want.Kinds[0] || req.Namespace != want.Namespace || req.Selector != want.Selector {
		t.Fatalf("nightly-report opens %+v, want %+v", req, want)
	}
	rows(req, "pods") // it may never have run: no pods, but no truncation either

	// A CronJob of our own, suspended, with one Job it owns and one it does not.
	ns := kubetest.TempNamespace(t, cs, "kyyard-e2e-kinds-a")
	tmpl := batchv1.JobSpec{Suspend: truePointer, Template: corev1.PodTemplateSpec{Spec: kwokPodSpec("report")}}
	tmpl.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	own, err := cs.BatchV1().CronJobs(ns).Create(ctx, &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "report"},
		Spec: batchv1.CronJobSpec{Schedule: "0 0 1 1 *", Suspend: truePointer, JobTemplate: batchv1.JobTemplateSpec{Spec: tmpl}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owned := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "report-manual", OwnerReferences: []metav1.OwnerReference{{
		APIVersion: "batch/v1", Kind: "CronJob", Name: own.Name, UID: own.UID}}}, Spec: tmpl}
	stray := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "stray"}, Spec: tmpl}
	for _, j := range []*batchv1.Job{owned, stray} {
		created, err := cs.BatchV1().Jobs(ns).Create(ctx, j, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// The suspended Jobs run nothing: give each a pod of its own (not
		// its controller's, so the Job controller leaves it alone).
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: created.Name + "-pod", OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "batch/v1", Kind: "Job", Name: created.Name, UID: created.UID}}}, Spec: kwokPodSpec("report")}
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	req, err = c.DrillDown(ctx, "cj", ns, "report")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for attempt := 0; attempt < 10; attempt++ { // the informers may lag the creates
		if got = names(rows(req, "pods")); len(got) == 1 {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	equal(t, got, []string{"report-manual-pod"})

	pod, err := cs.CoreV1().Pods(demo).Get(ctx, "sidecar-demo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	req, err = c.DrillDown(ctx, "pods", demo, "sidecar-demo")
	if err != nil {
		t.Fatal(err)
	}
	var spec []string
	for _, ct := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		spec = append(spec, ct.Name)
	}
	containers := rows(req, "containers")
	equal(t, names(containers), spec)
	for _, r := range containers {
		if r.Status != "Running" || r.Health != kube.HealthOK {
			t.Errorf("sidecar-demo container %s: %s/%v, want Running/ok", r.Name, r.Status, r.Health)
		}
	}
	if init := containers[0].Cells[4].Text; init != "sidecar" {
		t.Errorf("sidecar-demo's first container INIT %q, want sidecar", init)
	}
}

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }
