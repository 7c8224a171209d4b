package workload

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// followRollout polls the rollout page until it is done (60 s at most).
func (h *harness) followRollout() {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !h.m.ro.f.Done {
		if time.Now().After(deadline) {
			h.t.Fatalf("the rollout did not end:\n%s", h.view())
		}
		time.Sleep(300 * time.Millisecond)
		h.poll()
	}
}

// newFormDeployment creates Deployment web (2 replicas of nginx:1.27.3,
// tolerating the local cluster's fake nodes) in a namespace of the test's
// own and returns the clientset and the workload's reference.
func newFormDeployment(t *testing.T) (kubernetes.Interface, kube.WorkloadRef) {
	cs := kubernetes.NewForConfigOrDie(kubetest.Local(t))
	ns := kubetest.TempNamespace(t, cs, "kyyard-form")
	two := int32(2)
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{
		Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27.3"}},
				// The local cluster's fake nodes carry kwok's taint.
				Tolerations: []corev1.Toleration{{Key: "kwok.x-k8s.io/node", Operator: corev1.TolerationOpEqual,
					Value: "fake", Effect: corev1.TaintEffectNoSchedule}}}}}}
	if _, err := cs.AppsV1().Deployments(ns).Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return cs, kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: ns, Name: "web"}
}

// TestE2EFormImagePullFailureUndone: an image that cannot be pulled (the
// local cluster's fake kubelet fails every image of the registry
// unpullable.invalid) typed into the form: the rollout is reported failed
// with ImagePullBackOff, and u puts the previous image back, whose
// rollout completes.
func TestE2EFormImagePullFailureUndone(t *testing.T) {
	cs, ref := newFormDeployment(t)
	h := openAs(t, nil, kubetest.Client(t, kubetest.Local(t)), ref, 120, 40)
	if h.m.mode != modeForm {
		t.Fatalf("the form did not open:\n%s", h.view())
	}
	h.focusOn(fkImage, 0, 0)
	h.replace("unpullable.invalid/web:2")
	h.press("ctrl+s", "y", "enter")
	h.followRollout()
	if st := h.m.ro.f.Status; st.Phase != kube.RolloutFailed || !strings.Contains(st.Message, "ImagePullBackOff") {
		t.Fatalf("rollout of an image that cannot be pulled: %+v:\n%s", st, h.view())
	}
	h.press("u")
	h.followRollout()
	if st := h.m.ro.f.Status; st.Phase != kube.RolloutComplete {
		t.Fatalf("the undo's rollout %+v:\n%s", st, h.view())
	}
	got, err := cs.AppsV1().Deployments(ref.Namespace).Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil || got.Spec.Template.Spec.Containers[0].Image != "nginx:1.27.3" {
		t.Fatalf("after u: %v %v", err, got.Spec.Template.Spec.Containers)
	}
}

// TestE2EFormAppliesFollowsAndUndoes drives the form against the local
// cluster, keys only: an image and a cpu request edited, previewed (the
// server's dry run accepts it; the namespace's missing Pod Security level
// is confirmed with y), applied and followed to a complete rollout. Then
// the namespace starts enforcing Pod Security restricted and a second
// edit's pods are refused by admission: the rollout is reported failed
// with the ReplicaSet's FailedCreate text, and u undoes it, the template
// going back to the first apply's values.
func TestE2EFormAppliesFollowsAndUndoes(t *testing.T) {
	cs, ref := newFormDeployment(t)
	ctx, ns := context.Background(), ref.Namespace
	client := kubetest.Client(t, kubetest.Local(t))

	h := openAs(t, nil, client, ref, 120, 40)
	if h.m.mode != modeForm {
		t.Fatalf("the form did not open:\n%s", h.view())
	}
	h.focusOn(fkImage, 0, 0)
	h.replace("nginx:1.27.4")
	h.focusOn(fkCPURequest, 0, 0)
	h.replace("150m")
	h.press("ctrl+s")
	if v := h.view(); !strings.Contains(v, "accepted") || !strings.Contains(v, "enforces no Pod Security level") {
		t.Fatalf("preview:\n%s", v)
	}
	h.press("y", "enter")
	if h.m.mode != modeRollout {
		t.Fatalf("not applied:\n%s", h.view())
	}
	h.followRollout()
	if st := h.m.ro.f.Status; st.Phase != kube.RolloutComplete || st.Updated != 2 {
		t.Fatalf("rollout %+v:\n%s", st, h.view())
	}
	got, err := cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := got.Spec.Template.Spec.Containers[0]
	if c.Image != "nginx:1.27.4" || c.Resources.Requests.Cpu().String() != "150m" {
		t.Fatalf("written: %+v", c)
	}

	nsObj, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nsObj.Labels["pod-security.kubernetes.io/enforce"] = "restricted"
	if _, err := cs.CoreV1().Namespaces().Update(ctx, nsObj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.press("e")
	h.focusOn(fkImage, 0, 0)
	h.replace("nginx:1.28.0")
	h.press("ctrl+s")
	if v := h.view(); !strings.Contains(v, "enforces Pod Security restricted") {
		t.Fatalf("preview in a restricted namespace:\n%s", v)
	}
	h.press("enter")
	h.followRollout()
	if st := h.m.ro.f.Status; st.Phase != kube.RolloutFailed || !strings.Contains(st.Message, "restricted") {
		t.Fatalf("a rollout whose pods admission refuses: %+v:\n%s", st, h.view())
	}
	h.press("u")
	h.followRollout()
	if st := h.m.ro.f.Status; st.Phase != kube.RolloutComplete {
		t.Fatalf("the undo's rollout %+v:\n%s", st, h.view())
	}
	got, err = cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if img := got.Spec.Template.Spec.Containers[0].Image; img != "nginx:1.27.4" {
		t.Fatalf("after u the image is %s, want nginx:1.27.4", img)
	}
}
