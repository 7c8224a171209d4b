package logs

import "github.com/charmbracelet/bubbles/key"

// Keys are the log viewer's bindings: k9s' log keys and a pager's (j/k
// scroll, as in k9s and less; J is the JSON toggle). esc ends a search
// first, then closes the viewer (the root's back key).
type Keys struct {
	// Up, Down, PageUp, PageDown and Top scroll (and stop following);
	// Bottom goes to the end and follows again.
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	// Follow turns following on and off.
	Follow key.Binding
	// Wrap wraps long lines (otherwise they are cut, marked "…").
	Wrap key.Binding
	// Time cycles the timestamps: off, UTC, local time.
	Time key.Binding
	// Colour keeps or strips the log's own colours.
	Colour key.Binding
	// Previous reads the previous container instance's log, or back.
	Previous key.Binding
	// Tail and Since restart the stream at the last DefaultTail lines or
	// at 1m, 5m, 15m, 30m, 1h ago: Since's first key 1m, its second 5m,
	// ... (1-5); a sixth key and those after it do nothing.
	Tail, Since key.Binding
	// Container opens the container picker.
	Container key.Binding
	// Save writes the buffered lines' own bytes to a file; Copy puts the
	// lines on screen on the clipboard (OSC 52).
	Save, Copy key.Binding
	// Search opens the search prompt; Next and Previous move between
	// matches; Only shows only matching lines, Hide hides them.
	Search, Next, PrevMatch, Only, Hide key.Binding
	// JSON pretty-prints JSON lines; Fields shows chosen fields as columns.
	JSON, Fields key.Binding
	// Back ends the search, then closes the viewer.
	Back key.Binding
}

// KeyTable is the name of this screen's keys in the configuration
// file's key map (views.KeyMap): `keys: {logs: {ACTION: KEYS}}`.
const KeyTable = "logs"

// DefaultKeys returns the log viewer's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up (stops following)")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:    key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup", "page up")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown", " "), key.WithHelp("pgdn", "page down")),
		Top:       key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:    key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom, follow")),
		Follow:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "follow on/off")),
		Wrap:      key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "wrap lines")),
		Time:      key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "time: off/UTC/local")),
		Colour:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "log colours on/off")),
		Previous:  key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "previous container")),
		Tail:      key.NewBinding(key.WithKeys("0"), key.WithHelp("0", "tail")),
		Since:     key.NewBinding(key.WithKeys("1", "2", "3", "4", "5"), key.WithHelp("1-5", "since 1m 5m 15m 30m 1h")),
		Container: key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "pick container")),
		Save:      key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "save to a file")),
		Copy:      key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy shown lines")),
		Search:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search (regexp)")),
		Next:      key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next match")),
		PrevMatch: key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous match")),
		Only:      key.NewBinding(key.WithKeys("&"), key.WithHelp("&", "only matching lines")),
		Hide:      key.NewBinding(key.WithKeys("!"), key.WithHelp("!", "hide matching lines")),
		JSON:      key.NewBinding(key.WithKeys("J"), key.WithHelp("J", "JSON pretty")),
		Fields:    key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "JSON fields as columns")),
		Back:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "end search, back")),
	}
}

// bindings lists the keys in help order.
func (k Keys) bindings() []binding {
	return []binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Follow, k.Wrap, k.Time, k.Colour,
		k.Previous, k.Tail, k.Since, k.Container, k.Save, k.Copy, k.Search, k.Next, k.PrevMatch, k.Only, k.Hide,
		k.JSON, k.Fields, k.Back}
}

type binding = key.Binding
