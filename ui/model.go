// Package ui is kyyard's root Bubble Tea model: a small router holding a
// stack of screens (the top one gets keys first), the header with the
// cluster's facts, the command prompt, the pickers (namespace, kubeconfig
// context) drawn over the top screen, the help overlay and the status bar.
// A screen's own logic lives in its package under views/.
package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/detail"
	"github.com/kyyard/kyyard/views/exec"
	"github.com/kyyard/kyyard/views/history"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/workload"
)

// factsInterval is how often the header's facts are read again.
const factsInterval = 10 * time.Second

// While the API server cannot be reached, the facts are read again after
// retryFirst, doubling up to retryMax: the banner's retries.
const (
	retryFirst = time.Second
	retryMax   = 30 * time.Second
)

// chromeLines is the number of lines the root draws around the top screen:
// two lines of facts, the title bar and the status line.
const chromeLines = 4

// Model is the root model. Use New.
type Model struct {
	vc        *views.Context
	stack     []views.Screen
	namespace string // the namespace `:` commands open kinds in
	// quitAsked, when set, is the unsaved work a quit was asked about
	// (views.Unsaved): the next key answers.
	quitAsked string

	facts    kube.Facts
	hasFacts bool
	// factsStale is set when the last read of the facts could not reach the
	// server: the header keeps the facts read at factsAt and says so.
	factsStale bool
	factsAt    time.Time
	// unreachableSince is when the API server stopped answering (zero while
	// it answers); retry is the current wait before the next attempt.
	unreachableSince time.Time
	retry            time.Duration
	// factsSeq numbers the facts tick scheduled last: an earlier tick is
	// dropped, so reading the facts early (factsEarly) never starts a
	// second chain of reads. factsReading is set while a read is under way.
	factsSeq     int
	factsReading bool

	prompt    textinput.Model
	prompting bool
	help      bool
	// helpOffset is the first line of the help overlay shown, when it is
	// longer than the screen (clamped when drawn).
	helpOffset int
	// helpPage is how many lines of keys the help overlay showed last, the
	// step of pgup/pgdn.
	helpPage int
	status   views.StatusMsg
	// cleared is the status line the last key press cleared: a key that
	// does nothing brings it back rather than hide it (unknownKey).
	cleared views.StatusMsg
	// outcomeShown is set while the status line tells an outcome (Report,
	// an AnswerMsg) and no key has been pressed since: a routine notice
	// (notice) does not replace it.
	outcomeShown bool

	// overlay is a picker open over the top screen (nil when none): it
	// gets every key, and messages as the top screen does.
	overlay views.Screen
	// pickKey opens the namespace picker.
	pickKey key.Binding

	// kubeconfig switches contexts; nil when kyyard has none. context is
	// the context switched to ("" until a switch: the kubeconfig's own).
	kubeconfig views.Kubeconfig
	context    string
	// epoch counts connections: facts and names read through an earlier
	// one are dropped.
	epoch int
	// nsNames and ctxNames are what the prompt completes after a command
	// word; suggestedFor is the first word they were set for.
	nsNames, ctxNames []string
	suggestedFor      string
	// cycle holds the completions that matched what was typed before the
	// first of a run of tabs, and cycleAt the one the prompt holds; nil
	// when the last key was not tab.
	cycle   []string
	cycleAt int

	// history is every outcome of the session; historyPath the file
	// they are appended to ("" when none).
	history     []history.Entry
	historyPath string

	// shell is what the shell screens remember in this run (the debug
	// image chosen).
	shell exec.Memory

	width, height int
}

// factsMsg carries freshly read facts, read through connection epoch.
type factsMsg struct {
	epoch int
	facts kube.Facts
}

// factsTickMsg asks for the facts of connection epoch to be read again,
// unless a later tick (seq) has been scheduled since.
type factsTickMsg struct{ epoch, seq int }

