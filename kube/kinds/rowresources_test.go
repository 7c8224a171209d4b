package kinds_test

import (
	"reflect"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

func resList(cpu, mem string) corev1.ResourceList {
	l := corev1.ResourceList{}
	if cpu != "" {
		l[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		l[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	return l
}

func ctr(name string, req, lim corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Image: "img", Resources: corev1.ResourceRequirements{Requests: req, Limits: lim}}
}

const unset = kube.NotSet

func use(cpu, mem int64) kube.Usage { return kube.Usage{CPU: cpu, Memory: mem} }

// TestPodRowResources: a pod's row carries its containers' requests and
// limits, spec.containers then restartable init containers (plain init
// containers are not reported by metrics-server), NotSet where the spec
// sets nothing, rounded up as kubectl's MilliValue and Value do.
func TestPodRowResources(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	sidecar := ctr("sidecar", resList("50m", ""), nil)
	sidecar.RestartPolicy = &always
	cases := []struct {
		name string
		spec corev1.PodSpec
		want []kube.ContainerResources
	}{
		{"none", corev1.PodSpec{Containers: []corev1.Container{ctr("app", nil, nil)}},
			[]kube.ContainerResources{{Name: "app", Requests: use(unset, unset), Limits: use(unset, unset)}}},
		{"requests only", corev1.PodSpec{Containers: []corev1.Container{ctr("app", resList("250m", "64Mi"), nil)}},
			[]kube.ContainerResources{{Name: "app", Requests: use(250, 64<<20), Limits: use(unset, unset)}}},
		{"limits only", corev1.PodSpec{Containers: []corev1.Container{ctr("app", nil, resList("1", "1Gi"))}},
			[]kube.ContainerResources{{Name: "app", Requests: use(unset, unset), Limits: use(1000, 1<<30)}}},
		{"partial and rounded up", corev1.PodSpec{Containers: []corev1.Container{ctr("app", resList("1500u", ""), resList("", "1500m"))}},
			[]kube.ContainerResources{{Name: "app", Requests: use(2, unset), Limits: use(unset, 2)}}},
		{"sidecar after containers, plain init left out", corev1.PodSpec{
			InitContainers: []corev1.Container{ctr("setup", resList("1", ""), nil), sidecar},
			Containers:     []corev1.Container{ctr("a", resList("100m", ""), nil), ctr("b", nil, resList("", "2Gi"))}},
			[]kube.ContainerResources{
				{Name: "a", Requests: use(100, unset), Limits: use(unset, unset)},
				{Name: "b", Requests: use(unset, unset), Limits: use(unset, 2<<30)},
				{Name: "sidecar", Requests: use(50, unset), Limits: use(unset, unset)},
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "p"}, Spec: tc.spec}
			row := kinds.PodRow(pod)
			if row.Resources == nil {
				t.Fatal("no Resources")
			}
			if got := row.Resources.Containers; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("containers = %+v\nwant %+v", got, tc.want)
			}
			if row.Resources.Allocatable != (kube.Usage{}) {
				t.Errorf("a pod's Allocatable = %+v, want zero", row.Resources.Allocatable)
			}
			// Containers is capped: a caller's append never writes into
			// what other rows share.
			if c := row.Resources.Containers; cap(c) != len(c) {
				t.Errorf("cap %d, len %d", cap(c), len(c))
			}
		})
	}
}

// TestPodRowResourcesShared: pods alike (one workload's) share one
// RowResources; pods that differ do not; a shared one is dropped once no
// row holds it.
func TestPodRowResourcesShared(t *testing.T) {
	mk := func(name, cpu string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name},
			Spec: corev1.PodSpec{Containers: []corev1.Container{ctr("shared-test-app", resList(cpu, "1Mi"), nil), ctr("proxy", nil, nil)}}}
	}
	a, b, c := kinds.PodRow(mk("a", "123m")), kinds.PodRow(mk("b", "123m")), kinds.PodRow(mk("c", "124m"))
	if a.Resources != b.Resources {
		t.Error("pods alike do not share their RowResources")
	}
	if a.Resources == c.Resources {
		t.Error("pods that differ share their RowResources")
	}
	if got := c.Resources.Containers[0].Requests.CPU; got != 124 {
		t.Errorf("c's cpu request = %d", got)
	}
	before := kinds.InternedCount()
	a, b, c = kube.Row{}, kube.Row{}, kube.Row{}
	for i := 0; i < 200 && kinds.InternedCount() > before-2; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if got := kinds.InternedCount(); got > before-2 {
		t.Errorf("interned: %d before, %d after the rows went", before, got)
	}
}

// TestContainerRowResources: each container row carries its container's
// resources, ephemeral containers NotSet.
func TestContainerRowResources(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	side := ctr("side", nil, resList("200m", ""))
	side.RestartPolicy = &always
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "p", UID: "u"}, Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{ctr("init", resList("1", ""), nil), side},
		Containers:     []corev1.Container{ctr("app", resList("250m", "64Mi"), resList("500m", "128Mi"))},
		EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
			Name: "debugger", Image: "busybox"}}},
	}}
	want := map[string]kube.ContainerResources{
		"init":     {Name: "init", Requests: use(1000, unset), Limits: use(unset, unset)},
		"side":     {Name: "side", Requests: use(unset, unset), Limits: use(200, unset), NativeSidecar: true},
		"app":      {Name: "app", Requests: use(250, 64<<20), Limits: use(500, 128<<20)},
		"debugger": {Name: "debugger", Requests: use(unset, unset), Limits: use(unset, unset)},
	}
	rows := kinds.Containers{}.Expand(pod)
	if len(rows) != len(want) {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		if r.Resources == nil || len(r.Resources.Containers) != 1 {
			t.Fatalf("%s: Resources %+v", r.Name, r.Resources)
		}
		if got := r.Resources.Containers[0]; got != want[r.Name] {
			t.Errorf("%s = %+v, want %+v", r.Name, got, want[r.Name])
		}
	}
}

// TestNodeRowResources: a node's row carries its allocatable cpu and
// memory, NotSet when the status leaves one out.
func TestNodeRowResources(t *testing.T) {
	cases := []struct {
		name  string
		alloc corev1.ResourceList
		want  kube.Usage
	}{
		{"both", resList("3900m", "15Gi"), use(3900, 15<<30)},
		{"cpu only", resList("4", ""), use(4000, unset)},
		{"none", nil, use(unset, unset)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: corev1.NodeStatus{Allocatable: tc.alloc}}
			row := kinds.NodeRow(n)
			if row.Resources == nil {
				t.Fatal("no Resources")
			}
			if row.Resources.Allocatable != tc.want || len(row.Resources.Containers) != 0 {
				t.Errorf("Resources = %+v, want Allocatable %+v", *row.Resources, tc.want)
			}
		})
	}
}
