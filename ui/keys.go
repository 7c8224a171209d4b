package ui

// The key map (issue 27): every screen's keys by table, as the
// configuration file's `keys:` section names them; the check of a map at
// start (CheckKeyMap); the chords (a key, then a second one) the root
// holds the first key of.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/apps"
	"github.com/kyyard/kyyard/views/clusters"
	"github.com/kyyard/kyyard/views/create"
	"github.com/kyyard/kyyard/views/deploy"
	"github.com/kyyard/kyyard/views/detail"
	"github.com/kyyard/kyyard/views/drain"
	"github.com/kyyard/kyyard/views/drift"
	"github.com/kyyard/kyyard/views/events"
	"github.com/kyyard/kyyard/views/exec"
	"github.com/kyyard/kyyard/views/filecopy"
	"github.com/kyyard/kyyard/views/fleetchange"
	"github.com/kyyard/kyyard/views/forwards"
	"github.com/kyyard/kyyard/views/helm"
	"github.com/kyyard/kyyard/views/history"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/keylist"
	"github.com/kyyard/kyyard/views/logs"
	"github.com/kyyard/kyyard/views/operate"
	"github.com/kyyard/kyyard/views/ownertree"
	"github.com/kyyard/kyyard/views/pickers"
	"github.com/kyyard/kyyard/views/portforward"
	"github.com/kyyard/kyyard/views/rollout"
	"github.com/kyyard/kyyard/views/secret"
	"github.com/kyyard/kyyard/views/workload"
	"github.com/kyyard/kyyard/views/yamledit"
)

// GlobalKeyTable is the name of the root's keys (views.GlobalKeys) in the
// key map: they act on every screen.
const GlobalKeyTable = "global"

// KeyTable is one screen's keys as the key map names them.
type KeyTable struct {
	// Name is the table's name in the configuration file (views.KeyMap's
	// first level: `keys: {table: {describe: D}}`).
	Name string
	// Screens says which screens use the table, for :keys and messages.
	Screens string
	// Root is set where keys pass through the root, which takes the
	// global keys and the chords first; a picker or a form takes its keys
	// itself (no chord there, and the global keys do not count).
	Root bool
	// defaults returns a pointer to the screen's default Keys struct.
	defaults func() any
}

// Actions returns the table's actions with km applied, in the order of
// the screen's Keys struct (views.KeyActions).
func (t KeyTable) Actions(km views.KeyMap) []views.KeyAction {
	keys := t.defaults()
	km.Bind(t.Name, keys)
	return views.KeyActions(keys)
}

func ptr[K any](defaults func() K) func() any {
	return func() any { k := defaults(); return &k }
}