// Reachability is what a Source may also tell: whether its last request
// that reached the network got an answer (kube.Client.Reachable).
type Reachability interface {
	Reachable() bool
}

// New returns the root model showing kind in namespace ("" is all
// namespaces), configured by opts. Errors: the kind is unknown.
func New(vc *views.Context, kind kube.Kind, namespace string, opts ...Option) (*Model, error) {
	first, err := inventory.New(vc, kind, namespace)
	if err != nil {
		return nil, err
	}
	p := textinput.New()
	p.Prompt = ":"
	p.ShowSuggestions = true
	p.PromptStyle = vc.Styles.Prompt
	p.TextStyle = vc.Styles.Prompt
	m := &Model{vc: vc, stack: []views.Screen{first}, namespace: namespace, prompt: p, pickKey: pickNamespaceKey()}
	for _, o := range opts {
		o(m)
	}
	return m, nil
}

// Top returns the focused screen.
func (m *Model) Top() views.Screen { return m.stack[len(m.stack)-1] }

// Init reads the facts and the names the prompt completes, and starts the
// first screen.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.readFacts(), m.Top().Init(), m.loadNames())
}

func (m *Model) readFacts() tea.Cmd {
	m.factsReading = true
	client, epoch := m.vc.Client, m.epoch
	return func() tea.Msg { return factsMsg{epoch: epoch, facts: client.Facts(context.Background())} }
}

// Update routes a message: window sizes to the context, keys to the prompt,
// the help overlay, the top screen or the global bindings, and everything
// else to the top screen.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.vc.Width, m.vc.Height = msg.Width, max(msg.Height-chromeLines, 1)
		m.prompt.Width = max(msg.Width-2, 1)
		return m, m.toScreens(tea.WindowSizeMsg{Width: m.vc.Width, Height: m.vc.Height})
	case factsMsg:
		if msg.epoch != m.epoch {
			return m, nil
		}
		m.factsReading = false
		m.takeFacts(msg.facts)
		next, cmd := m.trackReachability(msg.facts, time.Now())
		m.factsSeq++
		epoch, seq := m.epoch, m.factsSeq
		return m, tea.Batch(cmd, tea.Tick(next, func(time.Time) tea.Msg { return factsTickMsg{epoch: epoch, seq: seq} }))
	case factsTickMsg:
		if msg.epoch != m.epoch || msg.seq != m.factsSeq || m.factsReading {
			return m, nil
		}
		return m, m.readFacts()
	case namesMsg:
		m.takeNames(msg)
		return m, nil
	case rediscoveredMsg:
		if msg.epoch != m.epoch {
			return m, nil
		}
		return m, m.run(msg.line, true)
	case contextsMsg:
		return m, m.openContextPicker(msg)
	case connectedMsg:
		return m, m.connected(msg)
	case views.StatusMsg:
		m.status, m.outcomeShown = msg, false
		return m, nil
	case views.OpenKindMsg:
		// A pick in the namespace picker (it replaces the top screen) is
		// the person's choice of namespace: it is remembered whatever the
		// kind. A drill-down that lands meanwhile leaves the picker open.
		picked := m.overlay != nil && msg.Replace
		if picked {
			m.overlay = nil
		}
		return m, m.open(msg, picked)
	case views.OpenObjectMsg:
		m.status = views.StatusMsg{}
		return m, m.push(detail.New(m.vc, msg), false)
	case views.OpenWorkloadMsg:
		return m, m.openWorkload(msg)
	case views.OperateMsg:
		return m, m.openOperate(msg)
	case views.ActionsMsg:
		return m, m.openActions(msg)
	case views.OpenRolloutMsg:
		return m, m.openRollout(msg)
	case views.OpenShellMsg:
		return m, m.openShell(msg)
	case views.OpenLogsMsg:
		return m, m.openLogs(msg)
	case views.OpenPortForwardMsg:
		return m, m.openPortForward(msg)
	case views.OpenForwardsMsg:
		return m, m.openForwards(false)
	case views.OpenAppsMsg:
		return m, m.openApps(m.namespace, false)
	case views.OpenDeployMsg:
		return m, m.openDeploy(msg)
	case views.OpenRemoveMsg:
		return m, m.openRemove(msg)
	case views.OutcomesMsg:
		return m, m.record(msg)
	case views.AnswerMsg:
		return m, m.answer(msg)
	case historyWrittenMsg:
		m.historyWritten(msg)
		return m, nil
	case views.BackMsg:
		if m.overlay != nil {
			m.overlay = nil
			return m, nil
		}
		return m, m.back()
	case views.SwitchContextMsg:
		m.overlay = nil
		return m, m.switchContext(msg.Context)
	case tea.KeyMsg:
		// A status message is seen once, as k9s' flash: the next key press
		// clears it. A key that has something to say sets its own (at once
		// or through a StatusMsg that follows).
		m.cleared, m.status, m.outcomeShown = m.status, views.StatusMsg{}, false
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste && !m.prompting {
			return m, m.keyBurst(msg)
		}
		return m, m.key(msg)
	}
	return m, tea.Batch(m.toScreens(msg), m.factsEarly())
}

