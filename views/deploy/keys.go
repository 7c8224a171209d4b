package deploy

import "github.com/charmbracelet/bubbles/key"

// Keys are the deploy screens' bindings: the form's, the preview's and
// the step list's.
type Keys struct {
	// Next and Previous move between fields; Down and Up too, except
	// inside a multi-line field (env, config) where they move its cursor
	// until its first or last line. PageDown and PageUp scroll the preview.
	Next, Previous, Down, Up, PageDown, PageUp key.Binding
	// Add adds a row to the secrets or volumes the cursor is in, else a
	// service after the cursor's; Delete removes that row, else the
	// cursor's service.
	Add, Delete key.Binding
	// Preview renders the objects and runs PlanDeploy (ctrl+s).
	Preview key.Binding
	// Deploy deploys from the preview (enter); Tab switches the preview's
	// body between the YAML and the diff; Search searches it (/), Next
	// and Prev match (n, N).
	Deploy, Tab, Search, NextMatch, PrevMatch key.Binding
	// Passes shows or hides the passing guard checks on the preview (d).
	Passes key.Binding
	// Edit returns from the steps to the form.
	Edit key.Binding
	// Back goes back a stage (esc), the form kept.
	Back key.Binding
	// Discard and Keep answer Back's question on an edited form "discard
	// your edits?": Discard leaves the form (y), Keep keeps it (n, esc).
	Discard, Keep key.Binding
	// DropService answers Delete's question on a service with something
	// typed in, "remove service x?": it removes the service (y); any
	// other key keeps it.
	DropService key.Binding
}

// KeyTable is the name of this screen's keys in the configuration
// file's key map (views.KeyMap): `keys: {deploy: {ACTION: KEYS}}`.
const KeyTable = "deploy"

// DefaultKeys returns the deploy screens' default bindings.
func DefaultKeys() Keys {
	return Keys{
		Next:      key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next field")),
		Previous:  key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous field")),
		Down:      key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "next field / line")),
		Up:        key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "previous field / line")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "a page down")),
		PageUp:    key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "a page up")),
		Add:       key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "add a secret/volume row here, else a service")),
		Delete:    key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "remove the row here, else the service")),
		Preview:   key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "preview: objects, diff, dry run, guards")),
		Deploy:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "deploy (preview)")),
		Tab:       key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "preview: YAML / diff")),
		Search:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "preview: search")),
		NextMatch: key.NewBinding(key.WithKeys("n"), key.WithHelp("n/N", "preview: next/previous match")),
		PrevMatch: key.NewBinding(key.WithKeys("N")),
		Passes:    key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "preview: show/hide the passed checks")),
		Edit:      key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "after a deploy: edit again")),
		Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back a stage (the form is kept)")),
		Discard:   key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "discard your edits (when asked)")),
		Keep:      key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n", "keep your edits (when asked)")),
		// Y, N are no answer here: only y removes a service.
		DropService: key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "remove the service (when asked)")),
	}
}

// RemoveKeys are the bindings of the remove of an instance (ctrl+d on
// :apps): their key table is "remove". The instance name is typed: the
// keys bound here are the screen's, even there.
type RemoveKeys struct {
	// Remove removes the instance once its name is typed; once the
	// remove ended, it leaves the screen (enter).
	Remove key.Binding
	// Back cancels before anything is deleted; once the remove ended, it
	// leaves the screen; while it runs, it says to wait (esc).
	Back key.Binding
	// Up and Down scroll a line (pgup and pgdn too).
	Up, Down key.Binding
}

// RemoveKeyTable is the name of the remove's keys in the configuration
// file's key map (views.KeyMap): `keys: {remove: {ACTION: KEYS}}`.
const RemoveKeyTable = "remove"

// DefaultRemoveKeys returns the remove's default bindings.
func DefaultRemoveKeys() RemoveKeys {
	return RemoveKeys{
		Remove: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "remove (after the instance name is typed)")),
		Back:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel; nothing is deleted")),
		Up:     key.NewBinding(key.WithKeys("up", "pgup"), key.WithHelp("↑", "scroll up")),
		Down:   key.NewBinding(key.WithKeys("down", "pgdown"), key.WithHelp("↓", "scroll down")),
	}
}
