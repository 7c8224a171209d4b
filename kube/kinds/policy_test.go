package kinds_test

import (
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

func pdbWithSelector(s *metav1.LabelSelector) any {
	return &policyv1.PodDisruptionBudget{Spec: policyv1.PodDisruptionBudgetSpec{Selector: s}}
}

func pdb(minAvailable, maxUnavailable *intstr.IntOrString, st policyv1.PodDisruptionBudgetStatus) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{ObjectMeta: meta,
		Spec:   policyv1.PodDisruptionBudgetSpec{MinAvailable: minAvailable, MaxUnavailable: maxUnavailable, Selector: webSelector},
		Status: st}
}

func TestPodDisruptionBudgetRow(t *testing.T) {
	two, half := intstr.FromInt32(2), intstr.FromString("50%")
	healthy := policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 2, ExpectedPods: 3, CurrentHealthy: 3, DesiredHealthy: 2, DisruptionsAllowed: 1}
	with := func(f func(*policyv1.PodDisruptionBudgetStatus)) policyv1.PodDisruptionBudgetStatus {
		s := healthy
		f(&s)
		return s
	}
	tests := []struct {
		name   string
		p      *policyv1.PodDisruptionBudget
		status string
		health kube.Health
		cells  []string
	}{
		{"min available", pdb(&two, nil, healthy), "SufficientPods", kube.HealthOK, []string{"web", "2", "N/A", "1", "90m"}},
		{"max unavailable percent", pdb(nil, &half, healthy), "SufficientPods", kube.HealthOK, []string{"web", "N/A", "50%", "1", "90m"}},
		{"no disruption allowed", pdb(&two, nil, with(func(s *policyv1.PodDisruptionBudgetStatus) { s.CurrentHealthy, s.DisruptionsAllowed = 2, 0 })),
			"InsufficientPods", kube.HealthWarning, []string{"web", "2", "N/A", "0", "90m"}},
		{"below the budget", pdb(&two, nil, with(func(s *policyv1.PodDisruptionBudgetStatus) { s.CurrentHealthy, s.DisruptionsAllowed = 1, 0 })),
			"InsufficientPods", kube.HealthFailed, nil},
		{"no pods", pdb(&two, nil, policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 2}), "NoPods", kube.HealthWarning, nil},
		{"not observed", pdb(&two, nil, with(func(s *policyv1.PodDisruptionBudgetStatus) { s.ObservedGeneration = 1 })), "Pending", kube.HealthProgressing, nil},
		{"sync failed", pdb(&two, nil, with(func(s *policyv1.PodDisruptionBudgetStatus) {
			s.Conditions = []metav1.Condition{{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse, Reason: policyv1.SyncFailedReason}}
		})), "SyncFailed", kube.HealthFailed, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row, ok := kinds.PodDisruptionBudgets{}.Row(tt.p)
			if !ok {
				t.Fatal("Row refused a PodDisruptionBudget")
			}
			check(t, row, tt.status, tt.health, tt.cells)
		})
	}
}

func hpa(st autoscalingv2.HorizontalPodAutoscalerStatus, metrics ...autoscalingv2.MetricSpec) *autoscalingv2.HorizontalPodAutoscaler {
	return &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: meta,
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
			MinReplicas:    int32p(2), MaxReplicas: 5, Metrics: metrics,
		},
		Status: st}
}

func hpaCondition(t autoscalingv2.HorizontalPodAutoscalerConditionType, s corev1.ConditionStatus, reason string) autoscalingv2.HorizontalPodAutoscalerCondition {
	return autoscalingv2.HorizontalPodAutoscalerCondition{Type: t, Status: s, Reason: reason}
}

