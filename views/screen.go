package views

import (
	"context"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
)

// Source is what screens read the cluster through; *kube.Client is one.
type Source interface {
	// Snapshot reads the kinds a screen shows (see kube.Client.Snapshot).
	Snapshot(ctx context.Context, req kube.SnapshotRequest) kube.Snapshot
	// Facts reads the header's facts (see kube.Client.Facts).
	Facts(ctx context.Context) kube.Facts
	// Kind describes the kind a name (id or alias) stands for.
	Kind(name string) (kube.KindInfo, bool)
	// Names returns every kind id and alias, sorted, for completion.
	Names() []string
	// Rediscover reads the API server's kinds again when a name is unknown
	// (a CRD installed since) and reports whether they changed (see
	// kube.Client.Rediscover).
	Rediscover(ctx context.Context) bool
	// DrillDown returns what opening an object shows (see kube.Client.DrillDown).
	DrillDown(ctx context.Context, kind kube.Kind, namespace, name string) (kube.SnapshotRequest, error)
	// Namespace returns the namespace kyyard starts in.
	Namespace() string
	// Describe returns `kubectl describe`'s text for one object (see
	// kube.Client.Describe); errors carry a kube.ReasonOf reason.
	Describe(ctx context.Context, kind kube.Kind, namespace, name string) (string, error)
	// YAML returns one object as YAML, read fresh, Secret values shown as
	// sizes (see kube.Client.YAML); errors carry a kube.ReasonOf reason.
	YAML(ctx context.Context, kind kube.Kind, namespace, name string, opts kube.YAMLOptions) (string, error)
}

// Config holds the user's settings for this run.
type Config struct {
	// RefreshInterval is how often a screen takes a new snapshot; it must be
	// positive (cmd defaults it to 2s).
	RefreshInterval time.Duration
	// MaxLogStreams bounds the streams a workload's log viewer opens at
	// once (kube.LogRequest.MaxStreams; --max-log-requests, as kubectl's);
	// 0 is kube.DefaultMaxLogStreams.
	MaxLogStreams int
	// DeployTimeout bounds each service's rollout in a deploy from the
	// deploy form (kube.DeployOptions.Timeout; --deploy-timeout, default
	// kube.DefaultDeployTimeout); 0 leaves kube's default.
	DeployTimeout time.Duration
	// MetricsInterval is how often kube reads the metrics API
	// (kube.Options.MetricsInterval; --metrics-interval); 0 is
	// kube.DefaultMetricsInterval. The screens say how old the metrics are
	// when they are older than twice this (see MetricsAge).
	MetricsInterval time.Duration
}

// Context is shared by every screen of one program. The root model keeps
// Width and Height current; screens read them when they draw.
type Context struct {
	// Client is the cluster the screens show (a FleetSource on a screen
	// across several clusters).
	Client Source
	// Name is the kubeconfig context Client reads, set on the screens of
	// one cluster opened from a screen across several (a fleet row's
	// describe, logs, confirmation): their titles and confirmations name
	// it. "" otherwise.
	Name string
	// Styles is the theme, built once.
	Styles Styles
	// Keys are the global bindings (KeyMap's "global" applied).
	Keys GlobalKeys
	// KeyMap is the person's rebinding of keys: each screen applies its
	// table's (KeyMap.Bind) when it is made. nil: the defaults.
	KeyMap KeyMap
	// Config is the user's settings.
	Config Config
	// Width and Height are the size, in cells, of the area a screen draws
	// in (the terminal less the header and the status line).
	Width, Height int
}

// Screen is one page of the UI: an inventory table, a describe view, a log
// viewer. The root model keeps a stack of them; the top one gets keys first.
type Screen interface {
	// Init starts the screen's I/O; it is called when the screen is pushed
	// and again when it becomes the top screen after the one above it closed.
	Init() tea.Cmd
	// Update handles a message and returns the screen to keep.
	Update(msg tea.Msg) (Screen, tea.Cmd)
	// View draws the screen in Context.Width x Context.Height cells.
	View() string
	// Title is the short name shown in the title bar, e.g. "pods(demo)[12]".
	Title() string
	// Bindings are the screen's own keys, for the help overlay.
	Bindings() []key.Binding
	// Capturing reports whether the screen is taking text input (a filter
	// being typed), in which case the root does not apply global keys.
	Capturing() bool
}

