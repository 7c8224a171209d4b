package kubetest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/kube"
)

// ServerColumn is one column of the API server's Table answer.
type ServerColumn struct {
	// Name is the column's name as the server gives it ("Ready", "Nominated Node").
	Name string
	// Priority is 0 for the columns `kubectl get` prints, more for -o wide ones.
	Priority int32
}

// ServerRow is one row of the API server's Table answer.
type ServerRow struct {
	// Namespace and Name come from the row's object metadata.
	Namespace, Name string
	// Cells are the row's cells as `kubectl get` prints them (CellText).
	Cells []string
}

// ServerAnswer is the API server's Table rendering of a list: what
// `kubectl get` prints, the oracle of kyyard's rows.
type ServerAnswer struct {
	Columns []ServerColumn
	Rows    []ServerRow
}

// ServerTableOf asks the API server for its Table of any resource (group ""
// is the core group) in namespace ("" for all namespaces or a
// cluster-scoped resource), with each row's object metadata. The test
// fails if the server does not answer with a Table.
func ServerTableOf(t testing.TB, cfg *rest.Config, group, version, resource, namespace string) ServerAnswer {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := "/apis/" + group + "/" + version
	if group == "" {
		path = "/api/" + version
	}
	if namespace != "" {
		path += "/namespaces/" + namespace
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	body, err := cs.Discovery().RESTClient().Get().AbsPath(path, resource).Param("includeObject", "Metadata").
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").Do(ctx).Raw()
	if err != nil {
		t.Fatalf("table of %s: %v", path+"/"+resource, err)
	}
	var table struct {
		ColumnDefinitions []metav1.TableColumnDefinition `json:"columnDefinitions"`
		Rows              []struct {
			Cells  []any `json:"cells"`
			Object struct {
				Metadata metav1.ObjectMeta `json:"metadata"`
			} `json:"object"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(body, &table); err != nil {
		t.Fatalf("decode table of %s: %v", resource, err)
	}
	var answer ServerAnswer
	for _, c := range table.ColumnDefinitions {
		answer.Columns = append(answer.Columns, ServerColumn{Name: c.Name, Priority: c.Priority})
	}
	for _, r := range table.Rows {
		row := ServerRow{Namespace: r.Object.Metadata.Namespace, Name: r.Object.Metadata.Name, Cells: make([]string, len(r.Cells))}
		for i, c := range r.Cells {
			row.Cells[i] = CellText(c)
		}
		answer.Rows = append(answer.Rows, row)
	}
	return answer
}

// ColumnNames returns the columns' names as the server gives them.
func (a ServerAnswer) ColumnNames() []string {
	out := make([]string, len(a.Columns))
	for i, c := range a.Columns {
		out[i] = c.Name
	}
	return out
}

// ByFirstCell returns each row's cells by its first cell (the name, for
// most kinds).
func (a ServerAnswer) ByFirstCell() map[string][]string {
	out := map[string][]string{}
	for _, r := range a.Rows {
		if len(r.Cells) > 0 {
			out[r.Cells[0]] = r.Cells
		}
	}
	return out
}

// ByKey returns each row's cells by "namespace/name" from its metadata (the
// first cell is not always the name: events lead with LAST SEEN).
func (a ServerAnswer) ByKey() map[string][]string {
	out := map[string][]string{}
	for _, r := range a.Rows {
		out[r.Namespace+"/"+r.Name] = r.Cells
	}
	return out
}

// ServerTable asks the API server for its Table of a core (group "") or
// other v1 resource in namespace: the column names and the cells of each
// row by its first cell (the object's name), as `kubectl get` prints them.
func ServerTable(t testing.TB, cfg *rest.Config, group, resource, namespace string) (columns []string, rows map[string][]string) {
	t.Helper()
	a := ServerTableOf(t, cfg, group, "v1", resource, namespace)
	return a.ColumnNames(), a.ByFirstCell()
}

// CellText prints a Table cell as kubectl does: numbers without a fraction
// as integers, other values as Go prints them, null as nothing.
func CellText(v any) string {
	switch v := v.(type) {
	case float64:
		if v == float64(int64(v)) {
			return strconv.FormatInt(int64(v), 10)
		}
		return fmt.Sprint(v)
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}

// DiffRows compares kyyard's table with the server's Table (serverCols and
// serverRows by object name), in the named columns (matched without regard
// to case), rendering ages at now. It returns one line per difference: a
// row on one side only, a row whose cells do not line up with its columns,
// a missing column, or a cell that differs.
func DiffRows(table kube.Table, columns, serverCols []string, serverRows map[string][]string, now time.Time) []string {
	var problems []string
	ours := map[string]bool{}
	for _, row := range table.Rows {
		ours[row.Name] = true
		server, ok := serverRows[row.Name]
		if !ok {
			problems = append(problems, row.Name+": not in the server's Table")
			continue
		}
		if len(row.Cells) != len(table.Columns) {
			problems = append(problems, fmt.Sprintf("%s: %d cells for %d columns", row.Name, len(row.Cells), len(table.Columns)))
			continue
		}
		for _, col := range columns {
			oi := slices.IndexFunc(table.Columns, func(c kube.Column) bool { return c.Name == strings.ToUpper(col) })
			si := slices.IndexFunc(serverCols, func(c string) bool { return strings.EqualFold(c, col) })
			if oi < 0 || si < 0 {
				problems = append(problems, fmt.Sprintf("column %s missing (ours %d, server %d)", col, oi, si))
				continue
			}
			if got, want := row.Cells[oi].Render(now), server[si]; got != want {
				problems = append(problems, fmt.Sprintf("%s %s: kyyard %q, server %q", row.Name, col, got, want))
			}
		}
	}
	for name := range serverRows {
		if !ours[name] {
			problems = append(problems, name+": in the server's Table, not in kyyard's")
		}
	}
	return problems
}

// CompareWithServer snapshots kind in namespace and reads the server's
// Table of group/version/resource back to back, and compares the named
// columns of every row (DiffRows). Objects move (controllers, kwok), so a
// mismatch is tried again, up to attempts times a second apart, before the
// test fails. It returns the compared table.
func CompareWithServer(t testing.TB, c *kube.Client, cfg *rest.Config, kind kube.Kind, group, version, resource, namespace string, columns []string, attempts int) kube.Table {
	t.Helper()
	var problems []string
	for attempt := 0; attempt < attempts; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Second)
		}
		snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{kind}, Namespace: namespace})
		now := time.Now()
		server := ServerTableOf(t, cfg, group, version, resource, namespace)
		table, ok := snap.Table(kind)
		if !ok {
			t.Fatalf("snapshot of %s truncated: %+v", kind, snap.Truncated)
		}
		if problems = DiffRows(table, columns, server.ColumnNames(), server.ByFirstCell(), now); len(problems) == 0 {
			return table
		}
	}
	t.Fatalf("%s differ from the API server's Table:\n%s", kind, strings.Join(problems, "\n"))
	return kube.Table{}
}