func TestHorizontalPodAutoscalerRow(t *testing.T) {
	cpu := autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: int32p(50)}}}
	active := []autoscalingv2.HorizontalPodAutoscalerCondition{
		hpaCondition(autoscalingv2.AbleToScale, corev1.ConditionTrue, "ReadyForNewScale"),
		hpaCondition(autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound"),
	}
	st := func(current, desired int32, conds ...autoscalingv2.HorizontalPodAutoscalerCondition) autoscalingv2.HorizontalPodAutoscalerStatus {
		return autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: current, DesiredReplicas: desired, Conditions: conds,
			CurrentMetrics: []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{
				Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: int32p(37)}}}}}
	}
	tests := []struct {
		name   string
		h      *autoscalingv2.HorizontalPodAutoscaler
		status string
		health kube.Health
		cells  []string
	}{
		{"active", hpa(st(2, 2, active...), cpu), "Active", kube.HealthOK, []string{"web", "Deployment/web", "cpu: 37%/50%", "2", "5", "2", "90m"}},
		{"scaling", hpa(st(2, 4, active...), cpu), "Scaling", kube.HealthProgressing, nil},
		{"at max", hpa(st(5, 5, active...), cpu), "AtMaxReplicas", kube.HealthWarning, nil},
		{"no metrics", hpa(st(2, 2, active[0], hpaCondition(autoscalingv2.ScalingActive, corev1.ConditionFalse, "FailedGetResourceMetric")), cpu),
			"FailedGetResourceMetric", kube.HealthWarning, nil},
		{"cannot scale", hpa(st(2, 2, hpaCondition(autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale")), cpu),
			"FailedGetScale", kube.HealthWarning, nil},
		{"not yet observed", hpa(autoscalingv2.HorizontalPodAutoscalerStatus{}, cpu), "Pending", kube.HealthProgressing,
			[]string{"web", "Deployment/web", "cpu: <unknown>/50%", "2", "5", "0", "90m"}},
		{"no metrics at all", hpa(st(2, 2, active...)), "Active", kube.HealthOK, []string{"web", "Deployment/web", "<none>", "2", "5", "2", "90m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row, ok := kinds.HorizontalPodAutoscalers{}.Row(tt.h)
			if !ok {
				t.Fatal("Row refused an HPA")
			}
			check(t, row, tt.status, tt.health, tt.cells)
		})
	}
	unset := hpa(st(2, 2, active...), cpu)
	unset.Spec.MinReplicas = nil
	if got := texts(kinds.HorizontalPodAutoscalerRow(unset))[3]; got != "<unset>" {
		t.Errorf("MINPODS without minReplicas: %q, want <unset>", got)
	}
}

// TestHPATargets: the TARGETS cell for every metric source, as kubectl's
// formatHPAMetrics renders it.
func TestHPATargets(t *testing.T) {
	q := resource.MustParse
	qp := func(s string) *resource.Quantity { v := q(s); return &v }
	metric := autoscalingv2.MetricIdentifier{Name: "queue"}
	tests := []struct {
		name   string
		spec   autoscalingv2.MetricSpec
		status *autoscalingv2.MetricStatus
		want   string
	}{
		{"resource average value", autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
			Name: corev1.ResourceMemory, Target: autoscalingv2.MetricTarget{AverageValue: qp("100Mi")}}},
			&autoscalingv2.MetricStatus{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{
				Name: corev1.ResourceMemory, Current: autoscalingv2.MetricValueStatus{AverageValue: qp("60Mi")}}},
			"memory: 60Mi/100Mi"},
		{"resource without target", autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
			Name: corev1.ResourceCPU}}, nil, "cpu: <unknown>/<auto>"},
		{"container resource", autoscalingv2.MetricSpec{Type: autoscalingv2.ContainerResourceMetricSourceType, ContainerResource: &autoscalingv2.ContainerResourceMetricSource{
			Name: corev1.ResourceCPU, Container: "app", Target: autoscalingv2.MetricTarget{AverageUtilization: int32p(80)}}},
			&autoscalingv2.MetricStatus{Type: autoscalingv2.ContainerResourceMetricSourceType, ContainerResource: &autoscalingv2.ContainerResourceMetricStatus{
				Name: corev1.ResourceCPU, Container: "app", Current: autoscalingv2.MetricValueStatus{AverageUtilization: int32p(95)}}},
			"cpu: 95%/80%"},
		{"pods", autoscalingv2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
			Metric: metric, Target: autoscalingv2.MetricTarget{AverageValue: qp("1k")}}},
			&autoscalingv2.MetricStatus{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricStatus{
				Metric: metric, Current: autoscalingv2.MetricValueStatus{AverageValue: qp("250")}}},
			"250/1k"},
		{"pods unknown", autoscalingv2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
			Metric: metric, Target: autoscalingv2.MetricTarget{AverageValue: qp("1k")}}}, nil, "<unknown>/1k"},
		{"object value", autoscalingv2.MetricSpec{Type: autoscalingv2.ObjectMetricSourceType, Object: &autoscalingv2.ObjectMetricSource{
			Metric: metric, Target: autoscalingv2.MetricTarget{Value: qp("10")}}},
			&autoscalingv2.MetricStatus{Type: autoscalingv2.ObjectMetricSourceType, Object: &autoscalingv2.ObjectMetricStatus{
				Metric: metric, Current: autoscalingv2.MetricValueStatus{Value: qp("7")}}},
			"7/10"},
		{"object average", autoscalingv2.MetricSpec{Type: autoscalingv2.ObjectMetricSourceType, Object: &autoscalingv2.ObjectMetricSource{
			Metric: metric, Target: autoscalingv2.MetricTarget{AverageValue: qp("10")}}}, nil, "<unknown>/10 (avg)"},
		{"external value", autoscalingv2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{
			Metric: metric, Target: autoscalingv2.MetricTarget{Value: qp("30")}}},
			&autoscalingv2.MetricStatus{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricStatus{
				Metric: metric, Current: autoscalingv2.MetricValueStatus{Value: qp("42")}}},
			"42/30"},
		{"external average", autoscalingv2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{
			Metric: metric, Target: autoscalingv2.MetricTarget{AverageValue: qp("30")}}},
			&autoscalingv2.MetricStatus{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricStatus{
				Metric: metric, Current: autoscalingv2.MetricValueStatus{AverageValue: qp("12")}}},
			"12/30 (avg)"},
		{"unknown type", autoscalingv2.MetricSpec{Type: "Bogus"}, nil, "<unknown type>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := autoscalingv2.HorizontalPodAutoscalerStatus{}
			if tt.status != nil {
				st.CurrentMetrics = []autoscalingv2.MetricStatus{*tt.status}
			}
			if got := texts(kinds.HorizontalPodAutoscalerRow(hpa(st, tt.spec)))[2]; got != tt.want {
				t.Fatalf("TARGETS %q, want %q", got, tt.want)
			}
		})
	}

	cpu := tests[1].spec
	three := hpa(autoscalingv2.HorizontalPodAutoscalerStatus{}, cpu, cpu, cpu, cpu)
	if got, want := texts(kinds.HorizontalPodAutoscalerRow(three))[2], "cpu: <unknown>/<auto>, cpu: <unknown>/<auto> + 2 more..."; got != want {
		t.Errorf("four metrics: %q, want %q", got, want)
	}
}
