package kinds

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// tableAccept asks the API server for its Table rendering of a list (what
// `kubectl get` prints), falling back to plain JSON for a server that has
// none (the fallback fails to decode as a Table, and List says so).
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"

// tablePageSize is how many objects one request of a Table list asks for,
// kubectl's default --chunk-size.
const tablePageSize = 500

// Table is the default plugin: it serves any kind without a plugin of its
// own (CRDs, aggregated APIs, built-in resources such as ConfigMaps) from
// the API server's own Table answer, the columns `kubectl get` prints for
// the kind, additionalPrinterColumns included. Make one per kind with
// NewTable; Options.TablePlugin takes NewTable, and Client.Discover calls it.
//
// Its columns are learned from the server: before the first List it names
// NAME and AGE, afterwards the Table's columnDefinitions (priority 0 a
// normal column, above 0 a Wide one, as `kubectl get -o wide`). A Table
// plugin is safe for concurrent use.
type Table struct {
	info vocab.KindInfo

	mu      sync.Mutex
	columns []vocab.Column // from the last answer; nil before the first
}

// NewTable returns the default plugin for the kind info describes (ID,
// Group, Version, Resource, Namespaced, Aliases, Capabilities; its Columns
// are ignored and learned from the server).
func NewTable(info vocab.KindInfo) vocab.Plugin {
	info.Columns = nil
	return &Table{info: info}
}

// defaultTableColumns are the columns of a kind the server has not yet
// answered for: every Table the API server builds starts with Name, and
// most end with Age.
var defaultTableColumns = []vocab.Column{{Name: "NAME"}, {Name: "AGE"}}

// Info describes the kind, with the columns of the last List's answer. A
// kind whose columns include LAST SEEN (events of the events.k8s.io group)
// sorts by it, newest first, as the built-in events.
func (t *Table) Info() vocab.KindInfo {
	info := t.info
	t.mu.Lock()
	info.Columns = t.columns
	t.mu.Unlock()
	if info.Columns == nil {
		info.Columns = defaultTableColumns
	}
	for _, c := range info.Columns {
		if info.SortColumn == "" && c.Name == "LAST SEEN" {
			// Events of another API group (events.events.k8s.io): newest
			// first, as the built-in events.
			info.SortColumn, info.SortDescending = c.Name, true
		}
	}
	return info
}

// tableColumn is one column definition of a Table answer.
type tableColumn struct {
	name string // as the server names it ("Age", "Last Seen")
	// date marks a column of type date: the server renders it as the
	// time since the value, at the moment it answers ("5m").
	date bool
}

// serverRow is one row of the API server's Table answer, as List returns it
// and Row accepts it: the cells as the server sent them (strings,
// json.Number, booleans, nil) with the column definitions of the same
// answer, and the object's metadata (includeObject=Metadata).
type serverRow struct {
	cells    []any
	columns  []tableColumn
	meta     metav1.PartialObjectMetadata
	answered time.Time // when the server's answer was read
}

// List reads the kind's Table in namespace ("" for all; ignored for
// cluster-scoped kinds) through the clientset's discovery REST client, in
// pages of 500 as kubectl does, with sel's label and field selectors as
// query parameters. It returns one *serverRow per row. Errors: the API
// server's (forbidden, not found, ...), an answer that is not a Table, and a
// clientset without a discovery REST client (client-go's fake clientset).
func (t *Table) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	lw := &tableListWatch{t: t, rc: cs.Discovery().RESTClient(), path: t.path(namespace)}
	var out []any
	opts := metav1.ListOptions{LabelSelector: sel.Labels, FieldSelector: sel.Fields, Limit: tablePageSize}
	for {
		page, err := lw.ListWithContext(ctx, opts)
		if err != nil {
			return nil, err
		}
		list := page.(*tableRowList)
		for _, row := range list.Items {
			out = append(out, row)
		}
		opts.Continue = list.Continue
		if opts.Continue == "" {
			return out, nil
		}
	}
}

// path is the URL path of the kind's objects in namespace ("" for all;
// ignored for cluster-scoped kinds).
func (t *Table) path(namespace string) string {
	path := "/api/" + t.info.Version
	if t.info.Group != "" {
		path = "/apis/" + t.info.Group + "/" + t.info.Version
	}
	if t.info.Namespaced && namespace != "" {
		path += "/namespaces/" + namespace
	}
	return path + "/" + t.info.Resource
}

// decodeTable decodes a Table answer, numbers kept as json.Number so that
// integers print as integers. An answer of another kind (a server that
// ignored the Table media type) is an error.
func decodeTable(body []byte) (*metav1.Table, error) {
	var table metav1.Table
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&table); err != nil {
		return nil, fmt.Errorf("decode Table: %w", err)
	}
	if table.Kind != "Table" {
		return nil, errors.New("the API server did not answer with a Table (kind " + strconv.Quote(table.Kind) + ")")
	}
	return &table, nil
}

// learn records the columns of an answer: upper case as kubectl prints
// them, priority above 0 a Wide column.
func (t *Table) learn(defs []metav1.TableColumnDefinition) {
	cols := make([]vocab.Column, len(defs))
	for i, d := range defs {
		cols[i] = vocab.Column{Name: strings.ToUpper(d.Name), Wide: d.Priority > 0}
	}
	t.mu.Lock()
	t.columns = cols
	t.mu.Unlock()
}

