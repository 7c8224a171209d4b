package kube_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// editFixture is casebook C22's and C23's Deployment: probes, volume
// mounts, a securityContext, an init container and a native sidecar,
// fieldRef, resourceFieldRef and optional configMapKeyRef env, env
// A=1, B=$(A)-x (C25), quantities written as C26 writes them, and an
// annotation.
func editFixture(name string) *appsv1.Deployment {
	always := corev1.ContainerRestartPolicyAlways
	yes := true
	replicas := int32(2)
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{"team": "shop"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					InitContainers: []corev1.Container{
						{Name: "migrate", Image: "app:1", Command: []string{"/migrate"}},
						{Name: "shipper", Image: "shipper:1", RestartPolicy: &always},
					},
					Containers: []corev1.Container{{
						Name: "app", Image: "app:1", Args: []string{"--port=8080"},
						Env: []corev1.EnvVar{
							{Name: "A", Value: "1"},
							{Name: "B", Value: "$(A)-x"},
							{Name: "IDX", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['apps.kubernetes.io/pod-index']"}}},
							{Name: "MEM", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory", Divisor: resource.MustParse("1Mi")}}},
							{Name: "CM", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "c1"}, Key: "k", Optional: &yes}}},
						},
						Resources: corev1.ResourceRequirements{
							Limits:   corev1.ResourceList{"memory": resource.MustParse("1Gi"), "cpu": resource.MustParse("0.5")},
							Requests: corev1.ResourceList{"memory": resource.MustParse("524288e3")},
						},
						ReadinessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}}},
						VolumeMounts:    []corev1.VolumeMount{{Name: "data", MountPath: "/data"}},
						SecurityContext: &corev1.SecurityContext{RunAsNonRoot: &yes},
					}},
					Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				},
			},
		},
	}
}

// editEnv is a namespace of the test's own with the fixture Deployment,
// an admin client with its own user agent (to find its requests in the
// audit log) and the clientset for writers in between.
type editEnv struct {
	t      *testing.T
	cs     kubernetes.Interface
	c      *kube.Client
	cfg    *rest.Config
	agent  string
	ns     string
	ref    kube.WorkloadRef
	policy kube.Policy
}

