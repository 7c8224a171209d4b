package kube_test

import (
	"testing"

	"github.com/kyyard/kyyard/kube"
)

const mi = 1024 * 1024

func res(name string, cpuReq, cpuLim, memReq, memLim int64) kube.ContainerResources {
	return kube.ContainerResources{Name: name, Requests: kube.Usage{CPU: cpuReq, Memory: memReq}, Limits: kube.Usage{CPU: cpuLim, Memory: memLim}}
}

func use(name string, cpu, mem int64) kube.ContainerUsage {
	return kube.ContainerUsage{Name: name, Usage: kube.Usage{CPU: cpu, Memory: mem}}
}

const ns = kube.NotSet

// TestPodUtilisationPartialRequestsAndLimits covers hand-made pods: every
// amount set, requests without limits, limits without requests, a mix of
// containers that set an amount and containers that do not, zero amounts,
// and containers the metrics and the spec do not agree on.
func TestPodUtilisationPartialRequestsAndLimits(t *testing.T) {
	cases := []struct {
		name             string
		res              []kube.ContainerResources
		usage            []kube.ContainerUsage
		cpuR, cpuL       string
		memR, memL       string
		totalCPU, totalM int64
	}{
		{"all set", []kube.ContainerResources{res("a", 100, 200, 100*mi, 200*mi)},
			[]kube.ContainerUsage{use("a", 50, 50*mi)}, "50%", "25%", "50%", "25%", 50, 50 * mi},
		{"requests without limits", []kube.ContainerResources{res("a", 100, ns, 64*mi, ns)},
			[]kube.ContainerUsage{use("a", 150, 96*mi)}, "150%", "n/a", "150%", "n/a", 150, 96 * mi},
		{"limits without requests", []kube.ContainerResources{res("a", ns, 400, ns, 256*mi)},
			[]kube.ContainerUsage{use("a", 100, 64*mi)}, "n/a", "25%", "n/a", "25%", 100, 64 * mi},
		{"nothing set", []kube.ContainerResources{res("a", ns, ns, ns, ns)},
			[]kube.ContainerUsage{use("a", 100, 64*mi)}, "n/a", "n/a", "n/a", "n/a", 100, 64 * mi},
		{"one of two sets limits: only its usage counts, marked partial",
			[]kube.ContainerResources{res("app", 100, 200, 100*mi, 100*mi), res("sidecar", 10, ns, 10*mi, ns)},
			[]kube.ContainerUsage{use("app", 100, 50*mi), use("sidecar", 500, 500*mi)},
			"545%", "50%*", "500%", "50%*", 600, 550 * mi},
		{"zero request counts as not set", []kube.ContainerResources{res("a", 0, 100, 0, 100*mi), res("b", 100, 100, 100*mi, 100*mi)},
			[]kube.ContainerUsage{use("a", 30, 30*mi), use("b", 20, 20*mi)}, "20%*", "25%", "20%*", "25%", 50, 50 * mi},
		{"container missing from the spec", []kube.ContainerResources{res("a", 100, 100, 100*mi, 100*mi)},
			[]kube.ContainerUsage{use("a", 10, 10*mi), use("ghost", 10, 10*mi)}, "10%*", "10%*", "10%*", "10%*", 20, 20 * mi},
		{"container without usage is left out", []kube.ContainerResources{res("a", 100, 100, 100*mi, 100*mi), res("b", 900, 900, 900*mi, 900*mi)},
			[]kube.ContainerUsage{use("a", 10, 10*mi)}, "10%", "10%", "10%", "10%", 10, 10 * mi},
		{"no usage at all", []kube.ContainerResources{res("a", 100, 100, 100*mi, 100*mi)}, nil, "n/a", "n/a", "n/a", "n/a", 0, 0},
		{"rounds to nearest", []kube.ContainerResources{res("a", 3, 3, 3, 3)},
			[]kube.ContainerUsage{use("a", 2, 2)}, "67%", "67%", "67%", "67%", 2, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u := kube.PodUtilisation(c.res, c.usage)
			got := [4]string{u.CPURequest.String(), u.CPULimit.String(), u.MemoryRequest.String(), u.MemoryLimit.String()}
			want := [4]string{c.cpuR, c.cpuL, c.memR, c.memL}
			if got != want {
				t.Errorf("%%CPU/R %%CPU/L %%MEM/R %%MEM/L = %v, want %v", got, want)
			}
			if u.Usage.CPU != c.totalCPU || u.Usage.Memory != c.totalM {
				t.Errorf("usage = %+v, want cpu %d memory %d", u.Usage, c.totalCPU, c.totalM)
			}
		})
	}
}

// TestNodeUtilisationFollowsKubectlTop: kubectl top node truncates the
// fraction and prints 0% for zero allocatable.
func TestNodeUtilisationFollowsKubectlTop(t *testing.T) {
	cases := []struct {
		alloc, usage kube.Usage
		cpu, mem     string
	}{
		{kube.Usage{CPU: 32000, Memory: 256 * 1024 * mi}, kube.Usage{CPU: 639, Memory: 2 * 1024 * mi}, "1%", "0%"},
		{kube.Usage{CPU: 1000, Memory: 100}, kube.Usage{CPU: 999, Memory: 150}, "99%", "150%"},
		{kube.Usage{CPU: 0, Memory: ns}, kube.Usage{CPU: 5, Memory: 5}, "0%", "n/a"},
		{kube.Usage{CPU: 1000, Memory: 1000}, kube.Usage{CPU: ns, Memory: 0}, "n/a", "0%"},
	}
	for _, c := range cases {
		cpu, mem := kube.NodeUtilisation(c.alloc, c.usage)
		if cpu.String() != c.cpu || mem.String() != c.mem {
			t.Errorf("NodeUtilisation(%+v, %+v) = %s %s, want %s %s", c.alloc, c.usage, cpu, mem, c.cpu, c.mem)
		}
	}
}

func TestFormatKubectlTopUnits(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{kube.FormatCPU(0), "0m"}, {kube.FormatCPU(1500), "1500m"}, {kube.FormatCPU(ns), "n/a"},
		{kube.FormatMemory(0), "0Mi"}, {kube.FormatMemory(mi - 1), "0Mi"}, {kube.FormatMemory(1536 * mi), "1536Mi"},
		{kube.FormatMemory(ns), "n/a"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
