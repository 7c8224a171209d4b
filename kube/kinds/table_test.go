package kinds_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// tableServer is a tiny API server: legacy discovery for the core group
// and example.com/v1 (widgets), and a widgets Table answer in two pages.
type tableServer struct {
	t       *testing.T
	created time.Time
	mu      sync.Mutex
	queries []string // of every widgets request
	plain   bool     // answer widgets with a list, not a Table
	forbid  bool     // answer widgets with 403 and the API server's Status
	// watchable lists the watch verb for widgets; a watch of them then
	// streams what the test sends on events, one JSON event each.
	watchable bool
	events    chan string
	// columns, when set, replaces widgetColumns in list answers (a CRD's
	// printer columns edited).
	columns string
}

func (s *tableServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	write := func(v any) {
		if err := json.NewEncoder(w).Encode(v); err != nil {
			s.t.Error(err)
		}
	}
	switch r.URL.Path {
	case "/api":
		write(metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"}})
	case "/apis":
		v := metav1.GroupVersionForDiscovery{GroupVersion: "example.com/v1", Version: "v1"}
		write(metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
			Groups: []metav1.APIGroup{{Name: "example.com", Versions: []metav1.GroupVersionForDiscovery{v}, PreferredVersion: v}}})
	case "/api/v1":
		write(metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList"}, GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "pods", SingularName: "pod", Kind: "Pod", Namespaced: true, Verbs: metav1.Verbs{"list"}, ShortNames: []string{"po"}},
		}})
	case "/apis/example.com/v1":
		write(metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList"}, GroupVersion: "example.com/v1", APIResources: []metav1.APIResource{
			{Name: "widgets", SingularName: "widget", Kind: "Widget", Namespaced: true, Verbs: s.widgetVerbs(), ShortNames: []string{"wd"}},
		}})
	case "/apis/example.com/v1/namespaces/ns1/widgets":
		s.mu.Lock()
		s.queries = append(s.queries, r.URL.RawQuery)
		s.mu.Unlock()
		if !strings.Contains(r.Header.Get("Accept"), "as=Table;v=v1;g=meta.k8s.io") {
			s.t.Errorf("Accept %q asks for no Table", r.Header.Get("Accept"))
		}
		if r.URL.Query().Get("watch") == "true" {
			s.watch(w, r)
			return
		}
		if s.plain {
			write(map[string]any{"kind": "WidgetList", "apiVersion": "example.com/v1", "items": []any{}})
			return
		}
		if s.forbid {
			w.WriteHeader(http.StatusForbidden)
			write(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
				Reason: metav1.StatusReasonForbidden, Code: http.StatusForbidden,
				Message: `widgets.example.com is forbidden: User "jane" cannot list resource "widgets"`})
			return
		}
		w.Write([]byte(s.page(r.URL.Query().Get("continue"))))
	default:
		http.NotFound(w, r)
	}
}

func (s *tableServer) widgetVerbs() metav1.Verbs {
	if s.watchable {
		return metav1.Verbs{"list", "watch", "delete"}
	}
	return metav1.Verbs{"list", "delete"}
}

