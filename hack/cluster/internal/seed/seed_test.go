package seed_test

import (
	"regexp"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kyyard/kyyard/hack/cluster/internal/seed"
)

func TestWorkloadsRunOnFakeNodes(t *testing.T) {
	specs := 0
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
	if specs != 10 {
		t.Errorf("found %d workloads, want 10", specs)
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
