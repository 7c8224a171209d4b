package kinds

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// The methods below make a *serverRow an object client-go's informer can
// keep: its identity is the row's object metadata (includeObject=Metadata).

// GetObjectKind implements runtime.Object; a row has no kind of its own.
func (r *serverRow) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject implements runtime.Object. Cells are shared: they are
// never changed after decoding.
func (r *serverRow) DeepCopyObject() runtime.Object {
	out := &serverRow{cells: r.cells, columns: r.columns, answered: r.answered}
	r.meta.DeepCopyInto(&out.meta)
	return out
}

// GetObjectMeta implements metav1.ObjectMetaAccessor, which is how the
// informer's store names the row (namespace/name) and reads its
// resourceVersion.
func (r *serverRow) GetObjectMeta() metav1.Object { return &r.meta.ObjectMeta }

// tableRowList is one page of a Table answer as the informer's reflector
// reads a list: the list's resourceVersion and continue token, and the rows.
type tableRowList struct {
	metav1.ListMeta
	Items []*serverRow
}

func (l *tableRowList) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

func (l *tableRowList) DeepCopyObject() runtime.Object {
	out := &tableRowList{Items: make([]*serverRow, len(l.Items))}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	for i, r := range l.Items {
		out.Items[i] = r.DeepCopyObject().(*serverRow)
	}
	return out
}

// GetListMeta implements metav1.ListMetaAccessor.
func (l *tableRowList) GetListMeta() metav1.ListInterface { return &l.ListMeta }

// ListWatch implements kube.Watcher: a cache.ListerWatcher over the kind's
// Table answer in namespace ("" for all), so that a kind kyyard has no
// plugin for (a CRD) is cached like a built-in one, and a *serverRow as the
// example object. The list asks for the Table page by page; the watch asks
// for it too, and the API server then sends each changed object as a Table
// of one row (what `kubectl get -w` reads), the column definitions only in
// its first event. Errors of both are the API server's own Status.
func (t *Table) ListWatch(cs kubernetes.Interface, namespace string) (lw, example any) {
	var out cache.ListerWatcher = &tableListWatch{t: t, rc: cs.Discovery().RESTClient(), path: t.path(namespace)}
	return out, &serverRow{}
}

// tableListWatch lists and watches one kind's Table for an informer.
type tableListWatch struct {
	t    *Table
	rc   rest.Interface
	path string

	mu      sync.Mutex
	columns []tableColumn // of the latest answer; watch events but the first lack them
	defs    []metav1.TableColumnDefinition
	listed  bool // a list was read since the last watch started
}

// takeListed reports whether a list was read since the last watch
// started, and starts a new watch's count.
func (lw *tableListWatch) takeListed() bool {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	listed := lw.listed
	lw.listed = false
	return listed
}

// IsWatchListSemanticsUnSupported tells client-go's reflector to list and
// then watch instead of asking for a watch that streams the initial list:
// a Table watch has no way to mark where the initial list ends.
func (lw *tableListWatch) IsWatchListSemanticsUnSupported() bool { return true }

func (lw *tableListWatch) List(opts metav1.ListOptions) (runtime.Object, error) {
	return lw.ListWithContext(context.Background(), opts)
}

func (lw *tableListWatch) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return lw.WatchWithContext(context.Background(), opts)
}

// ListWithContext reads one page of the Table, with the reflector's
// resourceVersion, limit and continue token.
func (lw *tableListWatch) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	table, err := lw.readTable(ctx, opts)
	if err != nil {
		return nil, err
	}
	columns := lw.learn(table.ColumnDefinitions)
	lw.mu.Lock()
	lw.listed = true
	lw.mu.Unlock()
	list := &tableRowList{ListMeta: table.ListMeta, Items: make([]*serverRow, 0, len(table.Rows))}
	for _, r := range table.Rows {
		row, err := tableRow(r, columns)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", lw.t.info.ID, err)
		}
		list.Items = append(list.Items, row)
	}
	return list, nil
}

// WatchWithContext watches the Table from the reflector's resourceVersion.
// Bookmarks are not asked for: a Table bookmark is an empty Table.
func (lw *tableListWatch) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if lw.rc == nil {
		return nil, lw.noRESTClient()
	}
	if !lw.takeListed() {
		// The watch starts again without a list before it (the server
		// ended the last one): its first event would bring the columns,
		// but a quiet kind sends none, so ask for one row's Table to see
		// whether they changed (a CRD's printer columns edited), and if
		// so make the reflector list again.
		table, err := lw.readTable(ctx, metav1.ListOptions{Limit: 1})
		if err != nil {
			return nil, err
		}
		if _, changed := lw.learnChanged(table.ColumnDefinitions); changed {
			return nil, errColumnsChanged()
		}
	}
	opts.Watch, opts.AllowWatchBookmarks = true, false
	stream, err := lw.request(opts).Stream(ctx)
	if err != nil {
		// client-go keeps the status code when it cannot decode the
		// server's Status, so forbidden is still forbidden.
		return nil, err
	}
	dec := &tableEventDecoder{lw: lw, body: stream, dec: json.NewDecoder(stream)}
	dec.dec.UseNumber()
	return watch.NewStreamWatcher(dec, apierrors.NewClientErrorReporter(http.StatusInternalServerError, "GET", "TableWatchDecoding")), nil
}

