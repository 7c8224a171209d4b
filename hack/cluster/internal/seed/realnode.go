package seed

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/kyyard/kyyard/hack/cluster/internal/cluster"
	"github.com/kyyard/kyyard/hack/cluster/internal/images"
	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
	"github.com/kyyard/kyyard/hack/cluster/internal/node"
)

// The real node's demo objects, by name. Each pod runs real containers on
// node.Name (images without a registry, imagePullPolicy Never).
const (
	// RealShell is a busybox pod: sh, no bash.
	RealShell = "real-shell"
	// RealWeb is a Deployment (one replica) and Service of demoapp's HTTP
	// server (port 8080, Service port 80) and TCP echo (port 9000).
	RealWeb = "real-web"
	// RealCrash is a pod whose container exits 1 every RealCrashAfter;
	// the kubelet restarts it (back-off capped at node.MaxContainerRestartPeriod).
	RealCrash = "real-crash"
	// RealTwo is a pod of two containers: busybox "main" and demoapp "sidecar".
	RealTwo = "real-two"
	// RealLogs is a pod that writes RealLogsRate numbered lines a second.
	RealLogs = "real-logs"
	// RealNoShell is a pod whose image has no shell (the debug-container path).
	RealNoShell = "real-noshell"
	// RealHostile is a pod whose log holds terminal escape sequences,
	// invalid UTF-8 and a 200,000-byte line.
	RealHostile = "real-hostile"
)

// RealCrashAfter is how long real-crash's container runs before it exits 1.
const RealCrashAfter = 5 * time.Second

// RealLogsRate is real-logs' lines per second (80 bytes each): the kubelet
// rotates its log (node.ContainerLogMaxSize) about once a minute.
const RealLogsRate = 200

// realPodSpec places pods on the real node: its label selected, its taint
// tolerated; a short grace period (the demo programs exit at once on SIGTERM).
func realPodSpec(containers ...corev1.Container) corev1.PodSpec {
	return corev1.PodSpec{
		Containers:   containers,
		NodeSelector: map[string]string{node.TaintKey: node.TaintValue},
		Tolerations: []corev1.Toleration{{
			Key: node.TaintKey, Operator: corev1.TolerationOpEqual, Value: node.TaintValue, Effect: corev1.TaintEffectNoSchedule,
		}},
		TerminationGracePeriodSeconds: ptr.To[int64](5),
		EnableServiceLinks:            ptr.To(false),
	}
}

// realContainer runs image (one of the node's, never pulled) with command.
func realContainer(name, image string, command ...string) corev1.Container {
	return corev1.Container{
		Name:            name,
		Image:           image,
		Command:         command,
		ImagePullPolicy: corev1.PullNever,
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("5m"), corev1.ResourceMemory: resource.MustParse("16Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")},
		},
	}
}

// shellLoop is a busybox sh script that prints start, then runs body every
// second until SIGTERM.
func shellLoop(start, body string) []string {
	return []string{"sh", "-c", "trap 'exit 0' TERM; echo " + start + "; n=0; while true; do n=$((n+1)); " + body + "; sleep 1; done"}
}

func realPod(ns, name string, containers ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: appLabels(name)},
		Spec:       realPodSpec(containers...),
	}
}