// OpenKindMsg asks the root to push an inventory screen for Kind in
// Namespace ("" is all namespaces; AllNamespaces says so explicitly).
type OpenKindMsg struct {
	// Kind is a plugin id or alias.
	Kind kube.Kind
	// Namespace scopes the screen.
	Namespace string
	// Replace swaps the top screen instead of pushing on top of it (a `:`
	// command replaces; a drill-down pushes).
	Replace bool
	// Selector narrows the screen to the objects of a drill-down (a
	// Deployment's pods); the zero value shows all.
	Selector kube.Selector
	// Parent names what was opened, "<kind>/<name>" ("deployments/web"),
	// for the title; empty when not a drill-down.
	Parent string
	// Filter is set as if typed after `/` (an alias's; "" none).
	Filter string
}

// ObjectView names a view of one object.
type ObjectView int

// Views of one object.
const (
	// DescribeView is `kubectl describe`'s text.
	DescribeView ObjectView = iota
	// YAMLView is the object as YAML (managedFields hidden unless asked;
	// Secret data shown as keys and sizes only).
	YAMLView
)

// OpenObjectMsg asks the root to push a view of one object.
type OpenObjectMsg struct {
	// View is which view to open.
	View ObjectView
	// Kind is the object's plugin id.
	Kind kube.Kind
	// Namespace is empty for cluster-scoped objects.
	Namespace, Name string
	// NotRunning is set for a pod that was not running when its row was
	// read (NotRunning): the describe view's usage line then says so
	// instead of "no sample yet" while the metrics have none.
	NotRunning bool
}

// OpenWorkloadMsg asks the root to push the workload form for one object.
// Kind is "deployments", "statefulsets" or "daemonsets" (kinds whose plugin
// has kube.CanEdit), or "pods" or "replicasets": an object a workload owns,
// whose owning Deployment, StatefulSet or DaemonSet the form finds (see
// workload.Owners) and edits.
type OpenWorkloadMsg struct {
	// Kind is the object's plugin id.
	Kind kube.Kind
	// Namespace and Name name the object.
	Namespace, Name string
}

// BackMsg asks the root to close the top screen and return to the one below.
type BackMsg struct{}

// StatusMsg asks the root to show a line in the status bar.
type StatusMsg struct {
	// Text is the message.
	Text string
	// Error shows the message in the error style.
	Error bool
}

// Status returns a command that shows text in the status bar.
func Status(text string, isError bool) tea.Cmd {
	return func() tea.Msg { return StatusMsg{Text: text, Error: isError} }
}

// Unsaved is implemented by a screen that can hold work a quit would lose
// (the workload form's edits): the root asks before it quits while any
// screen on the stack reports some.
type Unsaved interface {
	// Unsaved describes the work ("2 unapplied edits to
	// deployments/web"), "" when there is none.
	Unsaved() string
}

// OpenYAMLEditMsg asks the root to push the YAML edit of one object of any
// kind (views/yamledit): the terminal handed to the person's editor, a
// dry run and its diff before the write.
type OpenYAMLEditMsg struct {
	// Kind is the object's plugin id (or resource name).
	Kind kube.Kind
	// Namespace is empty for cluster-scoped objects.
	Namespace, Name string
}

// OpenSecretMsg asks the root to push the decoded view of one Secret
// (views/secret): its keys, each value hidden until revealed.
type OpenSecretMsg struct {
	// Namespace and Name name the Secret.
	Namespace, Name string
}

// OpenDrainMsg asks the root to push the drain of a Node (views/drain):
// its plan first, then the cordon and the evictions with their progress.
type OpenDrainMsg struct {
	// Node names the Node: Kind "nodes", its name and the UID seen.
	Node kube.ObjectRef
}

// PushMsg asks the root to push Screen on the stack, above the screen
// that sent it (a screen that opens another screen of its own package:
// a Helm release's revisions, their values, manifest and diff).
type PushMsg struct {
	// Screen is the screen pushed; the root runs its Init.
	Screen Screen
}