// readTable reads one Table answer with opts as query parameters. Errors:
// the API server's own Status, an answer that is not a Table, and a
// clientset without a discovery REST client (client-go's fake clientset).
func (lw *tableListWatch) readTable(ctx context.Context, opts metav1.ListOptions) (*metav1.Table, error) {
	if lw.rc == nil {
		return nil, lw.noRESTClient()
	}
	body, err := lw.request(opts).Do(ctx).Raw()
	if err != nil {
		return nil, statusError(err, body)
	}
	table, err := decodeTable(body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", lw.t.info.ID, err)
	}
	return table, nil
}

func (lw *tableListWatch) noRESTClient() error {
	return fmt.Errorf("%s: the clientset has no discovery REST client to ask for the server's Table", lw.t.info.ID)
}

// errColumnsChanged is a 410 Expired: the rows kept so far have columns
// the server no longer sends, and client-go's reflector lists again after
// an expired watch.
func errColumnsChanged() *apierrors.StatusError {
	return apierrors.NewResourceExpired("the Table's columns changed; listing again")
}

// request builds a Table request of the kind's path with opts as query
// parameters.
func (lw *tableListWatch) request(opts metav1.ListOptions) *rest.Request {
	req := lw.rc.Get().AbsPath(lw.path).SetHeader("Accept", tableAccept).Param("includeObject", "Metadata")
	params := map[string]string{
		"resourceVersion": opts.ResourceVersion, "resourceVersionMatch": string(opts.ResourceVersionMatch),
		"continue": opts.Continue, "labelSelector": opts.LabelSelector, "fieldSelector": opts.FieldSelector,
	}
	if opts.Limit > 0 {
		params["limit"] = strconv.FormatInt(opts.Limit, 10)
	}
	if opts.TimeoutSeconds != nil {
		params["timeoutSeconds"] = strconv.FormatInt(*opts.TimeoutSeconds, 10)
	}
	if opts.Watch {
		params["watch"] = "true"
	}
	for k, v := range params {
		if v != "" {
			req = req.Param(k, v)
		}
	}
	return req
}

// learn keeps an answer's column definitions (when it has any) and returns
// the ones in force.
func (lw *tableListWatch) learn(defs []metav1.TableColumnDefinition) []tableColumn {
	columns, _ := lw.learnChanged(defs)
	return columns
}

// learnChanged is learn, and also reports whether defs, when given,
// differ from the column definitions learnt before (a CRD's printer
// columns were edited).
func (lw *tableListWatch) learnChanged(defs []metav1.TableColumnDefinition) (columns []tableColumn, changed bool) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if len(defs) > 0 || lw.columns == nil {
		changed = lw.columns != nil && !slices.Equal(defs, lw.defs)
		lw.columns, lw.defs = tableColumns(defs), defs
		lw.t.learn(defs)
	}
	return lw.columns, changed
}

// tableRow makes the serverRow of one row of an answer.
func tableRow(r metav1.TableRow, columns []tableColumn) (*serverRow, error) {
	row := &serverRow{cells: r.Cells, columns: columns, answered: time.Now()}
	if len(r.Object.Raw) > 0 {
		if err := json.Unmarshal(r.Object.Raw, &row.meta); err != nil {
			return nil, fmt.Errorf("decode row metadata: %w", err)
		}
	}
	return row, nil
}

// tableEventDecoder decodes a Table watch's JSON events for client-go's
// StreamWatcher: ADDED, MODIFIED and DELETED carry a Table of one row,
// ERROR a Status.
type tableEventDecoder struct {
	lw   *tableListWatch
	body io.ReadCloser
	dec  *json.Decoder
}

// Decode returns the next event. A Table event without a row is an error,
// and so is any event type a watch does not send.
func (d *tableEventDecoder) Decode() (watch.EventType, runtime.Object, error) {
	var ev struct {
		Type   watch.EventType `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	if err := d.dec.Decode(&ev); err != nil {
		return "", nil, err
	}
	switch ev.Type {
	case watch.Error:
		var st metav1.Status
		if err := json.Unmarshal(ev.Object, &st); err != nil {
			return "", nil, fmt.Errorf("decode watch error: %w", err)
		}
		return watch.Error, &st, nil
	case watch.Added, watch.Modified, watch.Deleted:
		table, err := decodeTable(ev.Object)
		if err != nil {
			return "", nil, err
		}
		if len(table.Rows) != 1 {
			return "", nil, fmt.Errorf("a %s event of %d Table rows, want 1", ev.Type, len(table.Rows))
		}
		columns, changed := d.lw.learnChanged(table.ColumnDefinitions)
		if changed {
			st := errColumnsChanged().Status()
			return watch.Error, &st, nil
		}
		row, err := tableRow(table.Rows[0], columns)
		if err != nil {
			return "", nil, err
		}
		return ev.Type, row, nil
	default:
		return "", nil, fmt.Errorf("unexpected watch event type %q", ev.Type)
	}
}

// Close ends the watch's response body.
func (d *tableEventDecoder) Close() { _ = d.body.Close() }

// tableColumns keeps what rows need of an answer's column definitions.
func tableColumns(defs []metav1.TableColumnDefinition) []tableColumn {
	columns := make([]tableColumn, len(defs))
	for i, def := range defs {
		columns[i] = tableColumn{name: def.Name, date: def.Type == "date" || seenColumn(def.Name)}
	}
	return columns
}

// seenColumn reports whether a column is one of the event printer's
// "Last Seen" and "First Seen": typed string, but written like a date
// column, as the time since a moment at the server's answer ("4m").
func seenColumn(name string) bool {
	return strings.EqualFold(name, "Last Seen") || strings.EqualFold(name, "First Seen")
}