// RealNodeObjects returns the real node's demo objects in namespace ns, in
// apply order.
func RealNodeObjects(ns string) []runtime.Object {
	web := realContainer("web", images.DemoAppRef, "/demoapp", "web", "-addr=:8080", "-echo-addr=:9000")
	web.Ports = []corev1.ContainerPort{
		{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
		{Name: "echo", ContainerPort: 9000, Protocol: corev1.ProtocolTCP},
	}
	web.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromString("http")}}, PeriodSeconds: 5}
	webDeploy := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: RealWeb, Namespace: ns, Labels: appLabels(RealWeb)},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: appLabels(RealWeb)},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: appLabels(RealWeb)}, Spec: realPodSpec(web)},
		},
	}
	webSvc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: RealWeb, Namespace: ns, Labels: appLabels(RealWeb)},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: appLabels(RealWeb),
			Ports: []corev1.ServicePort{
				{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP},
				{Name: "echo", Port: 9000, TargetPort: intstr.FromString("echo"), Protocol: corev1.ProtocolTCP},
			},
		},
	}
	return []runtime.Object{
		webSvc,
		webDeploy,
		realPod(ns, RealShell, realContainer("shell", images.BusyboxRef, shellLoop("real-shell: ready", ":")...)),
		realPod(ns, RealCrash, realContainer("crash", images.DemoAppRef, "/demoapp", "crash", "-after="+RealCrashAfter.String(), "-code=1")),
		realPod(ns, RealTwo,
			realContainer("main", images.BusyboxRef, shellLoop("main: started", `[ $((n % 2)) -eq 0 ] && echo "main: tick $n"`)...),
			realContainer("sidecar", images.DemoAppRef, "/demoapp", "logs", "-rate=1")),
		realPod(ns, RealLogs, realContainer("logs", images.DemoAppRef, "/demoapp", "logs", fmt.Sprintf("-rate=%d", RealLogsRate))),
		realPod(ns, RealNoShell, realContainer("app", images.DemoAppRef, "/demoapp", "idle")),
		realPod(ns, RealHostile, realContainer("hostile", images.DemoAppRef, "/demoapp", "hostile", "-every=10s")),
	}
}

// realNodeChecks are the expected states of RealNodeObjects(ns): every pod
// on node.Name, Running; all but real-crash ready; real-web available.
func realNodeChecks(ns string) []check {
	var cs []check
	for _, name := range []string{RealWeb, RealShell, RealCrash, RealTwo, RealLogs, RealNoShell, RealHostile} {
		name := name
		cs = append(cs, check{"real-node pod " + name + " Running on " + node.Name, func(ctx context.Context, c kubernetes.Interface) string {
			return realPodState(ctx, c, ns, name, name != RealCrash)
		}})
	}
	return cs
}

// realPodState is "" when the pods labelled app name in ns are one live
// pod, on the real node, Running (and ready when ready is set).
func realPodState(ctx context.Context, cs kubernetes.Interface, ns, app string, ready bool) string {
	list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=" + app})
	if err != nil {
		return err.Error()
	}
	var live []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			live = append(live, p)
		}
	}
	if len(live) != 1 {
		return fmt.Sprintf("%d live pods", len(live))
	}
	p := live[0]
	switch {
	case p.Spec.NodeName != node.Name:
		return fmt.Sprintf("on node %q", p.Spec.NodeName)
	case p.Status.Phase != corev1.PodRunning:
		return fmt.Sprintf("%s (%s)", containerState(p), p.Status.Message)
	case ready && !podIsReady(p):
		return "Running, not ready: " + containerState(p)
	}
	return ""
}

// RunRealNode seeds only the real node's demo objects, into namespace ns
// (created when missing), and waits for them: the node tried without
// touching demo. Run seeds the same objects into demo.
func RunRealNode(ctx context.Context, l layout.Layout, ns string, opt Options) error {
	out := opt.Out
	if out == nil {
		out = io.Discard
	}
	start := time.Now()
	cs, cfg, err := cluster.AdminClient(l)
	if err != nil {
		return err
	}
	ap, err := newApplier(cfg)
	if err != nil {
		return err
	}
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	if err := waitNamespaceServiceAccount(ctx, cs, ns, 30*time.Second); err != nil {
		return err
	}
	for _, o := range RealNodeObjects(ns) {
		if err := ap.apply(ctx, o); err != nil {
			return err
		}
	}
	if err := waitChecks(ctx, cs, realNodeChecks(ns), opt.Timeout); err != nil {
		return err
	}
	fmt.Fprintf(out, "seed: the real node's demo pods run in namespace %s (%s)\n", ns, time.Since(start).Round(10*time.Millisecond))
	return nil
}

// waitChecks polls every check until all pass or timeout; the error names
// every check that did not converge and what it saw last.
func waitChecks(ctx context.Context, cs kubernetes.Interface, checks []check, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var failing []string
		for _, c := range checks {
			if msg := c.fn(ctx, cs); msg != "" {
				failing = append(failing, fmt.Sprintf("%s: %s", c.name, msg))
			}
		}
		if len(failing) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not converged after %s:\n  %s", timeout, strings.Join(failing, "\n  "))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