// factsEarly reads the facts at once when the banner is up and a request
// of a screen has been answered since the last that failed (the client's
// Reachability): the banner then goes with the next screen refresh after
// the API server is back, not at the next backoff retry up to 30 s later.
func (m *Model) factsEarly() tea.Cmd {
	if m.unreachableSince.IsZero() || m.factsReading {
		return nil
	}
	if r, ok := m.vc.Client.(Reachability); !ok || !r.Reachable() {
		return nil
	}
	return m.readFacts()
}

// keyBurst handles several runes that arrived in one read (fast typing, a
// terminal multiplexer sending keys) as the separate key presses they were:
// ":ns" opens the prompt, then types "ns" into it.
func (m *Model) keyBurst(msg tea.KeyMsg) tea.Cmd {
	var cmds []tea.Cmd
	for i, r := range msg.Runes {
		if m.prompting {
			rest := msg
			rest.Runes = msg.Runes[i:]
			cmds = append(cmds, m.key(rest))
			break
		}
		cmds = append(cmds, m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
	}
	return tea.Batch(cmds...)
}

// takeFacts shows newly read facts, unless the server could not be reached
// (no version) after it once was: then the facts read before stay, marked
// stale, rather than turning into "unknown" or kubeconfig guesses.
func (m *Model) takeFacts(f kube.Facts) {
	if f.ServerVersion == kube.Unknown && m.hasFacts && m.facts.ServerVersion != kube.Unknown {
		m.factsStale = true
		return
	}
	m.facts, m.hasFacts, m.factsStale, m.factsAt = f, true, false, time.Now()
}

// trackReachability keeps the banner's state from the facts: a read that
// could not get the server's version means the API server cannot be
// reached. While it cannot, the facts are read again with a doubling
// backoff (1 s to 30 s); when it answers again, the banner goes and the top
// screen refreshes at once, so screens recover without a restart. It
// returns when to read the facts next, and the refresh command if any.
func (m *Model) trackReachability(f kube.Facts, now time.Time) (time.Duration, tea.Cmd) {
	if f.ServerVersion == kube.Unknown {
		if m.unreachableSince.IsZero() {
			m.unreachableSince, m.retry = now, retryFirst
		} else {
			m.retry = min(2*m.retry, retryMax)
		}
		return m.retry, nil
	}
	if m.unreachableSince.IsZero() {
		return factsInterval, nil
	}
	m.unreachableSince, m.retry = time.Time{}, 0
	m.notice("the API server answers again")
	return factsInterval, m.Top().Init()
}

func (m *Model) toTop(msg tea.Msg) tea.Cmd {
	next, cmd := m.Top().Update(msg)
	m.stack[len(m.stack)-1] = next
	return cmd
}

// toScreens sends a message that is not a key to the top screen and to the
// overlay: each takes only its own replies, and the top screen keeps
// refreshing under a picker.
func (m *Model) toScreens(msg tea.Msg) tea.Cmd {
	cmd := m.toTop(msg)
	if m.overlay == nil {
		return cmd
	}
	next, ocmd := m.overlay.Update(msg)
	m.overlay = next
	return tea.Batch(cmd, ocmd)
}

func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	keys := m.vc.Keys
	if m.quitAsked != "" {
		// The question of quit: ctrl+c again or y quits, any other key stays.
		asked := m.quitAsked
		m.quitAsked, m.status = "", views.StatusMsg{}
		if msg.Type == tea.KeyCtrlC || msg.String() == "y" || msg.String() == "Y" {
			return m.exit()
		}
		m.status = views.StatusMsg{Text: "not quitting: " + asked + " kept"}
		return nil
	}
	if msg.Type == tea.KeyCtrlC {
		return m.quit()
	}
	if m.prompting {
		return m.promptKey(msg)
	}
	if m.overlay != nil {
		next, cmd := m.overlay.Update(msg)
		m.overlay = next
		return cmd
	}
	if m.help {
		switch {
		case key.Matches(msg, keys.Quit):
			m.help = false
			return m.quit()
		case key.Matches(msg, keys.Help), key.Matches(msg, keys.Back):
			m.help = false
		case msg.String() == "down", msg.String() == "j":
			m.helpOffset++
		case msg.String() == "up", msg.String() == "k":
			m.helpOffset--
		case msg.String() == "pgdown", msg.String() == " ":
			m.helpOffset += max(m.helpPage, 1)
		case msg.String() == "pgup":
			m.helpOffset -= max(m.helpPage, 1)
		case msg.String() == "home", msg.String() == "g":
			m.helpOffset = 0
		}
		return nil
	}
	if kp, ok := m.Top().(views.KeyPasser); m.Top().Capturing() && !(ok && kp.PassesKey(msg.String())) {
		return m.toTop(msg)
	}
	switch {
	case key.Matches(msg, keys.Quit):
		return m.quit()
	case key.Matches(msg, keys.Help):
		m.help, m.helpOffset = true, 0
		return nil
	case key.Matches(msg, keys.Command):
		m.prompting = true
		m.prompt.SetValue("")
		m.cycle = nil
		m.suggest(true)
		m.status = views.StatusMsg{}
		return tea.Batch(m.prompt.Focus(), m.loadNames())
	case key.Matches(msg, keys.Back):
		if bc, ok := m.Top().(views.BackCapturer); ok && bc.CapturesBack() {
			return m.toTop(msg) // marks or a filter to clear first
		}
		return m.back()
	case key.Matches(msg, m.pickKey):
		if m.closesWork("a namespace switch") {
			return nil
		}
		return m.openNamespacePicker()
	}
	return m.unknownKey(msg)
}

