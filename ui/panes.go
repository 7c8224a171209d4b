package ui

// Side by side (issue 27): the terminal split in two panes, one above the
// other, each an ordinary root (a *Model: its own screens, keys, prompt,
// status line and connection), one of them focused. `:split [cmd]` opens
// the second pane, `:only` or esc on a pane's last screen closes one,
// ctrl+w moves the keys to the other pane. Panes is what Bubble Tea runs:
// with one pane it is transparent (the pane's frame as ever, every message
// the pane's), with two it routes (panemsg.go) and draws both.

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
)

// Panes is kyyard's top-level model: one pane, or two after `:split`, the
// top one taking the upper half of the terminal (its height / 2, rounded
// down) and the bottom one the rest. Keys go to the focused pane, mouse
// events to the pane under the pointer (a click focuses it), what a
// pane's screens asked for to that pane, and anything else (Bubble Tea's
// own messages, bubbles' ticks) to both. Use NewPanes.
type Panes struct {
	// panes are the panes shown, the top one first.
	panes []*Model
	sess  *session
	// exec is the pane that last handed the terminal to a process
	// (tea.Exec): the message its callback makes reaches Panes untagged,
	// and goes to it.
	exec          *Model
	width, height int
	// frames are the panes' last frames, reused while nothing reached
	// the pane since (panesframe.go).
	frames frames
}

// NewPanes returns the top-level model around first, the one pane shown
// until `:split`. first must not run on its own besides.
func NewPanes(first *Model) *Panes {
	first.sess.hosted = true
	return &Panes{panes: []*Model{first}, sess: first.sess}
}

// Pane returns the pane i (0: the top one, 1: the bottom one), nil when
// there is none.
func (p *Panes) Pane(i int) *Model {
	if i < 0 || i >= len(p.panes) {
		return nil
	}
	return p.panes[i]
}

// Focused returns the pane keys go to.
func (p *Panes) Focused() *Model {
	if p.sess.focus != nil && len(p.panes) == 2 {
		return p.sess.focus
	}
	return p.panes[0]
}

// Init starts the first pane.
func (p *Panes) Init() tea.Cmd { return wrap(p.panes[0], p.panes[0].Init()) }

// Update routes msg: a pane's own message to that pane (or to Panes, when
// it asks for a split or a pane closed), the window size shared between
// the panes, keys to the focused pane (ctrl+w, when the pane takes no
// text, focuses the other one), mouse events to the pane under the
// pointer, and anything else to every pane.
func (p *Panes) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	defer p.frames.keep(p)()
	switch msg := msg.(type) {
	case paneMsg:
		return p, p.fromPane(msg)
	case tea.WindowSizeMsg:
		p.width, p.height = msg.Width, msg.Height
		return p, p.resize()
	case tea.KeyMsg:
		return p, p.key(msg)
	case tea.MouseMsg:
		return p, p.mouse(msg)
	}
	if ours(msg) {
		// Only what a tea.Exec callback made comes untagged: to the pane
		// that handed the terminal over.
		to := p.Focused()
		if p.exec != nil && p.shows(p.exec) {
			to = p.exec
		}
		return p, p.to(to, msg)
	}
	cmds := make([]tea.Cmd, len(p.panes))
	for i, m := range p.panes {
		cmds[i] = p.to(m, msg)
	}
	return p, tea.Batch(cmds...)
}

// View draws the one pane, or the two one above the other; a terminal too
// small for two says so instead.
func (p *Panes) View() string {
	if len(p.panes) == 1 {
		return p.panes[0].View()
	}
	if p.width <= 0 || p.height <= 0 {
		return ""
	}
	if p.width < minTermWidth || p.height < minSplitHeight {
		f, prompt := p.Focused(), ""
		if f.prompting {
			prompt = f.promptView()
		}
		return splitTooSmall(f.vc.Styles, p.width, p.height, prompt)
	}
	return p.frames.view(p.panes[0]) + "\n" + p.frames.view(p.panes[1])
}

// to hands msg to pane m and wraps the Cmd it returns.
func (p *Panes) to(m *Model, msg tea.Msg) tea.Cmd {
	p.frames.touch(m)
	_, cmd := m.Update(msg)
	return wrap(m, cmd)
}

// shows reports whether m is one of the panes shown.
func (p *Panes) shows(m *Model) bool {
	for _, q := range p.panes {
		if q == m {
			return true
		}
	}
	return false
}

// fromPane takes a message a pane's Cmd returned.
func (p *Panes) fromPane(msg paneMsg) tea.Cmd {
	m := msg.pane
	p.frames.touch(m) // whatever Panes does for it may change what it shows
	if !p.shows(m) {
		return p.orphan(m, msg.msg)
	}
	switch inner := msg.msg.(type) {
	case splitMsg:
		return p.split(m, inner.line)
	case onlyMsg:
		return p.close(m.other())
	case closePaneMsg:
		return p.close(m)
	case besideMsg:
		return p.beside(m, inner.logs)
	}
	if isExec(msg.msg) {
		p.exec = m
		inner := msg.msg
		return func() tea.Msg { return inner } // for Bubble Tea to run
	}
	return p.to(m, msg.msg)
}

// orphan takes a message for a pane closed since its Cmd started: the
// outcomes of a write it sent are still recorded (the session's history
// is both panes'); anything else is dropped.
func (p *Panes) orphan(m *Model, msg tea.Msg) tea.Cmd {
	if !outcomes(msg) {
		return nil
	}
	return p.to(m, msg)
}

// outcomes reports whether msg carries outcomes to record (a write's
// answer, a report), in one cluster's context or not.
func outcomes(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case views.AnswerMsg, views.OutcomesMsg:
		return true
	case views.ContextMsg:
		return outcomes(msg.Msg)
	}
	return false
}

