// Package logs is the log viewer: the lines of one container, of every
// container of a pod, or of a workload's pods, streamed through a
// Streamer (*kube.Client) into a bounded ring buffer, drawn safely (the
// bytes are untrusted: only colour sequences ever reach the terminal),
// followed, searched, filtered, saved and copied.
package logs

import (
	"context"
	"errors"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/pickers"
)

// Streamer is what the viewer reads logs through; *kube.Client is one.
// Logs streams req's lines into sink until they end (not following) or
// ctx is cancelled, and returns why it stopped (nil, ctx's error after a
// cancel, a *kube.ContainerChoiceError when a container must be chosen,
// or an API error that kube.ReasonOf answers).
type Streamer interface {
	Logs(ctx context.Context, req kube.LogRequest, sink kube.LogSink) error
}

// DefaultTail is how many last lines `0` (tail) restarts the stream at.
const DefaultTail = 1000

// sinceDurations are the durations Since's keys restart the stream at:
// its first key (1) the first, its second (2) the second, ...
var sinceDurations = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour}

// Timestamp modes (t cycles them).
const (
	timeOff = iota
	timeUTC
	timeLocal
)

// Filter modes for a search.
const (
	showAll = iota
	showOnly
	showHidden
)

// Prompts.
const (
	promptNone = iota
	promptSearch
	promptFields
)

// Model is the log viewer screen. Use New.
type Model struct {
	vc       *views.Context
	streamer Streamer
	keys     Keys
	// req is the request streamed now (the person's options applied).
	req kube.LogRequest

	buf      *buffer
	capacity int
	queue    int
	gap      time.Duration

	sink    *sink
	cancel  context.CancelFunc
	gen     int // stream generation: a restart makes older messages stale
	arm     int // wait token: only the newest wait's message is taken
	started bool
	ended   bool
	endErr  error
	dropped int64

	follow bool
	top    int64 // the entry at the top of the screen when not following
	sub    int   // and its first row shown
	wrap   bool
	times  int
	loc    *time.Location
	strip  bool // the log's colours are stripped
	json   bool
	fields []string
	widths []int

	prompt    textinput.Model
	prompting int
	ix        *index
	current   int // index in ix.matches
	// currentRow is the row, within its entry's drawn rows, where the
	// current match starts, as the last draw of that entry found it (-1:
	// none drawn).
	currentRow int
	filter     int
	problem    string // the last search or fields error

	picker           *pickers.Model
	pvc              *views.Context // the picker's area: the screen less the line above it
	containers       []string
	defaultContainer string
	pods             map[string]bool
	// across names the objects of a merge across several clusters
	// (Across): each line's label starts with its context.
	across  string
	leftOut int
	// failed are the pods whose streams ended with an error and have none
	// left; waiting says, per stream, why it cannot be read yet.
	failed  map[string]bool
	waiting map[int32]string

	note    string // a line for the footer (saved to, copied)
	now     func() time.Time
	saveDir string
	clip    func(string) error

	cache    map[int64][]string
	cacheKey cacheKey
}

// Option changes a new viewer.
type Option func(*Model)

// WithCapacity holds at most n entries (DefaultCapacity when not given).
func WithCapacity(n int) Option { return func(m *Model) { m.capacity = n } }

// WithQueue lets at most n lines wait between the stream and the screen
// (DefaultQueue); more are dropped and counted.
func WithQueue(n int) Option { return func(m *Model) { m.queue = n } }

// WithClock makes the viewer read the time (file names) from now and
// show local times in loc.
func WithClock(now func() time.Time, loc *time.Location) Option {
	return func(m *Model) { m.now, m.loc = now, loc }
}

// Across marks the viewer as a merge of several clusters' logs (the
// Streamer is views/fleet's): what names the objects ("2 pods in 2
// contexts") is the title, and each line's label is
// "<context>:<pod>" (with "/<container>" when every container is read).
func Across(what string) Option { return func(m *Model) { m.across = what } }

// WithSaveDir saves files into dir instead of the current directory (or
// $TMPDIR when that is not writable).
func WithSaveDir(dir string) Option { return func(m *Model) { m.saveDir = dir } }

// WithClipboard copies through put instead of an OSC 52 sequence written
// to the terminal.
func WithClipboard(put func(string) error) Option { return func(m *Model) { m.clip = put } }

// WithBatchGap waits at least d between two batches handed to the screen
// (default 25 ms), so a fast stream is drawn a few dozen times a second,
// not once per write.
func WithBatchGap(d time.Duration) Option { return func(m *Model) { m.gap = d } }

// New returns a viewer of req's logs, read through s. It streams nothing
// until Init. req.Options come from the row's key (Follow for `l`,
// Previous for `p`).
func New(vc *views.Context, s Streamer, req kube.LogRequest, opts ...Option) *Model {
	p := textinput.New()
	p.Cursor.SetMode(cursor.CursorStatic)
	p.PromptStyle = vc.Styles.Prompt
	p.TextStyle = vc.Styles.Prompt
	m := &Model{vc: vc, streamer: s, keys: views.BoundKeys(vc, KeyTable, DefaultKeys), req: req, capacity: DefaultCapacity, queue: DefaultQueue,
		gap: 25 * time.Millisecond, follow: true, now: time.Now, loc: time.Local, prompt: p, pods: map[string]bool{},
		failed: map[string]bool{}, waiting: map[int32]string{}, clip: osc52}
	if m.req.MaxStreams <= 0 {
		m.req.MaxStreams = vc.Config.MaxLogStreams
	}
	for _, o := range opts {
		o(m)
	}
	m.buf = newBuffer(m.capacity)
	return m
}