func newEditEnv(t *testing.T, policy kube.Policy) *editEnv {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := kubetest.TempNamespace(t, cs, "kyyard-edit")
	e := &editEnv{t: t, cs: cs, cfg: cfg, ns: ns, agent: fmt.Sprintf("kyyard-edit-%d", time.Now().UnixNano()), policy: policy}
	e.c = e.client(cfg, kube.Options{Policy: policy})
	for _, cm := range []string{"c1", "c2"} {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: cm}, Data: map[string]string{"k": cm}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(context.Background(), editFixture("web"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.ref = kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: ns, Name: "web"}
	e.settle()
	return e
}

// client returns a kube.Client over cfg with the env's user agent.
func (e *editEnv) client(cfg *rest.Config, opts kube.Options) *kube.Client {
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = e.agent
	opts.Registry = kinds.Builtin()
	c, err := kube.NewFromConfig(cfg, opts)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(c.Close)
	return c
}

// settle waits until the Deployment's status stops moving (observed
// generation current and its resourceVersion unchanged for a second): a
// moving status is retried by ApplyWorkload, but the audit log then shows
// the 409 beside the write.
func (e *editEnv) settle() {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	last, since := "", time.Now()
	for time.Now().Before(deadline) {
		d, err := e.cs.AppsV1().Deployments(e.ns).Get(context.Background(), e.ref.Name, metav1.GetOptions{})
		if err != nil || d.Status.ObservedGeneration != d.Generation || d.ResourceVersion != last {
			if err == nil {
				last = d.ResourceVersion
			}
			since = time.Now()
		} else if time.Since(since) > time.Second {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (e *editEnv) read() kube.Workload {
	e.t.Helper()
	w, err := e.c.ReadWorkload(context.Background(), e.ref)
	if err != nil {
		e.t.Fatalf("ReadWorkload: %v", err)
	}
	return w
}

// rawJSON reads the Deployment as the API server serves it in JSON.
func (e *editEnv) rawJSON() map[string]any {
	e.t.Helper()
	body, err := e.cs.AppsV1().RESTClient().Get().AbsPath("/apis/apps/v1/namespaces", e.ns, "deployments", e.ref.Name).
		SetHeader("Accept", "application/json").DoRaw(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		e.t.Fatal(err)
	}
	return m
}

// confirmAll is what a person who confirmed every warning sends.
var confirmAll = []kube.Reason{kube.ReasonPodSecurity, kube.ReasonApplicationManaged, kube.ReasonSecretRefRefused,
	kube.ReasonPVCRetention, kube.ReasonAutoscaled}

func (e *editEnv) apply(before, after kube.Workload) kube.ApplyResult {
	e.t.Helper()
	res, err := e.c.ApplyWorkload(context.Background(), before, after, confirmAll)
	if err != nil {
		e.t.Fatalf("ApplyWorkload: %v", err)
	}
	return res
}

// writes returns the env agent's write requests (create of access reviews
// aside) received since, with their request bodies, waiting a moment for
// the audit log to be flushed.
func (e *editEnv) writes(since time.Time, want int) []auditWrite {
	e.t.Helper()
	path := os.Getenv(kubetest.AuditLogEnv)
	if path == "" {
		e.t.Fatalf("%s is not set", kubetest.AuditLogEnv)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := readWrites(e.t, path, e.agent, since)
		if len(got) >= want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// auditWrite is a write request in the audit log.
type auditWrite struct {
	Verb      string          `json:"verb"`
	UserAgent string          `json:"userAgent"`
	Stage     string          `json:"stage"`
	Received  time.Time       `json:"requestReceivedTimestamp"`
	Request   json.RawMessage `json:"requestObject"`
	URI       string          `json:"requestURI"`
	Response  struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	ObjectRef *struct {
		Resource string `json:"resource"`
		Name     string `json:"name"`
	} `json:"objectRef"`
}

func readWrites(t *testing.T, path, agent string, since time.Time) []auditWrite {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []auditWrite
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if !strings.Contains(sc.Text(), agent) {
			continue
		}
		var w auditWrite
		if err := json.Unmarshal(sc.Bytes(), &w); err != nil {
			t.Fatal(err)
		}
		if w.UserAgent != agent || w.Stage != "ResponseComplete" || w.Received.Before(since) {
			continue
		}
		switch w.Verb {
		case "create":
			if w.ObjectRef != nil && (w.ObjectRef.Resource == "selfsubjectaccessreviews" || w.ObjectRef.Resource == "selfsubjectreviews") {
				continue
			}
		case "patch", "update", "delete", "deletecollection":
		default:
			continue
		}
		out = append(out, w)
	}
	return out
}

// onePatch checks that exactly one write reached the API server since, a
// PATCH (not a dry run) whose body is want.
func (e *editEnv) onePatch(since time.Time, want string) {
	e.t.Helper()
	ws := e.writes(since, 1)
	time.Sleep(300 * time.Millisecond) // a second write would be logged by now
	ws = e.writes(since, len(ws))
	var real []auditWrite
	for _, w := range ws {
		// A 409 answered to a status race is retried (ApplyWorkload): only
		// the write that landed counts.
		if !strings.Contains(w.URI, "dryRun") && w.Response.Code != 409 {
			real = append(real, w)
		}
	}
	if len(real) != 1 || real[0].Verb != "patch" {
		e.t.Fatalf("writes since the apply: %+v, want one patch", real)
	}
	var got, exp map[string]any
	_ = json.Unmarshal(real[0].Request, &got)
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		e.t.Fatal(err)
	}
	// The precondition is the resourceVersion the apply's fresh read saw
	// (the read's own, or a later one when only status moved since).
	if meta, ok := got["metadata"].(map[string]any); ok && meta["resourceVersion"] != "" && meta["resourceVersion"] != nil {
		meta["resourceVersion"] = exp["metadata"].(map[string]any)["resourceVersion"]
	}
	if !reflect.DeepEqual(got, exp) {
		e.t.Fatalf("PATCH body\n %s\nwant\n %s", real[0].Request, want)
	}
}

// withoutServerFields drops what the API server changes on any write.
func withoutServerFields(m map[string]any) map[string]any {
	meta := m["metadata"].(map[string]any)
	for _, k := range []string{"resourceVersion", "generation", "managedFields"} {
		delete(meta, k)
	}
	delete(m, "status")
	// The deployment controller's own record of the rollout.
	delete(meta["annotations"].(map[string]any), "deployment.kubernetes.io/revision")
	return m
}

func containerAt(m map[string]any, list string, i int) map[string]any {
	return m["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)[list].([]any)[i].(map[string]any)
}

// TestE2EC22UntouchedFieldsKeepBytes: one image edited; the PATCH the API
// server received carries only that image (with the merge key and the
// precondition), and the object differs from before only in it.
func TestE2EC22UntouchedFieldsKeepBytes(t *testing.T) {
	e := newEditEnv(t, kube.PolicyInteractive)
	before := e.read()
	raw := withoutServerFields(e.rawJSON())
	after := before
	after.Containers = append([]kube.Container(nil), before.Containers...)
	after.Containers[2].Image = "app:2"
	since := time.Now()
	e.apply(before, after)
	e.onePatch(since, fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:2"}]}}}}`, before.ResourceVersion))
	got := withoutServerFields(e.rawJSON())
	containerAt(raw, "containers", 0)["image"] = "app:2"
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(raw)
	if string(a) != string(b) {
		t.Fatalf("the object changed beyond the image:\n got %s\nwant %s", a, b)
	}
}

// TestE2EC23C24C25C26EnvAndQuantities: another variable edited, C1 moved
// to c2, C added and the cpu request set: the reference entries are
// unchanged byte for byte, CM names c2, C follows A and B, the untouched
// quantities are not in the patch, and reading the form again shows
// exactly the values applied.
func TestE2EC23C24C25C26EnvAndQuantities(t *testing.T) {
	e := newEditEnv(t, kube.PolicyInteractive)
	before := e.read()
	raw := e.rawJSON()
	after := before
	after.Containers = append([]kube.Container(nil), before.Containers...)
	app := &after.Containers[2]
	app.Env = append([]kube.EnvVar(nil), app.Env...)
	app.Env[0].Value = "2"                                                                      // A
	app.Env[4].Ref = "c2"                                                                       // CM: c1/k → c2/k (C24)
	app.Env = append(app.Env, kube.EnvVar{Name: "C", Source: kube.EnvLiteral, Value: "$(B)-y"}) // C25
	app.Resources.CPURequest = "250m"                                                           // C26
	since := time.Now()
	res := e.apply(before, after)
	e.onePatch(since, fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"spec":{"template":{"spec":{"containers":[{"name":"app",`+
		`"resources":{"requests":{"cpu":"250m"}},`+
		`"$setElementOrder/env":[{"name":"A"},{"name":"B"},{"name":"IDX"},{"name":"MEM"},{"name":"CM"},{"name":"C"}],`+
		`"env":[{"name":"A","value":"2"},{"name":"CM","valueFrom":{"configMapKeyRef":{"name":"c2","key":"k","optional":true}}},{"name":"C","value":"$(B)-y"}]}]}}}}`, before.ResourceVersion))
	got := e.rawJSON()
	envOf := func(m map[string]any) []any { return containerAt(m, "containers", 0)["env"].([]any) }
	oldEnv, newEnv := envOf(raw), envOf(got)
	for _, i := range []int{1, 2, 3} { // B, IDX (fieldRef), MEM (resourceFieldRef)
		a, _ := json.Marshal(oldEnv[i])
		b, _ := json.Marshal(newEnv[i])
		if string(a) != string(b) {
			t.Errorf("env %d changed: %s → %s (C23)", i, a, b)
		}
	}
	var names []string
	for _, v := range newEnv {
		names = append(names, v.(map[string]any)["name"].(string))
	}
	if strings.Join(names, ",") != "A,B,IDX,MEM,CM,C" {
		t.Errorf("env order %v (C25)", names)
	}
	if ref := newEnv[4].(map[string]any)["valueFrom"].(map[string]any)["configMapKeyRef"].(map[string]any); ref["name"] != "c2" || ref["optional"] != true {
		t.Errorf("CM reference %v (C24)", ref)
	}
	again := e.read()
	if ch := kube.Changes(res.Workload, again); len(ch) != 0 {
		t.Errorf("reading the form again shows changes %+v (C26)", ch)
	}
	var texts []string
	for _, v := range again.Containers[2].Env {
		texts = append(texts, v.Name+"="+kube.EnvText(v))
	}
	if got := strings.Join(texts, " "); got != "A=2 B=$(A)-x IDX=field metadata.labels['apps.kubernetes.io/pod-index'] MEM=resource limits.memory divisor 1Mi CM=configmap c2/k optional C=$(B)-y" {
		t.Errorf("env read again: %s", got)
	}
	q := again.Containers[2].Resources
	if q.MemoryLimit != "1Gi" || q.CPULimit != "500m" || q.MemoryRequest != "524288e3" || q.CPURequest != "250m" {
		t.Errorf("quantities read again %+v (C26)", q)
	}
}

// TestE2EC26QuantitySpellings: cpu request 0.5 and memory request 0.25Gi
// typed as a person spells them, and memory limit 1024Mi over the 1Gi
// there: the dry run and the apply pass, the patch writes the two as
// typed and leaves the limit out, and the form read again holds the API
// server's spellings (500m, 256Mi) with no change against what was
// applied.
func TestE2EC26QuantitySpellings(t *testing.T) {
	e := newEditEnv(t, kube.PolicyInteractive)
	before := e.read()
	after := before
	after.Containers = append([]kube.Container(nil), before.Containers...)
	app := &after.Containers[2]
	app.Resources.CPURequest = "0.5"
	app.Resources.MemoryRequest = "0.25Gi"
	app.Resources.MemoryLimit = "1024Mi"
	if ch := kube.Changes(before, after); len(ch) != 2 {
		t.Fatalf("changes %+v, want the cpu and memory requests", ch)
	}
	p, err := e.c.DryRun(context.Background(), before, after)
	if err != nil || p.DryRunReason != "" {
		t.Fatalf("dry run: %v %+v", err, p)
	}
	since := time.Now()
	res := e.apply(before, after)
	e.onePatch(since, fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"spec":{"template":{"spec":{"containers":[{"name":"app",`+
		`"resources":{"requests":{"cpu":"0.5","memory":"0.25Gi"}}}]}}}}`, before.ResourceVersion))
	again := e.read()
	q := again.Containers[2].Resources
	if q.CPURequest != "500m" || q.MemoryRequest != "256Mi" || q.MemoryLimit != "1Gi" {
		t.Errorf("quantities read again %+v", q)
	}
	if ch := kube.Changes(res.Workload, again); len(ch) != 0 {
		t.Errorf("reading the form again shows changes %+v", ch)
	}
}

// TestE2EC18C21C33ConflictRebaseAndSaveTwice: a writer in between moves the
// resourceVersion: the apply is refused as a conflict with nothing
// written; Rebase keeps the image edit and the server's replicas; the
// rebased apply lands (image app:2, replicas 5); a second apply from its
// result is not a false conflict.
func TestE2EC18C21C33ConflictRebaseAndSaveTwice(t *testing.T) {
	e := newEditEnv(t, kube.PolicyInteractive)
	before := e.read()
	after := before
	after.Containers = append([]kube.Container(nil), before.Containers...)
	after.Containers[2].Image = "app:2"
	scale := []byte(`{"spec":{"replicas":5}}`)
	if _, err := e.cs.AppsV1().Deployments(e.ns).Patch(context.Background(), "web", types.MergePatchType, scale, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	p, err := e.c.DryRun(context.Background(), before, after)
	if err != nil || p.DryRunReason != kube.ReasonConflict {
		t.Fatalf("preview after a writer in between: %v %+v, want conflict", err, p)
	}
	for _, v := range p.Verdicts {
		if v.Outcome == kube.OutcomeRefuse && v.Guard != kube.GuardFresh {
			t.Errorf("a conflict also blamed on %s: %s", v.Guard, v.Sentence)
		}
	}
	_, err = e.c.ApplyWorkload(context.Background(), before, after, confirmAll)
	var r *kube.Refusal
	if !errors.As(err, &r) || r.Reason != kube.ReasonConflict {
		t.Fatalf("apply after a writer in between: %v, want conflict (C18)", err)
	}
	if ws := e.writes(since, 0); len(ws) != 0 {
		t.Fatalf("a refused apply wrote %+v", ws)
	}
	fresh := e.read()
	merged, clashes := kube.Rebase(before, after, fresh)
	if len(clashes) != 0 {
		t.Fatalf("clashes %+v", clashes)
	}
	if ch := kube.Changes(fresh, merged); len(ch) != 1 || ch[0].Field != "image" {
		t.Fatalf("rebased changes %+v, want the image only (C21)", ch)
	}
	res := e.apply(fresh, merged)
	if res.Workload.Replicas != 5 || res.Workload.Containers[2].Image != "app:2" {
		t.Fatalf("after the rebased apply: replicas %d image %s, want 5 and app:2 (C21)", res.Workload.Replicas, res.Workload.Containers[2].Image)
	}
	next := res.Workload
	next.Containers = append([]kube.Container(nil), res.Workload.Containers...)
	next.Containers[2].Image = "app:3"
	if _, err := e.c.ApplyWorkload(context.Background(), res.Workload, next, confirmAll); err != nil {
		t.Fatalf("second apply from the first one's result: %v (C33)", err)
	}
}

// TestE2EC34NothingChanged: an apply and a dry run of no change send no
// request at all.
func TestE2EC34NothingChanged(t *testing.T) {
	e := newEditEnv(t, kube.PolicyInteractive)
	before := e.read()
	since := time.Now()
	if _, err := e.c.ApplyWorkload(context.Background(), before, before, nil); err != nil {
		t.Fatal(err)
	}
	if p, err := e.c.DryRun(context.Background(), before, before); err != nil || len(p.Changes) != 0 || p.Patch != "" {
		t.Fatalf("dry run of nothing: %+v, %v", p, err)
	}
	time.Sleep(500 * time.Millisecond)
	path := os.Getenv(kubetest.AuditLogEnv)
	f, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(f), "\n") {
		var ev auditWrite
		if strings.Contains(line, e.agent) && json.Unmarshal([]byte(line), &ev) == nil && !ev.Received.Before(since) {
			t.Fatalf("a change of nothing sent %s %s", ev.Verb, ev.URI)
		}
	}
}

// TestE2EDryRunShowsTheServersRefusal: a memory limit below its request
// passes no form check here (the test skips the form); the dry run shows
// the API server's validation error and nothing is written.
func TestE2EDryRunShowsTheServersRefusal(t *testing.T) {
	e := newEditEnv(t, kube.PolicyInteractive)
	before := e.read()
	after := before
	after.Containers = append([]kube.Container(nil), before.Containers...)
	after.Containers[2].Resources.MemoryLimit = "1Mi"
	since := time.Now()
	p, err := e.c.DryRun(context.Background(), before, after)
	if err != nil {
		t.Fatal(err)
	}
	if p.DryRunReason != kube.ReasonInvalid || !strings.Contains(p.DryRunError, "must be less than or equal to memory limit") {
		t.Fatalf("dry run: reason %q error %q", p.DryRunReason, p.DryRunError)
	}
	for _, w := range e.writes(since, 1) {
		if !strings.Contains(w.URI, "dryRun=All") {
			t.Fatalf("a dry run wrote %s %s", w.Verb, w.URI)
		}
	}
	if got := e.read(); got.Generation != before.Generation || len(kube.Changes(before, got)) != 0 {
		t.Fatal("the dry run changed the object")
	}
}

// TestE2EC32ManagedForbiddenPolicyAndReadOnly: the list-only user is refused
// forbidden; --strict refuses a namespace without Pod Security labels
// (pod_security) and passes one enforcing baseline; --readonly sends no
// request at all; the demo's Helm-labelled Deployment is
// application_managed under --strict and a typed-name confirmation
// otherwise.
func TestE2EC32ManagedForbiddenPolicyAndReadOnly(t *testing.T) {
	ctx := context.Background()
	e := newEditEnv(t, kube.PolicyStrict)
	before := e.read()
	after := before
	after.Containers = append([]kube.Container(nil), before.Containers...)
	after.Containers[2].Image = "app:2"

	refused := func(c *kube.Client, b, a kube.Workload, want kube.Reason) {
		t.Helper()
		_, err := c.ApplyWorkload(ctx, b, a, confirmAll)
		var r *kube.Refusal
		if !errors.As(err, &r) || r.Reason != want {
			t.Fatalf("apply: %v, want %s", err, want)
		}
	}
	refused(e.c, before, after, kube.ReasonPodSecurity)

	ns, err := e.cs.CoreV1().Namespaces().Get(ctx, e.ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns.Labels["pod-security.kubernetes.io/enforce"] = "baseline"
	if _, err := e.cs.CoreV1().Namespaces().Update(ctx, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.ApplyWorkload(ctx, before, after, nil); err != nil {
		t.Fatalf("strict apply in a namespace enforcing baseline: %v", err)
	}

	ro := e.client(e.cfg, kube.Options{ReadOnly: true})
	again := e.read()
	roAfter := again
	roAfter.Containers = append([]kube.Container(nil), again.Containers...)
	roAfter.Containers[2].Image = "app:3"
	since := time.Now()
	refused(ro, again, roAfter, kube.ReasonReadOnly)
	time.Sleep(300 * time.Millisecond)
	if ws := e.writes(since, 0); len(ws) != 0 {
		t.Fatalf("read-only sent %+v", ws)
	}

	viewer := e.client(kubetest.LocalReadOnly(t), kube.Options{})
	helmRef := kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: kubetest.DemoNamespace, Name: "helm-chart"}
	helm, err := viewer.ReadWorkload(ctx, helmRef)
	if err != nil {
		t.Fatal(err)
	}
	helmAfter := helm
	helmAfter.Containers = append([]kube.Container(nil), helm.Containers...)
	helmAfter.Containers[0].Image = "redis:7.4.2"
	refused(viewer, helm, helmAfter, kube.ReasonForbidden)

	strict := e.client(e.cfg, kube.Options{Policy: kube.PolicyStrict})
	refused(strict, helm, helmAfter, kube.ReasonApplicationManaged)
	inter := e.client(e.cfg, kube.Options{})
	p, err := inter.DryRun(ctx, helm, helmAfter)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, v := range p.Verdicts {
		if v.Guard == kube.GuardManaged {
			found = v.Outcome == kube.OutcomeWarn && v.Confirm == "helm-chart" && strings.Contains(v.Sentence, "Helm (release demo-cache)")
		}
	}
	if !found || p.DryRunError != "" {
		t.Fatalf("interactive dry run of the Helm Deployment: %+v (C32)", p)
	}
	_, err = inter.ApplyWorkload(ctx, helm, helmAfter, []kube.Reason{kube.ReasonPodSecurity})
	var r *kube.Refusal
	if !errors.As(err, &r) || r.Reason != kube.ReasonApplicationManaged {
		t.Fatalf("unconfirmed apply of the Helm Deployment: %v (C32)", err)
	}
}

// TestE2EC29C30AutoscalerAndClaims: with a HorizontalPodAutoscaler an
// image edit sends no replicas and a replicas edit is warned about; a
// StatefulSet of 3 whose claims are deleted on scale-down, scaled to 1,
// names data-db-1 and data-db-2 and needs the name typed (strict:
// pvc_retention).
func TestE2EC29C30AutoscalerAndClaims(t *testing.T) {
	ctx := context.Background()
	e := newEditEnv(t, kube.PolicyInteractive)
	min := int32(1)
	hpa := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MinReplicas: &min, MaxReplicas: 5,
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}}}
	if _, err := e.cs.AutoscalingV2().HorizontalPodAutoscalers(e.ns).Create(ctx, hpa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := e.read()
	if before.Autoscaler != "web" {
		t.Fatalf("Autoscaler %q", before.Autoscaler)
	}
	after := before
	after.Containers = append([]kube.Container(nil), before.Containers...)
	after.Containers[2].Image = "app:2"
	p, err := e.c.DryRun(ctx, before, after)
	if err != nil || strings.Contains(p.Patch, "replicas") {
		t.Fatalf("image edit under an autoscaler: %v, patch %s (C29)", err, p.Patch)
	}
	after.Replicas = 4
	p, err = e.c.DryRun(ctx, before, after)
	if err != nil {
		t.Fatal(err)
	}
	if !hasVerdict(p.Verdicts, kube.GuardAutoscaler, kube.OutcomeWarn) {
		t.Fatalf("replicas edit under an autoscaler: %+v (C29)", p.Verdicts)
	}

	claimingStatefulSet(t, e.cs, e.ns, appsv1.RetainPersistentVolumeClaimRetentionPolicyType)
	ref := kube.WorkloadRef{Kind: kube.KindStatefulSets, Namespace: e.ns, Name: "db"}
	w, err := e.c.ReadWorkload(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	down := w
	down.Replicas = 1
	p, err = e.c.DryRun(ctx, w, down)
	if err != nil {
		t.Fatal(err)
	}
	var claims kube.Verdict
	for _, v := range p.Verdicts {
		if v.Guard == kube.GuardClaims {
			claims = v
		}
	}
	if claims.Outcome != kube.OutcomeWarn || claims.Confirm != "db" || !strings.Contains(claims.Sentence, "data-db-1, data-db-2") {
		t.Fatalf("claims verdict %+v (C30)", claims)
	}
	strict := e.client(e.cfg, kube.Options{Policy: kube.PolicyStrict})
	ns, _ := e.cs.CoreV1().Namespaces().Get(ctx, e.ns, metav1.GetOptions{})
	ns.Labels["pod-security.kubernetes.io/enforce"] = "baseline"
	if _, err := e.cs.CoreV1().Namespaces().Update(ctx, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = strict.ApplyWorkload(ctx, w, down, nil)
	var r *kube.Refusal
	if !errors.As(err, &r) || r.Reason != kube.ReasonPVCRetention {
		t.Fatalf("strict scale-down: %v, want pvc_retention (C30)", err)
	}
	// The StatefulSet's image edit lands (a StatefulSet edit end to end).
	img := w
	img.Containers = append([]kube.Container(nil), w.Containers...)
	img.Containers[0].Image = "postgres:17"
	res, err := strict.ApplyWorkload(ctx, w, img, nil)
	if err != nil || res.Workload.Containers[0].Image != "postgres:17" {
		t.Fatalf("StatefulSet image edit: %v", err)
	}
}

func hasVerdict(vs kube.Verdicts, g kube.Guard, o kube.Outcome) bool {
	for _, v := range vs {
		if v.Guard == g && v.Outcome == o {
			return true
		}
	}
	return false
}

// TestE2EBoundsAndSecretReferences: a container with more env entries
// than the form shows refuses an env edit (configuration_unreported) but
// takes an image edit; under --strict, a new Secret reference is refused
// (secret_ref_refused), and interactively it is a warning to confirm.
func TestE2EBoundsAndSecretReferences(t *testing.T) {
	ctx := context.Background()
	e := newEditEnv(t, kube.PolicyInteractive)
	big := editFixture("big")
	for i := 0; i < kube.MaxFormEnv+10; i++ {
		big.Spec.Template.Spec.Containers[0].Env = append(big.Spec.Template.Spec.Containers[0].Env,
			corev1.EnvVar{Name: fmt.Sprintf("E%03d", i), Value: "v"})
	}
	if _, err := e.cs.AppsV1().Deployments(e.ns).Create(ctx, big, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ref := kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: e.ns, Name: "big"}
	w, err := e.c.ReadWorkload(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Unsupported) != 1 || w.Unsupported[0].Code != kube.UnsupportedEnvTruncated || len(w.Containers[2].Env) != kube.MaxFormEnv {
		t.Fatalf("unsupported %+v, %d env shown", w.Unsupported, len(w.Containers[2].Env))
	}
	envEdit := w
	envEdit.Containers = append([]kube.Container(nil), w.Containers...)
	envEdit.Containers[2].Env = append([]kube.EnvVar(nil), w.Containers[2].Env...)
	envEdit.Containers[2].Env[0].Value = "changed"
	_, err = e.c.ApplyWorkload(ctx, w, envEdit, confirmAll)
	var r *kube.Refusal
	if !errors.As(err, &r) || r.Reason != kube.ReasonConfigurationUnreported {
		t.Fatalf("env edit past the bound: %v, want configuration_unreported", err)
	}
	imgEdit := w
	imgEdit.Containers = append([]kube.Container(nil), w.Containers...)
	imgEdit.Containers[2].Image = "app:2"
	_, err = e.c.ApplyWorkload(ctx, w, imgEdit, confirmAll)
	if err != nil {
		t.Fatalf("image edit beside a truncated env: %v", err)
	}
	got, err := e.cs.AppsV1().Deployments(e.ns).Get(ctx, "big", metav1.GetOptions{})
	if err != nil || len(got.Spec.Template.Spec.Containers[0].Env) != kube.MaxFormEnv+15 {
		t.Fatalf("the env past the bound was touched: %v", err)
	}

	before := e.read()
	secret := before
	secret.Containers = append([]kube.Container(nil), before.Containers...)
	secret.Containers[2].Env = append(append([]kube.EnvVar(nil), before.Containers[2].Env...),
		kube.EnvVar{Name: "TOKEN", Source: kube.EnvSecret, Ref: "api-token", Key: "token"})
	p, err := e.c.DryRun(ctx, before, secret)
	if err != nil || !hasVerdict(p.Verdicts, kube.GuardSecretRef, kube.OutcomeWarn) {
		t.Fatalf("new Secret reference, interactive: %v %+v", err, p.Verdicts)
	}
	strict := e.client(e.cfg, kube.Options{Policy: kube.PolicyStrict})
	ns, _ := e.cs.CoreV1().Namespaces().Get(ctx, e.ns, metav1.GetOptions{})
	ns.Labels["pod-security.kubernetes.io/enforce"] = "baseline"
	if _, err := e.cs.CoreV1().Namespaces().Update(ctx, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = strict.ApplyWorkload(ctx, before, secret, nil)
	if !errors.As(err, &r) || r.Reason != kube.ReasonSecretRefRefused || !strings.Contains(r.Detail, "api-token") {
		t.Fatalf("new Secret reference under --strict: %v, want secret_ref_refused", err)
	}
}

// TestE2EDaemonSetEdit: a DaemonSet's form has no replicas and no paused;
// its image edit lands as one patch and its rollout completes.
func TestE2EDaemonSetEdit(t *testing.T) {
	ctx := context.Background()
	e := newEditEnv(t, kube.PolicyInteractive)
	labels := map[string]string{"app": "agent"}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent"}, Spec: appsv1.DaemonSetSpec{
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: kwokPodSpec("agent:1")}}}
	if _, err := e.cs.AppsV1().DaemonSets(e.ns).Create(ctx, ds, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ref := kube.WorkloadRef{Kind: kube.KindDaemonSets, Namespace: e.ns, Name: "agent"}
	w, err := e.c.ReadWorkload(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if w.HasReplicas || w.HasPaused || len(w.Containers) != 1 {
		t.Fatalf("DaemonSet form %+v", w)
	}
	after := w
	after.Containers = []kube.Container{w.Containers[0]}
	after.Containers[0].Image = "agent:2"
	since := time.Now()
	if _, err := e.c.ApplyWorkload(ctx, w, after, confirmAll); err != nil {
		t.Fatal(err)
	}
	var landed []auditWrite
	for _, w := range e.writes(since, 1) {
		if w.Response.Code != 409 { // a status race, retried
			landed = append(landed, w)
		}
	}
	if len(landed) != 1 || landed[0].ObjectRef == nil || landed[0].ObjectRef.Resource != "daemonsets" {
		t.Fatalf("writes %+v", landed)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, err := e.c.RolloutStatus(ctx, ref)
		if err == nil && st.Phase == kube.RolloutComplete {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the DaemonSet's rollout did not complete: %+v %v", st, err)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// TestE2EEveryFieldRollsOut: one apply changes the image, command and
// args, an env value, a Secret reference and a ConfigMap reference, the
// cpu and memory requests and limits and the replicas of a Deployment
// whose pods run on the local cluster; the object reads back as applied
// and the rollout completes.
func TestE2EEveryFieldRollsOut(t *testing.T) {
	ctx := context.Background()
	e := newEditEnv(t, kube.PolicyInteractive)
	d := editFixture("every")
	d.Spec.Template.Spec = kwokPodSpec("app:1")
	d.Spec.Template.Spec.Containers[0].Name = "app"
	d.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "MODE", Value: "a"}, {Name: "PW", Value: "literal"}, {Name: "CFG", Value: "x"}}
	if _, err := e.cs.CoreV1().Secrets(e.ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db"},
		StringData: map[string]string{"password": "s3cret"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.cs.AppsV1().Deployments(e.ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ref := kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: e.ns, Name: "every"}
	before, err := e.c.ReadWorkload(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	after := before
	after.Replicas = 3
	after.Containers = []kube.Container{before.Containers[0]}
	c := &after.Containers[0]
	c.Image = "app:2"
	c.Command = []string{"/app/server"}
	c.Args = []string{"--port=8080", "--log-format=json"}
	c.Env = append([]kube.EnvVar(nil), before.Containers[0].Env...)
	c.Env[0].Value = "b"
	c.Env[1] = kube.EnvVar{Name: "PW", Source: kube.EnvSecret, Ref: "db", Key: "password", Read: c.Env[1].Read}
	c.Env[2] = kube.EnvVar{Name: "CFG", Source: kube.EnvConfigMap, Ref: "c1", Key: "k", Optional: true, Read: c.Env[2].Read}
	c.Resources = kube.Resources{CPURequest: "100m", CPULimit: "500m", MemoryRequest: "64Mi", MemoryLimit: "128Mi"}
	res, err := e.c.ApplyWorkload(ctx, before, after, confirmAll)
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.c.ReadWorkload(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if ch := kube.Changes(res.Workload, again); len(ch) != 0 {
		t.Fatalf("read back differs from the apply's result: %+v", ch)
	}
	var texts []string
	for _, v := range again.Containers[0].Env {
		texts = append(texts, v.Name+"="+kube.EnvText(v))
	}
	got := again.Containers[0]
	if got.Image != "app:2" || strings.Join(got.Command, " ") != "/app/server" || strings.Join(got.Args, " ") != "--port=8080 --log-format=json" ||
		strings.Join(texts, " ") != "MODE=b PW=secret db/password CFG=configmap c1/k optional" || got.Resources != c.Resources || again.Replicas != 3 {
		t.Fatalf("read back %+v env %v replicas %d", got, texts, again.Replicas)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, err := e.c.RolloutStatus(ctx, ref)
		if err == nil && st.Phase == kube.RolloutComplete && st.Updated == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the rollout did not complete: %+v %v", st, err)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// TestE2EEnvSourceSwitches: against the API server, the literal A becomes
// a fieldRef, the fieldRef IDX becomes a literal, then the fieldRef row A
// is removed (issue 21's dead end: none of these could be done). Each
// PATCH in the audit log carries only that entry, merged by name, with
// what it replaces nulled; the object after holds exactly one of value
// and valueFrom for it, and the untouched references (MEM's
// resourceFieldRef with divisor 1Mi, CM's optional configMapKeyRef) keep
// their bytes (casebook C23); the order of the others is kept (C25).
func TestE2EEnvSourceSwitches(t *testing.T) {
	e := newEditEnv(t, kube.PolicyInteractive)
	envOf := func(m map[string]any) []any { return containerAt(m, "containers", 0)["env"].([]any) }
	entry := func(env []any, name string) string {
		for _, v := range env {
			if v.(map[string]any)["name"] == name {
				b, _ := json.Marshal(v)
				return string(b)
			}
		}
		return ""
	}
	raw := e.rawJSON()
	untouched := map[string]string{"MEM": entry(envOf(raw), "MEM"), "CM": entry(envOf(raw), "CM")}
	before := e.read()
	for _, step := range []struct {
		name  string
		edit  func(env []kube.EnvVar) []kube.EnvVar
		patch string // the env part of the container's patch
		want  map[string]string
		order string
	}{
		{"literal to fieldRef", func(env []kube.EnvVar) []kube.EnvVar {
			env[0] = kube.EnvVar{Name: "A", Source: kube.EnvField, FieldPath: "metadata.name", APIVersion: "v1", Read: env[0].Read}
			return env
		}, `"env":[{"name":"A","value":null,"valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}]`,
			map[string]string{"A": `{"name":"A","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}`}, "A,B,IDX,MEM,CM"},
		{"fieldRef to literal", func(env []kube.EnvVar) []kube.EnvVar {
			env[2] = kube.EnvVar{Name: "IDX", Source: kube.EnvLiteral, Value: "3", Read: env[2].Read}
			return env
		}, `"env":[{"name":"IDX","value":"3","valueFrom":null}]`,
			map[string]string{"IDX": `{"name":"IDX","value":"3"}`}, "A,B,IDX,MEM,CM"},
		{"fieldRef row removed", func(env []kube.EnvVar) []kube.EnvVar {
			return env[1:]
		}, `"$setElementOrder/env":[{"name":"B"},{"name":"IDX"},{"name":"MEM"},{"name":"CM"}],"env":[{"$patch":"delete","name":"A"}]`,
			map[string]string{"A": ""}, "B,IDX,MEM,CM"},
	} {
		after := before
		after.Containers = append([]kube.Container(nil), before.Containers...)
		app := &after.Containers[2]
		app.Env = step.edit(append([]kube.EnvVar(nil), app.Env...))
		if errs := kube.ValidateWorkload(after); len(errs) > 0 {
			t.Fatalf("%s: %v", step.name, errs)
		}
		since := time.Now()
		res := e.apply(before, after)
		e.onePatch(since, fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"spec":{"template":{"spec":{"containers":[{"name":"app",%s}]}}}}`,
			before.ResourceVersion, step.patch))
		env := envOf(e.rawJSON())
		for name, want := range step.want {
			if got := entry(env, name); got != want {
				t.Errorf("%s: %s is %s, want %s", step.name, name, got, want)
			}
		}
		for name, want := range untouched {
			if got := entry(env, name); got != want {
				t.Errorf("%s: untouched %s changed: %s → %s (C23)", step.name, name, want, got)
			}
		}
		var names []string
		for _, v := range env {
			names = append(names, v.(map[string]any)["name"].(string))
		}
		if got := strings.Join(names, ","); got != step.order {
			t.Errorf("%s: env order %s, want %s (C25)", step.name, got, step.order)
		}
		if ch := kube.Changes(res.Workload, e.read()); len(ch) != 0 {
			t.Errorf("%s: read again, the form shows changes %+v", step.name, ch)
		}
		e.settle()
		before = e.read()
	}
}
