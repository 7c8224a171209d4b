package ui

// Aliases and hotkeys (issue 27): a word of your own for the `:` prompt
// that opens a kind in a namespace with a filter (`:web` → pods in shop
// with /web), and a key that opens one on the tables; both from the
// configuration file (aliases:, hotkeys:).

import (
	"slices"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/inventory"
)

// Alias is what an alias opens: Kind (a name or alias, as `:` takes it)
// in Namespace ("" the one in use, "all", a name, or several joined by
// commas) with Filter as if typed after `/`.
type Alias struct {
	Kind, Namespace, Filter string
}

// WithAliases makes the aliases `:` words (a word kyyard knows otherwise
// is the alias's) and the hotkeys keys of the tables (key name → alias).
func WithAliases(aliases map[string]Alias, hotkeys map[string]string) Option {
	return func(m *Model) { m.short.aliases, m.short.hotkeys = aliases, hotkeys }
}

// ReservedKey reports whether kyyard binds key name on its tables (the
// global keys, the panes' focus key ctrl+w among them, the namespace
// picker's, the favourites' and the inventory screen's), so that a hotkey
// there would take it away.
func ReservedKey(name string) bool {
	bindings := append(views.DefaultGlobalKeys().Bindings(), pickNamespaceKey(), favouritesKeys)
	bindings = append(bindings, inventory.DefaultKeys().List()...)
	for _, b := range bindings {
		if slices.Contains(b.Keys(), name) {
			return true
		}
	}
	return false
}

// IsCommand reports whether word is one of kyyard's own `:` commands
// (:q, :ctx, :apps, …) or :ns, which an alias may not take (a kind's name
// it may: the alias wins there).
func IsCommand(word string) bool { return commandFor(word) != nil || word == "ns" }

// alias returns the alias a `:` line names (one word), if any.
func (m *Model) alias(fields []string) (Alias, bool) {
	if len(fields) != 1 {
		return Alias{}, false
	}
	a, ok := m.short.aliases[fields[0]]
	return a, ok
}

// openAlias opens what an alias names, replacing the screens (as a `:`
// command); a kind the cluster does not serve is said on the status line.
func (m *Model) openAlias(word string, a Alias) tea.Cmd {
	info, ok := m.vc.Client.Kind(a.Kind)
	if !ok {
		m.status = views.StatusMsg{Error: true, Text: ":" + views.Echo(word, m.width) + ": the alias's kind " + views.Echo(a.Kind, m.width) + " is not served here"}
		return nil
	}
	ns := m.namespace
	switch {
	case a.Namespace == "all":
		ns = ""
	case a.Namespace != "":
		ns = a.Namespace
		if several, err := views.ParseNamespaces(ns); err == nil {
			ns = several
		}
	}
	return m.open(views.OpenKindMsg{Kind: info.ID, Namespace: ns, Replace: true, Filter: a.Filter}, a.Namespace != "")
}

// shortcutKey reports whether msg is a favourites key (favouriteKey) or a
// hotkey, on a table that takes no text.
func (m *Model) shortcutKey(msg tea.KeyMsg) bool {
	if m.favouriteKey(msg) {
		return true
	}
	_, ok := m.hotkey(msg)
	return ok
}

// hotkey returns the alias word a hotkey opens.
func (m *Model) hotkey(msg tea.KeyMsg) (string, bool) {
	word, ok := m.short.hotkeys[msg.String()]
	if !ok {
		return "", false
	}
	if _, table := m.Top().(kindScreen); !table || m.Top().Capturing() {
		return "", false
	}
	return word, true
}

// openShortcut opens what a favourites key or a hotkey names.
func (m *Model) openShortcut(msg tea.KeyMsg) tea.Cmd {
	if word, ok := m.hotkey(msg); ok {
		if m.closesWork(":" + word) {
			return nil
		}
		return m.openAlias(word, m.short.aliases[word])
	}
	return m.openFavourite(msg)
}

// aliasWords are the aliases' words, sorted, for the prompt's completion
// (before the kinds and commands: an alias wins over a kind).
func (m *Model) aliasWords() []string {
	words := make([]string, 0, len(m.short.aliases))
	for w := range m.short.aliases {
		words = append(words, w)
	}
	slices.Sort(words)
	return words
}

// hotkeyHelp lists the hotkeys in the help overlay: the key and the
// alias it opens ("f2  :web").
func (m *Model) hotkeyHelp() []key.Binding {
	keys := make([]string, 0, len(m.short.hotkeys))
	for k := range m.short.hotkeys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]key.Binding, len(keys))
	for i, k := range keys {
		out[i] = key.NewBinding(key.WithKeys(k), key.WithHelp(k, ":"+m.short.hotkeys[k]+" (hotkey)"))
	}
	return out
}
