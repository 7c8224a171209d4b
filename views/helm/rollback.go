package helm

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// rollbackTimeout bounds the plan's reads; the rollback itself is bounded
// by Helm's own timeout (five minutes, as `helm rollback`).
const rollbackTimeout = 30 * time.Second

// phase is where a rollback stands.
type phase int

const (
	phasePlanning phase = iota
	phaseConfirm
	phaseRunning
	phaseDone
)

// Rollback is the screen of one rollback: the plan (every guard's
// verdict, what is done to each object, the diff of the values and
// manifest), then y rolls back with Helm's SDK, and the outcome. Make it
// with NewRollback.
type Rollback struct {
	vc              *views.Context
	r               Reader
	namespace, name string
	from, to        int

	phase   phase
	plan    *kube.HelmRollbackPlan
	err     error
	outcome kube.OperateOutcome
	offset  int
	keys    RollbackKeys
}

// NewRollback returns the rollback of release name in namespace from
// revision from (the latest the person saw) to revision to, planned from
// Init on; nothing is written before y.
func NewRollback(vc *views.Context, r Reader, namespace, name string, from, to int) *Rollback {
	return &Rollback{vc: vc, r: r, namespace: namespace, name: name, from: from, to: to, keys: views.BoundKeys(vc, RollbackKeyTable, DefaultRollbackKeys)}
}

type plannedMsg struct {
	owner *Rollback
	plan  *kube.HelmRollbackPlan
	err   error
}

type rolledMsg struct {
	owner *Rollback
	out   kube.OperateOutcome
}

// ref names the release in :history.
func (m *Rollback) ref() kube.ObjectRef {
	return kube.ObjectRef{Kind: kube.KindHelmReleases, Namespace: m.namespace, Name: m.name}
}

// Init plans the rollback the first time; a plan refused is recorded in
// :history as refused (nothing was sent).
func (m *Rollback) Init() tea.Cmd {
	if m.phase != phasePlanning || m.plan != nil || m.err != nil {
		return nil
	}
	r, owner := m.r, m
	ns, name, from, to, ref := m.namespace, m.name, m.from, m.to, m.ref()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), rollbackTimeout)
		defer cancel()
		p, err := r.PlanHelmRollback(ctx, ns, name, from, to)
		msg := plannedMsg{owner: owner, plan: p, err: err}
		if err == nil {
			return msg
		}
		out := views.RefusedOutcome(ref, kube.ActionHelmRollback, err, "nothing sent")
		if p != nil {
			out.Verdicts = p.Verdicts
		}
		return views.Answer(owner, msg, views.StatusMsg{Text: out.Detail, Error: true}, out)
	}
}

// Update takes the plan, the outcome and the keys.
func (m *Rollback) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case plannedMsg:
		if msg.owner == m {
			m.phase, m.plan, m.err = phaseConfirm, msg.plan, msg.err
		}
	case rolledMsg:
		if msg.owner == m {
			m.phase, m.outcome = phaseDone, msg.out
		}
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// start runs the plan. Its answer is recorded whatever the screen does
// meanwhile.
func (m *Rollback) start() tea.Cmd {
	if m.plan == nil || m.err != nil || m.plan.Verdicts.Refusal() != nil {
		return nil
	}
	m.phase = phaseRunning
	r, p, owner := m.r, m.plan, m
	return func() tea.Msg {
		// Helm's rollback takes no context of its own: it is bounded by
		// its timeout, and runs to its end once started.
		out := r.HelmRollback(context.Background(), p, views.ConfirmedReasons(p.Verdicts))
		return views.Answer(owner, rolledMsg{owner: owner, out: out}, views.StatusMsg{Text: views.Sanitize(out.Detail), Error: !out.OK()}, out)
	}
}

func (m *Rollback) key(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Back, k.Cancel):
		if m.phase == phaseRunning {
			return views.Status("the rollback runs to its end (Helm cannot stop it midway); "+views.Hint("once it is done", k.Back), false)
		}
		if key.Matches(msg, k.Cancel) && m.phase != phaseConfirm {
			return nil
		}
		return func() tea.Msg { return views.BackMsg{} }
	case key.Matches(msg, k.Rollback):
		if m.phase == phaseConfirm {
			return m.start()
		}
	default:
		k.Scroll(msg, &m.offset, m.vc.Height)
	}
	return nil
}

