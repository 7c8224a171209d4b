package ownertree

import "github.com/charmbracelet/bubbles/key"

// Keys are the owner tree's bindings: its key table is "tree".
type Keys struct {
	// Down, Up, PageDown, PageUp, Top and Bottom move the cursor.
	Down, Up, PageDown, PageUp, Top, Bottom key.Binding
	// Unhealthy moves to the next line that is not ok, below the cursor
	// (wrapping) (!).
	Unhealthy key.Binding
	// Describe and YAML open the cursor line's object (enter or d, y).
	Describe, YAML key.Binding
	// Refresh reads the tree again (r, ctrl+r).
	Refresh key.Binding
	// Back leaves the screen (esc).
	Back key.Binding
}

// KeyTable is the name of the owner tree's keys in the configuration
// file's key map (views.KeyMap): `keys: {tree: {ACTION: KEYS}}`.
const KeyTable = "tree"

// DefaultKeys returns the owner tree's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Down:      key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("j/↓", "down")),
		Up:        key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("k/↑", "up")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn", "page down")),
		PageUp:    key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		Top:       key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "top")),
		Bottom:    key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "bottom")),
		Unhealthy: key.NewBinding(key.WithKeys("!"), key.WithHelp("!", "next object that is not ok")),
		Describe:  key.NewBinding(key.WithKeys("enter", "d"), key.WithHelp("enter/d", "describe the object")),
		YAML:      key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "its YAML")),
		Refresh:   key.NewBinding(key.WithKeys("r", "ctrl+r"), key.WithHelp("r", "read the tree again")),
		Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}
}
