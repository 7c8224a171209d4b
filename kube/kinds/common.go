package kinds

import (
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/kyyard/kyyard/kube/vocab"
)

// listOptions turns a vocab.Selector into the API server's list options; the
// owner part is applied by the Client after the read.
func listOptions(sel vocab.Selector) metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: sel.Labels, FieldSelector: sel.Fields}
}

// pointers returns a pointer to each item of a typed list, as Plugin.List
// returns them (the items stay in the list's backing array).
func pointers[T any](items []T) []any {
	out := make([]any, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// identity returns a row holding an object's identity: namespace, name, UID,
// creation time, labels (shared) and owner UIDs.
func identity(m *metav1.ObjectMeta) vocab.Row {
	row := vocab.Row{
		Namespace: m.Namespace, Name: m.Name, UID: string(m.UID),
		Created: m.CreationTimestamp.Time, Labels: m.Labels,
	}
	if len(m.OwnerReferences) > 0 {
		row.Owners = make([]string, len(m.OwnerReferences))
		for i, o := range m.OwnerReferences {
			row.Owners[i] = string(o.UID)
		}
	}
	return row
}

// sinceCell is a cell rendering the time passed since t with no text, as
// kubectl's duration.HumanDuration(time.Since(t)) prints it, for a t that is
// set (a non-nil pointer) even when it holds the zero time (reachable over
// protobuf): time.Since of the zero time saturates at the longest Duration,
// which prints as "292y" at any now past year 292, so that is the cell.
func sinceCell(t time.Time) vocab.Cell {
	if t.IsZero() {
		return vocab.Text(duration.HumanDuration(time.Duration(math.MaxInt64)))
	}
	return vocab.Cell{Since: t}
}

// labelSelector turns a workload's spec.selector into a drill-down selector.
// A nil, empty or invalid selector selects nothing here: an empty selector
// would match every pod of the namespace, which is never what a person
// opening one workload means.
func labelSelector(ls *metav1.LabelSelector) (vocab.Selector, bool) {
	if ls == nil || (len(ls.MatchLabels) == 0 && len(ls.MatchExpressions) == 0) {
		return vocab.Selector{}, false
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil || sel.Empty() {
		return vocab.Selector{}, false
	}
	return vocab.Selector{Labels: sel.String()}, true
}
