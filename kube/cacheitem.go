package kube

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// cachedItem is what an informer stores for one object instead of the
// object: its identity (what client-go's store and FIFO key and compare
// by), and until the cache's event handler has taken it, its row. The
// object itself is dropped right after the informer's transform, so that a
// cached pod costs its row and not its spec and status (issue 14: "rows,
// not objects, in the cache").
//
// It implements metav1.Object read-only (client-go reads the namespace,
// name and resourceVersion through meta.Accessor; the setters do nothing).
type cachedItem struct {
	namespace, name, uid, resourceVersion string
	// row is the object's row, set by the transform and taken (set to nil)
	// by the cache's event handler, which keeps it in the sorted rows; nil
	// when the plugin gave no row. Only the handler's goroutine touches it
	// after the transform.
	row *Row
	// early is set when the transform also recorded the row among the
	// rows of a streaming first list (kindCache.early): the handler, which
	// adopts those rows whole, then skips the item (kindCache.put). Only
	// the handler's goroutine reads it after the transform.
	early bool
	// drill is the plugin's DrillSelector answer for the object (nil when
	// the plugin is no Driller): a drill-down reads it instead of the
	// object.
	drill *drillAnswer
	// keep is the small part of the object kube itself reads besides the
	// row (a Node's platform labels, for Facts); nil for most kinds.
	keep any
}

// drillAnswer is a Driller's answer, kept in the cache.
type drillAnswer struct {
	sel Selector
	ok  bool
}

// key is the item's store key (cache.MetaNamespaceKeyFunc's form).
func (it *cachedItem) key() string {
	if it.namespace == "" {
		return it.name
	}
	return it.namespace + "/" + it.name
}

var _ metav1.Object = (*cachedItem)(nil)

// GetNamespace returns the object's namespace.
func (it *cachedItem) GetNamespace() string { return it.namespace }

// SetNamespace does nothing: a cached item is read-only.
func (it *cachedItem) SetNamespace(string) {}

// GetName returns the object's name.
func (it *cachedItem) GetName() string { return it.name }

// SetName does nothing: a cached item is read-only.
func (it *cachedItem) SetName(string) {}

// GetGenerateName returns "": not kept.
func (it *cachedItem) GetGenerateName() string { return "" }

// SetGenerateName does nothing: a cached item is read-only.
func (it *cachedItem) SetGenerateName(string) {}

// GetUID returns the object's UID.
func (it *cachedItem) GetUID() types.UID { return types.UID(it.uid) }

// SetUID does nothing: a cached item is read-only.
func (it *cachedItem) SetUID(types.UID) {}

// GetResourceVersion returns the object's resourceVersion.
func (it *cachedItem) GetResourceVersion() string { return it.resourceVersion }

// SetResourceVersion does nothing: a cached item is read-only.
func (it *cachedItem) SetResourceVersion(string) {}

// GetGeneration returns 0: not kept.
func (it *cachedItem) GetGeneration() int64 { return 0 }

// SetGeneration does nothing: a cached item is read-only.
func (it *cachedItem) SetGeneration(int64) {}

// GetSelfLink returns "": not kept.
func (it *cachedItem) GetSelfLink() string { return "" }

// SetSelfLink does nothing: a cached item is read-only.
func (it *cachedItem) SetSelfLink(string) {}

// GetCreationTimestamp returns the zero time: the row has it.
func (it *cachedItem) GetCreationTimestamp() metav1.Time { return metav1.Time{} }

// SetCreationTimestamp does nothing: a cached item is read-only.
func (it *cachedItem) SetCreationTimestamp(metav1.Time) {}

// GetDeletionTimestamp returns nil: not kept.
func (it *cachedItem) GetDeletionTimestamp() *metav1.Time { return nil }

// SetDeletionTimestamp does nothing: a cached item is read-only.
func (it *cachedItem) SetDeletionTimestamp(*metav1.Time) {}

// GetDeletionGracePeriodSeconds returns nil: not kept.
func (it *cachedItem) GetDeletionGracePeriodSeconds() *int64 { return nil }

// SetDeletionGracePeriodSeconds does nothing: a cached item is read-only.
func (it *cachedItem) SetDeletionGracePeriodSeconds(*int64) {}

// GetLabels returns nil: the row has them.
func (it *cachedItem) GetLabels() map[string]string { return nil }

// SetLabels does nothing: a cached item is read-only.
func (it *cachedItem) SetLabels(map[string]string) {}

// GetAnnotations returns nil: not kept.
func (it *cachedItem) GetAnnotations() map[string]string { return nil }

// SetAnnotations does nothing: a cached item is read-only.
func (it *cachedItem) SetAnnotations(map[string]string) {}

// GetFinalizers returns nil: not kept.
func (it *cachedItem) GetFinalizers() []string { return nil }

// SetFinalizers does nothing: a cached item is read-only.
func (it *cachedItem) SetFinalizers([]string) {}

// GetOwnerReferences returns nil: the row keeps the owners' UIDs.
func (it *cachedItem) GetOwnerReferences() []metav1.OwnerReference { return nil }

// SetOwnerReferences does nothing: a cached item is read-only.
func (it *cachedItem) SetOwnerReferences([]metav1.OwnerReference) {}

// GetManagedFields returns nil: never kept.
func (it *cachedItem) GetManagedFields() []metav1.ManagedFieldsEntry { return nil }

// SetManagedFields does nothing: a cached item is read-only.
func (it *cachedItem) SetManagedFields([]metav1.ManagedFieldsEntry) {}