// KeyTables lists every key table, in the order :keys shows them.
func KeyTables() []KeyTable {
	return []KeyTable{
		{GlobalKeyTable, "every screen (quit, help, :, back, the namespace picker)", true, ptr(views.DefaultGlobalKeys)},
		{inventory.KeyTable, "the tables of kinds (:pods, :deploy, ...)", true, ptr(inventory.DefaultKeys)},
		{detail.KeyTable, "describe and YAML (d, y)", true, ptr(detail.DefaultKeys)},
		{logs.KeyTable, "logs (l, p)", true, ptr(logs.DefaultKeys)},
		{rollout.KeyTable, "rollout status (R)", true, ptr(rollout.DefaultKeys)},
		{operate.KeyTable, "the confirmation of an action (restart, scale, delete, ...)", true, ptr(operate.DefaultKeys)},
		{operate.ListKeyTable, "the action list (a)", true, ptr(operate.DefaultListKeys)},
		{drain.KeyTable, "the drain of a node (D)", true, ptr(drain.DefaultKeys)},
		{yamledit.KeyTable, "the YAML edit (E)", true, ptr(yamledit.DefaultKeys)},
		{secret.KeyTable, "a Secret's decoded values (x)", true, ptr(secret.DefaultKeys)},
		{ownertree.KeyTable, "the owner tree (o)", true, ptr(ownertree.DefaultKeys)},
		{events.KeyTable, "an object's events (v)", true, ptr(events.DefaultKeys)},
		{exec.KeyTable, "the shell's container choice and warnings (s on a pod)", true, ptr(exec.DefaultKeys)},
		{filecopy.KeyTable, "the file copy (T on a pod)", true, ptr(filecopy.DefaultKeys)},
		{portforward.KeyTable, "the port-forward dialog (shift+f)", false, ptr(portforward.DefaultKeys)},
		{drift.KeyTable, "the drift of a workload across the contexts (=)", true, ptr(drift.DefaultKeys)},
		{fleetchange.KeyTable, "a change or restart applied cluster by cluster", true, ptr(fleetchange.DefaultKeys)},
		{clusters.KeyTable, "the clusters overview (:clusters)", true, ptr(clusters.DefaultKeys)},
		{create.KeyTable, ":create", true, ptr(create.DefaultKeys)},
		{forwards.KeyTable, "the port-forwards (:pf)", true, ptr(forwards.DefaultKeys)},
		{history.KeyTable, "the session's history (:history)", true, ptr(history.DefaultKeys)},
		{helm.ReleasesKeyTable, "the Helm releases (:helm)", true, ptr(helm.DefaultReleasesKeys)},
		{helm.HistoryKeyTable, "a Helm release's revisions (enter on :helm)", true, ptr(helm.DefaultHistoryKeys)},
		{helm.RollbackKeyTable, "a Helm rollback (r on a revision)", true, ptr(helm.DefaultRollbackKeys)},
		{apps.KeyTable, ":apps", true, ptr(apps.DefaultKeys)},
		{workload.KeyTable, "the workload form (e)", false, ptr(workload.DefaultKeys)},
		{deploy.KeyTable, "the deploy form and its preview (:apps)", false, ptr(deploy.DefaultKeys)},
		{deploy.RemoveKeyTable, "the remove of an app (ctrl+d on :apps)", true, ptr(deploy.DefaultRemoveKeys)},
		{pickers.KeyTable, "the namespace and context pickers", false, ptr(pickers.DefaultKeys)},
		{keylist.KeyTable, "this list (:keys)", true, ptr(keylist.DefaultKeys)},
	}
}

// typedActions are, by table, the actions of a screen the root passes
// keys to that act while the screen takes text (Capturing: a path, a
// name, a text area): the root passes no keys then, so no chord reaches
// them, and CheckKeyMap refuses one.
var typedActions = map[string][]string{
	operate.KeyTable:      {"back", "take"},
	filecopy.KeyTable:     {"next-field", "previous-field", "start", "back"},
	exec.KeyTable:         {"open", "back"},
	create.KeyTable:       {"preview", "discard"},
	yamledit.KeyTable:     {"preview", "discard"},
	deploy.RemoveKeyTable: {"remove", "back", "up", "down"},
}

// KeyMapError is a fault of a key map: Path is its place in the
// configuration file (["keys", table, action]), for the line it is on.
type KeyMapError struct {
	// Path is "keys", the table, and the action when the fault is one
	// action's.
	Path []string
	// Msg says what is wrong and what would be right.
	Msg string
}

// Error writes the path and the message: "keys.table.delet: no such
// action on the tables of kinds (...)".
func (e *KeyMapError) Error() string { return strings.Join(e.Path, ".") + ": " + e.Msg }

// CheckKeyMap checks a key map against KeyTables: every table and action
// exists; no key is bound to two actions of one screen once the map is
// applied (the global keys count on every screen, the favourites' digits
// on the tables), where the map changed one of the two; a chord is bound
// only where the root passes keys, and its first key is no key of its
// own there. The keys' spelling is config's to check. It returns every
// fault, each a *KeyMapError: the unknown names first, in the order of
// their names, then the first clash on each screen, in KeyTables' order
// (the clashes are looked for once the names are right). None: nil.
func CheckKeyMap(km views.KeyMap) []error {
	tables := KeyTables()
	byName := map[string]KeyTable{}
	for _, t := range tables {
		byName[t.Name] = t
	}
	var faults []error
	for _, name := range slices.Sorted(maps.Keys(km)) {
		t, ok := byName[name]
		if !ok {
			faults = append(faults, &KeyMapError{[]string{"keys", name}, fmt.Sprintf("no such key table (the tables: %s)", tableNames(tables))})
			continue
		}
		actions := t.Actions(nil)
		for _, a := range slices.Sorted(maps.Keys(km[name])) {
			if !slices.ContainsFunc(actions, func(x views.KeyAction) bool { return x.Name == a }) {
				faults = append(faults, &KeyMapError{[]string{"keys", name, a}, fmt.Sprintf("no such action on %s (its actions: %s)", t.Screens, actionNames(actions))})
			}
		}
	}
	if len(faults) > 0 {
		return faults
	}
	global, globalDefaults := byName[GlobalKeyTable].Actions(km), byName[GlobalKeyTable].Actions(nil)
	for _, t := range tables {
		if err := checkTable(t, km, global, globalDefaults); err != nil {
			faults = append(faults, err)
		}
	}
	return faults
}

