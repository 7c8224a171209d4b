package inventory

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// A screen across several clusters (its client a views.FleetSource): the
// rows of every cluster with a CONTEXT column, a line of each cluster's
// state under the notice line, and every action on a row sent to that
// row's cluster: the key is handled as on a screen of that cluster alone
// (its client, its read-only setting), and what it asks the root for goes
// in a views.ContextMsg naming the context.

// maxFailedLines bounds the lines that give a failing cluster's reason in
// full under the states line; the others are named on it.
const maxFailedLines = 3

// metricColumns returns the kind's metrics columns; across several
// clusters only when the fleet reads metrics (a views.MetricsSource, as
// views/fleet's is: its reading keys each object with its context).
func (m *Model) metricColumns() []metricColumn {
	if m.fleet != nil {
		if _, ok := m.fleet.(views.MetricsSource); !ok {
			return nil
		}
	}
	return metricColumnsOf(m.info.ID)
}

// acts reports whether msg is a key that acts on the cursor row's or the
// marked rows' objects (and so goes to their cluster).
func (k Keys) acts(msg tea.KeyMsg) bool {
	if k.operate(msg) != "" {
		return true
	}
	for _, b := range []key.Binding{k.Open, k.Describe, k.YAML, k.Edit, k.EditYAML, k.Decode, k.Drain, k.Logs,
		k.Previous, k.LogsBeside, k.PortForward, k.Copy, k.Owners, k.Events, k.Rollout, k.Actions} {
		if key.Matches(msg, b) {
			return true
		}
	}
	return false
}

// inMember handles an action key across several clusters: as the screen
// of the target rows' cluster would (the marked rows, else the cursor
// row), with the root's messages wrapped for that context. Marked rows
// of several clusters are refused: an action goes to one cluster.
func (m *Model) inMember(msg tea.KeyMsg) tea.Cmd {
	row := m.current()
	if row == nil {
		return nil
	}
	if key.Matches(msg, m.keys.Logs) || key.Matches(msg, m.keys.Previous) {
		if cmd, ok := m.logsAcross(key.Matches(msg, m.keys.Previous)); ok {
			return cmd
		}
	}
	name := row.Context
	if marked := m.markedRows(); len(marked) > 0 {
		var names []string
		for _, r := range marked {
			if !slices.Contains(names, r.Context) {
				names = append(names, r.Context)
			}
		}
		if len(names) > 1 {
			if cmd, ok := m.changeAcross(msg, marked); ok {
				return cmd
			}
			return views.Status(fmt.Sprintf("the marked rows are in %d contexts (%s): an action goes to one cluster (but e, s and r on one workload marked in several, applied cluster by cluster); mark rows of one context (/ filters by context)",
				len(names), views.Sanitize(strings.Join(names, ", "))), true)
		}
		name = names[0]
	}
	src, ok := m.fleet.Member(name)
	if !ok {
		return views.Status(fmt.Sprintf("context %s is not connected (yet): nothing was sent", views.Sanitize(name)), true)
	}
	mvc := *m.vc
	mvc.Client, mvc.Name = src, name
	// The member's screen: its client, and its own namespace for each
	// context's (the rows carry theirs; nothing reads views.OwnNamespaces
	// but a fleet).
	fleet, vc, off, ns := m.fleet, m.vc, m.off, m.namespace
	m.fleet, m.vc, m.off = nil, &mvc, nil
	if ns == views.OwnNamespaces {
		m.namespace = src.Namespace()
	}
	cmd := m.handleKey(msg)
	m.fleet, m.vc, m.off, m.namespace = fleet, vc, off, ns
	return views.InContext(name, cmd)
}

// fleetLines returns the lines of the clusters' states, width w: one line
// naming each cluster with its rows or state, then one line per failed
// or stale cluster (at most maxFailedLines) with its reason in full.
// None on a screen of one cluster, nor before the first refresh.
func (m *Model) fleetLines(w int) []string {
	if m.fleet == nil || len(m.parts) == 0 {
		return nil
	}
	st := m.vc.Styles
	now := m.now()
	var parts, failed []string
	for _, p := range m.parts {
		name := views.Sanitize(p.Context)
		var text string
		switch p.State {
		case views.ClusterAnswered:
			text = fmt.Sprintf("%s %d", name, p.Rows)
		case views.ClusterReading:
			text = fmt.Sprintf("%s reading… %s", name, since(now, p.Since))
			if p.Rows > 0 {
				text = fmt.Sprintf("%s reading… %d so far", name, p.Rows)
			}
		case views.ClusterStale:
			text = st.Error.Render(fmt.Sprintf("%s stale %s (%d kept)", name, since(now, p.Since), p.Rows))
		default:
			text = st.Error.Render(fmt.Sprintf("%s %s", name, p.Reason))
		}
		parts = append(parts, text)
		if p.State >= views.ClusterStale && p.Message != "" {
			failed = append(failed, fmt.Sprintf("%s: %s", name, views.Sanitize(oneLine(p.Message))))
		}
	}
	lines := []string{st.Muted.Render("clusters: ") + ansi.Truncate(strings.Join(parts, st.Muted.Render(" · ")), max(w-10, 1), "…")}
	for i, f := range failed {
		if i == maxFailedLines {
			lines = append(lines, st.Muted.Render(fmt.Sprintf("(%d more)", len(failed)-i)))
			break
		}
		lines = append(lines, st.Error.Render(ansi.Truncate(f, w, "…")))
	}
	return lines
}