// Note returns the footer's note: what the last save or copy did, or why
// a key did nothing ("" when none).
func (m *Model) Note() string { return m.note }

// Lines returns the held log lines' text as drawn (sanitised, colours
// stripped), oldest first, markers left out.
func (m *Model) Lines() []string {
	var out []string
	for seq := m.buf.first; seq < m.buf.end(); seq++ {
		if e := m.buf.at(seq); e.kind == kindLine {
			out = append(out, string(m.buf.plainOf(e)))
		}
	}
	return out
}

// Request returns the request streamed now.
func (m *Model) Request() kube.LogRequest { return m.req }

// Init starts the stream; on top again after a screen above it closed,
// it takes up the batches that waited.
func (m *Model) Init() tea.Cmd {
	if !m.started {
		return m.start()
	}
	if m.ended {
		return nil
	}
	return m.wait()
}

// Close cancels the stream: the root calls it when the viewer leaves the
// stack, so nothing outlives the view.
func (m *Model) Close() {
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
}

// start (re)starts the stream with m.req: the old one is cancelled and
// the buffer emptied.
func (m *Model) start() tea.Cmd {
	m.Close()
	m.started, m.ended, m.endErr, m.dropped, m.leftOut = true, false, nil, 0, 0
	m.gen++
	m.buf.reset()
	m.pods, m.failed, m.waiting = map[string]bool{}, map[string]bool{}, map[int32]string{}
	m.current, m.follow, m.cache = 0, true, nil
	s := newSink(m.queue)
	m.sink = s
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	streamer, req := m.streamer, m.req
	run := func() tea.Msg {
		s.finish(streamer.Logs(ctx, req, s))
		return nil
	}
	return tea.Batch(run, m.wait())
}

// readyMsg says the sink of stream generation gen has something to take.
type readyMsg struct {
	owner *Model
	gen   int
	arm   int
}

// wait returns a command that waits until the sink has something, at
// least the batch gap after the previous batch.
func (m *Model) wait() tea.Cmd {
	m.arm++
	owner, gen, arm, s, gap := m, m.gen, m.arm, m.sink, m.gap
	return func() tea.Msg {
		<-s.ready()
		if gap > 0 {
			time.Sleep(gap)
		}
		return readyMsg{owner: owner, gen: gen, arm: arm}
	}
}

// Update handles the stream's batches, sizes, the picker and keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case readyMsg:
		if msg.owner != m || msg.gen != m.gen || msg.arm != m.arm {
			return m, nil
		}
		return m, m.takeBatch()
	case savedMsg:
		if msg.owner == m {
			m.saved(msg)
		}
		return m, nil
	case pickedMsg:
		if msg.owner == m {
			return m, m.picked(msg.value)
		}
		return m, nil
	case tea.WindowSizeMsg:
		m.cache = nil
		if m.picker != nil {
			m.pvc.Width, m.pvc.Height = m.vc.Width, max(m.vc.Height-1, 1)
			m.picker.Update(msg)
		}
		return m, nil
	case tea.KeyMsg:
		m.note = ""
		if m.picker != nil {
			if msg.Type == tea.KeyEsc {
				m.picker = nil
				if m.choosing() {
					// The first choice, nothing streamed: esc cancels
					// the viewer, back to the row it was opened from.
					m.Close()
					return m, func() tea.Msg { return views.BackMsg{} }
				}
				return m, nil
			}
			_, cmd := m.picker.Update(msg)
			return m, cmd
		}
		if m.prompting != promptNone {
			return m, m.promptKey(msg)
		}
		return m, m.handleKey(msg)
	case tea.MouseMsg:
		if m.picker == nil && m.prompting == promptNone {
			for _, k := range views.WheelKeys(msg) {
				m.handleKey(k)
			}
		}
	}
	return m, nil
}

// takeBatch moves what waits in the sink into the buffer and waits for
// more, unless the stream ended.
func (m *Model) takeBatch() tea.Cmd {
	items, done, err := m.sink.take()
	m.ingest(items)
	if !done {
		return m.wait()
	}
	m.ended, m.endErr = true, err
	if errors.Is(err, context.Canceled) {
		m.endErr = nil
	}
	var choice *kube.ContainerChoiceError
	if errors.As(err, &choice) {
		m.containers, m.defaultContainer = choice.Containers, choice.DefaultContainer
		m.openPicker()
	}
	return nil
}

// choosing reports whether the stream stopped because a container must
// be chosen: the picker open then is the viewer's first question, and
// nothing was streamed.
func (m *Model) choosing() bool {
	var choice *kube.ContainerChoiceError
	return m.ended && errors.As(m.endErr, &choice)
}

// Title names the viewer and its object: "logs pods/web-1".
func (m *Model) Title() string {
	if m.across != "" {
		return "logs " + m.across
	}
	return "logs " + string(m.req.Kind) + "/" + m.req.Name
}

// Bindings lists the viewer's keys for the help overlay.
func (m *Model) Bindings() []key.Binding {
	return m.keys.bindings()
}

// Capturing is true while a prompt or the container picker is open.
func (m *Model) Capturing() bool { return m.prompting != promptNone || m.picker != nil }

// CapturesBack is true while a search is set: esc ends it first.
func (m *Model) CapturesBack() bool { return m.ix != nil || m.problem != "" }
