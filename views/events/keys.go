package events

import "github.com/charmbracelet/bubbles/key"

// Keys are the events screen's bindings: its key table is "events". While
// the filter is typed, enter keeps it and esc clears it.
type Keys struct {
	// Filter starts typing the filter (/).
	Filter key.Binding
	// Down, Up, PageDown, PageUp, Top and Bottom scroll the events.
	Down, Up, PageDown, PageUp, Top, Bottom key.Binding
	// Refresh reads the events now (r, ctrl+r); they are read every two
	// seconds anyway.
	Refresh key.Binding
	// Back clears the filter, then leaves the screen (esc).
	Back key.Binding
}

// KeyTable is the name of the screen's keys in the configuration file's
// key map (views.KeyMap): `keys: {events: {ACTION: KEYS}}`.
const KeyTable = "events"

// DefaultKeys returns the screen's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Filter:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter by type, reason, object, message")),
		Down:     key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("j/↓", "scroll down")),
		Up:       key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("k/↑", "scroll up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn", "page down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "the newest")),
		Bottom:   key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "the oldest")),
		Refresh:  key.NewBinding(key.WithKeys("r", "ctrl+r"), key.WithHelp("r", "read now (every 2 s anyway)")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear the filter; back")),
	}
}
