package create

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/kyyard/kyyard/views"
)

// Keys are the :create screen's bindings: its key table is "create". In
// kyyard's own text area only Preview and Discard are the screen's: the
// other keys edit the text.
type Keys struct {
	// Preview runs the dry run of the text in the text area (ctrl+s).
	Preview key.Binding
	// Discard discards the text: at once while nothing changed, else when
	// pressed twice (esc).
	Discard key.Binding
	// Apply applies the previewed text; once applied, it leaves the
	// screen (y, enter).
	Apply key.Binding
	// Edit edits the text again, as it was left (e).
	Edit key.Binding
	// ScrollKeys scroll the preview and the outcomes.
	views.ScrollKeys
}

// KeyTable is the name of the :create screen's keys in the configuration
// file's key map (views.KeyMap): `keys: {create: {ACTION: KEYS}}`.
const KeyTable = "create"

// DefaultKeys returns the :create screen's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Preview:    key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "preview (text area)")),
		Discard:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "discard (twice)")),
		Apply:      key.NewBinding(key.WithKeys("y", "enter"), key.WithHelp("y/enter", "apply (after the preview; type force to take over fields)")),
		Edit:       key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit again (text kept)")),
		ScrollKeys: views.DefaultScrollKeys(),
	}
}
