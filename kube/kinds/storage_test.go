package kinds_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

func pointerTo[T any](v T) *T { return &v }

func TestPersistentVolumeClaimRow(t *testing.T) {
	bound := func(mutate func(*corev1.PersistentVolumeClaim)) *corev1.PersistentVolumeClaim {
		pvc := &corev1.PersistentVolumeClaim{
			ObjectMeta: demoMeta("data"),
			Spec: corev1.PersistentVolumeClaimSpec{
				VolumeName: "pv-1", StorageClassName: pointerTo("fast"), VolumeMode: pointerTo(corev1.PersistentVolumeFilesystem),
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")}},
			},
			Status: corev1.PersistentVolumeClaimStatus{
				Phase:       corev1.ClaimBound,
				Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod, corev1.ReadWriteOnce, corev1.ReadWriteMany, corev1.ReadWriteOnce, corev1.ReadOnlyMany},
			},
		}
		if mutate != nil {
			mutate(pvc)
		}
		return pvc
	}
	tests := []struct {
		name   string
		pvc    *corev1.PersistentVolumeClaim
		cells  []string
		health kube.Health
	}{
		{"bound: capacity and modes from status, modes in kubectl's order, each once", bound(nil),
			[]string{"data", "Bound", "pv-1", "10Gi", "RWO,ROX,RWX,RWOP", "fast", "<unset>", "90m", "Filesystem"}, kube.HealthOK},
		{"pending: no volume, no capacity, no modes (the request is not shown)", bound(func(p *corev1.PersistentVolumeClaim) {
			p.Spec.VolumeName, p.Status = "", corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
			p.Spec.StorageClassName, p.Spec.VolumeMode = nil, nil
		}), []string{"data", "Pending", "", "", "", "", "<unset>", "90m", "<unset>"}, kube.HealthProgressing},
		{"volume named but no capacity yet", bound(func(p *corev1.PersistentVolumeClaim) {
			p.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
		}), []string{"data", "Pending", "pv-1", "0", "", "fast", "<unset>", "90m", "Filesystem"}, kube.HealthProgressing},
		{"lost", bound(func(p *corev1.PersistentVolumeClaim) { p.Status.Phase = corev1.ClaimLost }),
			[]string{"data", "Lost", "pv-1", "10Gi", "RWO,ROX,RWX,RWOP", "fast", "<unset>", "90m", "Filesystem"}, kube.HealthFailed},
		{"terminating; beta class annotation wins; attributes class", bound(func(p *corev1.PersistentVolumeClaim) {
			p.DeletionTimestamp = pointerTo(metav1.NewTime(now))
			p.Annotations = map[string]string{"volume.beta.kubernetes.io/storage-class": "legacy"}
			p.Spec.VolumeAttributesClassName = pointerTo("gold")
			p.Spec.VolumeMode = pointerTo(corev1.PersistentVolumeBlock)
		}), []string{"data", "Terminating", "pv-1", "10Gi", "RWO,ROX,RWX,RWOP", "legacy", "gold", "90m", "Block"}, kube.HealthWarning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := kinds.PersistentVolumeClaimRow(tt.pvc)
			equal(t, texts(row), tt.cells)
			if row.Status != tt.cells[1] || row.Health != tt.health {
				t.Errorf("got %s/%v, want %s/%v", row.Status, row.Health, tt.cells[1], tt.health)
			}
		})
	}
}

