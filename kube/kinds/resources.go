package kinds

import (
	"runtime"
	"sync"
	"weak"

	corev1 "k8s.io/api/core/v1"

	"github.com/kyyard/kyyard/kube/vocab"
)

// This file fills Row.Resources, what the metrics columns divide usage by:
// a Pod's containers' requests and limits and a Node's allocatable
// resources. It runs for every object the cache stores, so it keeps little:
// pods alike share one RowResources, and no string is copied (a
// container's Name is the cached object's).

// podResources returns the requests and limits of the containers
// metrics-server reports of pod: spec.containers, then the restartable
// init containers (native sidecars), in spec order (RowResources). Pods of
// up to two such containers share one RowResources per distinct content
// (the pods of one workload are alike): sharedResources.
func podResources(spec *corev1.PodSpec) *vocab.RowResources {
	n := len(spec.Containers)
	for i := range spec.InitContainers {
		if isRestartableInit(&spec.InitContainers[i]) {
			n++
		}
	}
	if n <= len(resourcesKey{}.c) {
		k := resourcesKey{n: n}
		i := 0
		for j := range spec.Containers {
			k.c[i] = containerResources(&spec.Containers[j])
			i++
		}
		for j := range spec.InitContainers {
			if c := &spec.InitContainers[j]; isRestartableInit(c) {
				k.c[i] = containerResources(c)
				i++
			}
		}
		return sharedResources(k)
	}
	out := &vocab.RowResources{Containers: make([]vocab.ContainerResources, 0, n)}
	for i := range spec.Containers {
		out.Containers = append(out.Containers, containerResources(&spec.Containers[i]))
	}
	for i := range spec.InitContainers {
		if c := &spec.InitContainers[i]; isRestartableInit(c) {
			out.Containers = append(out.Containers, containerResources(c))
		}
	}
	return out
}

// resourcesKey is the content of a pod's RowResources with at most two
// containers.
type resourcesKey struct {
	n int
	c [2]vocab.ContainerResources
}

// sharedResource is an interned RowResources with room for its containers.
type sharedResource struct {
	r vocab.RowResources
	c [2]vocab.ContainerResources
}

// interned holds the RowResources rows share, weakly: an entry goes when
// no row holds it any more (a runtime cleanup deletes it), so the table
// is as large as the distinct pod shapes the caches hold.
var interned = struct {
	sync.Mutex
	m map[resourcesKey]weak.Pointer[sharedResource]
}{m: map[resourcesKey]weak.Pointer[sharedResource]{}}

// sharedResources returns the one RowResources of content k: read only,
// as every Row.Resources is.
func sharedResources(k resourcesKey) *vocab.RowResources {
	interned.Lock()
	defer interned.Unlock()
	if s := interned.m[k].Value(); s != nil {
		return &s.r
	}
	s := &sharedResource{c: k.c}
	s.r.Containers = s.c[:k.n:k.n]
	interned.m[k] = weak.Make(s)
	runtime.AddCleanup(s, dropInterned, k)
	return &s.r
}

// dropInterned deletes k's entry once its RowResources is unreachable
// (unless another took its place).
func dropInterned(k resourcesKey) {
	interned.Lock()
	defer interned.Unlock()
	if wp, ok := interned.m[k]; ok && wp.Value() == nil {
		delete(interned.m, k)
	}
}

// internedCount is the number of interned RowResources (tests).
func internedCount() int {
	interned.Lock()
	defer interned.Unlock()
	return len(interned.m)
}

// containerResources returns one container's cpu and memory requests and
// limits as its spec sets them (vocab.NotSet when it does not).
func containerResources(c *corev1.Container) vocab.ContainerResources {
	r := &c.Resources
	return vocab.ContainerResources{
		Name:     c.Name,
		Requests: usageOf(r.Requests),
		Limits:   usageOf(r.Limits),
	}
}

// oneContainerResources is a container row's Resources: that container's.
func oneContainerResources(c *corev1.Container) *vocab.RowResources {
	one := &struct {
		r vocab.RowResources
		c [1]vocab.ContainerResources
	}{}
	one.c[0] = containerResources(c)
	one.r.Containers = one.c[:1:1]
	return &one.r
}

// nodeResources returns a Node's status.allocatable cpu and memory.
func nodeResources(n *corev1.Node) *vocab.RowResources {
	return &vocab.RowResources{Allocatable: usageOf(n.Status.Allocatable)}
}

// usageOf reads cpu (millicores, MilliValue rounds up) and memory (bytes,
// Value rounds up) of a ResourceList; vocab.NotSet when a resource is not
// in it or is negative (which validation does not let through).
func usageOf(list corev1.ResourceList) vocab.Usage {
	u := vocab.Usage{CPU: vocab.NotSet, Memory: vocab.NotSet}
	if len(list) == 0 {
		return u
	}
	if q, ok := list[corev1.ResourceCPU]; ok && q.Sign() >= 0 {
		u.CPU = q.MilliValue()
	}
	if q, ok := list[corev1.ResourceMemory]; ok && q.Sign() >= 0 {
		u.Memory = q.Value()
	}
	return u
}
