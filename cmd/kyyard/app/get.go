package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// discoverTimeout bounds the discovery a command runs before it resolves a
// kind name.
const discoverTimeout = 15 * time.Second

// kubectl's table layout (k8s.io/cli-runtime/pkg/printers/tabwriter.go): a
// column is at least 6 wide, and 3 spaces pad every cell but the last.
const (
	tableMinWidth = 6
	tablePadding  = 3
)

type getOptions struct {
	output   string
	all      bool
	selector string
	// contexts (--contexts) or fleet (--fleet) choose several contexts:
	// runFleetGet; clusterTimeout bounds each one's reads.
	contexts, fleet string
	clusterTimeout  time.Duration
}

// connectFunc makes the Client a one-shot command reads with, and what to
// call when the command ends (close the log file); the get command's tests
// hand it a client over client-go's fake clientset.
type connectFunc func() (client *kube.Client, done func(), err error)

// newGetCommand returns `kyyard get`: one Snapshot of one kind, printed the
// way `kubectl get` prints it. connect is called once the flags are parsed.
func newGetCommand(connect connectFunc, fleet fleetConnect) *cobra.Command {
	opts := getOptions{}
	cmd := &cobra.Command{
		Use:   "get KIND",
		Short: "Print one kind's rows as kubectl get does, without the dashboard",
		Long: `Print one kind's rows once, the columns kubectl get prints, and exit.

KIND is any name the dashboard's : prompt takes: a built-in kind or alias
(pods, po, deploy), or any kind the API server serves (configmaps, crd,
clusterlogs.kwok.x-k8s.io). A kind that cannot be read (forbidden, not
found, unreachable) is reported on stderr with the reason, and the exit code
is 1.

--contexts (names and patterns, comma-separated) or --fleet (a fleet of
the configuration file) read the kind in several kubeconfig contexts at
once, each as kubectl --context would (its own credentials and namespace;
-n applies to all), and print one table with a CONTEXT column. Each
context is bounded by --cluster-timeout; one that cannot be read is named
on stderr with its reason, the others are printed, and the exit code is 1.`,
		Example: `  kyyard get pods -n demo
  kyyard get po -A -o wide
  kyyard get deploy -l app=web -o json
  kyyard get crd
  kyyard get deploy -A --contexts 'prod-*,staging'
  kyyard get nodes --fleet prod -o json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.contexts != "" || opts.fleet != "" {
				return runFleetGet(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), fleet, args[0], opts)
			}
			return runGet(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), connect, args[0], opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.output, "output", "o", "table", "output format: table, wide (kubectl's -o wide columns) or json")
	f.BoolVarP(&opts.all, "all-namespaces", "A", false, "list the kind in all namespaces, with a NAMESPACE column")
	f.StringVarP(&opts.selector, "selector", "l", "", "label selector, in kubectl's syntax (app=web,tier!=db)")
	f.StringVar(&opts.contexts, "contexts", "", "read several kubeconfig contexts at once: names and path.Match patterns, comma-separated ('prod-*,staging'); rows get a CONTEXT column")
	f.StringVar(&opts.fleet, "fleet", "", "read the contexts of a fleet of the configuration file (fleets: {prod: [eu-1, us-1]})")
	f.DurationVar(&opts.clusterTimeout, "cluster-timeout", DefaultClusterTimeout, "with --contexts or --fleet: how long each context may take (connect, discovery, list) before it is reported as timed out; the others are not held")
	return cmd
}

// checkOutput refuses an -o that get does not print.
func checkOutput(output string) error {
	switch output {
	case "", "table", "wide", "json":
		return nil
	}
	return fmt.Errorf("unknown output format %q: use table, wide or json", output)
}

// encodeJSON writes v as indented JSON, HTML characters as they are.
func encodeJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func runGet(ctx context.Context, out, errOut io.Writer, connect connectFunc, name string, opts getOptions) error {
	if err := checkOutput(opts.output); err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	client, done, err := connect()
	if err != nil {
		return err
	}
	defer done()
	defer client.Close()
	dctx, cancel := context.WithTimeout(ctx, discoverTimeout)
	discoverErr := client.Discover(dctx)
	cancel()
	info, ok := client.Kind(name)
	if !ok {
		return unknownKind(name, client.Kinds(), discoverErr)
	}
	ns := client.Namespace()
	switch {
	case opts.all || !info.Namespaced:
		ns = "" // a cluster-scoped kind has no namespace, in the JSON either
	default:
		several, err := views.ParseNamespaces(ns) // -n shop,web: both
		if err != nil {
			return fmt.Errorf("--namespace: %w", err)
		}
		ns = several
	}
	snap := client.Snapshot(ctx, kube.SnapshotRequest{
		Kinds: []kube.Kind{info.ID}, Namespace: ns, Selector: kube.Selector{Labels: opts.selector},
	})
	table, _ := snap.Table(info.ID)
	if table.Kind == "" {
		table.Kind = info.ID
	}
	now := time.Now()
	if opts.output == "json" {
		if err := writeJSON(out, table, snap, now); err != nil {
			return err
		}
	} else if len(snap.Truncated) == 0 {
		withNS := (opts.all || kube.SeveralNamespaces(ns)) && info.Namespaced
		if len(table.Rows) == 0 {
			fmt.Fprintln(errOut, noResources(ns, info.Namespaced))
			return nil
		}
		if err := writeTable(out, table, opts.output == "wide", withNS, now); err != nil {
			return err
		}
	}
	if len(snap.Truncated) > 0 {
		tr := snap.Truncated[0]
		return fmt.Errorf("cannot read %s (%s): %s: %s", info.ID, tr.Reason, tr.Reason.Sentence(), views.Sanitize(tr.Message))
	}
	for _, u := range table.Unread {
		// -n shop,web where one cannot be read: the others' rows are
		// printed, and this says which is missing (exit status 1).
		fmt.Fprintf(errOut, "cannot read %s in namespace %s (%s): %s: %s\n", info.ID, u.Namespace, u.Reason, u.Reason.Sentence(), views.Sanitize(u.Message))
	}
	if len(table.Unread) > 0 {
		return fmt.Errorf("%s could not be read in %d of the namespaces", info.ID, len(table.Unread))
	}
	return nil
}

// unknownKind names the kinds the client serves; when discovery failed its
// error is added, since the kind may be one the server could not describe.
func unknownKind(name string, known []kube.KindInfo, discoverErr error) error {
	ids := make([]string, len(known))
	for i, k := range known {
		ids[i] = string(k.ID)
	}
	sort.Strings(ids)
	msg := fmt.Sprintf("unknown kind %q (known: %s)", name, strings.Join(ids, ", "))
	if discoverErr != nil {
		msg += "; " + discoverErr.Error()
	}
	return errors.New(msg)
}

// noResources is kubectl's message for an empty list (of several
// namespaces: each named).
func noResources(ns string, namespaced bool) string {
	if namespaced && kube.SeveralNamespaces(ns) {
		return "No resources found in namespaces " + strings.Join(kube.SplitNamespaces(ns), ", ") + "."
	}
	if namespaced && ns != "" {
		return "No resources found in " + ns + " namespace."
	}
	return "No resources found"
}

// writeTable prints a table the way `kubectl get` does: upper-case headers,
// the Wide columns only when wide, NAMESPACE first when withNS, cells
// rendered at now and written as kubectl's terminal printer writes them
// (terminalCell: cut at a line break with "...", escapes; what kubectl
// would still pass to the terminal is sanitized), aligned with kubectl's
// tabwriter settings but by display cells (writeAligned), a column as wide
// as kubectl makes it for its uncut text (rawWidth).
func writeTable(out io.Writer, table kube.Table, wide, withNS bool, now time.Time) error {
	var shown []int
	for i, col := range table.Columns {
		if wide || !col.Wide {
			shown = append(shown, i)
		}
	}
	lines := make([][]string, 0, len(table.Rows)+1)
	line := make([]string, 0, len(shown)+1)
	if withNS {
		line = append(line, "NAMESPACE")
	}
	for _, i := range shown {
		line = append(line, terminalCell(table.Columns[i].Name))
	}
	lines = append(lines, line)
	reserve := make([]int, len(line))
	for _, row := range table.Rows {
		line = make([]string, 0, len(shown)+1)
		add := func(text string) {
			reserve[len(line)] = max(reserve[len(line)], rawWidth(text))
			line = append(line, terminalCell(text))
		}
		if withNS {
			add(row.Namespace)
		}
		for _, i := range shown {
			text := ""
			if i < len(row.Cells) {
				text = row.Cells[i].Render(now)
			}
			add(text)
		}
		lines = append(lines, line)
	}
	return writeAligned(out, lines, reserve)
}

// getDocument is `kyyard get -o json`'s output.
type getDocument struct {
	Kind      string          `json:"kind"`
	Namespace string          `json:"namespace"`
	Columns   []getColumn     `json:"columns"`
	Rows      []getRow        `json:"rows"`
	Truncated []getTruncation `json:"truncated"`
}

type getColumn struct {
	Name string `json:"name"`
	Wide bool   `json:"wide"`
}

type getRow struct {
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"`
	Status    string   `json:"status"`
	Health    string   `json:"health"`
	Cells     []string `json:"cells"`
}

type getTruncation struct {
	// Namespace is set for one namespace of several (-n a,b) that could
	// not be read; the others' rows are in rows.
	Namespace string `json:"namespace,omitempty"`
	Reason    string `json:"reason"`
	Message   string `json:"message"`
}

// writeJSON prints the table as one JSON document: every column (Wide ones
// marked), each row's cells rendered at now, and why the kind could not be
// read, if it could not.
func writeJSON(out io.Writer, table kube.Table, snap kube.Snapshot, now time.Time) error {
	doc := getDocument{
		Kind: string(table.Kind), Namespace: snap.Namespace,
		Columns: []getColumn{}, Rows: []getRow{}, Truncated: []getTruncation{},
	}
	for _, col := range table.Columns {
		doc.Columns = append(doc.Columns, getColumn{Name: col.Name, Wide: col.Wide})
	}
	for _, row := range table.Rows {
		r := getRow{Namespace: row.Namespace, Name: row.Name, Status: row.Status, Health: row.Health.String(), Cells: make([]string, len(row.Cells))}
		for i, cell := range row.Cells {
			r.Cells[i] = cell.Render(now)
		}
		doc.Rows = append(doc.Rows, r)
	}
	for _, tr := range snap.Truncated {
		doc.Truncated = append(doc.Truncated, getTruncation{Reason: string(tr.Reason), Message: tr.Message})
	}
	for _, u := range table.Unread {
		doc.Truncated = append(doc.Truncated, getTruncation{Namespace: u.Namespace, Reason: string(u.Reason), Message: u.Message})
	}
	return encodeJSON(out, doc)
}
