package kinds

import (
	"context"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// betaStorageClassAnnotation is the deprecated annotation that names a
// volume's or claim's storage class; kubectl reads it before
// spec.storageClassName (k8s.io/kubernetes pkg/apis/core/helper).
const betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"

// Annotations that mark a StorageClass as the cluster's default
// (k8s.io/kubernetes pkg/apis/storage/util IsDefaultAnnotation).
const (
	defaultStorageClassAnnotation     = "storageclass.kubernetes.io/is-default-class"
	betaDefaultStorageClassAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
)

// PersistentVolumeClaims serves persistentvolumeclaims: NAME STATUS VOLUME
// CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE, and with
// -o wide VOLUMEMODE, as `kubectl get pvc` prints them.
type PersistentVolumeClaims struct{}

// Info describes persistentvolumeclaims.
func (PersistentVolumeClaims) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "persistentvolumeclaims", Version: "v1", Resource: "persistentvolumeclaims", Namespaced: true,
		Capabilities: vocab.CanDelete,
		Aliases:      []string{"persistentvolumeclaim", "pvc"},
		Columns: []vocab.Column{
			{Name: "NAME"}, {Name: "STATUS"}, {Name: "VOLUME"}, {Name: "CAPACITY"}, {Name: "ACCESS MODES"},
			{Name: "STORAGECLASS"}, {Name: "VOLUMEATTRIBUTESCLASS"}, {Name: "AGE"},
			{Name: "VOLUMEMODE", Wide: true},
		},
	}
}

// List lists persistentvolumeclaims in namespace ("" for all) as *corev1.PersistentVolumeClaim.
func (PersistentVolumeClaims) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.CoreV1().PersistentVolumeClaims(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *corev1.PersistentVolumeClaim into its row (PersistentVolumeClaimRow).
func (PersistentVolumeClaims) Row(obj any) (vocab.Row, bool) {
	pvc, ok := obj.(*corev1.PersistentVolumeClaim)
	if !ok {
		return vocab.Row{}, false
	}
	return PersistentVolumeClaimRow(pvc), true
}

// PersistentVolumeClaimRow turns a PersistentVolumeClaim into its row,
// following kubectl's printPersistentVolumeClaim (k8s.io/kubernetes v1.37
// pkg/printers/internalversion):
//   - STATUS is status.phase, "Terminating" once a deletionTimestamp is set;
//   - CAPACITY (status.capacity's storage, "0" when absent) and ACCESS MODES
//     (status.accessModes as RWO,ROX,RWX,RWOP) are shown only once
//     spec.volumeName is set, and are empty before;
//   - STORAGECLASS is the volume.beta.kubernetes.io/storage-class annotation,
//     else spec.storageClassName, else empty;
//   - VOLUMEATTRIBUTESCLASS and VOLUMEMODE are "<unset>" when unset.
//
// Health: Bound is ok, Pending progressing, Lost failed (its volume is
// gone), Terminating a warning (a finalizer such as
// kubernetes.io/pvc-protection holds it while a pod uses it).
func PersistentVolumeClaimRow(pvc *corev1.PersistentVolumeClaim) vocab.Row {
	phase := string(pvc.Status.Phase)
	health := vocab.HealthOK
	switch {
	case pvc.DeletionTimestamp != nil:
		phase, health = "Terminating", vocab.HealthWarning
	case pvc.Status.Phase == corev1.ClaimPending:
		health = vocab.HealthProgressing
	case pvc.Status.Phase == corev1.ClaimLost:
		health = vocab.HealthFailed
	}
	capacity, modes := "", ""
	if pvc.Spec.VolumeName != "" {
		q := pvc.Status.Capacity[corev1.ResourceStorage]
		capacity, modes = q.String(), accessModes(pvc.Status.AccessModes)
	}
	class, ok := pvc.Annotations[betaStorageClassAnnotation]
	if !ok && pvc.Spec.StorageClassName != nil {
		class = *pvc.Spec.StorageClassName
	}
	row := identity(&pvc.ObjectMeta)
	row.Status, row.Health = phase, health
	row.Cells = []vocab.Cell{
		vocab.Text(pvc.Name), vocab.Text(phase), vocab.Text(pvc.Spec.VolumeName), vocab.Text(capacity), vocab.Text(modes),
		vocab.Text(class), vocab.Text(orUnset(pvc.Spec.VolumeAttributesClassName)), vocab.Age(pvc.CreationTimestamp.Time),
		vocab.Text(volumeMode(pvc.Spec.VolumeMode)),
	}
	return row
}

// PersistentVolumes serves persistentvolumes (cluster-scoped): NAME CAPACITY
// ACCESS MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS VOLUMEATTRIBUTESCLASS
// REASON AGE, and with -o wide VOLUMEMODE, as `kubectl get pv` prints them.
type PersistentVolumes struct{}

// Info describes persistentvolumes.
func (PersistentVolumes) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "persistentvolumes", Version: "v1", Resource: "persistentvolumes",
		Capabilities: vocab.CanDelete,
		Aliases:      []string{"persistentvolume", "pv"},
		Columns: []vocab.Column{
			{Name: "NAME"}, {Name: "CAPACITY"}, {Name: "ACCESS MODES"}, {Name: "RECLAIM POLICY"}, {Name: "STATUS"},
			{Name: "CLAIM"}, {Name: "STORAGECLASS"}, {Name: "VOLUMEATTRIBUTESCLASS"}, {Name: "REASON"}, {Name: "AGE"},
			{Name: "VOLUMEMODE", Wide: true},
		},
	}
}

