package inventory

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Keys are the inventory screen's bindings.
type Keys struct {
	// Cursor movement.
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	// Open drills down; Wide toggles kubectl's -o wide columns; Refresh
	// takes a snapshot now.
	Open, Wide, Refresh key.Binding
	// Filter opens the `/` filter prompt.
	Filter key.Binding
	// SortNext and SortPrevious sort by the column right or left of the
	// current sort column; SortReverse flips the order; SortName and SortAge
	// are k9s's shortcuts (pressed again, they flip the order).
	SortNext, SortPrevious, SortReverse, SortName, SortAge key.Binding
	// Mark toggles the cursor row's mark and moves down; MarkRange marks
	// the rows from the last marked one to the cursor; ClearMarks unmarks all.
	Mark, MarkRange, ClearMarks key.Binding
	// NextUnhealthy moves to the next warning or failed row; Unhealthy shows
	// only those rows (again: all).
	NextUnhealthy, Unhealthy key.Binding
	// Describe and YAML open the cursor row's object.
	Describe, YAML key.Binding
	// Edit opens the workload form on the cursor row (deployments,
	// statefulsets, daemonsets).
	Edit key.Binding
	// EditYAML edits the cursor row's object, of any kind, as YAML in the
	// person's editor (views/yamledit); e does it too on kinds the form
	// does not edit.
	EditYAML key.Binding
	// Decode opens the decoded view of the cursor row's Secret
	// (kube.CanDecode): each value hidden until revealed.
	Decode key.Binding
	// Drain opens the drain of the cursor row's Node (kube.CanCordon):
	// its plan, then the cordon and the evictions (views/drain).
	Drain key.Binding
	// Operate are the keys of the Operate actions (restart, scale, delete,
	// pause, resume, undo, trigger, suspend, unsuspend: views.Actions, in
	// its order), each opening the
	// action's confirmation on the marked rows, or on the cursor row
	// (views/operate); on a kind with a shell (pods, containers), scale's
	// key opens a shell instead.
	Operate []ActionBinding
	// Rollout follows the cursor row's rollout; Actions lists the row's
	// actions with the reason each disabled one is.
	Rollout, Actions key.Binding
	// Logs opens the cursor row's logs (a pod, a container, a workload);
	// Previous its previous container's; LogsBeside opens them in the
	// other pane of a split screen, splitting it first (views.OpenLogsMsg's
	// Beside).
	Logs, Previous, LogsBeside key.Binding
	// PortForward opens the port-forward dialog of a pod, a Service or a
	// workload.
	PortForward key.Binding
	// Copy opens the file copy screen of a pod or a container (kubectl
	// cp).
	Copy key.Binding
	// Owners opens the owner tree of the cursor row's object; Events its
	// events and those of what it owns.
	Owners, Events key.Binding
	// Drift compares the cursor row's workload across the fleet's
	// contexts (a screen across several clusters only).
	Drift key.Binding
	// Left and Right scroll the columns right of NAME.
	Left, Right key.Binding
	// Clear is esc on this screen: it clears marks, then the filter, then
	// goes back.
	Clear key.Binding
}

// KeyTable is the name of this screen's keys in the configuration
// file's key map (views.KeyMap): `keys: {table: {ACTION: KEYS}}`.
const KeyTable = "table"

// DefaultKeys returns the inventory screen's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Up:            key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:          key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:        key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown:      key.NewBinding(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn", "page down")),
		Top:           key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:        key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom")),
		Open:          key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open (drill down)")),
		Wide:          key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "wide columns")),
		Refresh:       key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "refresh now")),
		Filter:        key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter: text regex ! -f -l")),
		SortNext:      key.NewBinding(key.WithKeys(">"), key.WithHelp(">", "sort: next column")),
		SortPrevious:  key.NewBinding(key.WithKeys("<"), key.WithHelp("<", "sort: previous column")),
		SortReverse:   key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "sort: reverse")),
		SortName:      key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "sort: name")),
		SortAge:       key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "sort: age, youngest first")),
		Mark:          key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "mark row")),
		MarkRange:     key.NewBinding(key.WithKeys("ctrl+@", "V"), key.WithHelp("V ctrl+space", "mark range")),
		ClearMarks:    key.NewBinding(key.WithKeys(`ctrl+\`), key.WithHelp(`ctrl+\`, "clear marks")),
		NextUnhealthy: key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "next unhealthy row")),
		Unhealthy:     key.NewBinding(key.WithKeys("U"), key.WithHelp("U", "only unhealthy rows")),
		Describe:      key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "describe")),
		YAML:          key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "YAML")),
		Edit:          key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit (form, or YAML)")),
		EditYAML:      key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "edit as YAML ($EDITOR)")),
		Decode:        key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "decode (secrets)")),
		Drain:         key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "drain node (evict its pods)")),
		Operate:       operateKeys(),
		Rollout:       key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "rollout status")),
		Actions:       key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "actions (and why not)")),
		Logs:          key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "logs")),
		Previous:      key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "previous logs")),
		LogsBeside:    key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "logs in the other pane")),
		PortForward:   key.NewBinding(key.WithKeys("F"), key.WithHelp("shift+f", "port-forward")),
		Copy:          key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "copy files (kubectl cp)")),
		Owners:        key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "owner tree")),
		Events:        key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "events (and of what it owns)")),
		Drift:         key.NewBinding(key.WithKeys("="), key.WithHelp("=", "drift: compare across the contexts")),
		Left:          key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "scroll left")),
		Right:         key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "scroll right")),
		Clear:         key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear marks, filter; back")),
	}
}

// ActionBinding is the key binding of one Operate action.
type ActionBinding struct {
	// Action is the action the key opens the confirmation of.
	Action kube.Action
	// Binding is its key and help.
	key.Binding
}

// Name is the action's name in the configuration file's key map
// (views.KeyAction): the kube.Action ("delete", "restart").
func (b *ActionBinding) Name() string { return string(b.Action) }

// KeyBinding is the binding itself, for views.KeyActions.
func (b *ActionBinding) KeyBinding() *key.Binding { return &b.Binding }

// operateKeys returns the bindings of views.Actions, in its order.
func operateKeys() []ActionBinding {
	out := make([]ActionBinding, len(views.Actions))
	for i, a := range views.Actions {
		out[i] = ActionBinding{Action: a.Action, Binding: key.NewBinding(key.WithKeys(a.Key), key.WithHelp(a.Key, a.Help))}
	}
	return out
}

// List returns the bindings in help order (the root checks the
// configuration file's hotkeys against them).
func (k Keys) List() []key.Binding { return k.list() }

// list returns the bindings in help order.
func (k Keys) list() []key.Binding {
	out := []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Open, k.Wide, k.Refresh,
		k.Describe, k.YAML, k.Edit, k.EditYAML, k.Decode, k.Drain}
	for _, a := range k.Operate {
		out = append(out, a.Binding)
	}
	return append(out, k.Rollout, k.Actions, k.Logs, k.Previous, k.LogsBeside, k.PortForward, k.Copy, k.Owners, k.Events, k.Filter, k.Unhealthy, k.NextUnhealthy, k.SortNext, k.SortPrevious, k.SortReverse,
		k.SortName, k.SortAge, k.Mark, k.MarkRange, k.ClearMarks, k.Left, k.Right, k.Clear)
}

// operate returns the Operate action whose key msg is, "" when none.
func (k Keys) operate(msg tea.KeyMsg) kube.Action {
	for _, b := range k.Operate {
		if key.Matches(msg, b.Binding) {
			return b.Action
		}
	}
	return ""
}
