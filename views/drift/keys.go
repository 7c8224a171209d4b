package drift

import "github.com/charmbracelet/bubbles/key"

// Keys are the drift screen's bindings: its key table is "drift".
type Keys struct {
	// Up, Down, PageUp, PageDown, Top and Bottom scroll the fields.
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	// OnlyDiffs shows only the fields that differ, or all again (d).
	OnlyDiffs key.Binding
	// Left and Right show the other contexts when not all fit (←/h,
	// →/l).
	Left, Right key.Binding
	// Refresh reads every context again (ctrl+r).
	Refresh key.Binding
	// Edit opens one change of the workload, applied cluster by cluster
	// (e).
	Edit key.Binding
}

// KeyTable is the name of the drift screen's keys in the configuration
// file's key map (views.KeyMap): `keys: {drift: {ACTION: KEYS}}`.
const KeyTable = "drift"

// DefaultKeys returns the drift screen's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		PageUp:    key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Top:       key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "first field")),
		Bottom:    key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "last field")),
		OnlyDiffs: key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "only the fields that differ (again: all)")),
		Left:      key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←", "the other contexts")),
		Right:     key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→", "the other contexts")),
		Refresh:   key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "read every context again")),
		Edit:      key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit once, apply cluster by cluster")),
	}
}
