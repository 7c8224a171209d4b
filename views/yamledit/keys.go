package yamledit

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/kyyard/kyyard/views"
)

// Keys are the YAML edit's bindings: its key table is "yaml-edit". In
// kyyard's own text area only Preview and Discard are the screen's: the
// other keys edit the text.
type Keys struct {
	// Preview runs the dry run of the text in the text area (ctrl+s).
	Preview key.Binding
	// Discard discards the edit: at once while nothing changed, else when
	// pressed twice (esc).
	Discard key.Binding
	// Apply applies the previewed edit (y, enter).
	Apply key.Binding
	// Edit edits the text again, as it was left (e).
	Edit key.Binding
	// Patch shows or hides the patch sent (p).
	Patch key.Binding
	// ScrollKeys scroll the preview.
	views.ScrollKeys
}

// KeyTable is the name of the YAML edit's keys in the configuration
// file's key map (views.KeyMap): `keys: {yaml-edit: {ACTION: KEYS}}`.
const KeyTable = "yaml-edit"

// DefaultKeys returns the YAML edit's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Preview:    key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "preview (text area)")),
		Discard:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "discard the edit (twice)")),
		Apply:      key.NewBinding(key.WithKeys("y", "enter"), key.WithHelp("y/enter", "apply (after the preview)")),
		Edit:       key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit again (text kept)")),
		Patch:      key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "show the patch")),
		ScrollKeys: views.DefaultScrollKeys(),
	}
}
