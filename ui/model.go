// Package ui is kyyard's root Bubble Tea model: a small router holding a
// stack of screens (the top one gets keys first), the header with the
// cluster's facts, the command prompt, the help overlay and the status bar.
// A screen's own logic lives in its package under views/.
package ui

import (
	"context"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/detail"
	"github.com/kyyard/kyyard/views/inventory"
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

	prompt    textinput.Model
	prompting bool
	help      bool
	status    views.StatusMsg

	width, height int
}

// factsMsg carries freshly read facts.
type factsMsg kube.Facts

// factsTickMsg asks for the facts to be read again.
type factsTickMsg struct{}

// New returns the root model showing kind in namespace ("" is all
// namespaces). Errors: the kind is unknown.
func New(vc *views.Context, kind kube.Kind, namespace string) (*Model, error) {
	first, err := inventory.New(vc, kind, namespace)
	if err != nil {
		return nil, err
	}
	p := textinput.New()
	p.Prompt = ":"
	p.ShowSuggestions = true
	p.SetSuggestions(commandSuggestions(vc.Client.Names()))
	p.PromptStyle = vc.Styles.Prompt
	p.TextStyle = vc.Styles.Prompt
	return &Model{vc: vc, stack: []views.Screen{first}, namespace: namespace, prompt: p}, nil
}

// Top returns the focused screen.
func (m *Model) Top() views.Screen { return m.stack[len(m.stack)-1] }

// Init reads the facts and starts the first screen.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.readFacts(), m.Top().Init())
}

func (m *Model) readFacts() tea.Cmd {
	client := m.vc.Client
	return func() tea.Msg { return factsMsg(client.Facts(context.Background())) }
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
		return m, m.toTop(tea.WindowSizeMsg{Width: m.vc.Width, Height: m.vc.Height})
	case factsMsg:
		f := kube.Facts(msg)
		m.takeFacts(f)
		next, cmd := m.trackReachability(f, time.Now())
		return m, tea.Batch(cmd, tea.Tick(next, func(time.Time) tea.Msg { return factsTickMsg{} }))
	case factsTickMsg:
		return m, m.readFacts()
	case views.StatusMsg:
		m.status = msg
		return m, nil
	case views.OpenKindMsg:
		return m, m.open(msg)
	case views.OpenObjectMsg:
		scr := detail.New(m.vc, msg)
		m.stack = append(m.stack, scr)
		m.status = views.StatusMsg{}
		return m, scr.Init()
	case views.BackMsg:
		return m, m.back()
	case tea.KeyMsg:
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste && !m.prompting {
			return m, m.keyBurst(msg)
		}
		return m, m.key(msg)
	}
	return m, m.toTop(msg)
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
	m.status = views.StatusMsg{Text: "the API server answers again"}
	return factsInterval, m.Top().Init()
}

func (m *Model) toTop(msg tea.Msg) tea.Cmd {
	next, cmd := m.Top().Update(msg)
	m.stack[len(m.stack)-1] = next
	return cmd
}

func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	keys := m.vc.Keys
	if msg.Type == tea.KeyCtrlC {
		return tea.Quit
	}
	if m.prompting {
		return m.promptKey(msg)
	}
	if m.help {
		switch {
		case key.Matches(msg, keys.Quit):
			return tea.Quit
		case key.Matches(msg, keys.Help), key.Matches(msg, keys.Back):
			m.help = false
		}
		return nil
	}
	if m.Top().Capturing() {
		return m.toTop(msg)
	}
	switch {
	case key.Matches(msg, keys.Quit):
		return tea.Quit
	case key.Matches(msg, keys.Help):
		m.help = true
		return nil
	case key.Matches(msg, keys.Command):
		m.prompting = true
		m.prompt.SetValue("")
		// Kinds found by discovery after start-up complete too.
		m.prompt.SetSuggestions(commandSuggestions(m.vc.Client.Names()))
		m.status = views.StatusMsg{}
		return m.prompt.Focus()
	case key.Matches(msg, keys.Back):
		if bc, ok := m.Top().(views.BackCapturer); ok && bc.CapturesBack() {
			return m.toTop(msg) // marks or a filter to clear first
		}
		return m.back()
	}
	return m.toTop(msg)
}

func (m *Model) promptKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.Type {
	case tea.KeyEsc:
		m.prompting = false
		m.prompt.Blur()
		return nil
	case tea.KeyEnter:
		m.prompting = false
		m.prompt.Blur()
		return m.run(m.completed())
	}
	var cmd tea.Cmd
	m.prompt, cmd = m.prompt.Update(msg)
	return cmd
}

// open shows a kind: a `:` command replaces the top screen, a drill-down
// pushes a new one so that esc returns to the row it came from.
func (m *Model) open(msg views.OpenKindMsg) tea.Cmd {
	scr, err := inventory.New(m.vc, msg.Kind, msg.Namespace)
	if err != nil {
		m.status = views.StatusMsg{Text: err.Error(), Error: true}
		return nil
	}
	scr.Narrow(msg.Selector, msg.Parent)
	if msg.Selector.IsZero() && (scr.Namespace() != "" || msg.Namespace == "") {
		m.namespace = msg.Namespace
	}
	if msg.Replace {
		m.stack[len(m.stack)-1] = scr
	} else {
		m.stack = append(m.stack, scr)
	}
	m.status = views.StatusMsg{}
	return scr.Init()
}

// back closes the top screen; the one below resumes its refreshes.
func (m *Model) back() tea.Cmd {
	if len(m.stack) == 1 {
		return nil
	}
	m.stack = m.stack[:len(m.stack)-1]
	return m.Top().Init()
}

// completed returns the prompt's text with the completion it shows taken:
// ":d" shows "deploy", and enter runs ":deploy", as tab would have.
func (m *Model) completed() string {
	value := m.prompt.Value()
	if strings.Contains(value, " ") {
		return value
	}
	if _, ok := m.vc.Client.Kind(value); ok {
		return value
	}
	if s := m.prompt.CurrentSuggestion(); s != "" && strings.HasPrefix(s, value) {
		return s
	}
	return value
}

// run executes a `:` command: `<kind> [namespace|all|-A]` or `q`/`quit`.
func (m *Model) run(line string) tea.Cmd {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return nil
	}
	switch fields[0] {
	case "q", "q!", "quit", "exit":
		return tea.Quit
	}
	info, ok := m.vc.Client.Kind(fields[0])
	if !ok || len(fields) > 2 {
		m.status = views.StatusMsg{Error: true,
			Text: "unknown command \"" + line + "\": try :pods, :deploy, :nodes, :ns, :pods <namespace>, :pods all"}
		return nil
	}
	ns := m.namespace
	if len(fields) == 2 {
		ns = fields[1]
		if ns == "all" || ns == "-A" {
			ns = ""
		}
	}
	return m.open(views.OpenKindMsg{Kind: info.ID, Namespace: ns, Replace: true})
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
// (sorted), and quit.
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
	return append(out, "quit")
}
