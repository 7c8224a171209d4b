// Package drift is the drift screen: one workload (a Deployment,
// StatefulSet or DaemonSet of one namespace and name) read in every
// context of a fleet at once and compared field by field, side by side,
// the fields whose values differ marked: where it is missing, replicas,
// each container's image, command, args, env (literal values; Secret and
// ConfigMap references by name and key only, never their contents),
// envFrom, cpu and memory requests and limits, and the object's labels
// and annotations.
//
// The files: compare.go (the comparison, pure), model.go (the screen:
// the reads in parallel, the drawing, the keys).
package drift

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kyyard/kyyard/kube"
)

// Read is one context's read of the workload.
type Read struct {
	// Context names the kubeconfig context.
	Context string
	// Workload is what was read (when Err is nil).
	Workload kube.Workload
	// Err is why there is none: kube.ReasonOf says not_found for a
	// workload that is not there (Missing), or why it could not be read
	// (forbidden, unavailable, timeout, not connected).
	Err error
}

// ErrNotConnected is wrapped by a Member's Err when its context is not
// connected (yet): its column says "not connected".
var ErrNotConnected = errors.New("not connected")

// Missing reports whether the workload is not there (the get answered
// 404), as opposed to not read.
func (r Read) Missing() bool { return r.Err != nil && kube.ReasonOf(r.Err) == kube.ReasonNotFound }

// Row is one field compared across the contexts.
type Row struct {
	// Container is the container the field is of ("" for the workload's
	// own fields: present, replicas, paused, labels, annotations).
	Container string
	// Field names it: "present", "replicas", "paused", "image",
	// "command", "args", "env NAME", "envFrom", "cpu request",
	// "cpu limit", "memory request", "memory limit", "label KEY",
	// "annotation KEY".
	Field string
	// Values are one per context, in the reads' order: the value as text;
	// Absent where the field is not set (or the container or the
	// workload is not there); for "present": "yes", "missing", "not
	// connected" or "unread: <reason>" (kube.ReasonOf).
	Values []string
	// Differs is set when the contexts whose workload was read do not
	// all hold the same value (absent counting as a value), or, for
	// "present", when some context's workload is missing or unread.
	Differs bool
}

// Absent is the value of a field that is not set, or of a workload or
// container that is not there.
const Absent = "-"

// ignoredAnnotations are annotations that differ between clusters by
// nature, not by drift: the Deployment controller's revision counter and
// kubectl's copy of the last applied configuration (a whole manifest).
var ignoredAnnotations = map[string]bool{
	"deployment.kubernetes.io/revision":                true,
	"kubectl.kubernetes.io/last-applied-configuration": true,
}

// Compare compares the reads field by field, in this order: present,
// replicas, paused, then each container (in the order the contexts'
// templates first name them) with its image, command, args, env (each
// name in first-seen order), envFrom and resources, then labels and
// annotations (sorted by key). A field no read context sets is left out
// (a Deployment's paused when every context has false is kept: it is
// set). The workload's kind decides nothing here: every Workload carries
// what its kind has (HasReplicas, HasPaused).
func Compare(reads []Read) []Row {
	c := comparer{reads: reads}
	present := make([]string, len(reads))
	for i, r := range reads {
		switch {
		case r.Err == nil:
			present[i] = "yes"
		case r.Missing():
			present[i] = "missing"
		case errors.Is(r.Err, ErrNotConnected):
			present[i] = "not connected"
		default:
			present[i] = "unread: " + string(kube.ReasonOf(r.Err))
		}
	}
	c.rows = append(c.rows, Row{Field: "present", Values: present, Differs: slices.ContainsFunc(reads, func(r Read) bool { return r.Err != nil })})
	c.add("", "replicas", func(w kube.Workload) string {
		if !w.HasReplicas {
			return Absent
		}
		return strconv.Itoa(int(w.Replicas))
	})
	c.add("", "paused", func(w kube.Workload) string {
		if !w.HasPaused {
			return Absent
		}
		return strconv.FormatBool(w.Paused)
	})
	for _, name := range c.containers() {
		field := func(f string, get func(kube.Container) string) {
			c.add(name, f, func(w kube.Workload) string {
				ct, ok := w.Container(name)
				if !ok {
					return Absent
				}
				return orAbsent(get(ct))
			})
		}
		field("image", func(ct kube.Container) string { return ct.Image })
		field("command", func(ct kube.Container) string { return argv(ct.Command) })
		field("args", func(ct kube.Container) string { return argv(ct.Args) })
		for _, env := range c.envNames(name) {
			field("env "+env, func(ct kube.Container) string { return envValue(ct.Env, env) })
		}
		field("envFrom", func(ct kube.Container) string { return strings.Join(ct.EnvFrom, ", ") })
		field("cpu request", func(ct kube.Container) string { return ct.Resources.CPURequest })
		field("cpu limit", func(ct kube.Container) string { return ct.Resources.CPULimit })
		field("memory request", func(ct kube.Container) string { return ct.Resources.MemoryRequest })
		field("memory limit", func(ct kube.Container) string { return ct.Resources.MemoryLimit })
	}
	for _, k := range c.keys(func(w kube.Workload) map[string]string { return w.Labels }) {
		c.add("", "label "+k, func(w kube.Workload) string { return valueOf(w.Labels, k) })
	}
	for _, k := range c.keys(func(w kube.Workload) map[string]string { return w.Annotations }) {
		if !ignoredAnnotations[k] {
			c.add("", "annotation "+k, func(w kube.Workload) string { return valueOf(w.Annotations, k) })
		}
	}
	return c.rows
}

