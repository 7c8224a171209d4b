package usage

import (
	"context"
	"fmt"

	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
)

// WorkloadUsage answers the latest usage of a Deployment's, StatefulSet's
// or DaemonSet's containers over its pods, for the workload form: one get
// of the workload with cs (its selector and pod template), then Metrics
// of the pods its selector selects in its namespace (a polled request
// like any other, read with cfg: see Metrics), so the pods are those
// kube's Inspect counts — the label selector's, as `kubectl get pods -l`
// lists them.
//
// workloadKind resolves ref.Kind (a plugin id or alias) to the id of a
// kind with a rollout, or fails (vocab.ErrInvalid for another kind). It
// never fails: a workload that cannot be read (not_found, forbidden, ...)
// or another kind (invalid), or one whose selector selects every pod
// (invalid), is named in Truncated with the workload's kind; metrics that
// cannot be read, as Metrics names them.
func (st *Poller) WorkloadUsage(ctx context.Context, cfg Config, cs kubernetes.Interface, workloadKind func(vocab.Kind) (vocab.Kind, error), ref vocab.WorkloadRef) WorkloadUsage {
	fail := func(err error) WorkloadUsage {
		return WorkloadUsage{Truncated: &vocab.Truncation{Kind: ref.Kind, Reason: vocab.ReasonOf(err), Message: err.Error()}, Taken: cfg.now()}
	}
	kind, err := workloadKind(ref.Kind)
	if err != nil {
		return fail(err)
	}
	ref.Kind = kind
	wo, err := objects.ReadEditable(ctx, cs, ref)
	if err != nil {
		return fail(fmt.Errorf("read %s: %w", ref, err))
	}
	sel, err := objects.SelectorOf(wo.Selector)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", ref, err))
	}
	if sel.Empty() {
		return fail(fmt.Errorf("%w: %s selects every pod of its namespace", vocab.ErrInvalid, ref))
	}
	m := st.Metrics(ctx, cfg, MetricsRequest{Kind: vocab.KindPods, Namespace: ref.Namespace, Labels: sel.String()})
	return WorkloadUsage{
		Containers: summariseUsage(templateContainers(&wo.Template.Spec), m.Pods),
		Truncated:  m.Truncated,
		Taken:      m.Taken,
	}
}

// templateContainers names the containers metrics-server reports of a pod
// made from spec: spec.containers, then the restartable init containers
// (native sidecars), in spec order (RowResources' order).
func templateContainers(spec *corev1.PodSpec) []string {
	names := make([]string, 0, len(spec.Containers)+len(spec.InitContainers))
	for i := range spec.Containers {
		names = append(names, spec.Containers[i].Name)
	}
	for i := range spec.InitContainers {
		if p := spec.InitContainers[i].RestartPolicy; p != nil && *p == corev1.ContainerRestartPolicyAlways {
			names = append(names, spec.InitContainers[i].Name)
		}
	}
	return names
}

// summariseUsage sums up pods' latest usage per container: for each name of
// containers (in that order), the pods that reported a container of that
// name, and the Min, Max and Mean (rounded to the nearest unit) of their
// CPU and memory. A value a pod reported as NotSet is left out of that
// resource's figures; a resource no pod reported is NotSet in all three.
// A name no pod reported is left out of the answer.
func summariseUsage(containers []string, pods map[string]PodUsage) []ContainerUsageSummary {
	type acc struct {
		pods     int
		cpu, mem stat
	}
	byName := make(map[string]*acc, len(containers))
	for _, name := range containers {
		byName[name] = &acc{}
	}
	for _, p := range pods {
		for _, cu := range p.Containers {
			a := byName[cu.Name]
			if a == nil {
				continue
			}
			a.pods++
			a.cpu.add(cu.Usage.CPU)
			a.mem.add(cu.Usage.Memory)
		}
	}
	out := make([]ContainerUsageSummary, 0, len(containers))
	for _, name := range containers {
		a := byName[name]
		if a == nil || a.pods == 0 {
			continue
		}
		byName[name] = nil // a name listed twice is summed once
		out = append(out, ContainerUsageSummary{Name: name, Pods: a.pods,
			Min:  vocab.Usage{CPU: a.cpu.least(), Memory: a.mem.least()},
			Max:  vocab.Usage{CPU: a.cpu.most(), Memory: a.mem.most()},
			Mean: vocab.Usage{CPU: a.cpu.mean(), Memory: a.mem.mean()},
		})
	}
	return out
}

// stat is the minimum, maximum and sum of some non-negative values.
type stat struct {
	n             int64
	min, max, sum int64
}

func (s *stat) add(v int64) {
	if v < 0 {
		return
	}
	if s.n == 0 || v < s.min {
		s.min = v
	}
	if s.n == 0 || v > s.max {
		s.max = v
	}
	s.n++
	s.sum += v
}

func (s *stat) least() int64 {
	if s.n == 0 {
		return vocab.NotSet
	}
	return s.min
}

func (s *stat) most() int64 {
	if s.n == 0 {
		return vocab.NotSet
	}
	return s.max
}

func (s *stat) mean() int64 {
	if s.n == 0 {
		return vocab.NotSet
	}
	return (s.sum + s.n/2) / s.n
}
