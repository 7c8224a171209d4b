package seed

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
)

// check is one expected state; it returns "" when reached, else what it sees.
type check struct {
	name string
	fn   func(ctx context.Context, cs kubernetes.Interface) string
}

var checks = []check{
	{"Deployment web available", deploymentAvailable("web", webReplicas)},
	{"Deployment helm-chart available", deploymentAvailable("helm-chart", helmReplicas)},
	{"Deployment crashy pods in CrashLoopBackOff", podsWaiting("crashy", "CrashLoopBackOff", crashyReplicas)},
	{"Deployment badimage pods in ImagePullBackOff", podsWaiting("badimage", "ImagePullBackOff", badimageReplicas)},
	{"StatefulSet db ready with Bound claims", statefulSetReady},
	{"DaemonSet node-agent ready on every node", daemonSetReady},
	{"Job migrate Complete", jobComplete},
	{"CronJob nightly-report exists", cronJobExists},
	{"Pod sidecar-demo Running with its sidecar started and ready", podReady("sidecar-demo", 1)},
	{"Pod multi Running and ready", podReady("multi", 0)},
}

// waitConverged polls every check of the demo, the real node's included,
// until all pass or timeout; the error names every check that did not
// converge and what it saw last.
func waitConverged(ctx context.Context, cs kubernetes.Interface, timeout time.Duration) error {
	return waitChecks(ctx, cs, append(append([]check{}, checks...), realNodeChecks(Namespace)...), timeout)
}

func deploymentAvailable(name string, replicas int32) func(context.Context, kubernetes.Interface) string {
	return func(ctx context.Context, cs kubernetes.Interface) string {
		d, err := cs.AppsV1().Deployments(Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err.Error()
		}
		s := d.Status
		if s.ObservedGeneration < d.Generation || s.UpdatedReplicas != replicas || s.AvailableReplicas != replicas || s.Replicas != replicas {
			return fmt.Sprintf("replicas %d updated %d available %d of %d", s.Replicas, s.UpdatedReplicas, s.AvailableReplicas, replicas)
		}
		return ""
	}
}

func appPods(ctx context.Context, cs kubernetes.Interface, app string) ([]corev1.Pod, error) {
	list, err := cs.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=" + app})
	if err != nil {
		return nil, err
	}
	var live []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			live = append(live, p)
		}
	}
	return live, nil
}

// podsWaiting expects want live pods of app, each with every container waiting
// for reason.
func podsWaiting(app, reason string, want int) func(context.Context, kubernetes.Interface) string {
	return func(ctx context.Context, cs kubernetes.Interface) string {
		pods, err := appPods(ctx, cs, app)
		if err != nil {
			return err.Error()
		}
		var states []string
		ok := 0
		for _, p := range pods {
			st := containerState(p)
			states = append(states, p.Name+"="+st)
			if st == reason {
				ok++
			}
		}
		if ok != want || len(pods) != want {
			sort.Strings(states)
			return fmt.Sprintf("%d of %d pods %s (%s)", ok, want, reason, strings.Join(states, ", "))
		}
		return ""
	}
}

// containerState summarises a pod like kubectl's STATUS column does for the
// cases the demo needs: a waiting reason, else the phase.
func containerState(p corev1.Pod) string {
	for _, c := range p.Status.ContainerStatuses {
		if c.State.Waiting != nil && c.State.Waiting.Reason != "" {
			return c.State.Waiting.Reason
		}
	}
	return string(p.Status.Phase)
}

func statefulSetReady(ctx context.Context, cs kubernetes.Interface) string {
	s, err := cs.AppsV1().StatefulSets(Namespace).Get(ctx, "db", metav1.GetOptions{})
	if err != nil {
		return err.Error()
	}
	var pvcs []string
	for i := 0; i < dbReplicas; i++ {
		name := fmt.Sprintf("data-db-%d", i)
		pvc, err := cs.CoreV1().PersistentVolumeClaims(Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			pvcs = append(pvcs, name+" missing")
			continue
		}
		if pvc.Status.Phase != corev1.ClaimBound {
			pvcs = append(pvcs, fmt.Sprintf("%s %s", name, pvc.Status.Phase))
		}
	}
	if !statefulSetDone(s) || len(pvcs) > 0 {
		return fmt.Sprintf("ready %d of %d; claims not bound: %v", s.Status.ReadyReplicas, dbReplicas, pvcs)
	}
	return ""
}

