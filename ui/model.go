// Package ui is kyyard's root Bubble Tea model: a small router holding a
// stack of screens (the top one gets keys first), the header with the
// cluster's facts, the command prompt, the pickers (namespace, kubeconfig
// context) drawn over the top screen, the help overlay and the status bar.
// A screen's own logic lives in its package under views/. Bubble Tea runs
// Panes around it: one such root, or two after `:split`, one above the
// other (panes.go routes between them, panemsg.go tags each pane's
// messages, split.go is a pane's side of the split).
//
// By job: model.go routes (the screen stack, keys, window size), facts.go
// keeps the header's facts and their backoff, prompt.go the `:` prompt and
// its completion, commands.go the table of `:` commands and their parsing,
// quit.go quitting, help.go the help overlay, view.go draws the rest,
// unknownkey.go says so of a key that does nothing; switch.go holds the
// pickers and context switches, session.go what outlives a pane (the
// outcomes, the shells' memory), client.go the checks that *kube.Client is
// every interface the screens find on the client.
package ui

import (
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/detail"
	"github.com/kyyard/kyyard/views/events"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/workload"
	"github.com/kyyard/kyyard/views/yamledit"
)

// chromeLines is the number of lines the root draws around the top screen:
// two lines of facts, the title bar and the status line.
const chromeLines = 4

// Model is the root model. Use New.
type Model struct {
	vc    *views.Context
	stack []views.Screen
	// tags[i] is the Context stack[i] reads when it is not vc (fleet.go):
	// a screen across the fleet, or one cluster's; nil for vc's own.
	tags []*views.Context
	// routing is the Context a message is being handled with (within).
	routing   *views.Context
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
	short   shortcutState // favourites, aliases and hotkeys (favourites.go, shortcuts.go)

	// kubeconfig switches contexts; nil when kyyard has none. context is
	// the context switched to ("" until a switch: the kubeconfig's own).
	kubeconfig views.Kubeconfig
	context    string
	// fleet are the contexts :clusters shows (WithFleet, :fleet); nil:
	// all. fleetName names the configuration file's fleet they are ("":
	// --contexts). While fleetOn, kinds open across them (across).
	fleet     []string
	fleetName string
	fleetOn   bool
	across    *across
	// nsChosen: the namespace was chosen on the command line
	// (WithNamespaceChosen), so a fleet started with it keeps it; a fleet
	// entered otherwise reads each context's own (views.OwnNamespaces).
	nsChosen bool
	// epoch counts connections: facts and names read through an earlier
	// one are dropped. switchSeq counts the switches asked: only the last
	// one's connection is taken (connected).
	epoch     int
	switchSeq int
	// nsNames and ctxNames are what the prompt completes after a command
	// word; suggestedFor is the first word they were set for.
	nsNames, ctxNames []string
	suggestedFor      string
	// cycle holds the completions that matched what was typed before the
	// first of a run of tabs, and cycleAt the one the prompt holds; nil
	// when the last key was not tab.
	cycle   []string
	cycleAt int

	// sess is what the panes of a split share (panes.go): the outcomes
	// of the session, what the shell screens remember. historyPath is the
	// file outcomes are appended to ("" when none).
	sess        *session
	historyPath string
	// yamlEditor is the hand-off of YAML edits (WithYAMLEditor); nil: the
	// text area.
	yamlEditor yamledit.Handoff

	// headerDrawn is the header drawn last, and what from (view.go).
	headerDrawn headerCache

	width, height int
}

// New returns the root model showing kind in namespace ("" is all
// namespaces), configured by opts. Errors: the kind is unknown.
func New(vc *views.Context, kind kube.Kind, namespace string, opts ...Option) (*Model, error) {
	first, err := inventory.New(vc, kind, namespace)
	if err != nil {
		return nil, err
	}
	m := &Model{vc: vc, stack: []views.Screen{first}, tags: []*views.Context{nil}, namespace: namespace, prompt: newPrompt(vc.Styles), sess: &session{}}
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
	m.startAcross()
	return tea.Batch(m.readFacts(), m.Top().Init(), m.loadNames())
}

