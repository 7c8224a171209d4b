package oracle

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// template is a pod template with the containers (names and images) the
// wide columns list, and a node selector.
func (g *gen) template() corev1.PodTemplateSpec {
	t := corev1.PodTemplateSpec{}
	t.Spec.Containers = some(g, 3, func(int) corev1.Container {
		return corev1.Container{Name: pick(g, "app", "sidecar", "", "한글"), Image: pick(g, "nginx:1.27", "", "registry.example.com/a/b@sha256:abc", "😀")}
	})
	t.Spec.NodeSelector = g.labels()
	return t
}

func genDeployment(g *gen) runtime.Object {
	d := &appsv1.Deployment{ObjectMeta: g.meta(true)}
	d.Spec.Replicas = optional(g, g.i32)
	d.Spec.Selector = g.selector()
	d.Spec.Template = g.template()
	d.Status = appsv1.DeploymentStatus{Replicas: g.i32(), UpdatedReplicas: g.i32(), ReadyReplicas: g.i32(), AvailableReplicas: g.i32(), UnavailableReplicas: g.i32()}
	return d
}

func genReplicaSet(g *gen) runtime.Object {
	rs := &appsv1.ReplicaSet{ObjectMeta: g.meta(true)}
	rs.Spec.Replicas = optional(g, g.i32)
	rs.Spec.Selector = g.selector()
	rs.Spec.Template = g.template()
	rs.Status = appsv1.ReplicaSetStatus{Replicas: g.i32(), ReadyReplicas: g.i32(), AvailableReplicas: g.i32()}
	return rs
}

func genStatefulSet(g *gen) runtime.Object {
	s := &appsv1.StatefulSet{ObjectMeta: g.meta(true)}
	s.Spec.Replicas = optional(g, g.i32)
	s.Spec.Selector = g.selector()
	s.Spec.Template = g.template()
	s.Status = appsv1.StatefulSetStatus{Replicas: g.i32(), ReadyReplicas: g.i32(), CurrentReplicas: g.i32(), UpdatedReplicas: g.i32()}
	return s
}

func genDaemonSet(g *gen) runtime.Object {
	d := &appsv1.DaemonSet{ObjectMeta: g.meta(true)}
	d.Spec.Selector = g.selector()
	d.Spec.Template = g.template()
	d.Status = appsv1.DaemonSetStatus{DesiredNumberScheduled: g.i32(), CurrentNumberScheduled: g.i32(), NumberReady: g.i32(),
		UpdatedNumberScheduled: g.i32(), NumberAvailable: g.i32(), NumberUnavailable: g.i32(), NumberMisscheduled: g.i32()}
	return d
}

func jobConditions(g *gen) []batchv1.JobCondition {
	return some(g, 4, func(int) batchv1.JobCondition {
		return batchv1.JobCondition{
			Type:   pick(g, batchv1.JobComplete, batchv1.JobFailed, batchv1.JobSuspended, batchv1.JobFailureTarget, batchv1.JobSuccessCriteriaMet, batchv1.JobConditionType("Other")),
			Status: pick(g, corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown),
		}
	})
}

func genJob(g *gen) runtime.Object {
	j := &batchv1.Job{ObjectMeta: g.meta(true)}
	j.Spec.Completions = optional(g, g.i32)
	j.Spec.Parallelism = optional(g, g.i32)
	j.Spec.Selector = g.selector()
	j.Spec.Template = g.template()
	j.Status.StartTime = g.timePtr()
	j.Status.CompletionTime = g.timePtr()
	j.Status.Succeeded, j.Status.Failed, j.Status.Active = g.i32(), g.i32(), g.i32()
	j.Status.Conditions = jobConditions(g)
	return j
}

func genCronJob(g *gen) runtime.Object {
	cj := &batchv1.CronJob{ObjectMeta: g.meta(true)}
	cj.Spec.Schedule = pick(g, "*/5 * * * *", "@hourly", "", "0 0 * * *")
	if g.chance(0.5) {
		cj.Spec.TimeZone = ptr(pick(g, "Etc/UTC", "Asia/Seoul", ""))
	}
	cj.Spec.Suspend = optional(g, func() bool { return g.chance(0.5) })
	cj.Spec.JobTemplate.Spec.Selector = g.selector()
	cj.Spec.JobTemplate.Spec.Template = g.template()
	cj.Status.Active = some(g, 3, func(int) corev1.ObjectReference { return corev1.ObjectReference{Name: "j"} })
	cj.Status.LastScheduleTime = g.timePtr()
	cj.Status.LastSuccessfulTime = g.timePtr()
	return cj
}

func metricTarget(g *gen) autoscalingv2.MetricTarget {
	t := autoscalingv2.MetricTarget{Type: pick(g, autoscalingv2.UtilizationMetricType, autoscalingv2.ValueMetricType, autoscalingv2.AverageValueMetricType)}
	if g.chance(0.5) {
		t.AverageValue = ptr(g.quantity())
	}
	if g.chance(0.5) {
		t.Value = ptr(g.quantity())
	}
	if g.chance(0.5) {
		t.AverageUtilization = ptr(g.i32())
	}
	return t
}

