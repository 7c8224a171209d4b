// Package oracle is kyyard's differential test against Kubernetes' own
// printers: it prints objects with the table handlers of
// k8s.io/kubernetes/pkg/printers/internalversion (wide columns on, what the
// API server's Table answer holds) and with kyyard's kind plugins
// (kube/kinds), and compares the two rows cell by cell.
//
// Inputs are hand-written corner cases and generated objects (a seeded,
// reproducible generator per kind), each compared as written and as the API
// server would default it. An object is converted from its v1 type to the
// internal type through legacyscheme, as the API server does before printing.
// Ages compare equal within Skew of clock; nothing else is loosened.
//
// This is a module of its own so that k8s.io/kubernetes never enters
// kyyard's module graph.
package oracle

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/printers"
	printersinternal "k8s.io/kubernetes/pkg/printers/internalversion"

	// The install packages register the internal types, their conversions
	// from v1 and the v1 defaulters in legacyscheme, as in the API server.
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"

	"github.com/kyyard/kyyard/kube"
)

// Skew is how far apart two clocks may be for ages to compare equal: the
// printer reads time.Now itself, kyyard's cell is rendered at a given now.
const Skew = 3 * time.Second

// Printer prints objects as the API server's Table answer does.
type Printer struct {
	gen *printers.HumanReadableGenerator
}

// NewPrinter returns a Printer over Kubernetes' internalversion handlers.
func NewPrinter() *Printer {
	return &Printer{gen: printers.NewTableGenerator().With(printersinternal.AddHandlers)}
}

// defaultConvertors are the kinds the API server prints with its default
// table (NAME, CREATED AT) because no handler is registered for them.
var defaultConvertors = map[string]rest.TableConvertor{
	"Role":        rest.NewDefaultTableConvertor(schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "roles"}),
	"ClusterRole": rest.NewDefaultTableConvertor(schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}),
}

// Table prints a v1 object (it is not changed) and returns the column
// definitions and the one row's cells as kubectl prints them (fmt.Sprint of
// non-string cells, "" for nil).
func (p *Printer) Table(obj runtime.Object) (cols []metav1.TableColumnDefinition, cells []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("printer panicked: %v", r)
		}
	}()
	kinds, _, err := legacyscheme.Scheme.ObjectKinds(obj)
	if err != nil {
		return nil, nil, err
	}
	gvk := kinds[0]
	internal, err := legacyscheme.Scheme.ConvertToVersion(obj.DeepCopyObject(), schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal})
	if err != nil {
		return nil, nil, fmt.Errorf("convert %s to internal: %w", gvk, err)
	}
	// kubectl get lists: the object is printed as a one-item list, through
	// the list handler (printStorageClassList marks the effective default
	// class, printStorageClass alone never does).
	list, err := legacyscheme.Scheme.New(schema.GroupVersionKind{Group: gvk.Group, Version: runtime.APIVersionInternal, Kind: gvk.Kind + "List"})
	if err != nil {
		return nil, nil, err
	}
	if err := meta.SetList(list, []runtime.Object{internal}); err != nil {
		return nil, nil, err
	}
	var table *metav1.Table
	if conv, ok := defaultConvertors[gvk.Kind]; ok {
		table, err = conv.ConvertToTable(context.Background(), list, nil)
	} else {
		table, err = p.gen.GenerateTable(list, printers.GenerateOptions{Wide: true})
	}
	if err != nil {
		return nil, nil, err
	}
	if len(table.Rows) != 1 {
		return nil, nil, fmt.Errorf("printer gave %d rows", len(table.Rows))
	}
	for _, c := range table.Rows[0].Cells {
		switch v := c.(type) {
		case nil:
			cells = append(cells, "")
		case string:
			cells = append(cells, v)
		default:
			cells = append(cells, fmt.Sprint(v))
		}
	}
	return table.ColumnDefinitions, cells, nil
}

// Default applies the scheme's defaulters to a copy of a v1 object, as the
// API server does when it decodes a request.
func Default(obj runtime.Object) runtime.Object {
	c := obj.DeepCopyObject()
	legacyscheme.Scheme.Default(c)
	return c
}

// defaultSafely is Default, or nil when a defaulter panics (on a fuzzed
// object no API server would have accepted).
func defaultSafely(obj runtime.Object) (out runtime.Object) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	return Default(obj)
}

// Mismatch is one cell on which kyyard and Kubernetes' printer differ.
type Mismatch struct {
	// Kind is the plugin's kind ID (pods).
	Kind string
	// Column is the column's name (STATUS); "(row)" when the rows differ in
	// shape or one side failed.
	Column string
	// Want is Kubernetes' cell, Got kyyard's (rendered at now).
	Want, Got string
}

// String is the mismatch on one line: kind, column, both cells quoted.
func (m Mismatch) String() string {
	return fmt.Sprintf("%s %s: kubectl %q, kyyard %q", m.Kind, m.Column, m.Want, m.Got)
}

// Compare prints obj with both printers and returns the cells that differ.
// kyyard's cells are rendered at now; a cell holding a time (Cell.Since) also
// matches when rendered anywhere within Skew of now.
func (p *Printer) Compare(plugin kube.Plugin, obj runtime.Object, now time.Time) []Mismatch {
	id := string(plugin.Info().ID)
	cols, want, err := p.Table(obj)
	if err != nil {
		return []Mismatch{{Kind: id, Column: "(row)", Want: "error: " + err.Error()}}
	}
	row, ok := plugin.Row(obj)
	if !ok {
		return []Mismatch{{Kind: id, Column: "(row)", Got: "plugin refused the object"}}
	}
	info := plugin.Info()
	var out []Mismatch
	if len(info.Columns) != len(cols) || len(row.Cells) != len(want) {
		return []Mismatch{{Kind: id, Column: "(row)", Want: fmt.Sprintf("%d columns, %d cells", len(cols), len(want)),
			Got: fmt.Sprintf("%d columns, %d cells", len(info.Columns), len(row.Cells))}}
	}
	for i, c := range cols {
		name := strings.ToUpper(c.Name)
		if info.Columns[i].Name != name || info.Columns[i].Wide != (c.Priority != 0) {
			out = append(out, Mismatch{Kind: id, Column: "(header)", Want: fmt.Sprintf("%s wide=%v", name, c.Priority != 0),
				Got: fmt.Sprintf("%s wide=%v", info.Columns[i].Name, info.Columns[i].Wide)})
			continue
		}
		if !cellMatches(row.Cells[i], want[i], now) {
			out = append(out, Mismatch{Kind: id, Column: name, Want: want[i], Got: row.Cells[i].Render(now)})
		}
	}
	return out
}

// cellMatches compares a kyyard cell with kubectl's text: exactly, or for a
// cell holding a time, at some moment within Skew of now.
func cellMatches(c kube.Cell, want string, now time.Time) bool {
	if c.Render(now) == want {
		return true
	}
	if c.Since.IsZero() {
		return false
	}
	for d := -Skew; d <= Skew; d += 250 * time.Millisecond {
		if c.Render(now.Add(d)) == want {
			return true
		}
	}
	return false
}
