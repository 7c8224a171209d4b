package portforward

import "github.com/charmbracelet/bubbles/key"

// Keys are the port-forward dialog's bindings: its key table is
// "port-forward". The dialog takes every key itself (its fields take
// digits; ? still opens the help).
type Keys struct {
	// Up and Down choose a port (the last row is a port typed); Down past
	// it goes to the local port, Up from there back to the rows.
	Up, Down key.Binding
	// LocalPort moves between the port chosen and the local port (tab,
	// shift+tab).
	LocalPort key.Binding
	// Start starts the forward (enter).
	Start key.Binding
	// Back leaves the dialog: nothing is started (esc).
	Back key.Binding
}

// KeyTable is the name of the dialog's keys in the configuration file's
// key map (views.KeyMap): `keys: {port-forward: {ACTION: KEYS}}`.
const KeyTable = "port-forward"

// DefaultKeys returns the dialog's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Up:        key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "choose a port")),
		Down:      key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "choose a port")),
		LocalPort: key.NewBinding(key.WithKeys("tab", "shift+tab"), key.WithHelp("tab", "local port")),
		Start:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "start the forward")),
		Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}
