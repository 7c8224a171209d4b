package clusters

import "github.com/charmbracelet/bubbles/key"

// Keys are the clusters overview's bindings (:clusters): its key table
// is "clusters".
type Keys struct {
	// Up, Down, PageUp, PageDown, Top and Bottom move the cursor.
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	// Open shows the cursor's cluster's pods, switching to its context
	// (enter).
	Open key.Binding
	// Refresh reads every cluster again (ctrl+r).
	Refresh key.Binding
	// Left and Right scroll the columns right of CONTEXT when they do not
	// fit.
	Left, Right key.Binding
}

// KeyTable is the name of the overview's keys in the configuration
// file's key map (views.KeyMap): `keys: {clusters: {ACTION: KEYS}}`.
const KeyTable = "clusters"

// DefaultKeys returns the overview's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "that cluster's pods (switches to its context)")),
		Refresh:  key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "read every cluster again")),
		Left:     key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "scroll the columns left")),
		Right:    key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "scroll the columns right (when they do not fit)")),
	}
}
