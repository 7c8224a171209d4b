package views

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
)

// ClusterState is how one cluster of a screen across several stands.
type ClusterState int

// States of one cluster of a fleet screen, from the best.
const (
	// ClusterAnswered: its rows are the last read's.
	ClusterAnswered ClusterState = iota
	// ClusterReading: no answer yet (connecting, or its first list still
	// arriving: ClusterPart.Rows are those so far).
	ClusterReading
	// ClusterStale: it answered before, but not since ClusterPart.Since
	// (unavailable, timing out, or a read under way for too long); its
	// rows are those it gave then.
	ClusterStale
	// ClusterFailed: it gave no rows (cannot connect, forbidden, the kind
	// not served there); Reason and Message say why.
	ClusterFailed
)

// OwnNamespaces is the namespace of a screen across several contexts
// that reads, in each context, that context's own namespace (the
// kubeconfig's, "default" without one: what `kubectl --context C` reads):
// the namespace a fleet is entered with unless -n or -A chose one on the
// command line. It is no namespace name (those are DNS labels, RFC 1123),
// so it can never be one; a FleetSource (views/fleet) reads each
// member's Namespace() in its place and sends it to no API server.
const OwnNamespaces = "(own)"

// OwnNamespacesPhrase names OwnNamespaces in titles and messages.
const OwnNamespacesPhrase = "each context's namespace"

// ClusterPart is one cluster's share of a screen across several clusters
// (FleetSource): its state, its rows and why it has none.
type ClusterPart struct {
	// Context is the kubeconfig context's name.
	Context string
	// State is how it stands.
	State ClusterState
	// Rows is how many rows of the merged table are its.
	Rows int
	// Since is when its last answer was read (ClusterAnswered,
	// ClusterStale; zero when it never answered), or when the read under
	// way began (ClusterReading).
	Since time.Time
	// Reason and Message say why it is stale or failed (the API server's
	// own text, or the connection's error); empty otherwise.
	Reason  kube.Reason
	Message string
}

// FleetSource is a Source over several kubeconfig contexts (views/fleet):
// its Snapshot merges the rows of every context, each Row carrying its
// Context, and one slow, unreachable or forbidden context never holds
// back or blanks the others. Reads of one object (Describe, YAML,
// DrillDown) are the member's: a screen asks Member for the row's context.
type FleetSource interface {
	Source
	// FleetSnapshot is Snapshot with each context's part, in the fleet's
	// order (Contexts).
	FleetSnapshot(ctx context.Context, req kube.SnapshotRequest) (kube.Snapshot, []ClusterPart)
	// Member returns the Source of one context of the fleet, false when
	// it is not one or is not connected (yet).
	Member(context string) (Source, bool)
	// Contexts names the fleet's contexts, in order.
	Contexts() []string
}

// ContextMsg carries a message for the root from a screen across several
// clusters about one cluster's object (a fleet inventory's row): the root
// handles Msg as it would, with Context's client (the screens it opens
// read that cluster, and their titles and confirmations name it).
type ContextMsg struct {
	// Context is the kubeconfig context's name.
	Context string
	// Msg is the message, e.g. an OpenObjectMsg.
	Msg tea.Msg
}

// InContext returns cmd whose message is wrapped in a ContextMsg of
// context name; a batch's commands are each wrapped. nil stays nil; an
// empty name returns cmd as it is.
func InContext(name string, cmd tea.Cmd) tea.Cmd {
	if cmd == nil || name == "" {
		return cmd
	}
	return func() tea.Msg {
		msg := cmd()
		switch msg := msg.(type) {
		case nil:
			return nil
		case tea.BatchMsg:
			out := make(tea.BatchMsg, len(msg))
			for i, c := range msg {
				out[i] = InContext(name, c)
			}
			return out
		case ContextMsg:
			return msg
		}
		return ContextMsg{Context: name, Msg: msg}
	}
}

// OpenDriftMsg asks the root to compare one workload across the fleet's
// contexts (views/drift: read in each at once, its fields side by side,
// the differences marked).
type OpenDriftMsg struct {
	// Ref is the Deployment, StatefulSet or DaemonSet (kind, namespace,
	// name: the same in every context).
	Ref kube.WorkloadRef
}

// OpenChangeAcrossMsg asks the root for the workload form of one change
// applied cluster by cluster (views/fleetchange): the form edits the
// workload as the first context has it; its preview plans the change in
// every context, in their order.
type OpenChangeAcrossMsg struct {
	// Ref is the Deployment, StatefulSet or DaemonSet.
	Ref kube.WorkloadRef
	// Contexts are the contexts to change, in the order applied (those
	// where the workload is present).
	Contexts []string
	// Restart asks for the plan of a restart of the workload's pods in
	// each context instead of the form (r on marked rows of several
	// contexts).
	Restart bool
}

// CloseBelowMsg asks the root to close the screen right below Owner when
// it is the workload form whose edits Owner applies (views/fleetchange:
// the form's edits are applied, so esc comes back to where the change was
// started, not to stale edits).
type CloseBelowMsg struct {
	// Owner is the screen asking.
	Owner Screen
}
