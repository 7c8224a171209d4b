package ui

// A pane's side of a split screen (issue 27, "Side by side"): the `:split`
// and `:only` commands, esc on a pane's last screen, the sibling a split
// opens, and how a pane draws its chrome in a split. Panes (panes.go) holds
// the panes and routes the messages; a Model never makes a pane itself: it
// asks Panes with a message (splitMsg, onlyMsg, closePaneMsg).

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/logs"
)

// splitWords and onlyWords are the words of `:split` and `:only` in the
// command table (commands), which askSplit refuses after `:split`.
var (
	splitWords = []string{"split", "sp"}
	onlyWords  = []string{"only", "unsplit"}
)

// splitMsg asks Panes for a second pane below the one that sent it,
// showing what the `:` line opens ("" : the sender's kind and namespace);
// while split, the new pane replaces the other one.
type splitMsg struct{ line string }

// onlyMsg asks Panes to close every pane but the one that sent it.
type onlyMsg struct{}

// closePaneMsg asks Panes to close the pane that sent it (esc on its last
// screen).
type closePaneMsg struct{}

// besideMsg asks Panes to show logs (`L`) in the other pane, splitting
// the screen first when it is not split; the sender keeps the keys.
type besideMsg struct{ logs views.OpenLogsMsg }

// paneChrome is the number of lines a pane of a split draws around its
// top screen: one header line, the title bar and the status line.
const paneChrome = chromeLines - 1

// minSplitHeight is the smallest terminal height two panes are drawn in:
// each pane's chrome, a column header and two rows.
const minSplitHeight = 2 * (paneChrome + 3)

// chrome is the number of lines m draws around its top screen.
func (m *Model) chrome() int {
	if m.split() {
		return paneChrome
	}
	return chromeLines
}

// minHeight is the smallest height m draws in (below it: tooSmall).
func (m *Model) minHeight() int { return m.chrome() + minTermHeight - chromeLines }

// typing reports whether the keys m gets are text (the prompt, a picker's
// filter, a screen taking text: a filter, a form) or answer a question
// (quit's): the focus key (ctrl+w, text inputs' delete-word) is then
// theirs.
func (m *Model) typing() bool {
	return m.quitAsked != "" || m.prompting || m.overlay != nil || !m.help && m.Top().Capturing()
}

// askSplit runs `:split [line]`: it asks Panes for a second pane showing
// line's screen. While split, that pane replaces the other one, unless
// the other one holds unsaved work (then nothing changes and the status
// line says so).
func (m *Model) askSplit(line string) tea.Cmd {
	if !m.sess.hosted {
		m.status = views.StatusMsg{Error: true, Text: ":split needs the panes of kyyard's screen; this model runs alone"}
		return nil
	}
	if f := strings.Fields(line); len(f) > 0 && (slices.Contains(splitWords, f[0]) || slices.Contains(onlyWords, f[0])) {
		m.status = views.StatusMsg{Error: true, Text: ":split takes what the new pane shows: :split pods, :split deploy shop"}
		return nil
	}
	if f := strings.Fields(line); len(f) > 0 && !m.knownWord(f[0]) {
		// Checked before a pane is opened or replaced: a mistyped line
		// leaves the panes as they are.
		m.status = views.StatusMsg{Error: true, Text: ":split " + views.Echo(line, m.width) + ": " + views.Echo(f[0], m.width) +
			" is no kind, alias or command known here (a kind installed since kyyard started: :split, then :" + views.Echo(f[0], m.width) + " in the new pane)"}
		return nil
	}
	if o := m.other(); o != nil {
		if work := o.unsaved(); work != "" {
			m.status = views.StatusMsg{Error: true, Text: ":split would close " + work + " in the other pane: apply or discard it first"}
			return nil
		}
	}
	return func() tea.Msg { return splitMsg{line: line} }
}

// knownWord reports whether a `:` line's first word is one of kyyard's
// commands, an alias of the configuration file, :ns or a kind the
// client knows.
func (m *Model) knownWord(word string) bool {
	if commandWord(word) || word == "ns" {
		return true
	}
	if _, ok := m.short.aliases[word]; ok {
		return true
	}
	_, ok := m.vc.Client.Kind(word)
	return ok
}

