package kube

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"unique"
)

// internLimit bounds each of an interner's tables: past it a table starts
// afresh (rows keep what they share; only new rows stop sharing with
// them), so that churn through many label sets does not grow it forever.
const internLimit = 8192

// interner makes the rows of one cache share what many of them hold
// alike: the label sets of a ReplicaSet's pods, the selectable fields of
// the pods on one node in one phase, an owner's UID, the requests of one
// pod template, namespaces and status words. Rows are read-only once made
// (Table: "read only"), so sharing is invisible to their readers. Safe for
// concurrent use.
type interner struct {
	mu        sync.Mutex
	labels    map[string]map[string]string
	fields    map[string]map[string]string
	owners    map[string][]string
	resources map[string]*RowResources
}

// row returns r with its shareable parts replaced by shared copies.
func (in *interner) row(r Row) Row {
	r.Namespace = internString(r.Namespace)
	r.Status = internString(r.Status)
	r.CannotStart = internString(r.CannotStart)
	in.mu.Lock()
	defer in.mu.Unlock()
	r.Labels = internMap(&in.labels, r.Labels)
	r.Fields = internMap(&in.fields, r.Fields)
	if len(r.Owners) > 0 {
		key := strings.Join(r.Owners, "\x00")
		if in.owners == nil || len(in.owners) > internLimit {
			in.owners = map[string][]string{}
		}
		if o, ok := in.owners[key]; ok {
			r.Owners = o
		} else {
			in.owners[key] = r.Owners
		}
	}
	if r.Resources != nil {
		key := resourcesKey(r.Resources)
		if in.resources == nil || len(in.resources) > internLimit {
			in.resources = map[string]*RowResources{}
		}
		if res, ok := in.resources[key]; ok {
			r.Resources = res
		} else {
			in.resources[key] = r.Resources
		}
	}
	return r
}

// internString returns the shared copy of s (package unique's handles are
// dropped once no row holds them).
func internString(s string) string {
	if s == "" {
		return ""
	}
	return unique.Make(s).Value()
}

// internMap returns the shared map equal to m from *table (adding m when
// there is none), starting the table afresh past internLimit.
func internMap(table *map[string]map[string]string, m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(m[k])
		b.WriteByte(0)
	}
	key := b.String()
	if *table == nil || len(*table) > internLimit {
		*table = map[string]map[string]string{}
	}
	if shared, ok := (*table)[key]; ok {
		return shared
	}
	(*table)[key] = m
	return m
}

// resourcesKey encodes everything RowResources holds.
func resourcesKey(r *RowResources) string {
	var b []byte
	num := func(v int64) { b = strconv.AppendInt(append(b, 0), v, 10) }
	num(r.Allocatable.CPU)
	num(r.Allocatable.Memory)
	for _, c := range r.Containers {
		b = append(append(b, 1), c.Name...)
		num(c.Requests.CPU)
		num(c.Requests.Memory)
		num(c.Limits.CPU)
		num(c.Limits.Memory)
		if c.NativeSidecar {
			b = append(b, 2)
		}
	}
	return string(b)
}