func statefulSetDone(s *appsv1.StatefulSet) bool {
	return s.Status.ObservedGeneration >= s.Generation && s.Status.ReadyReplicas == dbReplicas && s.Status.AvailableReplicas == dbReplicas
}

func daemonSetReady(ctx context.Context, cs kubernetes.Interface) string {
	d, err := cs.AppsV1().DaemonSets(Namespace).Get(ctx, "node-agent", metav1.GetOptions{})
	if err != nil {
		return err.Error()
	}
	s := d.Status
	if s.ObservedGeneration < d.Generation || s.DesiredNumberScheduled == 0 || s.NumberReady != s.DesiredNumberScheduled {
		return fmt.Sprintf("ready %d of %d desired", s.NumberReady, s.DesiredNumberScheduled)
	}
	return ""
}

func jobComplete(ctx context.Context, cs kubernetes.Interface) string {
	j, err := cs.BatchV1().Jobs(Namespace).Get(ctx, "migrate", metav1.GetOptions{})
	if err != nil {
		return err.Error()
	}
	for _, c := range j.Status.Conditions {
		if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
			return ""
		}
	}
	return fmt.Sprintf("active %d succeeded %d failed %d", j.Status.Active, j.Status.Succeeded, j.Status.Failed)
}

func cronJobExists(ctx context.Context, cs kubernetes.Interface) string {
	if _, err := cs.BatchV1().CronJobs(Namespace).Get(ctx, "nightly-report", metav1.GetOptions{}); err != nil {
		return err.Error()
	}
	return ""
}

// podReady expects the pod Running and Ready with sidecars native sidecars
// started and ready.
func podReady(name string, sidecars int) func(context.Context, kubernetes.Interface) string {
	return func(ctx context.Context, cs kubernetes.Interface) string {
		p, err := cs.CoreV1().Pods(Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err.Error()
		}
		ready := false
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady {
				ready = c.Status == corev1.ConditionTrue
			}
		}
		started := 0
		for _, c := range p.Status.InitContainerStatuses {
			if c.Started != nil && *c.Started && c.Ready && c.State.Running != nil {
				started++
			}
		}
		if p.Status.Phase != corev1.PodRunning || !ready || started != sidecars {
			return fmt.Sprintf("phase %s ready %t sidecars started %d of %d", p.Status.Phase, ready, started, sidecars)
		}
		return ""
	}
}

// waitMetrics waits until the metrics API reports every node and every
// Running, ready demo pod (metrics-server needs two scrapes of a container
// before it reports it, so the first samples come one to two metric
// resolutions after the pods start), so that `kubectl top` and kyyard's
// metrics columns have something to show from the first moment.
func waitMetrics(ctx context.Context, cs kubernetes.Interface, mc metricsclient.Interface, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		missing, err := metricsMissing(ctx, cs, mc)
		if err == nil && len(missing) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("metrics API not answering after %s: %w", timeout, err)
			}
			return fmt.Errorf("metrics API has no samples after %s for: %s", timeout, strings.Join(missing, ", "))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// metricsMissing names the nodes and Running, ready demo pods the metrics
// API has no sample for.
func metricsMissing(ctx context.Context, cs kubernetes.Interface, mc metricsclient.Interface) ([]string, error) {
	have := map[string]bool{}
	pm, err := mc.MetricsV1beta1().PodMetricses(Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, m := range pm.Items {
		have["pod/"+m.Name] = true
	}
	nm, err := mc.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, m := range nm.Items {
		have["node/"+m.Name] = true
	}
	var missing []string
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, n := range nodes.Items {
		if !have["node/"+n.Name] {
			missing = append(missing, "node/"+n.Name)
		}
	}
	pods, err := cs.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && podIsReady(p) && !have["pod/"+p.Name] {
			missing = append(missing, "pod/"+p.Name)
		}
	}
	return missing, nil
}

func podIsReady(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