// List lists persistentvolumes as *corev1.PersistentVolume; namespace is ignored.
func (PersistentVolumes) List(ctx context.Context, cs kubernetes.Interface, _ string, sel vocab.Selector) ([]any, error) {
	list, err := cs.CoreV1().PersistentVolumes().List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *corev1.PersistentVolume into its row (PersistentVolumeRow).
func (PersistentVolumes) Row(obj any) (vocab.Row, bool) {
	pv, ok := obj.(*corev1.PersistentVolume)
	if !ok {
		return vocab.Row{}, false
	}
	return PersistentVolumeRow(pv), true
}

// PersistentVolumeRow turns a PersistentVolume into its row, following
// kubectl's printPersistentVolume: CAPACITY is spec.capacity's storage ("0"
// when absent); STATUS is status.phase, "Terminating" once a
// deletionTimestamp is set; CLAIM is claimRef's namespace/name, empty when
// unbound; STORAGECLASS is the volume.beta.kubernetes.io/storage-class
// annotation, else spec.storageClassName; REASON is status.reason;
// VOLUMEATTRIBUTESCLASS and VOLUMEMODE are "<unset>" when unset.
//
// Health: Available and Bound are ok, Pending progressing, Released a
// warning (its claim was deleted and the volume awaits reclamation or
// manual clean-up), Failed failed (automatic reclamation failed),
// Terminating a warning.
func PersistentVolumeRow(pv *corev1.PersistentVolume) vocab.Row {
	phase := string(pv.Status.Phase)
	health := vocab.HealthOK
	switch {
	case pv.DeletionTimestamp != nil:
		phase, health = "Terminating", vocab.HealthWarning
	case pv.Status.Phase == corev1.VolumePending:
		health = vocab.HealthProgressing
	case pv.Status.Phase == corev1.VolumeReleased:
		health = vocab.HealthWarning
	case pv.Status.Phase == corev1.VolumeFailed:
		health = vocab.HealthFailed
	}
	claim := ""
	if ref := pv.Spec.ClaimRef; ref != nil {
		claim = ref.Namespace + "/" + ref.Name
	}
	class, ok := pv.Annotations[betaStorageClassAnnotation]
	if !ok {
		class = pv.Spec.StorageClassName
	}
	q := pv.Spec.Capacity[corev1.ResourceStorage]
	row := identity(&pv.ObjectMeta)
	row.Status, row.Health = phase, health
	row.Cells = []vocab.Cell{
		vocab.Text(pv.Name), vocab.Text(q.String()), vocab.Text(accessModes(pv.Spec.AccessModes)),
		vocab.Text(string(pv.Spec.PersistentVolumeReclaimPolicy)), vocab.Text(phase), vocab.Text(claim), vocab.Text(class),
		vocab.Text(orUnset(pv.Spec.VolumeAttributesClassName)), vocab.Text(pv.Status.Reason), vocab.Age(pv.CreationTimestamp.Time),
		vocab.Text(volumeMode(pv.Spec.VolumeMode)),
	}
	return row
}

// accessModes abbreviates access modes the way kubectl does
// (GetAccessModesAsString): RWO, ROX, RWX, RWOP, in that order, each once.
func accessModes(modes []corev1.PersistentVolumeAccessMode) string {
	var out []string
	for _, m := range []struct {
		mode  corev1.PersistentVolumeAccessMode
		short string
	}{
		{corev1.ReadWriteOnce, "RWO"}, {corev1.ReadOnlyMany, "ROX"}, {corev1.ReadWriteMany, "RWX"}, {corev1.ReadWriteOncePod, "RWOP"},
	} {
		if slices.Contains(modes, m.mode) {
			out = append(out, m.short)
		}
	}
	return strings.Join(out, ",")
}

func volumeMode(m *corev1.PersistentVolumeMode) string {
	if m == nil {
		return "<unset>"
	}
	return string(*m)
}

func orUnset(s *string) string {
	if s == nil {
		return "<unset>"
	}
	return *s
}

// StorageClasses serves storageclasses (storage.k8s.io/v1, cluster-scoped):
// NAME PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE,
// as `kubectl get storageclasses` prints them.
type StorageClasses struct{}

// Info describes storageclasses.
func (StorageClasses) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "storageclasses", Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses",
		Capabilities: vocab.CanDelete,
		Aliases:      []string{"storageclass", "sc"},
		Columns: []vocab.Column{
			{Name: "NAME"}, {Name: "PROVISIONER"}, {Name: "RECLAIMPOLICY"}, {Name: "VOLUMEBINDINGMODE"},
			{Name: "ALLOWVOLUMEEXPANSION"}, {Name: "AGE"},
		},
	}
}