// unknownKey hands a key no global binding took to the top screen. When it
// is a letter, digit or sign that no binding of the root or of the screen
// names, and the screen did nothing with it (no command, the same view),
// the status line says so (`x: no such key here · ? help`), unless it
// showed a message the key press cleared: that message comes back, never
// hidden by a stray key. Screens that take text never get here (Capturing:
// forms, prompts, filters), nor do the pickers, the help and the prompt.
func (m *Model) unknownKey(msg tea.KeyMsg) tea.Cmd {
	name := msg.String()
	_, hinter := m.Top().(views.Hinter)
	if msg.Type != tea.KeyRunes || len(msg.Runes) != 1 || msg.Alt || msg.Paste || hinter || m.bound(name) {
		return m.toTop(msg)
	}
	before := m.Top().View()
	cmd := m.toTop(msg)
	if cmd != nil || m.Top().View() != before {
		return cmd
	}
	if m.cleared.Text != "" {
		m.status = m.cleared
		return nil
	}
	m.status = views.StatusMsg{Text: name + ": no such key here · ? help"}
	return nil
}

// bound reports whether a global binding, the namespace picker's or one
// of the top screen's (enabled or not: a disabled key says why itself)
// names key.
func (m *Model) bound(name string) bool {
	bindings := append(m.vc.Keys.Bindings(), m.pickKey)
	for _, b := range append(bindings, m.Top().Bindings()...) {
		if slices.Contains(b.Keys(), name) {
			return true
		}
	}
	return false
}

