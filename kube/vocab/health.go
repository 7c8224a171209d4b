package vocab

// RaisedHealth is the rule by which a workload judged h, with available
// Pods of which some cannot start (CannotStart), is judged again: warning,
// or failed when none is available (available == 0). raised is false, and
// h is answered unchanged, when h is that already or worse, or when h is
// HealthOK (a Pod that cannot start beside every wanted one available and
// the rollout done is the Pod's own trouble, shown on its row). The
// inventory's workload rows (package kube, RowWorkload) and :apps' services
// (kube/internal/release) both judge by it.
func RaisedHealth(h Health, available int32) (health Health, raised bool) {
	want := HealthWarning
	if available == 0 {
		want = HealthFailed
	}
	if h == HealthOK || h >= want {
		return h, false
	}
	return want, true
}