// watch streams the test's events until the request ends.
func (s *tableServer) watch(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case ev := <-s.events:
			if ev == "CLOSE" { // the server ends the watch
				return
			}
			if _, err := w.Write([]byte(ev + "\n")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

// page returns one page of the widgets Table: columns Name, Status, Ready,
// Replicas (integer), Ratio (number, wide), Enabled (boolean, wide),
// Expires (date-time, wide, as text), Note (string with a line break, wide) and Age.
func (s *tableServer) page(cont string) string {
	created := s.created.Format(time.RFC3339)
	expires := s.created.Add(-90 * time.Minute).Format(time.RFC3339)
	s.mu.Lock()
	columns := widgetColumns
	if s.columns != "" {
		columns = s.columns
	}
	s.mu.Unlock()
	meta := func(name, uid string) string { return widgetMeta(created, name, uid) }
	if cont == "" {
		return `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"continue":"page2","resourceVersion":"10"},` + columns + `,"rows":[
		  {"cells":["alpha","Running","1/1",3,0.5,true,"` + expires + `","line one\nline two","10m"],"object":` + meta("alpha", "uid-a") + `},
		  {"cells":["beta","CrashLoopBackOff","0/1",12345678901,2,false,null,"",  "10m"],"object":` + meta("beta", "uid-b") + `}]}`
	}
	return `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"10"},` + columns + `,"rows":[
	  {"cells":["gamma","Pending","False",0,1e-7,true,"not a time","x","10m"],"object":` + meta("gamma", "uid-g") + `}]}`
}

// widgetColumns are the column definitions of every widgets Table.
const widgetColumns = `"columnDefinitions":[
	  {"name":"Name","type":"string","format":"name","priority":0},
	  {"name":"Status","type":"string","format":"","priority":0},
	  {"name":"Ready","type":"string","format":"","priority":0},
	  {"name":"Replicas","type":"integer","format":"","priority":0},
	  {"name":"Ratio","type":"number","format":"","priority":1},
	  {"name":"Enabled","type":"boolean","format":"","priority":1},
	  {"name":"Expires","type":"string","format":"date-time","priority":1},
	  {"name":"Note","type":"string","format":"","priority":2},
	  {"name":"Age","type":"date","format":"","priority":0}]`

// widgetMeta is a row's object: a widget's metadata in namespace ns1.
func widgetMeta(created, name, uid string) string {
	return `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"` + name +
		`","namespace":"ns1","uid":"` + uid + `","creationTimestamp":"` + created +
		`","labels":{"app":"x"},"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"owner-1"}]}}`
}

// widgetEvent is one event of a widgets Table watch: a Table of one row
// (name, status, resourceVersion), with the column definitions only when
// first (the API server sends them in the first event only).
func widgetEvent(typ, name, status, rv string, first bool, created time.Time) string {
	columns := ""
	if first {
		columns = widgetColumns + ","
	}
	meta := strings.Replace(widgetMeta(created.Format(time.RFC3339), name, "uid-"+name), `"metadata":{`, `"metadata":{"resourceVersion":"`+rv+`",`, 1)
	return `{"type":"` + typ + `","object":{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},` + columns + `"rows":[
	  {"cells":["` + name + `","` + status + `","1/1",1,1,true,null,"","1m"],"object":` + meta + `}]}}`
}

func tableClient(t *testing.T, s *tableServer) *kube.Client {
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := kube.NewFromConfig(&rest.Config{Host: srv.URL}, kube.Options{Registry: kinds.Builtin(), TablePlugin: kinds.NewTable})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if err := c.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestTablePluginRendersTheServersTable(t *testing.T) {
	created := time.Now().Add(-10 * time.Minute).Truncate(time.Second)
	s := &tableServer{t: t, created: created}
	c := tableClient(t, s)
	if _, ok := c.Kind("po"); !ok {
		t.Fatal("built-in pods lost")
	}
	before, ok := c.Kind("wd")
	if !ok || before.ID != "widgets" || before.Group != "example.com" || len(before.Columns) != 2 {
		t.Fatalf("widgets before the first list: %+v, %v", before, ok)
	}

	snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"wd"}, Namespace: "ns1", Selector: kube.Selector{Labels: "app=x", Fields: "metadata.name!=z"}})
	if len(snap.Truncated) > 0 {
		t.Fatalf("truncated: %+v", snap.Truncated)
	}
	table, _ := snap.Table("widgets")
	var cols []string
	for _, col := range table.Columns {
		name := col.Name
		if col.Wide {
			name += "*"
		}
		cols = append(cols, name)
	}
	if got, want := strings.Join(cols, " "), "NAME STATUS READY REPLICAS RATIO* ENABLED* EXPIRES* NOTE* AGE"; got != want {
		t.Errorf("columns %q, want %q", got, want)
	}
	if info, _ := c.Kind("widgets"); len(info.Columns) != 9 {
		t.Errorf("Info().Columns after the list: %+v", info.Columns)
	}

	now := created.Add(10 * time.Minute)
	expires := created.Add(-90 * time.Minute).Format(time.RFC3339) // kubectl prints date-time cells as they come
	want := map[string]struct {
		cells  string
		status string
		health kube.Health
	}{
		"alpha": {"alpha|Running|1/1|3|0.5|true|" + expires + "|line one...|10m", "Running", kube.HealthOK},
		"beta":  {"beta|CrashLoopBackOff|0/1|12345678901|2|false|||10m", "CrashLoopBackOff", kube.HealthFailed},
		"gamma": {"gamma|Pending|False|0|1e-07|true|not a time|x|10m", "Pending", kube.HealthProgressing},
	}
	if len(table.Rows) != len(want) {
		t.Fatalf("%d rows, want %d (both pages)", len(table.Rows), len(want))
	}
	for _, row := range table.Rows {
		w, ok := want[row.Name]
		if !ok {
			t.Errorf("unexpected row %q", row.Name)
			continue
		}
		texts := make([]string, len(row.Cells))
		for i, cell := range row.Cells {
			texts[i] = cell.Render(now)
		}
		if got := strings.Join(texts, "|"); got != w.cells {
			t.Errorf("%s cells %q, want %q", row.Name, got, w.cells)
		}
		if row.Status != w.status || row.Health != w.health {
			t.Errorf("%s status %q health %v, want %q %v", row.Name, row.Status, row.Health, w.status, w.health)
		}
		if row.Namespace != "ns1" || row.UID == "" || !row.Created.Equal(created) || row.Labels["app"] != "x" ||
			len(row.Owners) != 1 || row.Owners[0] != "owner-1" {
			t.Errorf("%s identity: %+v", row.Name, row)
		}
		if !row.Cells[8].Since.Equal(created) {
			t.Errorf("%s AGE is not live: %+v", row.Name, row.Cells[8])
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queries) != 2 {
		t.Fatalf("%d widget requests, want 2 pages", len(s.queries))
	}
	for _, q := range []string{"includeObject=Metadata", "labelSelector=app%3Dx", "fieldSelector=metadata.name%21%3Dz", "limit=500"} {
		if !strings.Contains(s.queries[0], q) {
			t.Errorf("query %q lacks %q", s.queries[0], q)
		}
	}
	if !strings.Contains(s.queries[1], "continue=page2") {
		t.Errorf("second page query %q has no continue token", s.queries[1])
	}
}

func TestTablePluginRefusesAnAnswerThatIsNoTable(t *testing.T) {
	s := &tableServer{t: t, created: time.Now(), plain: true}
	c := tableClient(t, s)
	snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"widgets"}, Namespace: "ns1"})
	tr, ok := snap.Truncation("widgets")
	if !ok || !strings.Contains(tr.Message, "did not answer with a Table") {
		t.Errorf("a list answer: %+v", snap)
	}
}

