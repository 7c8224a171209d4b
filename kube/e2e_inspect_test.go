package kube_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// requestLog records the method and path of each request a rest.Config's
// transport sends.
type requestLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		l.mu.Lock()
		l.seen = append(l.seen, r.Method+" "+r.URL.Path)
		l.mu.Unlock()
		return rt.RoundTrip(r)
	})
}

// since returns the requests whose path contains part, recorded after the
// first n.
func (l *requestLog) since(n int, part string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, s := range l.seen[n:] {
		if strings.Contains(s, part) {
			out = append(out, s)
		}
	}
	return out
}

func (l *requestLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.seen)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// e2eWeb creates a Deployment "web" of two replicas on the fake nodes in ns.
func e2eWeb(t *testing.T, cs kubernetes.Interface, ns string) *appsv1.Deployment {
	t.Helper()
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(int32(2)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: kwokPodSpec("nginx:1.27.3")},
		},
	}
	got, err := cs.AppsV1().Deployments(ns).Create(context.Background(), d, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// deleteAndWait deletes the Deployment name and waits until a get answers
// not found.
func deleteAndWait(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	ctx := context.Background()
	if err := cs.AppsV1().Deployments(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := cs.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{}); err != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s/%s still there 30 s after its delete", ns, name)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestE2EInspectDeployment inspects a Deployment on the local cluster once
// its rollout completed: its UID, resourceVersion, generation and counts
// are the server's, its two pods are 1/1 Running, all within one get of the
// Deployment and one list of pods; deleted, it is Missing; created again
// under the same name, it answers a new UID.
func TestE2EInspectDeployment(t *testing.T) {
	cfg := rest.CopyConfig(kubetest.Local(t))
	log := &requestLog{}
	cfg.Wrap(log.wrap)
	c := kubetest.Client(t, cfg)
	cs, err := kubernetes.NewForConfig(kubetest.Local(t))
	if err != nil {
		t.Fatal(err)
	}
	ns := kubetest.TempNamespace(t, cs, "kyyard-e2e-inspect")
	created := e2eWeb(t, cs, ns)
	ref := kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: ns, Name: "web"}
	rolloutWatch(t, c, ref, func(st kube.RolloutStatus) bool { return complete(st) && st.Available == 2 })

	ctx := context.Background()
	server, err := cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := log.len()
	in, err := c.Inspect(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if got := log.since(n, "/namespaces/"+ns+"/"); len(got) != 2 ||
		!strings.HasSuffix(got[0], "/deployments/web") || !strings.HasSuffix(got[1], "/pods") {
		t.Errorf("requests %q, want one get of the Deployment and one list of pods", got)
	}
	if in.Missing || in.UID != string(created.UID) || in.ResourceVersion != server.ResourceVersion ||
		in.Generation != server.Generation || in.ObservedGeneration != server.Status.ObservedGeneration ||
		in.Desired != 2 || in.Ready != 2 || in.Updated != 2 || in.Available != 2 {
		t.Errorf("inspection %+v, server %+v", in, server.Status)
	}
	if len(in.Pods) != 2 {
		t.Fatalf("pods %+v, want 2", in.Pods)
	}
	for _, p := range in.Pods {
		if !strings.HasPrefix(p.Name, "web-") || p.Ready != "1/1" || p.Status != "Running" {
			t.Errorf("pod %+v, want web-..., 1/1 Running", p)
		}
	}

	deleteAndWait(t, cs, ns, "web")
	if in, err := c.Inspect(ctx, ref); err != nil || !in.Missing {
		t.Errorf("after the delete: %+v, %v; want Missing", in, err)
	}
	again := e2eWeb(t, cs, ns)
	if in, err := c.Inspect(ctx, ref); err != nil || in.Missing || in.UID != string(again.UID) || in.UID == string(created.UID) {
		t.Errorf("created again: %+v, %v; want the new UID %s (was %s)", in, err, again.UID, created.UID)
	}
}

// TestE2ERolloutStatusDeletedAndRecreated: RolloutStatus on a Deployment of
// the local cluster reads its UID; deleted, it is Missing with no error;
// created again under the same name, it reads a different UID.
func TestE2ERolloutStatusDeletedAndRecreated(t *testing.T) {
	cfg := kubetest.Local(t)
	c := kubetest.Client(t, cfg)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns := kubetest.TempNamespace(t, cs, "kyyard-e2e-rollout-gone")
	first := e2eWeb(t, cs, ns)
	ref := kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: ns, Name: "web"}
	st, _ := rolloutWatch(t, c, ref, complete)
	if st.Missing || st.UID != string(first.UID) {
		t.Errorf("first reading: Missing %v UID %q, want %s", st.Missing, st.UID, first.UID)
	}

	deleteAndWait(t, cs, ns, "web")
	ctx := context.Background()
	st, err = c.RolloutStatus(ctx, ref)
	if err != nil || !st.Missing || st.UID != "" {
		t.Errorf("after the delete: %+v, %v; want Missing and no error", st, err)
	}

	second := e2eWeb(t, cs, ns)
	st, err = c.RolloutStatus(ctx, ref)
	if err != nil || st.Missing || st.UID != string(second.UID) || st.UID == string(first.UID) {
		t.Errorf("created again: Missing %v UID %q, %v; want the new UID %s (the first was %s)", st.Missing, st.UID, err, second.UID, first.UID)
	}
}