func metricValue(g *gen) autoscalingv2.MetricValueStatus {
	v := autoscalingv2.MetricValueStatus{}
	if g.chance(0.6) {
		v.AverageValue = ptr(g.quantity())
	}
	if g.chance(0.6) {
		v.Value = ptr(g.quantity())
	}
	if g.chance(0.6) {
		v.AverageUtilization = ptr(g.i32())
	}
	return v
}

func genHPA(g *gen) runtime.Object {
	h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: g.meta(true)}
	h.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{Kind: pick(g, "Deployment", "StatefulSet", ""), Name: g.name(), APIVersion: "apps/v1"}
	h.Spec.MinReplicas = optional(g, g.i32)
	h.Spec.MaxReplicas = g.i32()
	h.Status.CurrentReplicas = g.i32()
	res := pick(g, corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceName("example.com/gpu"))
	h.Spec.Metrics = some(g, 4, func(int) autoscalingv2.MetricSpec {
		m := autoscalingv2.MetricSpec{Type: pick(g, autoscalingv2.ResourceMetricSourceType, autoscalingv2.PodsMetricSourceType, autoscalingv2.ObjectMetricSourceType,
			autoscalingv2.ExternalMetricSourceType, autoscalingv2.ContainerResourceMetricSourceType)}
		id := autoscalingv2.MetricIdentifier{Name: "qps"}
		switch m.Type {
		case autoscalingv2.ResourceMetricSourceType:
			m.Resource = &autoscalingv2.ResourceMetricSource{Name: res, Target: metricTarget(g)}
		case autoscalingv2.PodsMetricSourceType:
			m.Pods = &autoscalingv2.PodsMetricSource{Metric: id, Target: metricTarget(g)}
		case autoscalingv2.ObjectMetricSourceType:
			m.Object = &autoscalingv2.ObjectMetricSource{Metric: id, Target: metricTarget(g)}
		case autoscalingv2.ExternalMetricSourceType:
			m.External = &autoscalingv2.ExternalMetricSource{Metric: id, Target: metricTarget(g)}
		case autoscalingv2.ContainerResourceMetricSourceType:
			m.ContainerResource = &autoscalingv2.ContainerResourceMetricSource{Name: res, Container: "app", Target: metricTarget(g)}
		}
		return m
	})
	h.Status.CurrentMetrics = some(g, 4, func(i int) autoscalingv2.MetricStatus {
		t := pick(g, autoscalingv2.ResourceMetricSourceType, autoscalingv2.PodsMetricSourceType, autoscalingv2.ObjectMetricSourceType,
			autoscalingv2.ExternalMetricSourceType, autoscalingv2.ContainerResourceMetricSourceType)
		if i < len(h.Spec.Metrics) && g.chance(0.8) {
			t = h.Spec.Metrics[i].Type
		}
		s := autoscalingv2.MetricStatus{Type: t}
		if g.chance(0.1) {
			return s // a status whose source is missing
		}
		id := autoscalingv2.MetricIdentifier{Name: "qps"}
		switch t {
		case autoscalingv2.ResourceMetricSourceType:
			s.Resource = &autoscalingv2.ResourceMetricStatus{Name: res, Current: metricValue(g)}
		case autoscalingv2.PodsMetricSourceType:
			s.Pods = &autoscalingv2.PodsMetricStatus{Metric: id, Current: metricValue(g)}
		case autoscalingv2.ObjectMetricSourceType:
			s.Object = &autoscalingv2.ObjectMetricStatus{Metric: id, Current: metricValue(g)}
		case autoscalingv2.ExternalMetricSourceType:
			s.External = &autoscalingv2.ExternalMetricStatus{Metric: id, Current: metricValue(g)}
		case autoscalingv2.ContainerResourceMetricSourceType:
			s.ContainerResource = &autoscalingv2.ContainerResourceMetricStatus{Name: res, Container: "app", Current: metricValue(g)}
		}
		return s
	})
	return h
}

func genPDB(g *gen) runtime.Object {
	p := &policyv1.PodDisruptionBudget{ObjectMeta: g.meta(true)}
	p.Spec.MinAvailable = optional(g, g.intOrString)
	p.Spec.MaxUnavailable = optional(g, g.intOrString)
	p.Spec.Selector = g.selector()
	p.Status.DisruptionsAllowed = g.i32()
	p.Status.CurrentHealthy, p.Status.DesiredHealthy, p.Status.ExpectedPods = g.i32(), g.i32(), g.i32()
	return p
}

// jobCorners: a Job whose status.startTime is set but holds the zero time
// (reachable over protobuf), running and completed.
func jobCorners(g *gen) []runtime.Object {
	running := &batchv1.Job{ObjectMeta: g.metaNamed("zero-start-running")}
	running.Status.StartTime = ptr(g.zeroTime())
	done := &batchv1.Job{ObjectMeta: g.metaNamed("zero-start-done")}
	done.Status.StartTime = ptr(g.zeroTime())
	done.Status.CompletionTime = ptr(g.time())
	return []runtime.Object{running, done}
}