// TestTablePluginForbiddenSaysWhy: a refused Table list carries the API
// server's own reason and message (kubectl prints them), not "unknown".
func TestTablePluginForbiddenSaysWhy(t *testing.T) {
	s := &tableServer{t: t, created: time.Now(), forbid: true}
	c := tableClient(t, s)
	snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"widgets"}, Namespace: "ns1"})
	tr, ok := snap.Truncation("widgets")
	if !ok || tr.Reason != kube.ReasonForbidden || !strings.Contains(tr.Message, `User "jane" cannot list resource "widgets"`) {
		t.Errorf("a forbidden Table list: %+v", tr)
	}
}

func TestTablePluginRowRefusesOtherObjects(t *testing.T) {
	p := kinds.NewTable(kube.KindInfo{ID: "widgets", Resource: "widgets"})
	if _, ok := p.Row(&metav1.PartialObjectMetadata{}); ok {
		t.Error("Row took an object that is no table row")
	}
}

// TestTablePluginCachesAWatchableKind: a discovered kind whose verbs include
// watch is read through an informer over the Table: listed once (both
// pages), then followed by the Table watch, whose events but the first
// carry no column definitions. A watch ERROR (410 Gone) makes the informer
// list again, and so do column definitions that changed.
func TestTablePluginCachesAWatchableKind(t *testing.T) {
	created := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	s := &tableServer{t: t, created: created, watchable: true, events: make(chan string, 8)}
	c := tableClient(t, s)
	req := kube.SnapshotRequest{Kinds: []kube.Kind{"widgets"}, Namespace: "ns1"}
	rowsOf := func(snap kube.Snapshot) map[string]kube.Row {
		tb, ok := snap.Table("widgets")
		if !ok {
			t.Fatalf("truncated: %+v", snap.Truncated)
		}
		if !tb.Cached {
			t.Fatalf("widgets were listed, not cached")
		}
		out := map[string]kube.Row{}
		for _, r := range tb.Rows {
			out[r.Name] = r
		}
		return out
	}
	until := func(what string, cond func(map[string]kube.Row) bool) map[string]kube.Row {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			rows := rowsOf(c.Snapshot(context.Background(), req))
			if cond(rows) {
				return rows
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not seen; rows %+v", what, rows)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	rows := until("the listed rows", func(r map[string]kube.Row) bool { return len(r) == 3 })
	if rows["beta"].Status != "CrashLoopBackOff" || rows["beta"].Health != kube.HealthFailed {
		t.Errorf("beta before the watch: %+v", rows["beta"])
	}
	lists := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		n := 0
		for _, q := range s.queries {
			if !strings.Contains(q, "watch=true") {
				n++
			}
		}
		return n
	}
	listed := lists()
	if listed != 2 {
		t.Errorf("%d list requests for two pages", listed)
	}

	s.events <- widgetEvent("MODIFIED", "beta", "Running", "11", true, created)
	s.events <- widgetEvent("ADDED", "delta", "Pending", "12", false, created)
	s.events <- widgetEvent("DELETED", "alpha", "Running", "13", false, created)
	rows = until("the watched changes", func(r map[string]kube.Row) bool {
		_, alpha := r["alpha"]
		return !alpha && r["beta"].Status == "Running" && r["delta"].Status == "Pending"
	})
	if d := rows["delta"]; len(d.Cells) != 9 || d.Cells[0].Text != "delta" || d.Cells[3].Text != "1" || d.Health != kube.HealthProgressing || d.UID != "uid-delta" {
		t.Errorf("delta, from an event without columns: %+v", d)
	}
	if lists() != listed {
		t.Errorf("the watch's events caused %d lists", lists()-listed)
	}

	s.events <- `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410,"message":"too old resource version: 11 (12)"}}`
	until("the rows of a new list", func(r map[string]kube.Row) bool {
		_, alpha := r["alpha"]
		_, delta := r["delta"]
		return alpha && !delta && lists() > listed
	})

	// A watch whose columns differ from the listed ones (a CRD's printer
	// columns edited) makes the informer list again, so that no row keeps
	// the old layout.
	listed = lists()
	s.events <- strings.Replace(widgetEvent("MODIFIED", "beta", "Running", "14", true, created), `"priority":2`, `"priority":3`, 1)
	until("a list after the columns changed", func(map[string]kube.Row) bool { return lists() > listed })
}

// TestParseHumanDuration: a date column's cell, which the API server
// renders with duration.HumanDuration, is read back into the duration it
// says, so that the cell can go on ageing while its row is cached; what
// HumanDuration prints for the result is what it printed for the server.
func TestParseHumanDuration(t *testing.T) {
	for _, tc := range []struct {
		text string
		want time.Duration
		ok   bool
	}{
		{"45s", 45 * time.Second, true}, {"3m20s", 200 * time.Second, true}, {"5h", 5 * time.Hour, true},
		{"2d3h", 51 * time.Hour, true}, {"3y12d", (3*365 + 12) * 24 * time.Hour, true}, {"0s", 0, true},
		{"", 0, false}, {"5", 0, false}, {"m", 0, false}, {"5x", 0, false}, {"<invalid>", 0, false},
		{"<unknown>", 0, false}, {"2020-01-02T03:04:05Z", 0, false}, {"-5s", 0, false}, {"1234567890s", 0, false},
	} {
		got, ok := kinds.ParseHumanDuration(tc.text)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseHumanDuration(%q) = %v, %v; want %v, %v", tc.text, got, ok, tc.want, tc.ok)
		}
	}
	for d := time.Duration(0); d < 20*365*24*time.Hour; d += d/20 + time.Second {
		text := duration.HumanDuration(d)
		back, ok := kinds.ParseHumanDuration(text)
		if !ok || duration.HumanDuration(back) != text {
			t.Fatalf("%v prints %q, read back as %v (%v), which prints %q", d, text, back, ok, duration.HumanDuration(back))
		}
	}
}

