package operate

import "github.com/charmbracelet/bubbles/key"

// Keys are the confirmation's bindings (restart, scale, delete, pause,
// ...): its key table is "confirm". The text a warning asks to be typed
// takes the letters; the screen's own keys wait until it is taken.
type Keys struct {
	// Confirm sends the action once the plan is read and every typed
	// warning taken (y).
	Confirm key.Binding
	// Force switches a delete of pods between graceful (the pods' own
	// grace period) and force (grace period 0), planned again (f);
	// unbound, kyyard never force deletes.
	Force key.Binding
	// Cancel leaves the question: nothing is sent (n).
	Cancel key.Binding
	// Back cancels at any stage, even while text is typed (esc); once
	// sending, the objects not reached yet are left alone.
	Back key.Binding
	// Take takes the replicas typed on the scale form; on the results,
	// opens the pods of the Job a trigger made, else closes the screen
	// (enter). A warning's typed text is taken by enter.
	Take key.Binding
	// Up and Down scroll the plan and the results a line.
	Up, Down key.Binding
	// PageUp and PageDown scroll the results (a line).
	PageUp, PageDown key.Binding
}

// KeyTable is the name of the confirmation's keys in the configuration
// file's key map (views.KeyMap): `keys: {confirm: {ACTION: KEYS}}`.
const KeyTable = "confirm"

// DefaultKeys returns the confirmation's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Confirm:  key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "confirm")),
		Force:    key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "pods: force delete (grace period 0)")),
		Cancel:   key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "cancel")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Take:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "take the typed text / the replicas; after a trigger, its Job's pods")),
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑", "scroll up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "scroll down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "scroll up (results)")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "scroll down (results)")),
	}
}

// ListKeys are the action list's bindings (a on a row): its key table is
// "actions".
type ListKeys struct {
	// Up and Down move the cursor.
	Up, Down key.Binding
	// Open opens the chosen action's confirmation (enter).
	Open key.Binding
}

// ListKeyTable is the name of the action list's keys in the
// configuration file's key map: `keys: {actions: {ACTION: KEYS}}`.
const ListKeyTable = "actions"

// DefaultListKeys returns the action list's default bindings.
func DefaultListKeys() ListKeys {
	return ListKeys{
		Up:   key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑", "choose an action")),
		Down: key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "choose an action")),
		Open: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open its confirmation")),
	}
}