func (m *Model) promptKey(msg tea.KeyMsg) tea.Cmd {
	if msg.Type == tea.KeyTab {
		m.tab()
		return nil
	}
	m.cycle = nil
	switch msg.Type {
	case tea.KeyEsc:
		m.prompting = false
		m.prompt.Blur()
		return nil
	case tea.KeyEnter:
		m.prompting = false
		m.prompt.Blur()
		return m.run(m.completed(), false)
	}
	var cmd tea.Cmd
	m.prompt, cmd = m.prompt.Update(msg)
	m.suggest(false)
	return cmd
}

// tab completes the prompt as a shell does: the first tab takes the
// completion shown (completed), each next one the next completion that
// matched what was typed before the first, in the prompt's order, back to
// the first after the last (":pods de" tab "default", tab "demo", tab
// "default"). The prompt then holds the candidate itself, so enter runs
// what is shown. Any other key ends the run.
func (m *Model) tab() {
	if len(m.cycle) > 0 {
		m.cycleAt = (m.cycleAt + 1) % len(m.cycle)
	} else {
		value := m.prompt.Value()
		candidates := m.prompt.MatchedSuggestions()
		at := slices.Index(candidates, m.completed())
		if at < 0 || candidates[at] == value {
			// Nothing shown beyond a whole word (":po"): the first
			// candidate that changes the text.
			at = slices.IndexFunc(candidates, func(c string) bool { return c != value })
		}
		if at < 0 {
			return
		}
		m.cycle, m.cycleAt = candidates, at
	}
	m.prompt.SetValue(m.cycle[m.cycleAt])
	m.prompt.CursorEnd()
	m.suggest(true)
}

// open shows a kind: a `:` command replaces the top screen, a drill-down
// pushes a new one so that esc returns to the row it came from. chosen
// says the namespace was chosen as such (the picker, `:ns <name>`): it
// becomes the one `:` commands open kinds in, whatever the kind.
func (m *Model) open(msg views.OpenKindMsg, chosen bool) tea.Cmd {
	scr, err := inventory.New(m.vc, msg.Kind, msg.Namespace)
	if err != nil {
		m.status = views.StatusMsg{Text: err.Error(), Error: true}
		return nil
	}
	scr.Narrow(msg.Selector, msg.Parent)
	if chosen || msg.Selector.IsZero() && (scr.Namespace() != "" || msg.Namespace == "") {
		m.namespace = msg.Namespace
	}
	m.status = views.StatusMsg{}
	if info, ok := m.vc.Client.Kind(string(msg.Kind)); chosen && ok && !info.Namespaced {
		// Remembered, but nothing on screen changes: say why.
		m.status = views.StatusMsg{Text: fmt.Sprintf("%s are cluster-scoped: %s applies to namespaced kinds", info.ID, namespacePhrase(msg.Namespace))}
	}
	if msg.Replace {
		// A command or a picked namespace starts afresh, as in k9s: the
		// drill-downs it leaves are no longer what esc goes back to.
		return m.afresh(scr)
	}
	return m.push(scr, false)
}

// openWorkload pushes the workload form when the client can edit
// workloads (it implements workload.Editor); the form finds the owner of a
// pod or ReplicaSet itself.
func (m *Model) openWorkload(msg views.OpenWorkloadMsg) tea.Cmd {
	ed, ok := m.vc.Client.(workload.Editor)
	if !ok {
		m.status = views.StatusMsg{Text: "editing is not available", Error: true}
		return nil
	}
	m.status = views.StatusMsg{}
	return m.push(workload.New(m.vc, ed, kube.WorkloadRef{Kind: msg.Kind, Namespace: msg.Namespace, Name: msg.Name}), false)
}