// TestTablePluginSeesEditedColumnsWhenTheWatchEnds: when the server ends a
// Table watch, the next one starts with one row's Table to check the
// columns: unchanged, the watch goes on without a list; changed (a CRD's
// printer columns edited), the informer lists again and the rows take the
// new columns, although no object changed.
func TestTablePluginSeesEditedColumnsWhenTheWatchEnds(t *testing.T) {
	s := &tableServer{t: t, created: time.Now().Add(-time.Hour), watchable: true, events: make(chan string, 8)}
	c := tableClient(t, s)
	req := kube.SnapshotRequest{Kinds: []kube.Kind{"widgets"}, Namespace: "ns1"}
	fullLists := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		n := 0
		for _, q := range s.queries {
			if strings.Contains(q, "limit=500") {
				n++
			}
		}
		return n
	}
	probes := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		n := 0
		for _, q := range s.queries {
			if strings.Contains(q, "limit=1&") || strings.HasSuffix(q, "limit=1") {
				n++
			}
		}
		return n
	}
	until := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not seen; queries %q", what, s.queries)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	until("the cached rows", func() bool {
		tb, ok := c.Snapshot(context.Background(), req).Table("widgets")
		return ok && tb.Cached && len(tb.Rows) == 3
	})
	lists := fullLists()

	// client-go's reflector lists again after a watch that lasted under a
	// second; these watches last longer, as a server's do.
	time.Sleep(1100 * time.Millisecond)
	s.events <- "CLOSE"
	until("the probe of a new watch", func() bool { return probes() == 1 })
	if fullLists() != lists {
		t.Fatalf("unchanged columns caused a list: %q", s.queries)
	}

	s.mu.Lock()
	s.columns = strings.Replace(widgetColumns, `"name":"Note"`, `"name":"Remark"`, 1)
	s.mu.Unlock()
	time.Sleep(1100 * time.Millisecond)
	s.events <- "CLOSE"
	until("the new columns", func() bool {
		tb, _ := c.Snapshot(context.Background(), req).Table("widgets")
		return slices.ContainsFunc(tb.Columns, func(col kube.Column) bool { return col.Name == "REMARK" })
	})
	if fullLists() <= lists {
		t.Fatalf("changed columns caused no list: %q", s.queries)
	}
}

