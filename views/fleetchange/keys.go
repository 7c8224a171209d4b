package fleetchange

import "github.com/charmbracelet/bubbles/key"

// Keys are the bindings of a change applied cluster by cluster: their key
// table is "change". A text a warning asks to be typed takes every key
// (enter takes it, esc stops typing).
type Keys struct {
	// Apply applies the change, cluster by cluster, once every warning
	// is confirmed (y).
	Apply key.Binding
	// Undo writes the change back in the clusters changed, once stopped
	// or done; pressed twice (u).
	Undo key.Binding
	// Refresh plans again: reads and dry-runs every cluster (ctrl+r).
	Refresh key.Binding
	// LeaveOut leaves a cluster out of the plan, or puts it back: its
	// first key the first cluster, its second the second, ... (1–9).
	LeaveOut key.Binding
	// Up and Down scroll.
	Up, Down key.Binding
	// Back leaves the screen; while the change is written, it says to
	// wait (esc).
	Back key.Binding
}

// KeyTable is the name of the change's keys in the configuration file's
// key map (views.KeyMap): `keys: {change: {ACTION: KEYS}}`.
const KeyTable = "change"

// DefaultKeys returns the change's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Apply:    key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "apply, cluster by cluster (confirm the warnings first)")),
		Undo:     key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo the clusters changed (once stopped or done)")),
		Refresh:  key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "plan again (read and dry-run every cluster)")),
		LeaveOut: key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1–9", "leave that cluster out of the plan (again: put it back)")),
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑", "scroll")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "scroll")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back; while written: wait")),
	}
}
