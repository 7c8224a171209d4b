package usage

import (
	"math"
	"strconv"

	"github.com/kyyard/kyyard/kube/vocab"
)

// PodUtilisation returns a pod's usage against its containers' requests and
// limits: res are the containers' resources (Row.Resources.Containers), usage
// the containers' latest usage (PodUsage.Containers), matched by name.
//
// Each share is computed per container and summed only over the containers
// that set the amount: %CPU/R is the CPU used by the containers with a CPU
// request divided by the sum of those requests. A container that reports
// usage but sets no such amount (or sets it to zero) is left out of both
// sums and makes the share Partial; when no container sets it the share is
// not Set. This never shows a share of a limit that does not exist (k9s
// shows %MEM/L over 100% for containers without limits). A container of res
// the metrics did not report is left out; a reported container res does not
// name counts as setting nothing. Usage is the sum of usage's containers.
func PodUtilisation(res []vocab.ContainerResources, usage []ContainerUsage) Utilisation {
	var u Utilisation
	var cpuReq, cpuLim, memReq, memLim share
	for _, c := range usage {
		u.Usage.CPU += max(c.Usage.CPU, 0)
		u.Usage.Memory += max(c.Usage.Memory, 0)
		spec := vocab.ContainerResources{Requests: vocab.Usage{CPU: vocab.NotSet, Memory: vocab.NotSet}, Limits: vocab.Usage{CPU: vocab.NotSet, Memory: vocab.NotSet}}
		for _, r := range res {
			if r.Name == c.Name {
				spec = r
				break
			}
		}
		cpuReq.add(c.Usage.CPU, spec.Requests.CPU)
		cpuLim.add(c.Usage.CPU, spec.Limits.CPU)
		memReq.add(c.Usage.Memory, spec.Requests.Memory)
		memLim.add(c.Usage.Memory, spec.Limits.Memory)
	}
	u.CPURequest, u.CPULimit = cpuReq.percent(), cpuLim.percent()
	u.MemoryRequest, u.MemoryLimit = memReq.percent(), memLim.percent()
	return u
}

// share adds up one kind of percentage over containers.
type share struct {
	used, of int64
	set      int // containers that set the amount
	unset    int // containers with usage that do not
}

func (s *share) add(used, of int64) {
	if of <= 0 {
		s.unset++
		return
	}
	s.used += max(used, 0)
	s.of += of
	s.set++
}

func (s share) percent() Percent {
	if s.set == 0 {
		return Percent{}
	}
	return Percent{Value: int64(math.Round(float64(s.used) * 100 / float64(s.of))), Set: true, Partial: s.unset > 0}
}

// NodeUtilisation returns a node's CPU and memory usage as shares of its
// allocatable resources, as `kubectl top node` prints %CPU and %MEMORY
// (k8s.io/kubectl/pkg/metricsutil: the fraction truncated to an integer,
// 0% when allocatable is zero). A share is not Set when the node does not
// report that allocatable resource (NotSet) or there is no usage sample.
func NodeUtilisation(allocatable, usage vocab.Usage) (cpu, memory Percent) {
	return nodeShare(usage.CPU, allocatable.CPU), nodeShare(usage.Memory, allocatable.Memory)
}

func nodeShare(used, of int64) Percent {
	if of == vocab.NotSet || used < 0 {
		return Percent{}
	}
	if of == 0 {
		return Percent{Set: true}
	}
	return Percent{Value: int64(float64(used) / float64(of) * 100), Set: true}
}

// String returns the share as the metrics columns print it: "45%", with a
// trailing "*" when Partial (some containers do not set the amount), or
// "n/a" when not Set.
func (p Percent) String() string {
	if !p.Set {
		return "n/a"
	}
	s := strconv.FormatInt(p.Value, 10) + "%"
	if p.Partial {
		s += "*"
	}
	return s
}

// FormatCPU prints millicores as `kubectl top` does ("250m"); NotSet (or
// any negative value) prints "n/a".
func FormatCPU(milli int64) string {
	if milli < 0 {
		return "n/a"
	}
	return strconv.FormatInt(milli, 10) + "m"
}

// FormatMemory prints bytes as `kubectl top` does: whole mebibytes, rounded
// down ("128Mi"); NotSet (or any negative value) prints "n/a".
func FormatMemory(bytes int64) string {
	if bytes < 0 {
		return "n/a"
	}
	return strconv.FormatInt(bytes/(1024*1024), 10) + "Mi"
}
