package kinds

import (
	"context"
	"strconv"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube"
)

// PodDisruptionBudgets serves poddisruptionbudgets (policy/v1): NAME MIN
// AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE, as `kubectl get pdb`
// prints them (printPodDisruptionBudget in k8s.io/kubernetes
// pkg/printers/internalversion).
type PodDisruptionBudgets struct{}

// Info describes poddisruptionbudgets: they are deleted, and opening one
// shows the pods its selector matches.
func (PodDisruptionBudgets) Info() kube.KindInfo {
	return kube.KindInfo{
		ID: "poddisruptionbudgets", Group: "policy", Version: "v1", Resource: "poddisruptionbudgets", Namespaced: true,
		Aliases: []string{"poddisruptionbudget", "pdb"},
		Columns: []kube.Column{
			{Name: "NAME"}, {Name: "MIN AVAILABLE"}, {Name: "MAX UNAVAILABLE"}, {Name: "ALLOWED DISRUPTIONS"}, {Name: "AGE"},
		},
		DrillDown: "pods",
	}
}

// List lists poddisruptionbudgets in namespace ("" for all) as
// *policyv1.PodDisruptionBudget.
func (PodDisruptionBudgets) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel kube.Selector) ([]any, error) {
	list, err := cs.PolicyV1().PodDisruptionBudgets(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *policyv1.PodDisruptionBudget into its row (PodDisruptionBudgetRow).
func (PodDisruptionBudgets) Row(obj any) (kube.Row, bool) {
	p, ok := obj.(*policyv1.PodDisruptionBudget)
	if !ok {
		return kube.Row{}, false
	}
	return PodDisruptionBudgetRow(p), true
}

// DrillSelector selects the pods the budget's spec.selector matches. An
// empty selector (policy/v1: every pod of the namespace) opens nothing, as
// for workloads (labelSelector).
func (PodDisruptionBudgets) DrillSelector(obj any) (kube.Selector, bool) {
	p, ok := obj.(*policyv1.PodDisruptionBudget)
	if !ok {
		return kube.Selector{}, false
	}
	return labelSelector(p.Spec.Selector)
}

// PodDisruptionBudgetRow turns a PodDisruptionBudget into its row, as
// kubectl's printPodDisruptionBudget: MIN AVAILABLE and MAX UNAVAILABLE are
// the spec's number or percentage, "N/A" when unset; ALLOWED DISRUPTIONS is
// status.disruptionsAllowed.
//
// Status and Health (kyyard's, from the disruption controller's status): a
// spec not yet observed is Pending (progressing); the DisruptionAllowed
// condition with reason SyncFailed is failed; a budget that matches no pod
// (status.expectedPods 0) is NoPods (warning: it protects nothing); zero
// disruptions allowed is InsufficientPods (the condition's reason: evictions
// and node drains are blocked), a warning, or failed when fewer pods are
// healthy than the budget requires (currentHealthy < desiredHealthy); else
// SufficientPods (ok).
func PodDisruptionBudgetRow(p *policyv1.PodDisruptionBudget) kube.Row {
	minAvailable, maxUnavailable := "N/A", "N/A"
	if p.Spec.MinAvailable != nil {
		minAvailable = p.Spec.MinAvailable.String()
	}
	if p.Spec.MaxUnavailable != nil {
		maxUnavailable = p.Spec.MaxUnavailable.String()
	}
	row := identity(&p.ObjectMeta)
	row.Status, row.Health = pdbState(p)
	row.Cells = []kube.Cell{
		kube.Text(p.Name), kube.Text(minAvailable), kube.Text(maxUnavailable),
		kube.Text(strconv.Itoa(int(p.Status.DisruptionsAllowed))), kube.Age(p.CreationTimestamp.Time),
	}
	return row
}

func pdbState(p *policyv1.PodDisruptionBudget) (string, kube.Health) {
	st := p.Status
	if st.ObservedGeneration < p.Generation {
		return "Pending", kube.HealthProgressing
	}
	if c := findCondition(st.Conditions, policyv1.DisruptionAllowedCondition); c != nil &&
		c.Status == metav1.ConditionFalse && c.Reason == policyv1.SyncFailedReason {
		return policyv1.SyncFailedReason, kube.HealthFailed
	}
	switch {
	case st.ExpectedPods == 0:
		return "NoPods", kube.HealthWarning
	case st.CurrentHealthy < st.DesiredHealthy:
		return policyv1.InsufficientPodsReason, kube.HealthFailed
	case st.DisruptionsAllowed == 0:
		return policyv1.InsufficientPodsReason, kube.HealthWarning
	default:
		return policyv1.SufficientPodsReason, kube.HealthOK
	}
}

// findCondition returns the first condition of type t, or nil.
func findCondition(conds []metav1.Condition, t string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}
