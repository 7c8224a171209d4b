package kinds

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// HorizontalPodAutoscalers serves horizontalpodautoscalers (autoscaling/v2):
// NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE, as `kubectl get hpa`
// prints them (printHorizontalPodAutoscaler in k8s.io/kubernetes
// pkg/printers/internalversion); kubectl has no wide columns for them.
type HorizontalPodAutoscalers struct{}

// Info describes horizontalpodautoscalers: they are deleted; nothing else.
func (HorizontalPodAutoscalers) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "horizontalpodautoscalers", Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers", Namespaced: true,
		Capabilities: vocab.CanDelete,
		Aliases:      []string{"horizontalpodautoscaler", "hpa"},
		Columns: []vocab.Column{
			{Name: "NAME"}, {Name: "REFERENCE"}, {Name: "TARGETS"}, {Name: "MINPODS"}, {Name: "MAXPODS"},
			{Name: "REPLICAS"}, {Name: "AGE"},
		},
	}
}

// List lists horizontalpodautoscalers in namespace ("" for all) as
// *autoscalingv2.HorizontalPodAutoscaler.
func (HorizontalPodAutoscalers) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.AutoscalingV2().HorizontalPodAutoscalers(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *autoscalingv2.HorizontalPodAutoscaler into its row
// (HorizontalPodAutoscalerRow).
func (HorizontalPodAutoscalers) Row(obj any) (vocab.Row, bool) {
	h, ok := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	if !ok {
		return vocab.Row{}, false
	}
	return HorizontalPodAutoscalerRow(h), true
}

// HorizontalPodAutoscalerRow turns an HPA into its row, as kubectl's
// printHorizontalPodAutoscaler: REFERENCE is <kind>/<name> of
// spec.scaleTargetRef; TARGETS is hpaTargets; MINPODS is spec.minReplicas
// or "<unset>"; MAXPODS spec.maxReplicas; REPLICAS status.currentReplicas.
//
// Status and Health (kyyard's, from the HPA controller's conditions): a
// condition AbleToScale or ScalingActive that is False means the HPA
// cannot do its work (no metrics, no scale subresource, the target scaled
// to zero): a warning named by the condition's reason; no conditions yet
// is Pending (progressing); current replicas not yet the desired count is
// Scaling (progressing); current replicas at spec.maxReplicas is
// AtMaxReplicas (warning: demand may exceed what it may add); else Active
// (ok).
func HorizontalPodAutoscalerRow(h *autoscalingv2.HorizontalPodAutoscaler) vocab.Row {
	ref := h.Spec.ScaleTargetRef
	minPods := "<unset>"
	if h.Spec.MinReplicas != nil {
		minPods = strconv.Itoa(int(*h.Spec.MinReplicas))
	}
	row := identity(&h.ObjectMeta)
	row.Status, row.Health = hpaState(h)
	row.Cells = []vocab.Cell{
		vocab.Text(h.Name), vocab.Text(ref.Kind + "/" + ref.Name),
		vocab.Text(hpaTargets(h.Spec.Metrics, h.Status.CurrentMetrics)),
		vocab.Text(minPods), vocab.Text(strconv.Itoa(int(h.Spec.MaxReplicas))),
		vocab.Text(strconv.Itoa(int(h.Status.CurrentReplicas))),
		vocab.Age(h.CreationTimestamp.Time),
	}
	return row
}

func hpaState(h *autoscalingv2.HorizontalPodAutoscaler) (string, vocab.Health) {
	st := h.Status
	for _, c := range st.Conditions {
		if (c.Type == autoscalingv2.AbleToScale || c.Type == autoscalingv2.ScalingActive) && c.Status == corev1.ConditionFalse {
			return orWord(c.Reason, string(c.Type)+"False"), vocab.HealthWarning
		}
	}
	switch {
	case len(st.Conditions) == 0:
		return "Pending", vocab.HealthProgressing
	case st.CurrentReplicas != st.DesiredReplicas:
		return "Scaling", vocab.HealthProgressing
	case st.CurrentReplicas >= h.Spec.MaxReplicas:
		return "AtMaxReplicas", vocab.HealthWarning
	default:
		return "Active", vocab.HealthOK
	}
}

// hpaTargets renders the TARGETS cell as kubectl's formatHPAMetrics: one
// "current/target" entry per spec metric, current taken from the status
// metric at the same index ("<unknown>" when absent): resource metrics as
// "<resource>: current/target" (utilization in percent, "<auto>" for a
// missing utilization target), averages of object and external metrics
// marked " (avg)". At most two entries are shown, then " + N more...";
// no metrics is "<none>".
func hpaTargets(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	if len(specs) == 0 {
		return "<none>"
	}
	const shown = 2
	status := func(i int) *autoscalingv2.MetricStatus {
		if i < len(statuses) {
			return &statuses[i]
		}
		return nil
	}
	entries := make([]string, 0, len(specs))
	for i, spec := range specs {
		entries = append(entries, hpaTarget(spec, status(i)))
	}
	if len(entries) <= shown {
		return strings.Join(entries, ", ")
	}
	return fmt.Sprintf("%s + %d more...", strings.Join(entries[:shown], ", "), len(entries)-shown)
}

// hpaTarget renders one metric of hpaTargets; st is the status metric at
// the same index, nil when there is none.
func hpaTarget(spec autoscalingv2.MetricSpec, st *autoscalingv2.MetricStatus) string {
	const unknown = "<unknown>"
	switch {
	case spec.Type == autoscalingv2.ExternalMetricSourceType && spec.External != nil:
		t := spec.External.Target
		current := unknown
		if t.AverageValue != nil {
			if st != nil && st.External != nil && st.External.Current.AverageValue != nil {
				current = st.External.Current.AverageValue.String()
			}
			return current + "/" + t.AverageValue.String() + " (avg)"
		}
		if st != nil && st.External != nil {
			current = st.External.Current.Value.String()
		}
		return current + "/" + t.Value.String()
	case spec.Type == autoscalingv2.PodsMetricSourceType && spec.Pods != nil:
		current := unknown
		if st != nil && st.Pods != nil {
			current = st.Pods.Current.AverageValue.String()
		}
		return current + "/" + spec.Pods.Target.AverageValue.String()
	case spec.Type == autoscalingv2.ObjectMetricSourceType && spec.Object != nil:
		t := spec.Object.Target
		current := unknown
		if t.AverageValue != nil {
			if st != nil && st.Object != nil && st.Object.Current.AverageValue != nil {
				current = st.Object.Current.AverageValue.String()
			}
			return current + "/" + t.AverageValue.String() + " (avg)"
		}
		if st != nil && st.Object != nil {
			current = st.Object.Current.Value.String()
		}
		return current + "/" + t.Value.String()
	case spec.Type == autoscalingv2.ResourceMetricSourceType && spec.Resource != nil:
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.Resource != nil {
			cur = &st.Resource.Current
		}
		return resourceTarget(spec.Resource.Name, spec.Resource.Target, cur)
	case spec.Type == autoscalingv2.ContainerResourceMetricSourceType && spec.ContainerResource != nil:
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.ContainerResource != nil {
			cur = &st.ContainerResource.Current
		}
		return resourceTarget(spec.ContainerResource.Name, spec.ContainerResource.Target, cur)
	}
	return "<unknown type>"
}

// resourceTarget renders a resource or container-resource metric:
// "<name>: current/target", the target an average value or a utilization
// percentage ("<auto>" when neither is set); cur is the status's current
// value, nil when the status has no such metric.
func resourceTarget(name corev1.ResourceName, t autoscalingv2.MetricTarget, cur *autoscalingv2.MetricValueStatus) string {
	current := "<unknown>"
	if t.AverageValue != nil {
		if cur != nil {
			current = cur.AverageValue.String()
		}
		return fmt.Sprintf("%s: %s/%s", name, current, t.AverageValue.String())
	}
	if cur != nil && cur.AverageUtilization != nil {
		current = fmt.Sprintf("%d%%", *cur.AverageUtilization)
	}
	target := "<auto>"
	if t.AverageUtilization != nil {
		target = fmt.Sprintf("%d%%", *t.AverageUtilization)
	}
	return fmt.Sprintf("%s: %s/%s", name, current, target)
}