// resize gives each pane its share of the terminal.
func (p *Panes) resize() tea.Cmd {
	if len(p.panes) == 1 {
		return p.to(p.panes[0], tea.WindowSizeMsg{Width: p.width, Height: p.height})
	}
	top := p.height / 2
	return tea.Batch(p.to(p.panes[0], tea.WindowSizeMsg{Width: p.width, Height: top}),
		p.to(p.panes[1], tea.WindowSizeMsg{Width: p.width, Height: p.height - top}))
}

// key hands a key to the focused pane; the focus key, when the pane takes
// no text, focuses the other pane instead.
func (p *Panes) key(msg tea.KeyMsg) tea.Cmd {
	f := p.Focused()
	if !key.Matches(msg, f.vc.Keys.Focus) || f.typing() {
		return p.to(f, msg)
	}
	if len(p.panes) == 1 {
		f.status = views.StatusMsg{Text: views.KeyHelp(f.vc.Keys.Focus.Keys()[:1]) + " moves between panes: :split opens a second"}
		return nil
	}
	p.dropChords()
	p.sess.focus = f.other()
	return nil
}

// dropChords drops a chord's first key waiting in either pane: the focus
// moves, and a key pressed later in that pane must not complete it.
func (p *Panes) dropChords() {
	for _, m := range p.panes {
		m.dropChord()
	}
}

// mouse hands a mouse event to the pane under the pointer, Y counted from
// the pane's first line; a click (not the wheel) focuses that pane.
func (p *Panes) mouse(msg tea.MouseMsg) tea.Cmd {
	m := p.panes[0]
	if top := p.height / 2; len(p.panes) == 2 && msg.Y >= top {
		m, msg.Y = p.panes[1], msg.Y-top
	}
	if len(p.panes) == 2 && msg.Action == tea.MouseActionPress && !tea.MouseEvent(msg).IsWheel() {
		if p.sess.focus != m {
			p.dropChords()
		}
		p.sess.focus = m
	}
	return p.to(m, msg)
}

// split opens a pane beside from, focused, showing what the `:` line
// opens (from's kind and namespace when line is ""); while split, it
// replaces the other pane. A terminal too small for two panes is said on
// from's status line.
func (p *Panes) split(from *Model, line string) tea.Cmd {
	if p.tooSmall(from) {
		return nil
	}
	s, cmd := p.open(from)
	p.sess.focus = s
	if line == "" {
		return cmd
	}
	return tea.Batch(cmd, wrap(s, s.run(line, false)))
}

// tooSmall reports whether the terminal is too small for two panes, and
// then says so on from's status line.
func (p *Panes) tooSmall(from *Model) bool {
	if p.width >= minTermWidth && p.height >= minSplitHeight {
		return false
	}
	from.status = views.StatusMsg{Error: true,
		Text: fmt.Sprintf("the terminal (%dx%d) is too small for two panes: they need %dx%d", p.width, p.height, minTermWidth, minSplitHeight)}
	return true
}

// open makes a sibling of from the other pane (in place of the one there
// is) and starts it; the focus is the caller's.
func (p *Panes) open(from *Model) (*Model, tea.Cmd) {
	s := from.sibling()
	if old := from.other(); old != nil {
		p.panes[p.index(old)] = s
		p.sess.panes = p.panes
		p.retire(old)
	} else {
		p.panes = append(p.panes, s)
		p.sess.panes = p.panes
	}
	return s, tea.Batch(p.resize(), wrap(s, s.Init()))
}

// beside shows logs from asked for (`L`) in the other pane, opening it
// when the screen is not split; from keeps the keys. Where the other pane
// reads another context, or the terminal is too small for two panes, the
// logs open in from as `l` opens them, and the status line says why.
func (p *Panes) beside(from *Model, msg views.OpenLogsMsg) tea.Cmd {
	msg.Beside = false
	other := from.other()
	if other != nil && !sameSource(other.vc.Client, from.vc.Client) {
		cmd := p.to(from, msg)
		from.status = views.StatusMsg{Text: "the other pane reads another context: the logs opened here"}
		return cmd
	}
	if other != nil {
		return wrap(other, other.showBeside(msg, false))
	}
	if p.tooSmall(from) {
		cmd := p.to(from, msg)
		from.status = views.StatusMsg{Text: fmt.Sprintf("%dx%d is too small for two panes: the logs opened here", p.width, p.height)}
		return cmd
	}
	s, cmd := p.open(from)
	p.sess.focus = from
	return tea.Batch(cmd, wrap(s, s.showBeside(msg, true)))
}

// close closes pane m of a split; the other fills the terminal and has
// the keys.
func (p *Panes) close(m *Model) tea.Cmd {
	if m == nil || len(p.panes) != 2 || !p.shows(m) {
		return nil
	}
	rest := m.other()
	p.panes = []*Model{rest}
	p.sess.panes, p.sess.focus = nil, nil
	p.retire(m)
	return p.resize()
}

// retire stops what a closed pane started: its screens' streams, its
// fleet's connections, and its own connection unless a pane shown reads
// it.
func (p *Panes) retire(m *Model) {
	closeScreens(m.stack...)
	if m.overlay != nil {
		closeScreens(m.overlay)
		m.overlay = nil
	}
	m.leaveFleet()
	for _, q := range p.panes {
		if sameSource(q.vc.Client, m.vc.Client) {
			return
		}
	}
	views.CloseSource(m.vc.Client)
}

// index returns m's place among the panes (-1: none).
func (p *Panes) index(m *Model) int {
	for i, q := range p.panes {
		if q == m {
			return i
		}
	}
	return -1
}