// since says how long ago t was ("3s ago"), "" for a zero t.
func since(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return views.Ago(now, t) + " ago"
}

// oneLine joins a message's lines with spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// logsAcross asks the root for the logs of objects of several clusters
// merged (`l`, `p` across a fleet): the marked rows when they are of
// several contexts, or, with no mark, the cursor row's workload in every
// context that has one of that kind, namespace and name. ok is false
// when the objects are of one context: the logs are that cluster's
// alone (inMember).
func (m *Model) logsAcross(previous bool) (tea.Cmd, bool) {
	if !m.info.Capabilities.Has(kube.CanLogs) || m.info.PartOf != "" {
		return nil, false
	}
	rows := m.markedRows()
	if len(rows) == 0 {
		cur := m.current()
		rows = []*kube.Row{cur}
		if m.info.ID != kube.KindPods {
			rows = nil
			for i := range m.ix.rows {
				if r := &m.ix.rows[i]; r.Namespace == cur.Namespace && r.Name == cur.Name {
					rows = append(rows, r)
				}
			}
		}
	}
	contexts := map[string]bool{}
	for _, r := range rows {
		contexts[r.Context] = true
	}
	if len(contexts) < 2 {
		return nil, false
	}
	msg := views.OpenLogsMsg{Request: kube.LogRequest{Kind: m.info.ID,
		Options: kube.LogOptions{Follow: !previous, Previous: previous, TailLines: -1}}}
	for _, r := range rows {
		msg.Across = append(msg.Across, views.ContextLogRequest{Context: r.Context,
			Request: kube.LogRequest{Kind: m.info.ID, Namespace: r.Namespace, Name: r.Name, UID: r.UID}})
	}
	return func() tea.Msg { return msg }, true
}

// isWorkload reports whether kind is one the drift screen compares (the
// workload form's kinds).
func isWorkload(kind kube.Kind) bool {
	return kind == kube.KindDeployments || kind == kube.KindStatefulSets || kind == kube.KindDaemonSets
}

// drift asks for the cursor row's workload compared across the fleet's
// contexts (=): a Deployment, StatefulSet or DaemonSet, whichever
// clusters have it.
func (m *Model) drift() tea.Cmd {
	row := m.current()
	if row == nil {
		return nil
	}
	if !isWorkload(m.info.ID) {
		return views.Status("= compares a Deployment, StatefulSet or DaemonSet across the contexts: open :deploy, :sts or :ds", true)
	}
	msg := views.OpenDriftMsg{Ref: kube.WorkloadRef{Kind: m.info.ID, Namespace: row.Namespace, Name: row.Name}}
	return func() tea.Msg { return msg }
}

// changeAcross handles e (edit), s (scale) and r (restart) on marked rows
// of one workload (same kind, namespace and name) in several contexts: one
// change applied cluster by cluster (views.OpenChangeAcrossMsg), in the
// fleet's order: e and s open the workload form (its first field is
// replicas), r the restart's plan. ok is false for other keys and marks.
func (m *Model) changeAcross(msg tea.KeyMsg, marked []*kube.Row) (tea.Cmd, bool) {
	restart := m.keys.operate(msg) == kube.ActionRestart
	if !isWorkload(m.info.ID) || !restart && !key.Matches(msg, m.keys.Edit) && m.keys.operate(msg) != kube.ActionScale {
		return nil, false
	}
	first := marked[0]
	in := map[string]bool{}
	for _, r := range marked {
		if r.Namespace != first.Namespace || r.Name != first.Name {
			return nil, false
		}
		in[r.Context] = true
	}
	var contexts []string
	for _, name := range m.fleet.Contexts() {
		if in[name] {
			contexts = append(contexts, name)
		}
	}
	out := views.OpenChangeAcrossMsg{Ref: kube.WorkloadRef{Kind: m.info.ID, Namespace: first.Namespace, Name: first.Name}, Contexts: contexts, Restart: restart}
	return func() tea.Msg { return out }, true
}
