package oracle

import (
	"fmt"
	"math/rand/v2"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// gen draws the parts of generated objects. Every choice comes from r, so an
// object is reproducible from (seed, index); times are offsets from now, the
// run's clock, since the printer ages them against time.Now.
type gen struct {
	r   *rand.Rand
	now time.Time
}

// newGen returns the generator of object index of a run seeded with seed.
func newGen(seed, index uint64, now time.Time) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, index)), now: now}
}

// chance is true with probability p.
func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// intn is a number in [0, n).
func (g *gen) intn(n int) int { return g.r.IntN(n) }

// pick is one of the items.
func pick[T any](g *gen, items ...T) T { return items[g.r.IntN(len(items))] }

// some returns between 0 and max items made by f.
func some[T any](g *gen, max int, f func(i int) T) []T {
	n := g.intn(max + 1)
	if n == 0 {
		if g.chance(0.5) {
			return nil
		}
		return []T{}
	}
	out := make([]T, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// word is a short name, sometimes empty, sometimes unusual text (wide
// characters, spaces, control characters) that the printers copy as it is.
func (g *gen) word() string {
	return pick(g, "", "a", "web", "db-0", "worker", "kube-system", "node-1", "x.example.com",
		"한글", "😀", "tab\there", "new\nline", "\x1b[31mred", " padded ", "very-long-name-that-goes-on-and-on-and-on-for-a-while")
}

// name is a usual object name.
func (g *gen) name() string {
	return pick(g, "web", "db-0", "api-7d9f8c6b5-x2x7q", "job-1", "한글-이름", "emoji-😀", "", "a.b.c")
}

// reason is a container, pod or condition reason: kubelet's usual ones,
// empty, or unusual text.
func (g *gen) reason() string {
	return pick(g, "", "", "Completed", "Error", "OOMKilled", "ContainerCreating", "PodInitializing",
		"CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "CreateContainerConfigError", "Evicted",
		"NodeLost", "Unschedulable", "SchedulingGated", "DeadlineExceeded", "ContainerStatusUnknown", "Weird reason")
}

// ago is a moment before now: seconds to years, sometimes in the future.
func (g *gen) ago() time.Time {
	d := pick(g, time.Duration(g.intn(120))*time.Second, time.Duration(g.intn(180))*time.Minute,
		time.Duration(g.intn(72))*time.Hour, time.Duration(g.intn(800))*24*time.Hour,
		time.Duration(g.intn(20))*365*24*time.Hour, -time.Duration(g.intn(3600))*time.Second)
	// Whole seconds, as the API's timestamps hold them.
	return g.now.Add(-d).Truncate(time.Second)
}

// time is a metav1.Time: usually a moment before now, sometimes the zero time.
func (g *gen) time() metav1.Time {
	if g.chance(0.05) {
		return metav1.Time{}
	}
	return metav1.NewTime(g.ago())
}

// timePtr is nil, a set zero time (reachable over protobuf) or a moment.
func (g *gen) timePtr() *metav1.Time {
	switch {
	case g.chance(0.3):
		return nil
	case g.chance(0.05):
		return &metav1.Time{}
	}
	t := metav1.NewTime(g.ago())
	return &t
}

// meta is an ObjectMeta with the fields printers read: name, namespace,
// creation and deletion time, labels.
func (g *gen) meta(namespaced bool) metav1.ObjectMeta {
	m := metav1.ObjectMeta{Name: g.name(), CreationTimestamp: g.time(), UID: "uid"}
	if namespaced {
		m.Namespace = pick(g, "demo", "default", "")
	}
	if g.chance(0.1) {
		m.DeletionTimestamp = g.timePtr()
	}
	if g.chance(0.3) {
		m.Labels = map[string]string{"app": g.word()}
	}
	return m
}

func ptr[T any](v T) *T { return &v }

// optional is nil or a pointer to f's value.
func optional[T any](g *gen, f func() T) *T {
	if g.chance(0.3) {
		return nil
	}
	return ptr(f())
}

// i32 is a small count, sometimes negative or large.
func (g *gen) i32() int32 {
	return pick[int32](g, 0, 1, 2, 3, int32(g.intn(10)), int32(g.intn(1000)), -1)
}

// quantity is a resource quantity in one of its usual spellings.
func (g *gen) quantity() resource.Quantity {
	return resource.MustParse(pick(g, "0", "1", "100m", "1Gi", "512Mi", "10G", "1.5", "2k", "3e3"))
}

// intOrString is a number or a percentage.
func (g *gen) intOrString() intstr.IntOrString {
	if g.chance(0.5) {
		return intstr.FromInt32(g.i32())
	}
	return intstr.FromString(fmt.Sprintf("%d%%", g.intn(101)))
}

// selector is a label selector: nil, empty, labels, expressions or an invalid
// one.
func (g *gen) selector() *metav1.LabelSelector {
	switch g.intn(5) {
	case 0:
		return nil
	case 1:
		return &metav1.LabelSelector{}
	case 2:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": g.word()}}
	case 3:
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "tier", Operator: pick(g, metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn, metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist), Values: some(g, 2, func(int) string { return g.word() })},
		}}
	}
	return &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "bad key!": "x"}}
}

// labels is a small label map or nil.
func (g *gen) labels() map[string]string {
	if g.chance(0.3) {
		return nil
	}
	m := map[string]string{}
	for range g.intn(3) {
		m[pick(g, "app", "tier", "zone", "kubernetes.io/os")] = g.word()
	}
	return m
}

// metaNamed is the ObjectMeta of a hand-written case: name in namespace demo,
// created five minutes before now.
func (g *gen) metaNamed(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: "demo", UID: "uid", CreationTimestamp: metav1.NewTime(g.now.Add(-5 * time.Minute).Truncate(time.Second))}
}

// zeroTime is a set metav1.Time holding the zero time.
func (g *gen) zeroTime() metav1.Time { return metav1.Time{} }