// TestTablePluginEventsOfAnotherGroup: events.events.k8s.io is served by
// the Table plugin; like the built-in events, its rows sort newest first
// by LAST SEEN, which is an age that keeps moving, and a Warning is a
// warning (found by a fresh-user trial: oldest first, A refused, no
// markers).
func TestTablePluginEventsOfAnotherGroup(t *testing.T) {
	p := kinds.NewTable(kube.KindInfo{ID: "events.events.k8s.io", Group: "events.k8s.io", Version: "v1", Resource: "events", Namespaced: true})
	defs := []metav1.TableColumnDefinition{
		{Name: "Last Seen", Type: "string"}, {Name: "Type", Type: "string"}, {Name: "Reason", Type: "string"},
		{Name: "Object", Type: "string"}, {Name: "Message", Type: "string"},
	}
	answered := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	row, ok := p.Row(kinds.TableRowOf(p, defs, []any{"4m", "Warning", "BackOff", "pod/crashy", "Back-off restarting failed container"},
		metav1.ObjectMeta{Namespace: "demo", Name: "crashy.1"}, answered))
	if !ok {
		t.Fatal("Row refused a table row")
	}
	if got := row.Cells[0].Since; !got.Equal(answered.Add(-4 * time.Minute)) {
		t.Errorf("LAST SEEN since %v, want 4m before the answer", got)
	}
	if got := row.Cells[0].Render(answered.Add(time.Hour)); got != "64m" {
		t.Errorf("LAST SEEN an hour later: %q", got)
	}
	if row.Status != "Warning" || row.Health != kube.HealthWarning {
		t.Errorf("a Warning event: %q %v", row.Status, row.Health)
	}
	if info := p.Info(); info.SortColumn != "LAST SEEN" || !info.SortDescending {
		t.Errorf("events sort by %q (descending %v), want LAST SEEN, newest first", info.SortColumn, info.SortDescending)
	}
}