// Update routes a message: window sizes to the context, keys to the prompt,
// the help overlay, the top screen or the global bindings, and everything
// else to the top screen.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if cmd, ok := m.route(msg); ok {
		return m, cmd
	}
	switch msg := msg.(type) {
	case views.ContextMsg:
		return m, m.inContext(msg)
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.vc.Width, m.vc.Height = msg.Width, max(msg.Height-m.chrome(), 1)
		m.resizeFleet()
		m.prompt.Width = max(msg.Width-2, 1)
		return m, m.toScreens(tea.WindowSizeMsg{Width: m.vc.Width, Height: m.vc.Height})
	case factsMsg:
		return m, m.tookFacts(msg)
	case factsTickMsg:
		return m, m.factsTick(msg)
	case namesMsg:
		m.takeNames(msg)
		return m, nil
	case rediscoveredMsg:
		return m, m.rediscovered(msg)
	case tea.MouseMsg:
		return m, m.mouse(msg)
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
	case views.PushMsg:
		m.status = views.StatusMsg{}
		return m, m.push(msg.Screen, false)
	case views.OpenWorkloadMsg:
		return m, m.openWorkload(msg)
	case views.OpenYAMLEditMsg:
		return m, m.openYAMLEdit(msg)
	case views.OpenSecretMsg:
		return m, m.openSecret(msg)
	case views.OpenDrainMsg:
		return m, m.openDrain(msg)
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
	case views.OpenDriftMsg:
		return m, m.openDrift(msg)
	case views.OpenChangeAcrossMsg, planAcrossMsg:
		return m, m.changeAcross(msg)
	case views.CloseBelowMsg:
		return m, m.closeFormBelow(msg.Owner)
	case views.OpenPortForwardMsg:
		return m, m.openPortForward(msg)
	case views.OpenCopyMsg:
		return m, m.openCopy(msg)
	case views.OpenOwnerTreeMsg:
		return m, m.openOwnerTree(msg)
	case views.OpenEventsMsg:
		return m, pushWith(m, "events", func(rd events.Reader) views.Screen { return events.New(m.vc, rd, msg) })
	case views.OpenForwardsMsg:
		return m, m.openForwards(false)
	case views.OpenAppsMsg:
		return m, m.openApps(m.singleNamespace(), false)
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
	case views.ChooseContextsMsg:
		m.overlay = nil
		return m, m.chooseContexts(msg.Contexts)
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
		return m.answerQuit(msg)
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
		return m.helpKey(msg)
	}
	if kp, ok := m.Top().(views.KeyPasser); m.Top().Capturing() && !(ok && kp.PassesKey(msg.String())) {
		return m.toTop(msg)
	}
	if cmd, ok := m.chordKey(msg); ok {
		return cmd
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
	case m.shortcutKey(msg):
		return m.openShortcut(msg)
	case key.Matches(msg, keys.Namespace):
		if m.closesWork("a namespace switch") {
			return nil
		}
		return m.openNamespacePicker()
	}
	return m.unknownKey(msg)
}

// open shows a kind: a `:` command replaces the top screen, a drill-down
// pushes a new one so that esc returns to the row it came from. chosen
// says the namespace was chosen as such (the picker, `:ns <name>`): it
// becomes the one `:` commands open kinds in, whatever the kind.
func (m *Model) open(msg views.OpenKindMsg, chosen bool) tea.Cmd {
	if cmd, ok := m.openAcross(msg, chosen); ok {
		return cmd
	}
	scr, err := inventory.New(m.vc, msg.Kind, msg.Namespace)
	if err != nil {
		m.status = views.StatusMsg{Text: err.Error(), Error: true}
		return nil
	}
	scr.Narrow(msg.Selector, msg.Parent)
	scr.Filter(msg.Filter)
	if chosen || msg.Selector.IsZero() && (scr.Namespace() != "" || msg.Namespace == "") {
		m.setNamespace(msg.Namespace)
	}
	m.status = views.StatusMsg{}
	if info, ok := m.vc.Client.Kind(string(msg.Kind)); chosen && ok && !info.Namespaced {
		// Remembered, but nothing on screen changes: say why.
		m.status = views.StatusMsg{Text: fmt.Sprintf("%s are cluster-scoped: the choice of %s is for namespaced kinds", info.ID, namespacePhrase(msg.Namespace))}
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
	kind, _ := m.vc.Client.Kind(string(msg.Kind)) // unknown: no capability, the form asks for its owner
	return m.push(workload.New(m.vc, ed, kind, kube.WorkloadRef{Kind: msg.Kind, Namespace: msg.Namespace, Name: msg.Name}), false)
}

// back closes the top screen; the one below resumes its refreshes. On
// the last screen it closes the pane of a split (leavePane).
func (m *Model) back() tea.Cmd {
	if len(m.stack) == 1 {
		return m.leavePane()
	}
	closeScreens(m.Top())
	m.stack, m.tags = m.stack[:len(m.stack)-1], m.tags[:len(m.tags)-1]
	return m.Top().Init()
}

// push shows scr on top of the stack, or in place of the top screen when
// replace is set and a screen lies below it, and returns scr's Init.
func (m *Model) push(scr views.Screen, replace bool) tea.Cmd {
	if replace && len(m.stack) > 1 {
		closeScreens(m.Top())
		m.stack[len(m.stack)-1], m.tags[len(m.tags)-1] = scr, m.tag()
	} else {
		m.stack, m.tags = append(m.stack, scr), append(m.tags, m.tag())
	}
	return scr.Init()
}

// place starts scr afresh (a `:` command) or pushes it on the stack.
func (m *Model) place(scr views.Screen, fresh bool) tea.Cmd {
	if fresh {
		return m.afresh(scr)
	}
	return m.push(scr, false)
}

// afresh makes scr the only screen and starts it: every `:` command that
// opens a screen starts afresh, as in k9s (README), so the screens drilled
// through are closed and esc has nothing stale to go back to. Callers ask
// closesWork first.
func (m *Model) afresh(scr views.Screen) tea.Cmd {
	closeScreens(m.stack...)
	m.stack, m.tags = []views.Screen{scr}, []*views.Context{m.tag()}
	return scr.Init()
}
