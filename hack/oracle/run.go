package oracle

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/kyyard/kyyard/kube"
)

// Options bound a run.
type Options struct {
	// Seed seeds the generators: object i of a kind is drawn from (Seed, i),
	// so a run is reproducible whatever the number of workers.
	Seed uint64
	// Count is how many objects of each kind are generated; PodCount, when
	// not zero, is the count for pods. FuzzCount objects of each kind are
	// filled by Kubernetes' API fuzzer (fuzzed) besides. Each object is
	// compared as written and defaulted.
	Count, PodCount, FuzzCount int
	// Workers compare in parallel; 0 means GOMAXPROCS.
	Workers int
	// MinimiseLimit caps how many findings of one kind and column are
	// minimised (the rest are kept as drawn); 0 means 50.
	MinimiseLimit int
}

// Finding is one input on which kyyard differs from Kubernetes' printer.
type Finding struct {
	// Kind is the plugin's kind ID.
	Kind kube.Kind
	// Input says where the object came from: "corner 3", "seed 1 #42".
	Input string
	// Defaulted is true when the object was defaulted before printing.
	Defaulted bool
	// Minimised is true when Object was minimised.
	Minimised bool
	// Object is the (minimised) v1 object, as compared.
	Object k8sruntime.Object
	// Mismatches are Object's differing cells.
	Mismatches []Mismatch
}

// Report is a run's outcome.
type Report struct {
	// Compared counts the comparisons per kind (two per object: as written
	// and defaulted).
	Compared map[kube.Kind]int
	// Findings are the inputs that differ, by kind then input.
	Findings []Finding
	// Elapsed is the run's wall time.
	Elapsed time.Duration
}

// Run compares every subject's corner cases and generated objects.
func Run(p *Printer, subjects []Subject, opts Options) Report {
	start := time.Now()
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.MinimiseLimit <= 0 {
		opts.MinimiseLimit = 50
	}
	rep := Report{Compared: map[kube.Kind]int{}}
	var mu sync.Mutex
	minimised := map[string]int{}
	record := func(s Subject, input string, obj k8sruntime.Object, defaulted bool, ms []Mismatch) {
		mu.Lock()
		key := string(s.ID) + "/" + ms[0].Column
		minimised[key]++
		doMin := minimised[key] <= opts.MinimiseLimit
		mu.Unlock()
		f := Finding{Kind: s.ID, Input: input, Defaulted: defaulted, Object: obj, Mismatches: ms}
		if doMin {
			f.Object = Minimise(obj, func(c k8sruntime.Object) bool { return sameColumns(p.Compare(s.Plugin, c, time.Now()), ms) })
			f.Mismatches = p.Compare(s.Plugin, f.Object, time.Now())
			f.Minimised = true
		}
		mu.Lock()
		rep.Findings = append(rep.Findings, f)
		mu.Unlock()
	}
	check := func(s Subject, input string, obj k8sruntime.Object) {
		for _, defaulted := range []bool{false, true} {
			o := obj
			if defaulted {
				if o = defaultSafely(obj); o == nil {
					continue // the defaulters cannot take this (fuzzed) object
				}
			}
			now := time.Now()
			if ms := p.Compare(s.Plugin, o, now); len(ms) > 0 {
				record(s, input, o, defaulted, ms)
			}
		}
	}
	for _, s := range subjects {
		n := opts.Count
		if s.ID == "pods" && opts.PodCount > 0 {
			n = opts.PodCount
		}
		var corners []k8sruntime.Object
		if s.Corners != nil {
			corners = s.Corners(newGen(opts.Seed, 0, time.Now()))
		}
		for i, obj := range corners {
			check(s, fmt.Sprintf("corner %d", i), obj)
		}
		example := s.Gen(newGen(opts.Seed, 0, time.Now()))
		var next atomic.Int64
		var wg sync.WaitGroup
		for range opts.Workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := next.Add(1) - 1
					switch {
					case i < int64(n):
						obj := s.Gen(newGen(opts.Seed, uint64(i), time.Now()))
						check(s, fmt.Sprintf("seed %d #%d", opts.Seed, i), obj)
					case i < int64(n+opts.FuzzCount):
						j := uint64(i) - uint64(n)
						check(s, fmt.Sprintf("fuzz seed %d #%d", opts.Seed, j), fuzzed(example, opts.Seed, j))
					default:
						return
					}
				}
			}()
		}
		wg.Wait()
		rep.Compared[s.ID] += 2 * (n + opts.FuzzCount + len(corners))
	}
	sort.SliceStable(rep.Findings, func(i, j int) bool {
		a, b := rep.Findings[i], rep.Findings[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Input < b.Input
	})
	rep.Elapsed = time.Since(start)
	return rep
}

// sameColumns reports whether got still differs in one of want's columns
// (and the objects still print: an edit that breaks printing is no smaller
// case of the same difference).
func sameColumns(got, want []Mismatch) bool {
	for _, g := range got {
		for _, w := range want {
			if g.Column == w.Column && (g.Column != "(row)" || g.Want == w.Want) {
				return true
			}
		}
	}
	return false
}

// Classes counts findings by kind and column: the kinds of difference.
func (r Report) Classes() map[string]int {
	out := map[string]int{}
	for _, f := range r.Findings {
		seen := map[string]bool{}
		for _, m := range f.Mismatches {
			k := string(f.Kind) + " " + m.Column
			if !seen[k] {
				seen[k] = true
				out[k]++
			}
		}
	}
	return out
}

// Write prints the report: counts, the kinds of difference, then every
// finding with its object as YAML.
func (r Report) Write(w io.Writer) error {
	var b strings.Builder
	total := 0
	ids := make([]string, 0, len(r.Compared))
	for id, n := range r.Compared {
		ids = append(ids, string(id))
		total += n
	}
	slices.Sort(ids)
	fmt.Fprintf(&b, "# kyyard oracle: %d comparisons in %s, %d findings\n", total, r.Elapsed.Round(time.Millisecond), len(r.Findings))
	for _, id := range ids {
		fmt.Fprintf(&b, "#   %-26s %d\n", id, r.Compared[kube.Kind(id)])
	}
	classes := r.Classes()
	keys := make([]string, 0, len(classes))
	for k := range classes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "# difference %-40s %d\n", k, classes[k])
	}
	if len(r.Findings) > 0 {
		b.WriteString("# (a time printed as null is unset or set to the zero time: metav1.Time marshals both so)\n")
	}
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "---\n# %s %s defaulted=%v minimised=%v\n", f.Kind, f.Input, f.Defaulted, f.Minimised)
		for _, m := range f.Mismatches {
			fmt.Fprintf(&b, "# %s\n", m)
		}
		y, err := yaml.Marshal(f.Object)
		if err != nil {
			return err
		}
		b.Write(y)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
