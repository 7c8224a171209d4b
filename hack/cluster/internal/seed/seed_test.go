package seed_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kyyard/kyyard/hack/cluster/internal/images"
	"github.com/kyyard/kyyard/hack/cluster/internal/node"
	"github.com/kyyard/kyyard/hack/cluster/internal/seed"
)

// TestWorkloadsRunOnTheirNodes: the fake nodes' workloads select and
// tolerate kwok's nodes; the real node's (named real-*) select and tolerate
// the real node and use its local images, never pulled.
func TestWorkloadsRunOnTheirNodes(t *testing.T) {
	specs, real := 0, 0
	for _, o := range seed.Objects(t.TempDir()) {
		var spec *corev1.PodSpec
		var name string
		switch w := o.(type) {
		case *appsv1.Deployment:
			spec, name = &w.Spec.Template.Spec, w.Name
		case *appsv1.StatefulSet:
			spec, name = &w.Spec.Template.Spec, w.Name
		case *appsv1.DaemonSet:
			spec, name = &w.Spec.Template.Spec, w.Name
		case *batchv1.Job:
			spec, name = &w.Spec.Template.Spec, w.Name
		case *batchv1.CronJob:
			spec, name = &w.Spec.JobTemplate.Spec.Template.Spec, w.Name
		case *corev1.Pod:
			spec, name = &w.Spec, w.Name
		default:
			continue
		}
		specs++
		if strings.HasPrefix(name, "real-") {
			real++
			checkRealNodeSpec(t, name, spec)
			continue
		}
		if spec.NodeSelector["type"] != "kwok" {
			t.Errorf("%s: nodeSelector %v", name, spec.NodeSelector)
		}
		tolerates := false
		for _, tol := range spec.Tolerations {
			if tol.Key == "kwok.x-k8s.io/node" && tol.Effect == corev1.TaintEffectNoSchedule {
				tolerates = true
			}
		}
		if !tolerates {
			t.Errorf("%s does not tolerate the kwok taint", name)
		}
	}
	if specs != 17 || real != 7 {
		t.Errorf("found %d workloads (%d on the real node), want 17 (7)", specs, real)
	}
}

func checkRealNodeSpec(t *testing.T, name string, spec *corev1.PodSpec) {
	t.Helper()
	if spec.NodeSelector[node.TaintKey] != node.TaintValue || len(spec.NodeSelector) != 1 {
		t.Errorf("%s: nodeSelector %v", name, spec.NodeSelector)
	}
	if len(spec.Tolerations) != 1 || spec.Tolerations[0].Key != node.TaintKey || spec.Tolerations[0].Value != node.TaintValue ||
		spec.Tolerations[0].Effect != corev1.TaintEffectNoSchedule {
		t.Errorf("%s: tolerations %v", name, spec.Tolerations)
	}
	for _, c := range spec.Containers {
		if !slices.Contains(images.Refs(), c.Image) || c.ImagePullPolicy != corev1.PullNever {
			t.Errorf("%s/%s: image %s, pull policy %s", name, c.Name, c.Image, c.ImagePullPolicy)
		}
	}
}

// TestRealNodeDemoShowsEachPath: the real node's demo has a pod for each
// path the issue names, in namespace demo.
func TestRealNodeDemoShowsEachPath(t *testing.T) {
	pods := map[string]*corev1.PodSpec{}
	services := map[string]bool{}
	for _, o := range seed.RealNodeObjects("ns1") {
		switch w := o.(type) {
		case *corev1.Pod:
			pods[w.Name] = &w.Spec
			if w.Namespace != "ns1" {
				t.Errorf("%s in namespace %q", w.Name, w.Namespace)
			}
		case *appsv1.Deployment:
			pods[w.Name] = &w.Spec.Template.Spec
		case *corev1.Service:
			services[w.Name] = true
		}
	}
	if c := pods[seed.RealShell].Containers[0]; c.Image != images.BusyboxRef {
		t.Errorf("shell pod image %s", c.Image)
	}
	if !services[seed.RealWeb] || pods[seed.RealWeb].Containers[0].ReadinessProbe == nil {
		t.Error("web server has no Service or no readiness probe")
	}
	if len(pods[seed.RealTwo].Containers) != 2 {
		t.Error("two-container pod does not have two containers")
	}
	for name, mode := range map[string]string{seed.RealCrash: "crash", seed.RealLogs: "logs", seed.RealNoShell: "idle", seed.RealHostile: "hostile"} {
		c := pods[name].Containers[0]
		if c.Image != images.DemoAppRef || len(c.Command) < 2 || c.Command[1] != mode {
			t.Errorf("%s runs %s %v, want demoapp %s", name, c.Image, c.Command, mode)
		}
	}
}

func TestCRILine(t *testing.T) {
	ts := time.Date(2026, 11, 30, 9, 49, 34, 856650181, time.UTC)
	got := seed.LogLine{Time: ts, Stream: "stderr", Text: "boom"}.CRI()
	if got != "2026-11-30T09:49:34.856650181Z stderr F boom\n" {
		t.Errorf("CRI() = %q", got)
	}
	re := regexp.MustCompile(`^\S+ (stdout|stderr) F .*\n$`)
	if !re.MatchString(seed.LogLine{Time: ts.In(time.FixedZone("x", 3600)), Stream: "stdout", Text: ""}.CRI()) {
		t.Error("empty line is not CRI-formatted")
	}
}