// CapturesBack is true while the rollback runs: esc does not leave it.
func (m *Rollback) CapturesBack() bool { return m.phase == phaseRunning }

// Capturing is false: the screen takes no text.
func (m *Rollback) Capturing() bool { return false }

// Title names the release and the revisions.
func (m *Rollback) Title() string {
	return views.Sanitize(fmt.Sprintf("helm rollback %s/%s %d → %d", m.namespace, m.name, m.from, m.to))
}

// Bindings are the screen's keys.
func (m *Rollback) Bindings() []key.Binding {
	k := m.keys
	return []key.Binding{k.Rollback, views.HelpOf("cancel: nothing is sent", k.Cancel, k.Back), k.ScrollHelp()}
}

// View draws the plan, the run and the outcome.
func (m *Rollback) View() string {
	st, k := m.vc.Styles, m.keys
	back, scroll := views.Hint("back", k.Back), views.Hint("scroll", k.Up, k.Down)
	w, h := m.vc.Width, m.vc.Height
	what := views.Sanitize(fmt.Sprintf("helm release %s/%s", m.namespace, m.name))
	if m.phase == phasePlanning {
		return views.Page(st, w, h, []string{fmt.Sprintf("planning the rollback of %s to revision %d (the guards, the diff) …", what, m.to)}, back, &m.offset)
	}
	var body []string
	switch m.phase {
	case phaseConfirm:
		body = append(body, fmt.Sprintf("roll %s back from revision %d to revision %d with Helm (as helm rollback %s %d: a new revision %d with revision %d's chart, values and manifest; hooks run; 5m timeout)",
			what, m.from, m.to, views.Sanitize(m.name), m.to, m.from+1, m.to))
	case phaseRunning:
		body = append(body, fmt.Sprintf("rolling %s back to revision %d… (Helm runs it to its end)", what, m.to))
	case phaseDone:
		style := st.Muted
		if !m.outcome.OK() {
			style = st.Error
		}
		body = append(body, style.Render(views.Sanitize(m.outcome.Detail)))
	}
	if m.plan == nil {
		body = append(body, st.Error.Render("cannot roll back: "+views.ErrText(m.err)))
		return views.Page(st, w, h, body, back, &m.offset)
	}
	for _, v := range m.plan.Verdicts {
		body = append(body, "  "+views.VerdictLine(st, v))
	}
	if len(m.plan.Objects) > 0 {
		body = append(body, "", fmt.Sprintf("what Helm does to the objects (%d):", len(m.plan.Objects)))
		for _, o := range m.plan.Objects {
			body = append(body, "  "+views.Sanitize(o))
		}
	}
	if m.plan.Diff != "" {
		body = append(body, "", fmt.Sprintf("revision %d → revision %d (values, then manifest; Secret values as sizes):", m.from, m.to))
		for _, l := range strings.Split(strings.TrimRight(m.plan.Diff, "\n"), "\n") {
			body = append(body, diffLine(st, l))
		}
	} else if m.err == nil {
		body = append(body, "", st.Muted.Render(fmt.Sprintf("revisions %d and %d have the same values and manifest", m.from, m.to)))
	}
	help := views.Hints(scroll, back)
	switch {
	case m.phase == phaseConfirm && m.plan.Verdicts.Refusal() != nil:
		body = append(body, "", st.Error.Render("refused: nothing sent"))
	case m.phase == phaseConfirm:
		ask := fmt.Sprintf("roll %s back to revision %d?", what, m.to)
		if yn := views.YesNo(k.Rollback, k.Cancel, k.Back); yn != "" {
			ask += " " + yn
		}
		body = append(body, "", st.Error.Render(ask))
		help = views.Hints(views.Hint("roll back", k.Rollback), views.Hint("cancel", k.Cancel, k.Back), scroll)
	case m.phase == phaseRunning:
		help = views.Hint("scroll (the rollback runs to its end)", k.Up, k.Down)
	}
	return views.Page(st, w, h, body, help, &m.offset)
}

// diffLine is one line of a unified diff, sanitised, in the style of its
// side.
func diffLine(st views.Styles, l string) string {
	l = views.Sanitize(l)
	switch {
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "@@"):
		return st.Muted.Render(l)
	case strings.HasPrefix(l, "+"):
		return st.Health(kube.HealthOK).Render(l)
	case strings.HasPrefix(l, "-"):
		return st.Error.Render(l)
	}
	return l
}