// comparer builds the rows of one comparison.
type comparer struct {
	reads []Read
	rows  []Row
}

// add appends the row of one field, get giving a read workload's value;
// a field every read workload has Absent is left out.
func (c *comparer) add(container, field string, get func(kube.Workload) string) {
	row := Row{Container: container, Field: field, Values: make([]string, len(c.reads))}
	first, set, seen := "", false, false
	for i, r := range c.reads {
		row.Values[i] = Absent
		if r.Err != nil {
			continue
		}
		v := get(r.Workload)
		row.Values[i] = v
		set = set || v != Absent
		if !seen {
			first, seen = v, true
		} else if v != first {
			row.Differs = true
		}
	}
	if set {
		c.rows = append(c.rows, row)
	}
}

// containers names every container of the read workloads, in the order
// the contexts' templates first name them.
func (c *comparer) containers() []string {
	var out []string
	for _, r := range c.reads {
		for _, ct := range r.Workload.Containers {
			if r.Err == nil && !slices.Contains(out, ct.Name) {
				out = append(out, ct.Name)
			}
		}
	}
	return out
}

// envNames names every env entry of container name, first seen first.
func (c *comparer) envNames(name string) []string {
	var out []string
	for _, r := range c.reads {
		if r.Err != nil {
			continue
		}
		if ct, ok := r.Workload.Container(name); ok {
			for _, e := range ct.Env {
				if !slices.Contains(out, e.Name) {
					out = append(out, e.Name)
				}
			}
		}
	}
	return out
}

// keys returns every key of the maps of the read workloads, sorted.
func (c *comparer) keys(of func(kube.Workload) map[string]string) []string {
	set := map[string]bool{}
	for _, r := range c.reads {
		if r.Err == nil {
			for k := range of(r.Workload) {
				set[k] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// envValue is one env entry's value as the comparison shows it: a literal
// value quoted as Go quotes it when it holds what would not read back
// (spaces at its ends, control characters), a Secret or ConfigMap
// reference by name and key ("secret db/password": never the value), a
// field or resource reference by its path ("field metadata.name",
// "resource limits.memory / 1Mi"); several entries of one name
// (casebook C20) are joined with " | ". Absent when there is none.
func envValue(env []kube.EnvVar, name string) string {
	var vals []string
	for _, e := range env {
		if e.Name != name {
			continue
		}
		switch e.Source {
		case kube.EnvLiteral:
			vals = append(vals, literal(e.Value))
		case kube.EnvSecret:
			vals = append(vals, "secret "+e.Reference())
		case kube.EnvConfigMap:
			vals = append(vals, "configmap "+e.Reference())
		case kube.EnvField:
			vals = append(vals, "field "+e.FieldPath)
		case kube.EnvResource:
			v := "resource " + e.Resource
			if e.ContainerName != "" {
				v += " of " + e.ContainerName
			}
			if e.Divisor != "" {
				v += " / " + e.Divisor
			}
			vals = append(vals, v)
		default:
			vals = append(vals, fmt.Sprintf("%s %s", e.Source, e.Path))
		}
	}
	if len(vals) == 0 {
		return Absent
	}
	return strings.Join(vals, " | ")
}

// literal shows a value as is when it reads back as itself, else quoted.
func literal(v string) string {
	if v == "" || v == Absent || strings.TrimSpace(v) != v || strconv.Quote(v) != `"`+v+`"` {
		return strconv.Quote(v)
	}
	return v
}

// argv shows an argv list as a shell would read it back: each element
// quoted when it holds a space or a quote; Absent for nil.
func argv(list []string) string {
	if list == nil {
		return Absent
	}
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = a
		if a == "" || strings.ContainsAny(a, " \t\"'\\") || strconv.Quote(a) != `"`+a+`"` {
			out[i] = strconv.Quote(a)
		}
	}
	return strings.Join(out, " ")
}

// valueOf is m[k], quoted as literal does, or Absent.
func valueOf(m map[string]string, k string) string {
	v, ok := m[k]
	if !ok {
		return Absent
	}
	return literal(v)
}

// orAbsent is v, or Absent for "".
func orAbsent(v string) string {
	if v == "" {
		return Absent
	}
	return v
}
