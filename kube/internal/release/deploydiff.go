package release

// The plan's diff (DeployPlan.Diff): per planned object, what kyyard last
// applied (or, for an object kyyard has no record of, the live object cut
// to the fields the render sets) against what it would apply now.

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// DiffUnchanged is DeployPlan.Diff's value for an object that exists and
// that the deploy leaves as it is ("" is a new object, created; anything
// else a unified diff).
const DiffUnchanged = "(unchanged: deployed as planned)"

// planDiffs answers DeployPlan.Diff for objs, keyed "Kind/name" (keyOf)
// for every planned object: "" when the object does not exist (existing
// has no entry: created), DiffUnchanged when what is deployed is what is
// planned, else a unified diff (objectDiff; Secret values as sizes).
// What is deployed is, in order:
//   - the object as the last successful deploy rendered it (previous: the
//     record's request rendered again with render.Objects), so that the
//     server's defaults and other writers' fields never show as changes;
//   - for an object that exists but is not in previous (adopted, or no
//     record), the live object cut to the paths the plan sets (liveView).
//
// Claims are compared the same way (an existing claim is kept as it is:
// a difference is also claim_immutable's refusal).
func planDiffs(objs []planned, existing map[string]runtime.Object, previous map[string]runtime.Object) map[string]string {
	out := make(map[string]string, len(objs))
	for _, p := range objs {
		key := keyOf(p.obj)
		live := existing[key]
		if live == nil {
			out[key] = ""
			continue
		}
		before := previous[key]
		if before == nil {
			before = liveView(live, p.obj)
		}
		d := objectDiff(key, before, p.obj)
		if d == "" {
			d = DiffUnchanged
		}
		out[key] = d
	}
	return out
}

// liveView returns live cut to the paths plan sets: every map key that
// plan does not have is dropped (recursively; a list's elements are
// compared by index, and a live element past plan's end is kept whole,
// a removal), so a field the API server defaulted
// (progressDeadlineSeconds, imagePullPolicy, dnsPolicy, a volume's
// defaultMode, ...) and the server-set metadata (uid, resourceVersion,
// managedFields, other tools' annotations) do not show as removed; its
// apiVersion and kind are the plan's (typed reads have none). A
// field someone else set that the plan does not set is not shown either:
// it cannot be told from a default without the server's defaulting.
// live itself when either cannot be converted.
func liveView(live, plan runtime.Object) runtime.Object {
	lu, err := runtime.DefaultUnstructuredConverter.ToUnstructured(live)
	if err != nil {
		return live
	}
	pu, err := runtime.DefaultUnstructuredConverter.ToUnstructured(plan)
	if err != nil {
		return live
	}
	cut, _ := cutTo(lu, pu).(map[string]any)
	if cut == nil {
		return live
	}
	// A typed object read from the API has no apiVersion and kind.
	cut["apiVersion"], cut["kind"] = pu["apiVersion"], pu["kind"]
	out := plan.DeepCopyObject()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(cut, out); err != nil {
		return live
	}
	return out
}

// cutTo returns live with only the map keys shape has (see liveView).
// Scalars and values of another type are returned as they are.
func cutTo(live, shape any) any {
	switch l := live.(type) {
	case map[string]any:
		s, ok := shape.(map[string]any)
		if !ok {
			return live
		}
		out := make(map[string]any, len(s))
		for k, sv := range s {
			if lv, ok := l[k]; ok {
				out[k] = cutTo(lv, sv)
			}
		}
		return out
	case []any:
		s, ok := shape.([]any)
		if !ok {
			return live
		}
		out := make([]any, len(l))
		for i, lv := range l {
			if i < len(s) {
				out[i] = cutTo(lv, s[i])
			} else {
				out[i] = lv
			}
		}
		return out
	}
	return live
}
