package ui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
)

// TestE2EDrillDownFollowsTheService: on the local cluster, a Service's
// pods follow the Service: when its selector is changed, the drill-down
// shows the pods it selects now; when it is deleted, the screen says so.
func TestE2EDrillDownFollowsTheService(t *testing.T) {
	cfg := kubetest.Local(t)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ns := kubetest.TempNamespace(t, cs, "kyyard-e2e-redrill")
	for _, app := range []string{"one", "two"} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pod-" + app, Labels: map[string]string{"app": app}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.invalid/app:1"}}}}
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "sv"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "one"}, Ports: []corev1.ServicePort{{Port: 80}}}}
	if _, err := cs.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	h := startWith(t, kubetest.Client(t, cfg), ns, 160, 20)
	h.command("svc")
	until := func(what string, cond func(string) bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !cond(h.m.View()) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not seen:\n%s", what, h.m.View())
			}
			time.Sleep(200 * time.Millisecond)
			h.run(h.keys("ctrl+r"))
		}
	}
	until("the Service", func(v string) bool { return lineOf(v, "sv") != "" })
	h.runKey(h.keys("enter"))
	until("the pods of app=one", func(v string) bool {
		return strings.Contains(v, "services/sv") && lineOf(v, "pod-one") != "" && lineOf(v, "pod-two") == ""
	})

	got, err := cs.CoreV1().Services(ns).Get(ctx, "sv", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Spec.Selector = map[string]string{"app": "two"}
	if _, err := cs.CoreV1().Services(ns).Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	until("the pods of app=two", func(v string) bool { return lineOf(v, "pod-two") != "" && lineOf(v, "pod-one") == "" })

	if err := cs.CoreV1().Services(ns).Delete(ctx, "sv", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	until("the deleted Service", func(v string) bool {
		return strings.Contains(v, "services/sv was deleted") && lineOf(v, "pod-two") == ""
	})
}
