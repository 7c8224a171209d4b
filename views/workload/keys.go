package workload

import "github.com/charmbracelet/bubbles/key"

// Keys are the workload screens' bindings: the form's, the preview's and
// the rollout's. esc is the screen's own (it asks before discarding edits).
type Keys struct {
	// Next and Previous move between fields (tab, shift+tab); Down and Up
	// move to the next or previous line's first field, PageDown and PageUp
	// a screen's worth of lines; where read-only lines lie between, they
	// scroll the form over them first (a line, a page), so that every line
	// can be read.
	Next, Previous, Down, Up, PageDown, PageUp key.Binding
	// Add inserts a command/args line after the cursor or an env row at the
	// end of the list; Delete removes the line or row (any env row, of any
	// source); Source switches an env row to the next of a literal value, a
	// Secret key, a ConfigMap key, a field (fieldRef) and a resource
	// (resourceFieldRef); Toggle flips a checkbox (paused, optional).
	Add, Delete, Source, Toggle key.Binding
	// Preview runs the server dry run and shows the changes and verdicts;
	// Reread reads the object again and keeps the edits.
	Preview, Reread key.Binding
	// Apply writes the previewed change; Patch shows the patch body;
	// ReadAgain reads the object again after a conflict.
	Apply, Patch, ReadAgain key.Binding
	// Undo writes back the values before the apply after a failed rollout;
	// Edit returns to the form after an apply.
	Undo, Edit key.Binding
	// Back discards (asking first), returns to the form, or leaves.
	Back key.Binding
	// Discard and Keep answer Back's question "discard your edits?":
	// Discard leaves the form, the edits lost (y); Keep keeps it (n,
	// esc).
	Discard, Keep key.Binding
}

// KeyTable is the name of this screen's keys in the configuration
// file's key map (views.KeyMap): `keys: {form: {ACTION: KEYS}}`.
const KeyTable = "form"

// DefaultKeys returns the workload screens' default bindings.
func DefaultKeys() Keys {
	return Keys{
		Next:      key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next field")),
		Previous:  key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous field")),
		Down:      key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "next line (scrolls read-only lines)")),
		Up:        key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "previous line (scrolls read-only lines)")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "a page down")),
		PageUp:    key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "a page up")),
		Add:       key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "add a line (args) or env row")),
		Delete:    key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "remove the line or env row")),
		Source:    key.NewBinding(key.WithKeys("ctrl+t"), key.WithHelp("ctrl+t", "env: value / secret / configmap / field / resource")),
		Toggle:    key.NewBinding(key.WithKeys(" ", "x"), key.WithHelp("space", "flip a checkbox")),
		Preview:   key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "preview (server dry run)")),
		Reread:    key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "read again, keep edits")),
		Apply:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply")),
		Patch:     key.NewBinding(key.WithKeys("p", "ctrl+p"), key.WithHelp("p/ctrl+p", "show/hide the patch body (ctrl+p while confirming)")),
		ReadAgain: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "read again after a conflict")),
		Undo:      key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo after a failed rollout")),
		Edit:      key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit again")),
		Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "discard / back")),
		Discard:   key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "discard your edits (when asked)")),
		Keep:      key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n", "keep your edits (when asked)")),
	}
}

// list returns the bindings in help order.
func (k Keys) list() []key.Binding {
	return []key.Binding{k.Next, k.Previous, k.Down, k.Up, k.PageDown, k.PageUp, k.Add, k.Delete, k.Source, k.Toggle, k.Preview,
		k.Reread, k.Apply, k.Patch, k.ReadAgain, k.Undo, k.Edit, k.Back, k.Discard, k.Keep}
}
