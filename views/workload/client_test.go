package workload

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// clientFixture is a Deployment with a native sidecar, duplicate env
// names, references of every kind and quantities in unusual spellings.
func clientFixture() *appsv1.Deployment {
	always := corev1.ContainerRestartPolicyAlways
	yes := true
	replicas := int32(3)
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "demo", UID: "u1", ResourceVersion: "100"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{
					InitContainers: []corev1.Container{{Name: "shipper", Image: "shipper:1", RestartPolicy: &always,
						Env: []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "N", Value: "x"}, {Name: "T", Value: "t"}, {Name: "N", Value: "y"}}}},
					Containers: []corev1.Container{{
						Name: "app", Image: "app:1", Args: []string{"--port=8080"},
						Env: []corev1.EnvVar{
							{Name: "A", Value: "1"},
							{Name: "IDX", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['apps.kubernetes.io/pod-index']"}}},
							{Name: "MEM", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory", Divisor: resource.MustParse("1Mi")}}},
							{Name: "CM", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "c1"}, Key: "k", Optional: &yes}}},
							{Name: "PW", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Key: "password"}}},
						},
						Resources: corev1.ResourceRequirements{
							Limits:   corev1.ResourceList{"memory": resource.MustParse("1Gi"), "cpu": resource.MustParse("0.5")},
							Requests: corev1.ResourceList{"memory": resource.MustParse("524288e3")},
						},
					}},
				},
			},
		},
	}
}

// The form over kube's own ReadWorkload and Changes: opening and saving
// with no edit is no change (C26, C34); one edit is exactly one change
// (C22, C23); removing the second of two N entries leaves the first (C20).
func TestFormOverKubeClient(t *testing.T) {
	client, _ := kubetest.FakeClient(t, clientFixture())
	h := openAs(t, nil, client, webRef, 120, 40)
	if h.m.mode != modeForm {
		t.Fatalf("not open: %v", h.m.loadErr)
	}
	base := h.m.form.base
	if got := kube.Changes(base, h.m.form.workload()); len(got) != 0 {
		t.Fatalf("the form's read -> write is not the identity: %+v", got)
	}
	h.press("ctrl+s")
	if !strings.Contains(h.m.note, "nothing changed") {
		t.Fatalf("note %q", h.m.note)
	}
	app := -1
	for i, c := range base.Containers {
		if c.Name == "app" {
			app = i
		}
	}
	h.focusOn(fkCPURequest, app, 0)
	h.typ("250m")
	got := kube.Changes(base, h.m.form.workload())
	if len(got) != 1 || got[0].Container != "app" || got[0].Field != "cpu request" || got[0].After != "250m" {
		t.Fatalf("one edit, changes %+v", got)
	}
	h.focusOn(fkEnvName, 0, 3) // the shipper's second N
	h.press("ctrl+d")
	got = kube.Changes(base, h.m.form.workload())
	if len(got) != 2 || got[0] != (kube.Change{Container: "shipper", Field: "env N", Before: "y", After: "(removed)"}) {
		t.Fatalf("changes %+v", got)
	}
	env := h.m.form.workload().Containers[0].Env
	if len(env) != 3 || env[1].Name != "N" || env[1].Value != "x" {
		t.Fatalf("shipper env %+v", env)
	}
}

func TestPreviewAndApplyOverKubeClient(t *testing.T) {
	client, cs := kubetest.FakeClient(t, clientFixture(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "demo",
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}}})
	h := openAs(t, nil, client, webRef, 120, 40)
	h.focusOn(fkImage, 1, 0)
	h.replace("app:2")
	h.press("ctrl+s")
	if p := h.m.pv; p == nil || p.err != nil || len(p.p.Changes) != 1 || p.blocked() != "" || p.confirm.Unconfirmed() != 0 {
		t.Fatalf("preview:\n%s", h.view())
	}
	h.press("enter")
	if h.m.mode != modeRollout {
		t.Fatalf("not applied:\n%s", h.view())
	}
	d, err := cs.AppsV1().Deployments("demo").Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil || d.Spec.Template.Spec.Containers[0].Image != "app:2" {
		t.Fatalf("written: %v %v", err, d.Spec.Template.Spec.Containers)
	}
	if c, _ := h.m.form.base.Container("app"); c.Image != "app:2" {
		t.Fatalf("the form's base is not the applied object: %+v", c)
	}
}
