package render_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/render"
)

// warnings collects the API server's warnings (Pod Security's "would
// violate PodSecurity" among them).
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

// texts are the warnings so far.
func (w *warnings) texts() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.list...)
}

// TestE2EObjectsAcceptedUnderRestricted creates every object of the
// two-service app in a fresh namespace that enforces Pod Security
// restricted (latest) on the local cluster's real API server: each create
// succeeds with no warning, and the Deployments' ReplicaSets create their
// pods (admission would refuse a pod that breaks restricted).
func TestE2EObjectsAcceptedUnderRestricted(t *testing.T) {
	cfg := rest.CopyConfig(kubetest.Local(t))
	w := &warnings{}
	cfg.WarningHandlerWithContext = w
	cfg.QPS, cfg.Burst = 100, 200
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ns := kubetest.TempNamespace(t, cs, "render-e2e")
	patch := `{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/enforce-version":"latest","pod-security.kubernetes.io/warn":"restricted"}}}`
	if _, err := cs.CoreV1().Namespaces().Patch(ctx, ns, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	req := twoServices()
	req.Namespace = ns
	objs, err := render.Objects(req)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range objs {
		if err := create(ctx, cs, r.Object); err != nil {
			t.Fatalf("create %s: %v", r.Object.GetObjectKind().GroupVersionKind().Kind, err)
		}
	}
	if got := w.texts(); len(got) > 0 {
		t.Fatalf("the API server warned: %q", got)
	}
	for _, s := range req.Services {
		waitForPods(t, cs, ns, req.Instance, s)
	}
}

// create creates one rendered object with the typed client of its kind.
func create(ctx context.Context, cs kubernetes.Interface, o runtime.Object) error {
	return createWith(ctx, cs, o, metav1.CreateOptions{})
}

// createWith creates o with the options (a dry run).
func createWith(ctx context.Context, cs kubernetes.Interface, o runtime.Object, opts metav1.CreateOptions) error {
	var err error
	switch o := o.(type) {
	case *corev1.Service:
		_, err = cs.CoreV1().Services(o.Namespace).Create(ctx, o, opts)
	case *corev1.PersistentVolumeClaim:
		_, err = cs.CoreV1().PersistentVolumeClaims(o.Namespace).Create(ctx, o, opts)
	case *corev1.ConfigMap:
		_, err = cs.CoreV1().ConfigMaps(o.Namespace).Create(ctx, o, opts)
	case *corev1.Secret:
		_, err = cs.CoreV1().Secrets(o.Namespace).Create(ctx, o, opts)
	case *appsv1.Deployment:
		_, err = cs.AppsV1().Deployments(o.Namespace).Create(ctx, o, opts)
	default:
		err = fmt.Errorf("unexpected %T", o)
	}
	return err
}

// waitForPods waits until the service's pods exist (as many as its
// replicas), failing at once with the ReplicaSet's failure when
// admission refused them.
func waitForPods(t *testing.T, cs kubernetes.Interface, ns, instance string, s render.Service) {
	t.Helper()
	ctx := context.Background()
	sel := labels.SelectorFromSet(render.SelectorLabels(instance, s.Name))
	deadline := time.Now().Add(60 * time.Second)
	for {
		rss, err := cs.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
		if err != nil {
			t.Fatal(err)
		}
		for _, rs := range rss.Items {
			for _, c := range rs.Status.Conditions {
				if c.Type == appsv1.ReplicaSetReplicaFailure && c.Status == corev1.ConditionTrue {
					t.Fatalf("ReplicaSet %s: %s", rs.Name, c.Message)
				}
			}
		}
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
		if err != nil {
			t.Fatal(err)
		}
		if len(pods.Items) >= int(s.Replicas) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("service %s: %d of %d pods after 60 s", s.Name, len(pods.Items), s.Replicas)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestE2EEdgeRequestsAccepted: each request at the edge of what Validate
// accepts (relaxed env names, a 63-character workload name, zero
// requests, a port number twice with two protocols, ...) is accepted by
// the local cluster's API server (a server-side dry run of every object,
// in a namespace enforcing restricted), with no warning.
func TestE2EEdgeRequestsAccepted(t *testing.T) {
	cfg := rest.CopyConfig(kubetest.Local(t))
	w := &warnings{}
	cfg.WarningHandlerWithContext = w
	cfg.QPS, cfg.Burst = 100, 200
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ns := kubetest.TempNamespace(t, cs, "render-e2e")
	patch := `{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/warn":"restricted"}}}`
	if _, err := cs.CoreV1().Namespaces().Patch(ctx, ns, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	for _, c := range acceptCases {
		req := twoServices()
		c.change(&req)
		req.Namespace = ns
		objs, err := render.Objects(req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, r := range objs {
			if err := createWith(ctx, cs, r.Object, dry); err != nil {
				t.Errorf("%s: the API server refused %s: %v", c.name, r.Object.GetObjectKind().GroupVersionKind().Kind, err)
			}
		}
	}
	if got := w.texts(); len(got) > 0 {
		t.Fatalf("the API server warned: %q", got)
	}
}
