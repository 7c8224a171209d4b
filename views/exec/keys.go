package exec

import "github.com/charmbracelet/bubbles/key"

// Keys are the shell screen's bindings (s on a pod or a container): its
// key table is "shell". The debug image is typed: a key bound here is the
// screen's, even there, and the others are typed.
type Keys struct {
	// Up and Down choose a container when the pod has several.
	Up, Down key.Binding
	// Open opens a shell in the container chosen; in a container with no
	// shell, it starts a debug container of the image typed (enter).
	Open key.Binding
	// Confirm goes on despite the guards' warnings (y).
	Confirm key.Binding
	// Cancel leaves at the warnings: nothing is opened (n).
	Cancel key.Binding
	// Back leaves the screen while the debug image is typed (esc; on the
	// other pages the root's back does).
	Back key.Binding
}

// KeyTable is the name of the shell screen's keys in the configuration
// file's key map (views.KeyMap): `keys: {shell: {ACTION: KEYS}}`.
const KeyTable = "shell"

// DefaultKeys returns the shell screen's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Up:      key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑", "choose a container")),
		Down:    key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "choose a container")),
		Open:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open a shell in this container")),
		Confirm: key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "go on despite the warnings")),
		Cancel:  key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "cancel: nothing is opened")),
		Back:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}
