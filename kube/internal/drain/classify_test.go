package drain_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube/internal/drain"
)

func TestClassifyAsKubectlDrain(t *testing.T) {
	yes := true
	owned := func(kind string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{Kind: kind, Name: "x", Controller: &yes}}
	}
	emptyDir := []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	now := metav1.Now()
	for _, c := range []struct {
		name  string
		pod   corev1.Pod
		evict bool
		why   string
	}{
		{"a ReplicaSet's", corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned("ReplicaSet")}}, true, ""},
		{"a DaemonSet's", corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned("DaemonSet")}}, false, "managed by DaemonSet x"},
		{"a mirror pod", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{drain.MirrorAnnotation: "h"}}}, false, "mirror pod"},
		{"emptyDir", corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned("ReplicaSet")}, Spec: corev1.PodSpec{Volumes: emptyDir}}, false, "emptyDir volume tmp"},
		{"unmanaged", corev1.Pod{}, false, "not managed by a controller"},
		{"unmanaged but finished", corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodSucceeded}, Spec: corev1.PodSpec{Volumes: emptyDir}}, true, ""},
		{"a finished DaemonSet's", corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned("DaemonSet")}, Status: corev1.PodStatus{Phase: corev1.PodFailed}}, false, "DaemonSet"},
		{"being deleted", corev1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &now, OwnerReferences: owned("ReplicaSet")}}, false, "already being deleted"},
	} {
		evict, why := drain.Classify(&c.pod)
		if evict != c.evict || !strings.Contains(why, c.why) || c.why == "" && why != "" {
			t.Errorf("%s: evict %v (%q), want %v (%q)", c.name, evict, why, c.evict, c.why)
		}
	}
}
