package drift

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// WorkloadReader reads one workload of one context; *kube.Client is one
// (kube.Client.ReadWorkload: one get, and a list of autoscalers).
type WorkloadReader interface {
	// ReadWorkload returns the workload's editable part; errors carry a
	// kube.ReasonOf reason (not_found when it is not there).
	ReadWorkload(ctx context.Context, ref kube.WorkloadRef) (kube.Workload, error)
}

// Member is one context the workload is compared in.
type Member struct {
	// Context names the kubeconfig context.
	Context string
	// Reader reads it there; nil when the context cannot be read (not
	// connected: Err wraps ErrNotConnected; or its client reads no
	// workloads): Err says why.
	Reader WorkloadReader
	Err    error
}

// ReadTimeout bounds each context's read; past it that context's column
// says timeout while the others show what they read.
const ReadTimeout = 20 * time.Second

// readMsg carries the reads of one round (seq tells rounds apart).
type readMsg struct {
	seq   int
	reads []Read
}

// Model is the drift screen of one workload across the contexts of a
// fleet. Use New.
type Model struct {
	vc      *views.Context
	ref     kube.WorkloadRef
	members []Member

	reads   []Read
	rows    []Row
	read    bool // a round answered
	reading bool
	seq     int

	onlyDiffs bool
	offset    int
	colOffset int // the first context shown (←/→)
	keys      Keys

	// lines are the table's lines as drawn for drawnKey (tableLines).
	lines    []string
	drawnKey drawn
}

// New returns the screen comparing ref in each member, in their order
// (the columns' order); it reads them when it starts (Init).
func New(vc *views.Context, ref kube.WorkloadRef, members []Member) *Model {
	return &Model{vc: vc, ref: ref, members: members, keys: views.BoundKeys(vc, KeyTable, DefaultKeys)}
}

// Init reads the workload in every context.
func (m *Model) Init() tea.Cmd { return m.readAll() }

// readAll reads the workload in every member in parallel, each bounded by
// ReadTimeout, and answers when all have answered.
func (m *Model) readAll() tea.Cmd {
	m.seq++
	m.reading = true
	seq, ref, members := m.seq, m.ref, m.members
	return func() tea.Msg {
		reads := make([]Read, len(members))
		var wg sync.WaitGroup
		for i, mb := range members {
			reads[i].Context = mb.Context
			if mb.Reader == nil {
				reads[i].Err = mb.Err
				if reads[i].Err == nil {
					reads[i].Err = fmt.Errorf("%w: context %s reads no workloads", kube.ErrInvalid, mb.Context)
				}
				continue
			}
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), ReadTimeout)
				defer cancel()
				reads[i].Workload, reads[i].Err = mb.Reader.ReadWorkload(ctx, ref)
			})
		}
		wg.Wait()
		return readMsg{seq: seq, reads: reads}
	}
}

// Update takes the reads in and handles the keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case readMsg:
		if msg.seq != m.seq {
			return m, nil // an earlier round's
		}
		m.reads, m.rows, m.read, m.reading, m.lines = msg.reads, Compare(msg.reads), true, false, nil
	case tea.KeyMsg:
		page, k := max(m.vc.Height-4, 1), m.keys
		switch {
		case key.Matches(msg, k.Down):
			m.offset++
		case key.Matches(msg, k.Up):
			m.offset = max(m.offset-1, 0)
		case key.Matches(msg, k.PageDown):
			m.offset += page
		case key.Matches(msg, k.PageUp):
			m.offset = max(m.offset-page, 0)
		case key.Matches(msg, k.Top):
			m.offset = 0
		case key.Matches(msg, k.Bottom):
			m.offset = 1 << 30
		case key.Matches(msg, k.OnlyDiffs):
			m.onlyDiffs, m.offset = !m.onlyDiffs, 0
		case key.Matches(msg, k.Right):
			m.colOffset++ // clamped when drawn
		case key.Matches(msg, k.Left):
			m.colOffset = max(m.colOffset-1, 0)
		case key.Matches(msg, k.Refresh):
			return m, m.readAll()
		case key.Matches(msg, k.Edit):
			return m, m.changeAcross()
		}
	}
	return m, nil
}

// differing counts the rows whose values differ.
func (m *Model) differing() int {
	n := 0
	for _, r := range m.rows {
		if r.Differs {
			n++
		}
	}
	return n
}

// Title is "drift deployments/web(demo)".
func (m *Model) Title() string {
	return fmt.Sprintf("drift %s/%s(%s)", m.ref.Kind, views.Sanitize(m.ref.Name), views.Sanitize(m.ref.Namespace))
}

// Bindings are the screen's keys, for the help overlay.
func (m *Model) Bindings() []key.Binding {
	k := m.keys
	return []key.Binding{k.Up, k.Down, views.HelpOf("page", k.PageUp, k.PageDown), views.HelpOf("first/last field", k.Top, k.Bottom),
		k.OnlyDiffs, views.HelpOf("the other contexts, when not all fit", k.Left, k.Right), k.Refresh, k.Edit}
}

// Capturing is false: the screen takes no text.
func (m *Model) Capturing() bool { return false }

// markWidth is the width of the mark column ("≠ ").
const markWidth = 2

