package filecopy

import "github.com/charmbracelet/bubbles/key"

// Keys are the file copy screen's bindings: its key table is "copy". The
// paths are typed: a key bound here is the screen's, even there, and the
// others are typed into the path.
type Keys struct {
	// NextField and PreviousField move between the fields (tab or ↓,
	// shift+tab or ↑).
	NextField, PreviousField key.Binding
	// PreviousChoice and NextChoice switch the direction, or the
	// container when the pod has several, on those fields (←, → or
	// space).
	PreviousChoice, NextChoice key.Binding
	// Start copies (a warning asks its text first); once the copy ended,
	// it leaves the screen (enter).
	Start key.Binding
	// Again starts another copy once one ended (r).
	Again key.Binding
	// Back leaves the screen; while a copy runs, it cancels it (esc).
	Back key.Binding
}

// KeyTable is the name of the copy screen's keys in the configuration
// file's key map (views.KeyMap): `keys: {copy: {ACTION: KEYS}}`.
const KeyTable = "copy"

// DefaultKeys returns the copy screen's default bindings.
func DefaultKeys() Keys {
	return Keys{
		NextField:      key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab", "next field")),
		PreviousField:  key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab", "previous field")),
		PreviousChoice: key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "switch the direction or the container")),
		NextChoice:     key.NewBinding(key.WithKeys("right", " "), key.WithHelp("→ space", "switch the direction or the container")),
		Start:          key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "copy (a warning asks y first)")),
		Again:          key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "another copy (after one ended)")),
		Back:           key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back; cancels a running copy")),
	}
}