// commandWord reports whether word is one of the `:` commands' words;
// set in init, as the commands table names askSplit, which asks it.
var commandWord func(word string) bool

func init() { commandWord = func(word string) bool { return commandFor(word) != nil } }

// askOnly runs `:only`: it asks Panes to close the other pane, unless it
// holds unsaved work.
func (m *Model) askOnly() tea.Cmd {
	o := m.other()
	if o == nil {
		m.status = views.StatusMsg{Text: "one pane is shown: :split opens a second"}
		return nil
	}
	if work := o.unsaved(); work != "" {
		m.status = views.StatusMsg{Error: true, Text: ":only would close " + work + " in the other pane: apply or discard it first"}
		return nil
	}
	return func() tea.Msg { return onlyMsg{} }
}

// leavePane is esc on the last screen of a pane's stack: in a split it
// closes the pane (the other one then fills the terminal); alone it does
// nothing, as ever.
func (m *Model) leavePane() tea.Cmd {
	if !m.split() || m.closesWork("closing this pane") {
		return nil
	}
	return func() tea.Msg { return closePaneMsg{} }
}

// splitArgs are what the prompt completes after `:split `: the aliases
// and the kinds, as it completes a first word (not the command words:
// the table cannot refer to itself).
func splitArgs(m *Model, _ string) []string {
	return append(m.aliasWords(), kindSuggestions(m.vc.Client.Names())...)
}

// newPrompt returns the `:` prompt drawn with styles st.
func newPrompt(st views.Styles) textinput.Model {
	p := textinput.New()
	p.Prompt = ":"
	p.ShowSuggestions = true
	p.PromptStyle = st.Prompt
	p.TextStyle = st.Prompt
	return p
}

// sibling returns a new pane beside m, not started (Init): its own screen
// stack, showing the kind and namespace of m's topmost inventory screen
// (else m's namespace's pods), its own Context (its size; its client after
// a `:ctx` in it) and session state (status, prompt, facts' reads, fleet
// connections), and m's configuration: the kubeconfig and the context m
// reads, the fleet chosen, aliases, hotkeys and favourites, the history
// file, the YAML hand-off. The facts and the names the prompt completes
// are m's until the sibling reads its own, and the session (outcomes, the
// shells' memory) is one (session). TestSiblingSortsEveryField keeps this
// list whole.
func (m *Model) sibling() *Model {
	vc := *m.vc
	kind, ns := m.topKind(), m.namespace
	for i := len(m.stack) - 1; i >= 0; i-- {
		if ks, ok := m.stack[i].(kindScreen); ok {
			kind, ns = ks.Kind(), ks.Namespace()
			break
		}
	}
	if ns == views.OwnNamespaces {
		ns = vc.Client.Namespace() // Init opens it across the fleet again (startAcross)
	}
	first, err := inventory.New(&vc, kind, ns)
	if err != nil {
		first, _ = inventory.New(&vc, "pods", vc.Client.Namespace()) // pods are always served
	}
	s := &Model{vc: &vc, stack: []views.Screen{first}, tags: []*views.Context{nil}, namespace: m.namespace,
		prompt: newPrompt(vc.Styles), sess: m.sess}
	s.short = m.short
	s.short.recent = maps.Clone(m.short.recent)
	s.kubeconfig, s.context = m.kubeconfig, m.context
	s.fleet, s.fleetName, s.fleetOn, s.nsChosen = m.fleet, m.fleetName, m.fleetOn, m.nsChosen
	s.facts, s.hasFacts, s.factsStale, s.factsAt = m.facts, m.hasFacts, m.factsStale, m.factsAt
	s.unreachableSince, s.retry = m.unreachableSince, m.retry
	s.nsNames, s.ctxNames = m.nsNames, m.ctxNames
	s.historyPath, s.yamlEditor = m.historyPath, m.yamlEditor
	return s
}

