package ui

// Namespace favourites one key away (issue 27, as k9s users expect): on an
// inventory screen `0` shows all namespaces and `1`–`9` the favourites:
// the context's namespaces pinned in the configuration file (contexts:
// NAME: namespaces: [...]), then the ones used most recently, the one in
// use first. The header names them ("ns: 0 all 1 demo 2 shop,web").

import (
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/views"
)

// maxFavourites is how many favourites keys there are (1–9).
const maxFavourites = 9

// favouritesKeys is the favourites keys' line in the help overlay.
var favouritesKeys = key.NewBinding(key.WithKeys("0", "1", "2", "3", "4", "5", "6", "7", "8", "9"),
	key.WithHelp("0-9", "namespace: 0 all, 1-9 favourites (header's ns:)"))

// maxRecent bounds the namespaces remembered per context.
const maxRecent = 20

// FavouriteNamespaces is implemented by a Kubeconfig (WithKubeconfig)
// that knows each context's pinned favourite namespaces (the
// configuration file's contexts.NAME.namespaces): each a namespace or
// several joined by commas, in the order keys 1, 2, … take them.
type FavouriteNamespaces interface {
	FavouriteNamespaces(context string) []string
}

// shortcutState is what the favourites keys remember (the namespaces
// used, by context, latest first, and the start context's name, the
// kubeconfig's, read once) and the configuration file's aliases and
// hotkeys (shortcuts.go).
type shortcutState struct {
	recent   map[string][]string
	pinned   map[string][]string // the config's favourites by context (pinned)
	home     string
	homeRead bool
	aliases  map[string]Alias
	hotkeys  map[string]string
	// configPath is the configuration file (WithConfigFile), for :keys.
	configPath string
	// chord is the first key of a chord pressed, waiting for the second
	// ("" none; keys.go).
	chord string
}

// favouritesContext is the context whose favourites apply: the one
// switched to, else the one kyyard started in.
func (m *Model) favouritesContext() string {
	if m.context != "" || m.kubeconfig == nil {
		return m.context
	}
	if !m.short.homeRead {
		_, m.short.home, _ = m.kubeconfig.Contexts()
		m.short.homeRead = true
	}
	return m.short.home
}

// setNamespace makes ns the namespace `:` commands open kinds in, and the
// most recently used of the context's, the one it replaces next (neither
// all namespaces nor each context's own is remembered: 0 and the fleet
// have their own ways).
func (m *Model) setNamespace(ns string) {
	m.remember(m.namespace)
	m.namespace = ns
	m.remember(ns)
}

// remember puts ns first among the context's namespaces used.
func (m *Model) remember(ns string) {
	if ns == "" || ns == views.OwnNamespaces {
		return
	}
	if m.short.recent == nil {
		m.short.recent = map[string][]string{}
	}
	ctx := m.favouritesContext()
	list := slices.DeleteFunc(slices.Clone(m.short.recent[ctx]), func(s string) bool { return s == ns })
	list = append([]string{ns}, list...)
	m.short.recent[ctx] = list[:min(len(list), maxRecent)]
}

// favourites returns the namespaces keys 1–9 open, in order: the pinned
// ones, then the one in use and those used most recently, each once.
func (m *Model) favourites() []string {
	var out []string
	add := func(ns string) {
		if ns != "" && ns != views.OwnNamespaces && !slices.Contains(out, ns) && len(out) < maxFavourites {
			out = append(out, ns)
		}
	}
	ctx := m.favouritesContext()
	for _, ns := range m.pinned(ctx) {
		add(ns)
	}
	add(m.namespace)
	for _, ns := range m.short.recent[ctx] {
		add(ns)
	}
	return out
}

// pinned returns the context's pinned favourites as screen namespaces
// ("shop,web" sorted, views.ParseNamespaces), read from the kubeconfig's
// FavouriteNamespaces once per context: the header draws them each frame.
func (m *Model) pinned(ctx string) []string {
	if list, ok := m.short.pinned[ctx]; ok {
		return list
	}
	var list []string
	if fav, ok := m.kubeconfig.(FavouriteNamespaces); ok {
		for _, ns := range fav.FavouriteNamespaces(ctx) {
			if several, err := views.ParseNamespaces(ns); err == nil {
				list = append(list, several)
			}
		}
	}
	if m.short.pinned == nil {
		m.short.pinned = map[string][]string{}
	}
	m.short.pinned[ctx] = list
	return list
}

// favouriteKey reports whether msg is a favourites key here: 0, or 1–9
// with a favourite for it, on an inventory screen that takes no text.
func (m *Model) favouriteKey(msg tea.KeyMsg) bool {
	_, ok := m.favouriteOf(msg)
	return ok
}

// favouriteOf returns the namespace a digit key opens ("" for 0).
func (m *Model) favouriteOf(msg tea.KeyMsg) (string, bool) {
	if msg.Type != tea.KeyRunes || len(msg.Runes) != 1 || msg.Alt || msg.Runes[0] < '0' || msg.Runes[0] > '9' {
		return "", false
	}
	if _, ok := m.Top().(kindScreen); !ok || m.Top().Capturing() {
		return "", false
	}
	n := int(msg.Runes[0] - '0')
	if n == 0 {
		return "", true
	}
	fav := m.favourites()
	if n > len(fav) {
		return "", false
	}
	return fav[n-1], true
}

// openFavourite shows the top screen's kind in the namespace a favourites
// key names, as the namespace picker would.
func (m *Model) openFavourite(msg tea.KeyMsg) tea.Cmd {
	ns, _ := m.favouriteOf(msg)
	if m.closesWork("a namespace switch") {
		return nil
	}
	return m.open(views.OpenKindMsg{Kind: m.topKind(), Namespace: ns, Replace: true}, true)
}

// withFavourites adds to a header line, in the room it leaves, the
// favourites keys ("ns: 0 all  1 demo  2 shop,web", cut at the width):
// the server's facts come first. None on a screen where the keys do
// nothing.
func (m *Model) withFavourites(line string) string {
	if _, ok := m.Top().(kindScreen); !ok {
		return line
	}
	parts := []string{"0 all"}
	for i, ns := range m.favourites() {
		parts = append(parts, strconv.Itoa(i+1)+" "+views.Sanitize(ns))
	}
	room := m.width - ansi.StringWidth(line) - len("  ns: ")
	if room < len("0 all") {
		return line
	}
	st := m.vc.Styles
	return line + "  " + st.HeaderKey.Render("ns:") + " " + st.HeaderValue.Render(ansi.Truncate(strings.Join(parts, "  "), room, "…"))
}
