package kube_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// auditReads counts agent's requests since that the audit log holds as
// completed gets and lists (watches left out), after a moment for the
// log to be flushed.
func auditReads(t *testing.T, agent string, since time.Time) []string {
	t.Helper()
	time.Sleep(500 * time.Millisecond)
	f, err := os.Open(os.Getenv(kubetest.AuditLogEnv))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if !strings.Contains(sc.Text(), agent) {
			continue
		}
		var e struct {
			Verb, Stage, UserAgent, RequestURI string
			Received                           time.Time `json:"requestReceivedTimestamp"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.UserAgent != agent || e.Stage != "ResponseComplete" || e.Received.Before(since) {
			continue
		}
		if e.Verb == "get" || e.Verb == "list" {
			out = append(out, e.Verb+" "+e.RequestURI)
		}
	}
	return out
}

// TestE2EOwnerTreeOfACustomResource: on the local cluster, a custom
// resource that owns a Pod: its tree shows the Pod under it; the Pod's
// tree goes up to it, though its kind is no controller's, reading its
// ownerReferences (one metadata get) and its kind (one list): 2 requests
// once the built-in kinds are cached; a Deployment's tree reaches its Pods
// through its ReplicaSet.
func TestE2EOwnerTreeOfACustomResource(t *testing.T) {
	e := newOpEnv(t)
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(e.cfg)
	gvr := kubetest.WidgetCRD(t, dyn)
	kind := "Widget" + strings.TrimPrefix(gvr.Resource, "widgets")
	w, err := dyn.Resource(gvr).Namespace(e.ns).Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gvr.GroupVersion().String(), "kind": kind, "metadata": map[string]any{"name": "gadget"}, "spec": map[string]any{"color": "red"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "gadget-worker", OwnerReferences: []metav1.OwnerReference{{
		APIVersion: gvr.GroupVersion().String(), Kind: kind, Name: "gadget", UID: w.GetUID()}}}, Spec: kwokPodSpec("worker:1")}
	if _, err := e.cs.CoreV1().Pods(e.ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ref := e.deployment("web", "nginx:1.27.3")
	e.settle("web")
	c, agent := e.client(e.cfg, kube.Options{TablePlugin: kinds.NewTable})

	tree, err := c.OwnerTree(ctx, ref.Kind, e.ns, "web") // the built-in kinds' caches fill
	if err != nil {
		t.Fatal(err)
	}
	if r := tree.Root; r.Name != "web" || len(r.Children) != 1 || r.Children[0].Kind != kube.KindReplicaSets || len(r.Children[0].Children) != 2 {
		t.Fatalf("the Deployment's tree: %+v", r)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if tree, err = c.OwnerTree(ctx, kube.KindPods, e.ns, "gadget-worker"); err == nil || time.Now().After(deadline) {
			break // the pods cache sees the new Pod
		}
	}
	since := time.Now()
	tree, err = c.OwnerTree(ctx, kube.KindPods, e.ns, "gadget-worker")
	reads := auditReads(t, agent, since)
	if err != nil || tree.Root.Name != "gadget" || tree.Root.Kind != kube.Kind(gvr.Resource) ||
		len(tree.Root.Children) != 1 || !tree.Root.Children[0].Target {
		t.Fatalf("the Pod's tree: %+v, %v (notes %v)", tree.Root, err, tree.Notes)
	}
	if len(reads) > 2 {
		t.Errorf("the Pod's tree up to a custom resource took %d reads, budget 2: %v", len(reads), reads)
	}
	t.Logf("up to a custom resource: %d reads %v", len(reads), reads)
	tree, err = c.OwnerTree(ctx, kube.Kind(gvr.Resource), e.ns, "gadget")
	if err != nil || !tree.Root.Target || len(tree.Root.Children) != 1 || tree.Root.Children[0].Name != "gadget-worker" {
		t.Fatalf("the custom resource's tree: %+v, %v", tree.Root, err)
	}
}

// TestE2EObjectEvents: a new Deployment's events on the local cluster,
// gathered through its owner tree: its own (ScalingReplicaSet), its
// ReplicaSet's (SuccessfulCreate) and its Pods' (Scheduled), newest
// first; a Pod's are its own only.
func TestE2EObjectEvents(t *testing.T) {
	e := newOpEnv(t)
	ctx := context.Background()
	e.deployment("web", "nginx:1.27.3")
	e.settle("web")
	c, _ := e.client(e.cfg, kube.Options{TablePlugin: kinds.NewTable})
	want := []string{"ScalingReplicaSet", "SuccessfulCreate", "Scheduled"}
	var ev kube.ObjectEvents
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		ev, err = c.Events(ctx, kube.KindDeployments, e.ns, "web")
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, r := range ev.Rows {
			seen[r.Fields["reason"]] = true
		}
		if seen[want[0]] && seen[want[1]] && seen[want[2]] {
			break
		}
	}
	reasons := map[string]bool{}
	pod := ""
	for i, r := range ev.Rows {
		reasons[r.Fields["reason"]] = true
		if i > 0 && r.Cells[0].Since.After(ev.Rows[i-1].Cells[0].Since) {
			t.Errorf("event %d is newer than the one before it", i)
		}
		if r.Fields["involvedObject.kind"] == "Pod" {
			pod = r.Fields["involvedObject.name"]
		}
	}
	for _, w := range want {
		if !reasons[w] {
			t.Fatalf("the Deployment's events lack %s: %v", w, reasons)
		}
	}
	pe, err := c.Events(ctx, kube.KindPods, e.ns, pod)
	if err != nil || len(pe.Rows) == 0 {
		t.Fatalf("pod %s's events: %+v, %v", pod, pe.Rows, err)
	}
	for _, r := range pe.Rows {
		if r.Fields["involvedObject.name"] != pod {
			t.Errorf("pod %s's events hold one of %s", pod, r.Fields["involvedObject.name"])
		}
	}
}