// back closes the top screen; the one below resumes its refreshes.
func (m *Model) back() tea.Cmd {
	if len(m.stack) == 1 {
		return nil
	}
	closeScreens(m.Top())
	m.stack = m.stack[:len(m.stack)-1]
	return m.Top().Init()
}

// completed returns the prompt's text with the completion it shows taken:
// ":d" shows "deploy", and enter runs ":deploy", as tab would have; ":ns de"
// shows "ns demo" and runs it. A word typed in full (a kind, a listed
// namespace or context) is kept as typed, and so is a trailing space: ":ns "
// is ":ns".
func (m *Model) completed() string {
	value := m.prompt.Value()
	fields := strings.Fields(value)
	if len(fields) == 0 || strings.HasSuffix(value, " ") {
		return value
	}
	last := fields[len(fields)-1]
	switch {
	case len(fields) == 1:
		if _, ok := m.vc.Client.Kind(last); ok || isCommandWord(last) {
			return value // a whole kind or command: ":q" quits, never ":quota"
		}
	case last == "all" || last == "-A" || slices.Contains(m.nsNames, last) || slices.Contains(m.ctxNames, last):
		return value
	}
	if s := m.prompt.CurrentSuggestion(); s != "" && strings.HasPrefix(s, value) {
		return s
	}
	return value
}

// preferredNames are completed before any other kind name that shares
// their prefix: the kinds people open most (":d" is deploy, ":s" svc, ":p"
// pods), as k9s and kubectl users expect.
var preferredNames = []string{
	"pods", "po", "deployments", "deploy", "services", "svc", "nodes", "no", "namespaces", "ns",
	"events", "ev", "statefulsets", "sts", "daemonsets", "ds", "jobs", "cronjobs", "cj",
	"configmaps", "cm", "secrets", "ingresses", "ing", "persistentvolumeclaims", "pvc",
}

// commandSuggestions are the words the prompt completes, in the order it
// offers them: the preferred kind names, every other kind id and alias
// (sorted), then the table's command words (offeredWords).
func commandSuggestions(names []string) []string {
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	out := make([]string, 0, len(names)+1)
	taken := map[string]bool{}
	for _, n := range preferredNames {
		if known[n] {
			out = append(out, n)
			taken[n] = true
		}
	}
	for _, n := range names {
		if !taken[n] {
			out = append(out, n)
		}
	}
	return append(out, offeredWords()...)
}

// quit ends the program, unless a screen on the stack holds unsaved work
// (views.Unsaved): then the status line asks first, and ctrl+c again or
// y quits (`:q!` quits without asking).
func (m *Model) quit() tea.Cmd {
	if what := m.unsaved(); what != "" {
		m.quitAsked = what
		m.status = views.StatusMsg{Text: "quit and lose " + what + "? ctrl+c or y quits, any other key stays", Error: true}
		return nil
	}
	return m.exit()
}

// unsaved describes the unsaved work of the topmost screen on the stack
// that holds some (views.Unsaved), "" when none does.
func (m *Model) unsaved() string {
	for i := len(m.stack) - 1; i >= 0; i-- {
		if u, ok := m.stack[i].(views.Unsaved); ok {
			if what := u.Unsaved(); what != "" {
				return what
			}
		}
	}
	return ""
}

// closesWork reports whether what (a `:` command, the namespace picker)
// would close a screen holding unsaved work; if so the status line says
// so and nothing is closed: the person applies or discards it first.
func (m *Model) closesWork(what string) bool {
	work := m.unsaved()
	if work == "" {
		return false
	}
	m.status = views.StatusMsg{Error: true, Text: what + " would close " + work + ": apply or discard it first (esc)"}
	return true
}