// Row turns a *serverRow into a vocab.Row: the identity from the row's
// metadata (name, namespace, UID, creation time, labels, owners) and one
// cell per column of its answer, printed as kubectl prints Table cells
// (tableCell). Status and Health come from tableHealth; a row with no
// STATUS whose TYPE is Warning (an event) is a warning.
func (t *Table) Row(obj any) (vocab.Row, bool) {
	r, ok := obj.(*serverRow)
	if !ok {
		return vocab.Row{}, false
	}
	row := identity(&r.meta.ObjectMeta)
	row.Cells = make([]vocab.Cell, len(r.columns))
	status, ready, typ := "", "", ""
	for i, col := range r.columns {
		var v any
		if i < len(r.cells) {
			v = r.cells[i]
		}
		row.Cells[i] = tableCell(col, v, row.Created, r.answered)
		switch {
		case strings.EqualFold(col.name, "status"):
			status = row.Cells[i].Text
		case strings.EqualFold(col.name, "ready"):
			ready = row.Cells[i].Text
		case strings.EqualFold(col.name, "type"):
			typ = row.Cells[i].Text
		}
	}
	if row.Name == "" && len(row.Cells) > 0 {
		row.Name = row.Cells[0].Text
	}
	row.Status, row.Health = tableHealth(status, ready)
	if status == "" && typ == "Warning" {
		// An event of another API group, judged as the built-in events.
		row.Status, row.Health = typ, vocab.HealthWarning
	}
	return row, true
}

// tableCell prints one Table cell the way kubectl's table printer does
// (k8s.io/cli-runtime/pkg/printers/tableprinter.go): a string as is, cut at
// its first line break with "..." appended; an integer in decimal; any
// other value with fmt's %v; nil as nothing. Two kinds of cells are ages
// instead, rendered when they are drawn, as kubectl would print them then:
// a column named Age is the object's age (created), which the server
// rendered from metadata.creationTimestamp when it answered ("10m"); and a
// cell of a date column (a CRD's date-typed printer column, an event's
// "Last Seen") that reads as a duration is that long before answered. A
// date-time text (a CRD's "Created At" of format date-time) stays as the
// server wrote it.
func tableCell(col tableColumn, v any, created, answered time.Time) vocab.Cell {
	if strings.EqualFold(col.name, "age") && !created.IsZero() {
		return vocab.Age(created)
	}
	if text, ok := v.(string); ok && col.date && !answered.IsZero() {
		if d, ok := parseHumanDuration(text); ok {
			return vocab.Cell{Since: answered.Add(-d)}
		}
	}
	switch v := v.(type) {
	case nil:
		return vocab.Text("")
	case string:
		if i := strings.IndexAny(v, "\f\n\r"); i >= 0 {
			v = v[:i] + "..."
		}
		return vocab.Text(v)
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return vocab.Text(strconv.FormatInt(n, 10))
		}
		if f, err := v.Float64(); err == nil {
			return vocab.Text(fmt.Sprint(f))
		}
		return vocab.Text(v.String())
	default:
		return vocab.Text(fmt.Sprint(v))
	}
}

// tableHealth judges a row of a kind kyyard knows nothing about from its
// STATUS and READY cells, and only where they clearly say something: a
// STATUS naming a failure (Failed, Error, CrashLoopBackOff, ImagePullBackOff,
// Unhealthy, Degraded, NotReady, Lost) is failed; Pending, Progressing,
// Creating or Provisioning is progressing; Terminating, a READY of "False"
// or "n/m" with n < m is a warning (vocab.Health's own words). Anything else is ok. The status text is
// the STATUS cell ("" without one).
func tableHealth(status, ready string) (string, vocab.Health) {
	s := strings.ToLower(status)
	for _, word := range []string{"fail", "error", "crashloop", "backoff", "unhealthy", "degraded", "notready", "not ready", "lost"} {
		if strings.Contains(s, word) {
			return status, vocab.HealthFailed
		}
	}
	for _, word := range []string{"pending", "progressing", "creating", "provisioning"} {
		if strings.Contains(s, word) {
			return status, vocab.HealthProgressing
		}
	}
	if strings.Contains(s, "terminating") || strings.EqualFold(ready, "false") {
		return status, vocab.HealthWarning
	}
	if have, want, ok := strings.Cut(ready, "/"); ok {
		h, err1 := strconv.Atoi(have)
		w, err2 := strconv.Atoi(want)
		if err1 == nil && err2 == nil && h < w {
			return status, vocab.HealthWarning
		}
	}
	return status, vocab.HealthOK
}

// statusError returns the API server's own Status (its reason and message,
// as kubectl prints them) when the body of a failed request holds one: the
// discovery REST client, which asks for the Table, cannot decode it itself
// and reports only "unknown". Other errors are returned as they are.
func statusError(err error, body []byte) error {
	var st metav1.Status
	if len(body) == 0 || json.Unmarshal(body, &st) != nil || st.Kind != "Status" || st.Message == "" {
		return err
	}
	return &apierrors.StatusError{ErrStatus: st}
}

// parseHumanDuration reads back what apimachinery's duration.HumanDuration
// writes ("45s", "3m20s", "5h", "2d3h", "3y12d"), with a year of 365 days;
// ok is false for anything else ("<invalid>", "<unknown>", a timestamp).
// The result is as precise as the text: a date column the server rendered
// as "5d" comes back as exactly five days.
func parseHumanDuration(s string) (d time.Duration, ok bool) {
	if s == "" {
		return 0, false
	}
	units := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'y': 365 * 24 * time.Hour}
	for s != "" {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 || i == len(s) || i > 9 {
			return 0, false
		}
		unit, known := units[s[i]]
		if !known {
			return 0, false
		}
		n, _ := strconv.Atoi(s[:i])
		d += time.Duration(n) * unit
		s = s[i+1:]
	}
	return d, true
}
