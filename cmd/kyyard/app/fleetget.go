package app

// `kyyard get --contexts LIST` and `--fleet NAME`: one kind read in several
// kubeconfig contexts at once, each as `kubectl --context` would read it,
// printed as one table with a CONTEXT column. Each context is read in a
// goroutine of its own and bounded by --cluster-timeout: one unreachable,
// forbidden or hanging cluster never holds the others' rows back beyond
// it, and is named on stderr with its reason.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// DefaultClusterTimeout bounds one context's reads in a fleet get:
// connecting (a credential plugin included), discovery and the list.
const DefaultClusterTimeout = 20 * time.Second

// fleetConnect reaches the contexts of the kubeconfig: known lists them,
// connect builds a client of one (as kubeconfigContexts.Connect, without
// caches), fleet names the members of a configuration file's fleet, and
// namespace returns --namespace as parsed ("" when not given: each
// context's own; nil: never given).
type fleetConnect struct {
	known     func() ([]string, error)
	connect   func(name string) (*kube.Client, error)
	fleet     func(name string) ([]string, error)
	namespace func() string
}

// contextRead is what one context answered.
type contextRead struct {
	context string
	info    kube.KindInfo
	table   kube.Table
	ns      string
	// err says why the context could not be read, reason its code.
	err    error
	reason kube.Reason
}

// fleetContexts returns the contexts --contexts or --fleet choose.
// Errors: both given, an unknown fleet, SelectContexts' (an unknown
// context, a pattern matching none).
func fleetContexts(fc fleetConnect, opts getOptions) ([]string, error) {
	if opts.contexts != "" && opts.fleet != "" {
		return nil, errors.New("--contexts and --fleet both choose the contexts: give one")
	}
	known, err := fc.known()
	if err != nil {
		return nil, err
	}
	items := kube.SplitContextList(opts.contexts)
	if opts.fleet != "" {
		if items, err = fc.fleet(opts.fleet); err != nil {
			return nil, err
		}
	}
	return kube.SelectContexts(known, items)
}

// runFleetGet prints kind name as read in every chosen context: one table
// whose first column is CONTEXT (then NAMESPACE with -A), the contexts in
// the order chosen, each context's rows in its own order; the columns are
// those of the first context that answered, the others' cells matched by
// column name. -o json gives each row and each truncation its context,
// and each context's state. A context that could not be read is named on
// stderr with its reason, after the rest was printed, and the exit code
// is 1.
func runFleetGet(ctx context.Context, out, errOut io.Writer, fc fleetConnect, name string, opts getOptions) error {
	if err := checkOutput(opts.output); err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	names, err := fleetContexts(fc, opts)
	if err != nil {
		return err
	}
	timeout := opts.clusterTimeout
	if timeout <= 0 {
		timeout = DefaultClusterTimeout
	}
	reads := make([]contextRead, len(names))
	done := make(chan int, len(names))
	for i, c := range names {
		go func() {
			answer := make(chan contextRead, 1)
			rctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			go func() { answer <- readContext(rctx, fc, c, name, opts) }()
			select {
			case r := <-answer:
				reads[i] = r
			case <-rctx.Done():
				// A credential plugin or a dial that ignores the context
				// is left behind: the command ends without it.
				reads[i] = contextRead{context: c, reason: kube.ReasonTimeout, err: fmt.Errorf("no answer within %s (--cluster-timeout): %w", timeout, rctx.Err())}
			}
			done <- i
		}()
	}
	for range names {
		<-done
	}
	now := time.Now()
	if opts.output == "json" {
		if err := writeFleetJSON(out, reads, now); err != nil {
			return err
		}
	} else if table, withNS, rows := mergeTables(reads, opts.all || severalIn(reads)); rows > 0 {
		if err := writeTable(out, table, opts.output == "wide", withNS, now); err != nil {
			return err
		}
	} else if failed(reads) < len(reads) {
		fmt.Fprintln(errOut, "No resources found in any context read")
	}
	for _, r := range reads {
		if r.err != nil {
			fmt.Fprintf(errOut, "context %s: %s: %s\n", views.Sanitize(r.context), r.reason, views.Sanitize(r.err.Error()))
		}
	}
	if n := failed(reads); n > 0 {
		return fmt.Errorf("%s of %d could not be read", kube.Plural(n, "context"), len(reads))
	}
	return nil
}

// failed counts the contexts that could not be read.
func failed(reads []contextRead) int {
	n := 0
	for _, r := range reads {
		if r.err != nil {
			n++
		}
	}
	return n
}