func TestPersistentVolumeRow(t *testing.T) {
	volume := func(phase corev1.PersistentVolumePhase, mutate func(*corev1.PersistentVolume)) *corev1.PersistentVolume {
		pv := &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: "pv-1", CreationTimestamp: metav1.NewTime(created)},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany, corev1.ReadOnlyMany},
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				ClaimRef:                      &corev1.ObjectReference{Namespace: "demo", Name: "data"},
				StorageClassName:              "fast",
			},
			Status: corev1.PersistentVolumeStatus{Phase: phase},
		}
		if mutate != nil {
			mutate(pv)
		}
		return pv
	}
	tests := []struct {
		name   string
		pv     *corev1.PersistentVolume
		cells  []string
		health kube.Health
	}{
		{"bound", volume(corev1.VolumeBound, nil),
			[]string{"pv-1", "1Gi", "ROX,RWX", "Retain", "Bound", "demo/data", "fast", "<unset>", "", "90m", "<unset>"}, kube.HealthOK},
		{"available, unclaimed, no capacity", volume(corev1.VolumeAvailable, func(pv *corev1.PersistentVolume) {
			pv.Spec.ClaimRef, pv.Spec.Capacity, pv.Spec.VolumeMode = nil, nil, pointerTo(corev1.PersistentVolumeFilesystem)
		}), []string{"pv-1", "0", "ROX,RWX", "Retain", "Available", "", "fast", "<unset>", "", "90m", "Filesystem"}, kube.HealthOK},
		{"pending", volume(corev1.VolumePending, nil), nil, kube.HealthProgressing},
		{"released", volume(corev1.VolumeReleased, nil), nil, kube.HealthWarning},
		{"failed with reason; beta class annotation; attributes class", volume(corev1.VolumeFailed, func(pv *corev1.PersistentVolume) {
			pv.Status.Reason = "RecyclerFailed"
			pv.Annotations = map[string]string{"volume.beta.kubernetes.io/storage-class": ""}
			pv.Spec.VolumeAttributesClassName = pointerTo("gold")
		}), []string{"pv-1", "1Gi", "ROX,RWX", "Retain", "Failed", "demo/data", "", "gold", "RecyclerFailed", "90m", "<unset>"}, kube.HealthFailed},
		{"terminating", volume(corev1.VolumeBound, func(pv *corev1.PersistentVolume) { pv.DeletionTimestamp = pointerTo(metav1.NewTime(now)) }),
			[]string{"pv-1", "1Gi", "ROX,RWX", "Retain", "Terminating", "demo/data", "fast", "<unset>", "", "90m", "<unset>"}, kube.HealthWarning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := kinds.PersistentVolumeRow(tt.pv)
			if tt.cells != nil {
				equal(t, texts(row), tt.cells)
			}
			if row.Health != tt.health || row.Status != texts(row)[4] {
				t.Errorf("got %s/%v, want %s/%v", row.Status, row.Health, texts(row)[4], tt.health)
			}
		})
	}
}

func TestStorageClassRow(t *testing.T) {
	retain := corev1.PersistentVolumeReclaimRetain
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	tests := []struct {
		name  string
		sc    storagev1.StorageClass
		cells []string
	}{
		{"defaults", storagev1.StorageClass{Provisioner: "example.com/csi"},
			[]string{"standard", "example.com/csi", "Delete", "Immediate", "false", "90m"}},
		{"set, and the default class", storagev1.StorageClass{
			ObjectMeta:  metav1.ObjectMeta{Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}},
			Provisioner: "example.com/csi", ReclaimPolicy: &retain, VolumeBindingMode: &wait, AllowVolumeExpansion: pointerTo(true)},
			[]string{"standard (default)", "example.com/csi", "Retain", "WaitForFirstConsumer", "true", "90m"}},
		{"beta default annotation", storagev1.StorageClass{
			ObjectMeta:  metav1.ObjectMeta{Annotations: map[string]string{"storageclass.beta.kubernetes.io/is-default-class": "true"}},
			Provisioner: "p", AllowVolumeExpansion: pointerTo(false)},
			[]string{"standard (default)", "p", "Delete", "Immediate", "false", "90m"}},
		{"annotation not true", storagev1.StorageClass{
			ObjectMeta:  metav1.ObjectMeta{Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "yes"}},
			Provisioner: "p"},
			[]string{"standard", "p", "Delete", "Immediate", "false", "90m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := tt.sc
			sc.Name, sc.CreationTimestamp = "standard", metav1.NewTime(created)
			row := kinds.StorageClassRow(&sc)
			equal(t, texts(row), tt.cells)
			if row.Name != "standard" {
				t.Errorf("Row.Name %q: the default marker belongs to the cell only", row.Name)
			}
		})
	}
}
