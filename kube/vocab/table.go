package vocab

import (
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
)

// Health is kyyard's judgement of an object's state, shown by colour and by a
// text marker. The zero value is HealthOK.
type Health int

// Health values, from best to worst.
const (
	// HealthOK: the object is where it should be (Running and ready, Complete, Active, Ready).
	HealthOK Health = iota
	// HealthProgressing: the object is moving towards its goal (Pending, ContainerCreating, a rollout).
	HealthProgressing
	// HealthWarning: the object works but needs attention (not all replicas ready, Terminating).
	HealthWarning
	// HealthFailed: the object is broken (CrashLoopBackOff, ImagePullBackOff, Failed, NotReady).
	HealthFailed
)

// String returns the health as a lower-case word: "ok", "progressing", "warning" or "failed".
func (h Health) String() string {
	switch h {
	case HealthProgressing:
		return "progressing"
	case HealthWarning:
		return "warning"
	case HealthFailed:
		return "failed"
	default:
		return "ok"
	}
}

// Column describes one column of a Table.
type Column struct {
	// Name is the header, upper case as kubectl prints it ("READY", "STATUS").
	Name string
	// Wide marks a column that kubectl shows only with -o wide.
	Wide bool
}

// Cell is one value of a Row. A cell either holds static Text, or a moment
// (Since) that is rendered relative to the time of drawing, the way kubectl
// renders AGE ("5m") and a pod's RESTARTS ("3 (5m ago)"). Keeping the moment
// instead of the text means a row only changes when its object changes.
type Cell struct {
	// Text is the static part of the cell.
	Text string
	// Since, when not zero, is a moment in the past: with empty Text the cell
	// renders as its age ("5m"), otherwise as "Text (age ago)".
	Since time.Time
}

// Render returns the cell's text as kubectl would print it at time now. Ages
// use apimachinery's duration.HumanDuration, the formatter kubectl uses.
func (c Cell) Render(now time.Time) string {
	if c.Since.IsZero() {
		return c.Text
	}
	age := duration.HumanDuration(now.Sub(c.Since))
	if c.Text == "" {
		return age
	}
	return c.Text + " (" + age + " ago)"
}

// Text returns a static cell.
func Text(s string) Cell { return Cell{Text: s} }

// Age returns a cell that renders as the time passed since t, or "<unknown>"
// when t is zero (kubectl's translateTimestampSince).
func Age(t time.Time) Cell {
	if t.IsZero() {
		return Cell{Text: "<unknown>"}
	}
	return Cell{Since: t}
}

// Row is one object in a Table.
type Row struct {
	// Context is the kubeconfig context the row was read in, set only on
	// the rows of a screen across several clusters (views.FleetSource);
	// "" otherwise.
	Context string
	// Namespace is empty for cluster-scoped objects.
	Namespace string
	// Name is the object's metadata.name.
	Name string
	// UID is the object's metadata.uid.
	UID string
	// Cells line up with the Table's Columns.
	Cells []Cell
	// Status is the object's status text (for pods, kubectl's STATUS column).
	Status string
	// Health is kyyard's judgement of the status.
	Health Health
	// Created is metadata.creationTimestamp.
	Created time.Time
	// Labels are metadata.labels, shared with the cached object: read only.
	// A label selector (Selector.Labels, the `/-l` filter) matches them.
	Labels map[string]string
	// Fields holds the selectable fields the plugin fills besides
	// metadata.name and metadata.namespace ("spec.nodeName" for pods); a
	// field selector matches them when rows come from the cache.
	Fields map[string]string
	// Owners are the UIDs in metadata.ownerReferences.
	Owners []string
	// Resources are a Pod's (or container's) requests and limits, or a
	// Node's allocatable resources, for the metrics columns; nil for other
	// kinds. Read only.
	Resources *RowResources
	// CannotStart, on a Pod's row, is the waiting reason of its first
	// container that cannot start (PodCannotStart: CrashLoopBackOff,
	// ImagePullBackOff, ...); "" when none waits so, for a Pod being
	// deleted, and for other kinds. A Snapshot judges the workloads that
	// own such Pods by it (see Workload).
	CannotStart string
	// Workload, on the row of a workload whose controller makes Pods
	// (Deployment, StatefulSet, DaemonSet, ReplicaSet), says how to find
	// its Pods; nil for other kinds. Read only.
	Workload *RowWorkload
}

// RowWorkload is what a Snapshot needs to judge a workload's row by its
// Pods: while some Pod it owns cannot start (Row.CannotStart), a row the
// plugin judged ok-to-be-waited-for (progressing) or a warning becomes a
// warning, or failed when none of its Pods is available, with the Pod's
// reason as its Status ("CrashLoopBackOff"), whatever the workload's own
// status says (a Deployment's Progressing condition stays True for
// spec.progressDeadlineSeconds, 10 minutes by default). It is the rule
// RolloutStatus follows, which fails a rollout with such a new Pod.
type RowWorkload struct {
	// Via is the kind of the objects between the workload and its Pods:
	// "replicasets" for a Deployment (its Pods' controllers are its
	// ReplicaSets), "" when the workload's own UID is its Pods' owner.
	Via Kind
	// Available is how many of its Pods are available
	// (status.availableReplicas; a DaemonSet's status.numberAvailable).
	Available int32
}

// Table holds the rows of one kind, as one screen shows them.
type Table struct {
	// Kind is the plugin id the rows come from.
	Kind Kind
	// Columns name the cells of every row, in order.
	Columns []Column
	// Rows are sorted by namespace, then name. They may be shared with the
	// Client's cache and with earlier Snapshots: read only.
	Rows []Row
	// Cached is true when the rows came from an informer, false when from
	// a direct list (the kind cannot be watched, or caching is off).
	Cached bool
	// Reading is true while the informer's first list of the kind is still
	// arriving: Rows are what it has delivered so far (possibly none), and
	// a Snapshot taken a little later has more. A screen says so ("reading…
	// N so far") and asks again soon. Never true for a direct list.
	Reading bool
	// Unread names, for a request of several namespaces, those whose rows
	// could not be read (forbidden there, say), in namespace order; Rows
	// hold the others'. When none could be read the kind is truncated
	// instead.
	Unread []NamespaceUnread
}

// NamespaceUnread is one namespace of a request of several whose rows could
// not be read, and why.
type NamespaceUnread struct {
	// Namespace is the namespace.
	Namespace string
	// Reason classifies the failure (forbidden, unavailable, timeout, ...).
	Reason Reason
	// Message is the API server's own message.
	Message string
}
