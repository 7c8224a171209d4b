package kube_test

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// claimingStatefulSet creates StatefulSet db in ns: 3 replicas started
// in parallel (an ordered one stalls on the local cluster, whose claims
// are never bound), a volume claim template "data", and claims deleted on
// scale-down and, when whenDeleted is Delete, on delete. It returns once
// the controller has created the 3 claims (data-db-0..2).
func claimingStatefulSet(t *testing.T, cs kubernetes.Interface, ns string, whenDeleted appsv1.PersistentVolumeClaimRetentionPolicyType) {
	t.Helper()
	ctx := context.Background()
	fs := corev1.PersistentVolumeFilesystem
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db"}, Spec: appsv1.StatefulSetSpec{
		Replicas: ptr(int32(3)), ServiceName: "db", PodManagementPolicy: appsv1.ParallelPodManagement,
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
		PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenScaled: appsv1.DeletePersistentVolumeClaimRetentionPolicyType, WhenDeleted: whenDeleted},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "db"}}, Spec: kwokPodSpec("postgres:16")},
		VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"},
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, VolumeMode: &fs,
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{"storage": resource.MustParse("1Gi")}}}}},
	}}
	sts.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}
	if _, err := cs.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		list, err := cs.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{})
		if err == nil && len(list.Items) == 3 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the StatefulSet's claims were not created: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