// readContext reads kind name in context c: connect, discovery, the
// kind's rows in the namespace (--namespace, else the context's own; all
// with -A or a cluster-scoped kind). Errors: the connection's, a kind
// the context does not serve, an invalid namespace, the list's reason.
func readContext(ctx context.Context, fc fleetConnect, c, name string, opts getOptions) (r contextRead) {
	r.context = c
	defer func() {
		if r.err != nil && r.reason == "" {
			if r.reason = kube.ReasonOf(r.err); r.reason == "" {
				r.reason = kube.ReasonError
			}
		}
	}()
	client, err := fc.connect(c)
	if err != nil {
		r.err = err
		return r
	}
	defer client.Close()
	discoverErr := client.Discover(ctx)
	info, ok := client.Kind(name)
	if !ok {
		r.err, r.reason = fmt.Errorf("kind %q is not served there", name), kube.ReasonUnknownKind
		if discoverErr != nil {
			r.err = fmt.Errorf("%w (%s: %s)", r.err, kube.ReasonOf(discoverErr), discoverErr)
		}
		return r
	}
	r.info = info
	ns := client.Namespace()
	if fc.namespace != nil && fc.namespace() != "" {
		ns = fc.namespace()
	}
	if opts.all || !info.Namespaced {
		ns = ""
	} else if several, err := views.ParseNamespaces(ns); err != nil {
		r.err, r.reason = fmt.Errorf("namespace: %w", err), kube.ReasonInvalid
		return r
	} else {
		ns = several // -n shop,web: both, in each context
	}
	r.ns = ns
	snap := client.Snapshot(ctx, kube.SnapshotRequest{Kinds: []kube.Kind{info.ID}, Namespace: ns, Selector: kube.Selector{Labels: opts.selector}})
	if len(snap.Truncated) > 0 {
		tr := snap.Truncated[0]
		r.err, r.reason = fmt.Errorf("cannot read %s: %s: %s", info.ID, tr.Reason.Sentence(), tr.Message), tr.Reason
		return r
	}
	r.table, _ = snap.Table(info.ID)
	return r
}

// severalIn reports whether a context was read in several namespaces
// (-n shop,web): the merged table then has the NAMESPACE column.
func severalIn(reads []contextRead) bool {
	for _, r := range reads {
		if kube.SeveralNamespaces(r.ns) {
			return true
		}
	}
	return false
}

// mergeTables is the rows of every context that answered as one table:
// CONTEXT first, then NAMESPACE when all (a namespaced kind with -A, or
// several namespaces),
// then the first answer's columns, each other answer's cells matched to
// them by name ("" where it has none). withNS is always false: the
// namespace is a column of its own here. rows counts the rows.
func mergeTables(reads []contextRead, all bool) (merged kube.Table, withNS bool, rows int) {
	var base *kube.Table
	namespaced := false
	for i := range reads {
		if reads[i].err == nil && base == nil {
			base = &reads[i].table
			namespaced = reads[i].info.Namespaced
		}
	}
	if base == nil {
		return kube.Table{}, false, 0
	}
	lead := []kube.Column{{Name: "CONTEXT"}}
	if all && namespaced {
		lead = append(lead, kube.Column{Name: "NAMESPACE"})
	}
	merged = kube.Table{Kind: base.Kind, Columns: append(lead, base.Columns...)}
	for _, r := range reads {
		if r.err != nil {
			continue
		}
		index := map[string]int{}
		for i, col := range r.table.Columns {
			index[col.Name] = i
		}
		for _, row := range r.table.Rows {
			cells := []kube.Cell{kube.Text(r.context)}
			if len(lead) == 2 {
				cells = append(cells, kube.Text(row.Namespace))
			}
			for _, col := range base.Columns {
				cell := kube.Text("")
				if i, ok := index[col.Name]; ok && i < len(row.Cells) {
					cell = row.Cells[i]
				}
				cells = append(cells, cell)
			}
			merged.Rows = append(merged.Rows, kube.Row{Namespace: row.Namespace, Name: row.Name, Status: row.Status, Health: row.Health, Cells: cells})
			rows++
		}
	}
	return merged, false, rows
}

// fleetDocument is a fleet get's JSON: getDocument's fields, each row
// and truncation with its context, and every context's state.
type fleetDocument struct {
	Kind     string         `json:"kind"`
	Columns  []getColumn    `json:"columns"`
	Rows     []fleetRow     `json:"rows"`
	Contexts []fleetContext `json:"contexts"`
}

type fleetRow struct {
	Context string `json:"context"`
	getRow
}

// fleetContext is one context's state: "answered" with its rows and
// namespace ("" all), or "failed" with its reason and message.
type fleetContext struct {
	Context   string `json:"context"`
	State     string `json:"state"`
	Namespace string `json:"namespace,omitempty"`
	Rows      int    `json:"rows"`
	Reason    string `json:"reason,omitempty"`
	Message   string `json:"message,omitempty"`
}

// writeFleetJSON prints every context's answer as one JSON document.
func writeFleetJSON(out io.Writer, reads []contextRead, now time.Time) error {
	doc := fleetDocument{Columns: []getColumn{}, Rows: []fleetRow{}, Contexts: []fleetContext{}}
	merged, _, _ := mergeTables(reads, false)
	doc.Kind = string(merged.Kind)
	if len(merged.Columns) > 0 {
		for _, col := range merged.Columns[1:] {
			doc.Columns = append(doc.Columns, getColumn{Name: col.Name, Wide: col.Wide})
		}
	}
	for _, row := range merged.Rows {
		r := fleetRow{Context: row.Cells[0].Text, getRow: getRow{Namespace: row.Namespace, Name: row.Name, Status: row.Status, Health: row.Health.String(), Cells: make([]string, len(row.Cells)-1)}}
		for i, cell := range row.Cells[1:] {
			r.Cells[i] = cell.Render(now)
		}
		doc.Rows = append(doc.Rows, r)
	}
	for _, r := range reads {
		c := fleetContext{Context: r.context, State: "answered", Namespace: r.ns, Rows: len(r.table.Rows)}
		if r.err != nil {
			c = fleetContext{Context: r.context, State: "failed", Reason: string(r.reason), Message: r.err.Error()}
		}
		doc.Contexts = append(doc.Contexts, c)
	}
	return encodeJSON(out, doc)
}
