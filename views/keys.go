package views

import "github.com/charmbracelet/bubbles/key"

// GlobalKeys are the bindings the root model handles on every screen.
type GlobalKeys struct {
	// Quit leaves kyyard (q, ctrl+c).
	Quit key.Binding
	// Help toggles the help overlay (?).
	Help key.Binding
	// Command opens the command prompt (:).
	Command key.Binding
	// Back closes the top screen (esc).
	Back key.Binding
	// Namespace opens the namespace picker over a table (ctrl+n); the
	// root takes it on any screen, the help lists it with the tables'.
	Namespace key.Binding
	// Focus moves the keys to the other pane of a split screen (ctrl+w,
	// as vim's and tmux's window keys; ui.Panes takes it). While the
	// focused pane takes text (the prompt, a filter, a form field, a
	// picker) it is the text's: there ctrl+w deletes a word.
	Focus key.Binding
}

// DefaultGlobalKeys returns the default global bindings.
func DefaultGlobalKeys() GlobalKeys {
	return GlobalKeys{
		Quit:    key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q ctrl+c", "quit")),
		Help:    key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Command: key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "command: :pods :deploy ...")),
		Back:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		// k9s's namespace key, ctrl+n, is not taken by any screen.
		Namespace: key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "pick namespace")),
		Focus:     key.NewBinding(key.WithKeys("ctrl+w"), key.WithHelp("ctrl+w", "other pane (:split, :only)")),
	}
}

// Bindings lists the global bindings every screen's help shows, in help
// order (Namespace is the tables' only): quit before help, so that the
// help overlay's first page says how to quit on a small terminal.
func (k GlobalKeys) Bindings() []key.Binding {
	return []key.Binding{k.Command, k.Back, k.Quit, k.Help, k.Focus}
}