// chordFault is the fault of key k of action (table, action) when it is
// a chord where none can be: on a screen that takes its keys itself, on
// the panes' focus key, on an action that acts while text is typed, or
// ending with esc (which cancels a chord); nil otherwise, and for a key
// the map does not name (changed false).
func chordFault(t KeyTable, table, action, k string, changed bool) error {
	_, second, chord := views.ChordParts(k)
	if !chord || !changed {
		return nil
	}
	at := []string{"keys", table, action}
	switch {
	case !t.Root:
		return &KeyMapError{at, fmt.Sprintf("on %s the screen takes its keys itself: a chord (%s) cannot be bound there", t.Screens, views.KeyHelp([]string{k}))}
	case table == GlobalKeyTable && action == "focus":
		return &KeyMapError{at, "the panes take the focus key before any screen: one key, not a chord"}
	case slices.Contains(typedActions[table], action):
		return &KeyMapError{at, fmt.Sprintf("%s acts while text is typed on %s, when the root passes no keys: a chord (%s) cannot be bound to it", action, t.Screens, views.KeyHelp([]string{k}))}
	case second == "esc":
		return &KeyMapError{at, "esc cancels a chord: it cannot be a chord's second key"}
	}
	return nil
}

// holder is an action holding a key on one screen.
type holder struct {
	table, action string
	changed       bool
}

// checkTable checks one table's keys against each other and the global
// ones (CheckKeyMap): global as the map binds them, globalDefaults as
// kyyard does.
func checkTable(t KeyTable, km views.KeyMap, global, globalDefaults []views.KeyAction) error {
	// The pairs the defaults make (esc is the root's back and a screen's
	// own, which it takes first) are no clash, written out or not.
	byDefault := map[string][]string{}
	if t.Name != GlobalKeyTable && t.Root {
		for _, a := range globalDefaults {
			for _, k := range a.Binding.Keys() {
				byDefault[k] = append(byDefault[k], GlobalKeyTable+"."+a.Name)
			}
		}
	}
	for _, a := range t.Actions(nil) {
		for _, k := range a.Binding.Keys() {
			byDefault[k] = append(byDefault[k], t.Name+"."+a.Name)
		}
	}
	paired := func(k string, x, y holder) bool {
		return slices.Contains(byDefault[k], x.table+"."+x.action) && slices.Contains(byDefault[k], y.table+"."+y.action)
	}
	held := map[string][]holder{}
	hold := func(table string, actions []views.KeyAction) error {
		for _, a := range actions {
			_, changed := km[table][a.Name]
			for _, k := range a.Binding.Keys() {
				if err := chordFault(t, table, a.Name, k, changed); err != nil {
					return err
				}
				mine := holder{table, a.Name, changed}
				for _, h := range held[k] {
					if h.table == table && h.action == a.Name || paired(k, h, mine) {
						continue
					}
					blame, other := mine, h
					if !changed {
						blame, other = h, mine
					}
					return &KeyMapError{[]string{"keys", blame.table, blame.action}, fmt.Sprintf("%s is also %s (table %s) on %s: unbind or rebind one of them", views.KeyHelp([]string{k}), other.action, other.table, t.Screens)}
				}
				held[k] = append(held[k], mine)
			}
		}
		return nil
	}
	if t.Name != GlobalKeyTable && t.Root {
		if err := hold(GlobalKeyTable, global); err != nil {
			return err
		}
	}
	if err := hold(t.Name, t.Actions(km)); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(held)) {
		h := held[k][0]
		if first, _, chord := views.ChordParts(k); chord {
			if own, ok := held[first]; ok {
				return &KeyMapError{[]string{"keys", h.table, h.action}, fmt.Sprintf("the chord %s starts with %s, which is %s (table %s) on %s: the second key would never come", views.KeyHelp([]string{k}), views.KeyHelp([]string{first}), own[0].action, own[0].table, t.Screens)}
			}
		}
	}
	if t.Name == inventory.KeyTable {
		for _, k := range favouritesKeys.Keys() {
			for _, h := range held[k] {
				if h.changed {
					return &KeyMapError{[]string{"keys", h.table, h.action}, fmt.Sprintf("%s is a namespace favourite's key on the tables (0-9)", k)}
				}
			}
		}
	}
	return nil
}

