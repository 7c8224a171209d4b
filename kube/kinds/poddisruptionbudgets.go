package kinds

import (
	"context"
	"strconv"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// PodDisruptionBudgets serves poddisruptionbudgets (policy/v1): NAME MIN
// AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE, as `kubectl get pdb`
// prints them (printPodDisruptionBudget in k8s.io/kubernetes
// pkg/printers/internalversion).
type PodDisruptionBudgets struct{}

// Info describes poddisruptionbudgets: they are deleted, and opening one
// shows the pods its selector matches.
func (PodDisruptionBudgets) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "poddisruptionbudgets", Group: "policy", Version: "v1", Resource: "poddisruptionbudgets", Namespaced: true,
		Capabilities: vocab.CanDelete,
		Aliases:      []string{"poddisruptionbudget", "pdb"},
		Columns: []vocab.Column{
			{Name: "NAME"}, {Name: "MIN AVAILABLE"}, {Name: "MAX UNAVAILABLE"}, {Name: "ALLOWED DISRUPTIONS"}, {Name: "AGE"},
		},
		DrillDown: "pods",
	}
}

// List lists poddisruptionbudgets in namespace ("" for all) as
// *policyv1.PodDisruptionBudget.
func (PodDisruptionBudgets) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.PolicyV1().PodDisruptionBudgets(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *policyv1.PodDisruptionBudget into its row (PodDisruptionBudgetRow).
func (PodDisruptionBudgets) Row(obj any) (vocab.Row, bool) {
	p, ok := obj.(*policyv1.PodDisruptionBudget)
	if !ok {
		return vocab.Row{}, false
	}
	return PodDisruptionBudgetRow(p), true
}

// DrillSelector selects the pods the budget's spec.selector matches. An
// empty selector (policy/v1: every pod of the namespace) opens nothing, as
// for workloads (labelSelector).
func (PodDisruptionBudgets) DrillSelector(obj any) (vocab.Selector, bool) {
	p, ok := obj.(*policyv1.PodDisruptionBudget)
	if !ok {
		return vocab.Selector{}, false
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
func PodDisruptionBudgetRow(p *policyv1.PodDisruptionBudget) vocab.Row {
	minAvailable, maxUnavailable := "N/A", "N/A"
	if p.Spec.MinAvailable != nil {
		minAvailable = p.Spec.MinAvailable.String()
	}
	if p.Spec.MaxUnavailable != nil {
		maxUnavailable = p.Spec.MaxUnavailable.String()
	}
	row := identity(&p.ObjectMeta)
	row.Status, row.Health = pdbState(p)
	row.Cells = []vocab.Cell{
		vocab.Text(p.Name), vocab.Text(minAvailable), vocab.Text(maxUnavailable),
		vocab.Text(strconv.Itoa(int(p.Status.DisruptionsAllowed))), vocab.Age(p.CreationTimestamp.Time),
	}
	return row
}

func pdbState(p *policyv1.PodDisruptionBudget) (string, vocab.Health) {
	st := p.Status
	if st.ObservedGeneration < p.Generation {
		return "Pending", vocab.HealthProgressing
	}
	if c := findCondition(st.Conditions, policyv1.DisruptionAllowedCondition); c != nil &&
		c.Status == metav1.ConditionFalse && c.Reason == policyv1.SyncFailedReason {
		return policyv1.SyncFailedReason, vocab.HealthFailed
	}
	switch {
	case st.ExpectedPods == 0:
		return "NoPods", vocab.HealthWarning
	case st.CurrentHealthy < st.DesiredHealthy:
		return policyv1.InsufficientPodsReason, vocab.HealthFailed
	case st.DisruptionsAllowed == 0:
		return policyv1.InsufficientPodsReason, vocab.HealthWarning
	default:
		return policyv1.SufficientPodsReason, vocab.HealthOK
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