// showBeside shows the logs the other pane asked for (`L`): in place of
// the log viewer on top (the last row's), else over the top screen; in a
// pane just opened for them (fresh), as its only screen, so that esc
// closes the pane.
func (m *Model) showBeside(msg views.OpenLogsMsg, fresh bool) tea.Cmd {
	s, ok := m.vc.Client.(logs.Streamer)
	if !ok {
		m.status = views.StatusMsg{Text: "logs are not available with this client", Error: true}
		return nil
	}
	m.status = views.StatusMsg{}
	msg.Beside = false
	scr := logs.New(m.vc, s, msg.Request)
	_, onLogs := m.Top().(*logs.Model)
	switch {
	case fresh || onLogs && len(m.stack) == 1:
		return m.afresh(scr)
	case onLogs:
		return m.push(scr, true)
	}
	return m.push(scr, false)
}

// paneHeader is a pane's header in a split: one line, who and where first
// (the write mode right after the context: a read-only pane must say so),
// then the server's facts and the favourites in the room left; the banner
// alone while the API server cannot be reached.
func (m *Model) paneHeader(f kube.Facts) string {
	if !m.unreachableSince.IsZero() {
		return m.banner()
	}
	who := [][2]string{{"ctx", f.Context}}
	if mode := m.modeText(); mode != "" {
		who = append(who, [2]string{"mode", mode})
	}
	who = append(who, [2]string{"cluster", f.Cluster}, [2]string{"user", f.User})
	if m.factsStale {
		who = append(who, [2]string{"stale", "facts read " + m.factsAt.Format("15:04:05")})
	}
	line := m.factsLine(who, m.width)
	if room := m.width - ansi.StringWidth(line) - 2; room >= len("k8s: v1.0") {
		if what := m.factsLine([][2]string{{"k8s", f.ServerVersion}, {"platform", f.Platform}, {"nodes", f.Nodes}}, room); ansi.StringWidth(what) > 0 {
			line += "  " + what
		}
	}
	return m.withFavourites(line)
}

// paneMark starts the title bar of a pane of a split: the focused one's
// says so in the text itself, not in colour alone (NO_COLOR).
func (m *Model) paneMark() string {
	switch {
	case !m.split():
		return ""
	case m.focused():
		return "» "
	}
	return "  "
}

// splitHint is the status line's hint in a split (focused: the keys; the
// other pane: how to focus it), "" when the screen is not split.
func (m *Model) splitHint() string {
	switch {
	case !m.split():
		return ""
	case m.focused():
		return m.globalHint(true)
	case !m.vc.Keys.Focus.Enabled():
		return "a click focuses this pane"
	}
	return views.KeyHelp(m.vc.Keys.Focus.Keys()[:1]) + ": focus this pane"
}

// splitTooSmall fills a width x height terminal too small for two panes
// with the sizes and the way out, in fewer words when it does not fit;
// prompt, when not empty, is the focused pane's `:` line being typed,
// drawn on the last line (so that :only is not typed blind).
func splitTooSmall(st views.Styles, width, height int, prompt string) string {
	need := fmt.Sprintf("%dx%d", minTermWidth, minSplitHeight)
	textHeight := height
	if prompt != "" {
		textHeight = max(height-1, 0)
	}
	lines := views.FitWords(width, textHeight,
		fmt.Sprintf("Terminal too small for two panes: %dx%d, they need %s. Resize, or :only shows one.", width, height, need),
		fmt.Sprintf("Too small to split: %dx%d, need %s; :only", width, height, need),
		fmt.Sprintf("Too small %dx%d, need %s", width, height, need),
		"Need "+need,
		need)
	for i, l := range lines {
		lines[i] = padRight(l, width)
	}
	for len(lines) < textHeight {
		lines = append(lines, strings.Repeat(" ", width))
	}
	text := st.Error.Render(strings.Join(lines, "\n"))
	switch {
	case prompt == "":
		return text
	case textHeight == 0:
		return ansi.Truncate(prompt, width, "")
	}
	return text + "\n" + ansi.Truncate(prompt, width, "")
}