// List lists storageclasses as *storagev1.StorageClass; namespace is ignored.
func (StorageClasses) List(ctx context.Context, cs kubernetes.Interface, _ string, sel vocab.Selector) ([]any, error) {
	list, err := cs.StorageV1().StorageClasses().List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *storagev1.StorageClass into its row (StorageClassRow).
func (StorageClasses) Row(obj any) (vocab.Row, bool) {
	sc, ok := obj.(*storagev1.StorageClass)
	if !ok {
		return vocab.Row{}, false
	}
	return StorageClassRow(sc), true
}

// StorageClassRow turns a StorageClass into its row, following kubectl's
// printStorageClass: RECLAIMPOLICY defaults to Delete, VOLUMEBINDINGMODE to
// Immediate, ALLOWVOLUMEEXPANSION to false. The NAME cell ends in
// " (default)" when the class carries the default-class annotation
// (storageclass.kubernetes.io/is-default-class, or its beta form, "true").
// kubectl marks only the newest of several such classes, which needs the
// whole list; a row sees one object, so here every annotated class is
// marked (the cluster then has more than one default, itself worth seeing).
// A class without a name is never marked: kubectl compares names with the
// effective default's, and an empty one means "none".
// Health is always ok.
func StorageClassRow(sc *storagev1.StorageClass) vocab.Row {
	name := sc.Name
	if sc.Name != "" && (sc.Annotations[defaultStorageClassAnnotation] == "true" || sc.Annotations[betaDefaultStorageClassAnnotation] == "true") {
		name += " (default)"
	}
	reclaim := string(corev1.PersistentVolumeReclaimDelete)
	if sc.ReclaimPolicy != nil {
		reclaim = string(*sc.ReclaimPolicy)
	}
	binding := string(storagev1.VolumeBindingImmediate)
	if sc.VolumeBindingMode != nil {
		binding = string(*sc.VolumeBindingMode)
	}
	expansion := sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
	row := identity(&sc.ObjectMeta)
	row.Cells = []vocab.Cell{
		vocab.Text(name), vocab.Text(sc.Provisioner), vocab.Text(reclaim), vocab.Text(binding),
		vocab.Text(strconv.FormatBool(expansion)), vocab.Age(sc.CreationTimestamp.Time),
	}
	return row
}