func tableNames(tables []KeyTable) string {
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

func actionNames(actions []views.KeyAction) string {
	names := make([]string, len(actions))
	for i, a := range actions {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

// ReservedKey reports whether kyyard binds key name on its tables with km
// applied (the global keys, the favourites' digits, the table's own), so
// that a hotkey there would take it away.
func ReservedKey(name string, km views.KeyMap) bool {
	bindings := []key.Binding{favouritesKeys}
	for _, t := range KeyTables()[:2] { // global, then the tables'
		for _, a := range t.Actions(km) {
			bindings = append(bindings, *a.Binding)
		}
	}
	for _, b := range bindings {
		for _, k := range b.Keys() {
			if first, _, _ := views.ChordParts(k); k == name || first == name {
				return true
			}
		}
	}
	return false
}

// chordKey takes a key that starts or ends a chord bound on the top screen
// or globally: the first is held (the status line says so), the second
// completes it, handed on as one key named "first second" (the name its
// binding holds), or says no such chord is bound. ok is false for any
// other key.
func (m *Model) chordKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	name := msg.String()
	if first := m.short.chord; first != "" {
		m.short.chord = ""
		seq := first + " " + name
		switch {
		case m.chordBound(seq, false):
			return m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(seq)}), true
		case name == "esc":
			m.status = views.StatusMsg{Text: views.KeyHelp([]string{first}) + " … cancelled"}
		default:
			m.status = views.StatusMsg{Text: m.noSuchKey(views.KeyHelp([]string{seq}))}
		}
		return nil, true
	}
	if m.chordBound(name, true) {
		m.short.chord = name
		m.status = views.StatusMsg{Text: views.KeyHelp([]string{name}) + " … (a chord: the second key; esc cancels)"}
		return nil, true
	}
	return nil, false
}

// noSuchKey says key does nothing here, and which key shows the help
// (the help's key in force; none when it is unbound).
func (m *Model) noSuchKey(key string) string {
	return views.Hints(key+": no such key here", views.Hint("help", m.vc.Keys.Help))
}

// dropChord drops the first key of a chord waiting for its second (the
// focus left the pane, the mouse was used): the status line says so.
func (m *Model) dropChord() {
	if first := m.short.chord; first != "" {
		m.short.chord = ""
		m.status = views.StatusMsg{Text: views.KeyHelp([]string{first}) + " … cancelled"}
	}
}

// chordBound reports whether a chord the top screen or the root binds is
// k (prefix false) or starts with k (prefix true).
func (m *Model) chordBound(k string, prefix bool) bool {
	bindings := append(m.vc.Keys.Bindings(), m.vc.Keys.Namespace)
	for _, b := range append(bindings, m.Top().Bindings()...) {
		for _, bk := range b.Keys() {
			first, _, chord := views.ChordParts(bk)
			if chord && b.Enabled() && (bk == k && !prefix || first == k && prefix) {
				return true
			}
		}
	}
	return false
}

// WithConfigFile names the configuration file the key map, the aliases
// and the hotkeys come from (:keys says where to rebind); "" none.
func WithConfigFile(path string) Option {
	return func(m *Model) { m.short.configPath = path }
}

// keyRows are the :keys screen's rows: every table's actions with the key
// map applied (FromFile where the map names them), then the hotkeys and
// the favourites' digits.
func (m *Model) keyRows() []keylist.Row {
	var rows []keylist.Row
	for _, t := range KeyTables() {
		for _, a := range t.Actions(m.vc.KeyMap) {
			_, file := m.vc.KeyMap[t.Name][a.Name]
			rows = append(rows, keylist.Row{Table: t.Name, Screens: t.Screens, Action: a.Name, Keys: a.Binding.Keys(), Help: a.Binding.Help().Desc, FromFile: file})
		}
	}
	for _, b := range m.hotkeyHelp() {
		rows = append(rows, keylist.Row{Table: "hotkeys", Screens: "the tables (the configuration file's hotkeys:)", Action: b.Help().Desc, Keys: b.Keys(), FromFile: true})
	}
	rows = append(rows, keylist.Row{Table: "favourites", Screens: "the tables (fixed: no keys: table)", Action: "namespace", Keys: favouritesKeys.Keys(), Help: favouritesKeys.Help().Desc})
	return rows
}