// View draws a line saying what is compared and how many fields differ,
// then one line per field: the mark (≠ where the values differ), the
// field (container: field) and each context's value in its column (cut
// with … to fit), then the reason of each context that could not be read
// (but missing or not connected, which the present row says), whole; the
// help line last.
func (m *Model) View() string {
	st := m.vc.Styles
	w := m.vc.Width
	var body []string
	switch {
	case !m.read:
		body = append(body, st.Muted.Render(fmt.Sprintf("reading %s in %d contexts…", m.what(), len(m.members))))
	default:
		head := fmt.Sprintf("%s in %d contexts: %d of %d fields differ (≠)", m.what(), len(m.members), m.differing(), len(m.rows))
		if m.reading {
			head += " · reading again…"
		}
		if m.onlyDiffs {
			head += " · only the fields that differ (d: all)"
		}
		body = append(body, head)
		body = append(body, m.tableLines(w)...)
		for _, r := range m.reads {
			if r.Err != nil && !r.Missing() && !errors.Is(r.Err, ErrNotConnected) {
				body = append(body, st.Error.Render(views.Sanitize(r.Context)+": "+string(kube.ReasonOf(r.Err))+" — "+views.Sanitize(r.Err.Error())))
			}
		}
	}
	k := m.keys
	help := views.Hints("≠ differs", views.Hint("only the differences", k.OnlyDiffs), views.Hint("edit once, apply cluster by cluster", k.Edit),
		views.Hint("read again", k.Refresh), views.Hint("back", m.vc.Keys.Back))
	return views.Page(st, w, m.vc.Height, body, help, &m.offset)
}

// what names the workload: "deployments/web (demo)".
func (m *Model) what() string {
	return fmt.Sprintf("%s/%s (%s)", m.ref.Kind, views.Sanitize(m.ref.Name), views.Sanitize(m.ref.Namespace))
}

// tableLines returns table(w), drawn once per read, width and d: a frame
// then only pages through them.
func (m *Model) tableLines(w int) []string {
	key := drawn{rows: len(m.rows), seq: m.seq, width: w, onlyDiffs: m.onlyDiffs, colOffset: m.colOffset}
	if m.drawnKey != key || m.lines == nil {
		m.lines, m.drawnKey = m.table(w), key
	}
	return m.lines
}

// drawn says what the table lines were drawn for.
type drawn struct {
	rows, seq, width, colOffset int
	onlyDiffs                   bool
}

// minColumn is the narrowest a context's column is drawn: fewer columns
// are shown, and ←/→ scroll through the contexts, rather than narrower.
const minColumn = 18

// columns returns which contexts are shown at width w (the first and one
// past the last, from colOffset) and the FIELD and context column widths.
func (m *Model) columns(w int) (from, to, fieldW, colW int) {
	fieldW = len("FIELD")
	for _, r := range m.rows {
		fieldW = max(fieldW, ansi.StringWidth(label(r)))
	}
	fieldW = min(fieldW, max(w/4, 16))
	n := max(len(m.reads), 1)
	fit := max((w-markWidth-fieldW)/(minColumn+2), 1)
	if fit > n {
		fit = n
	}
	from = min(m.colOffset, n-fit)
	m.colOffset = from
	colW = max((w-markWidth-fieldW-2*fit)/fit, 8)
	return from, min(from+fit, len(m.reads)), fieldW, colW
}

// table draws the header and the rows, each exactly w-1 cells wide at
// most (views.Page indents by one): the contexts that fit (columns).
func (m *Model) table(w int) []string {
	st := m.vc.Styles
	w = max(w-1, 1)
	from, to, fieldW, colW := m.columns(w)
	line := func(mark, field string, values []string) string {
		var b strings.Builder
		b.WriteString(pad(mark, markWidth))
		b.WriteString(pad(ansi.Truncate(field, fieldW, "…"), fieldW))
		for _, v := range values[from:to] {
			b.WriteString("  ")
			b.WriteString(pad(ansi.Truncate(v, colW, "…"), colW))
		}
		return ansi.Truncate(strings.TrimRight(b.String(), " "), w, "…")
	}
	names := make([]string, len(m.reads))
	for i, r := range m.reads {
		names[i] = views.Sanitize(r.Context)
	}
	var out []string
	if to-from < len(m.reads) {
		others := ""
		if lr := views.Hint("for the others", m.keys.Left, m.keys.Right); lr != "" {
			others = " (" + lr + ")"
		}
		out = append(out, st.Muted.Render(fmt.Sprintf("contexts %d–%d of %d%s", from+1, to, len(m.reads), others)))
	}
	out = append(out, st.ColumnHeader.Render(line("", "FIELD", names)))
	for _, r := range m.rows {
		if m.onlyDiffs && !r.Differs {
			continue
		}
		vals := make([]string, len(r.Values))
		for i, v := range r.Values {
			vals[i] = views.Sanitize(v)
		}
		if r.Differs {
			out = append(out, st.Error.Render(line("≠", label(r), vals)))
			continue
		}
		out = append(out, line("", label(r), vals))
	}
	return out
}

// label is a row's field as the FIELD column shows it: "web: image".
func label(r Row) string {
	if r.Container == "" {
		return views.Sanitize(r.Field)
	}
	return views.Sanitize(r.Container + ": " + r.Field)
}

// pad pads s with spaces to w cells.
func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
}

// changeAcross asks for the form of one change applied, cluster by
// cluster, to every context where the workload is present (e), in the
// columns' order.
func (m *Model) changeAcross() tea.Cmd {
	var present []string
	for _, r := range m.reads {
		if r.Err == nil {
			present = append(present, r.Context)
		}
	}
	if len(present) == 0 {
		return views.Status("the workload is in no context read: nothing to edit", true)
	}
	msg := views.OpenChangeAcrossMsg{Ref: m.ref, Contexts: present}
	return func() tea.Msg { return msg }
}
