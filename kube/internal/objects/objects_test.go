package objects

import (
	"context"
	"errors"
	"testing"

	"github.com/kyyard/kyyard/kube/vocab"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
)

// TestReadPodOwnerReadsEveryKindThatSelectsPods: the one read of "this
// workload by kind, and its selector" serves the five kinds logs,
// port-forward, rollout, inspect and the form read, with the object's own
// selector, UID and pod template; another kind is refused before any
// request, and a missing object is the API server's not found.
func TestReadPodOwnerReadsEveryKindThatSelectsPods(t *testing.T) {
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: "ns", UID: k8stypes.UID("uid-" + name)}
	}
	sel := func(app string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
	}
	tmpl := func(image string) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image}}}}
	}
	objs := []runtime.Object{
		&appsv1.Deployment{ObjectMeta: meta("d"), Spec: appsv1.DeploymentSpec{Selector: sel("d"), Template: tmpl("d:1")}},
		&appsv1.StatefulSet{ObjectMeta: meta("s"), Spec: appsv1.StatefulSetSpec{Selector: sel("s"), Template: tmpl("s:1")}},
		&appsv1.DaemonSet{ObjectMeta: meta("ds"), Spec: appsv1.DaemonSetSpec{Selector: sel("ds"), Template: tmpl("ds:1")}},
		&appsv1.ReplicaSet{ObjectMeta: meta("rs"), Spec: appsv1.ReplicaSetSpec{Selector: sel("rs"), Template: tmpl("rs:1")}},
		&batchv1.Job{ObjectMeta: meta("j"), Spec: batchv1.JobSpec{Selector: sel("j"), Template: tmpl("j:1")}},
	}
	cs := fake.NewClientset(objs...)
	for kind, name := range map[vocab.Kind]string{vocab.KindDeployments: "d", vocab.KindStatefulSets: "s", vocab.KindDaemonSets: "ds", vocab.KindReplicaSets: "rs", vocab.KindJobs: "j"} {
		wo, err := Read(context.Background(), cs, kind, "ns", name)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if string(wo.Meta.UID) != "uid-"+name || wo.Selector == nil || wo.Selector.MatchLabels["app"] != name ||
			wo.Template.Spec.Containers[0].Image != name+":1" {
			t.Errorf("%s: read %+v", kind, wo)
		}
		if _, err := Read(context.Background(), cs, kind, "ns", "gone"); !apierrors.IsNotFound(err) {
			t.Errorf("%s gone: %v", kind, err)
		}
	}
	if _, err := Read(context.Background(), cs, "services", "ns", "d"); !errors.Is(err, ErrNotPodOwner) || !errors.Is(err, vocab.ErrInvalid) {
		t.Errorf("services: %v", err)
	}
}
