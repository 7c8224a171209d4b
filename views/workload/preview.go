package workload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// previewState is the preview page: the dry run's answer and the
// confirmations the person typed.
type previewState struct {
	after   kube.Workload
	running bool // the dry run is on its way
	p       kube.Preview
	err     error // the dry run could not be done (or was refused)
	// confirm is the warnings' confirmations: the verdict's Confirm text,
	// or "y"; nil until the dry run answers.
	confirm *views.Confirm
	patch   bool
	// hscroll is the first cell shown of the patch body's lines (←/→).
	hscroll int

	applying bool
	applyErr error
}

// blocked says why the change cannot be applied ("" when it can once the
// warnings are confirmed): the dry run failed or a guard refused.
func (p *previewState) blocked() string {
	switch {
	case p.running:
		return "the dry run is running"
	case p.err != nil:
		return "the dry run could not be done"
	case p.p.Verdicts.Refusal() != nil:
		// kyyard refused it itself: the dry run was not sent.
		return "a guard refuses the change (the dry run was not sent)"
	case p.p.DryRunError != "":
		return "the API server refused the dry run"
	}
	return ""
}

// typing reports whether keys go to a confirmation.
func (p *previewState) typing() bool {
	return p.blocked() == "" && !p.applying && p.confirm.Typing()
}

// takeDryRun shows the dry run's answer and sets up the confirmations; a
// preview that refuses the apply is reported to the session's history.
func (m *Model) takeDryRun(msg dryRunMsg) tea.Cmd {
	p := m.pv
	if p == nil {
		return nil
	}
	p.running, p.p, p.err = false, msg.preview, msg.err
	var report tea.Cmd
	if m.form != nil {
		report = reportPreviewRefusal(m.form.base, msg)
	}
	if msg.err != nil {
		return report
	}
	p.confirm = views.NewConfirm(m.vc.Styles, views.ConfirmAsTyped, views.WarningAsks(msg.preview.Verdicts, 0))
	p.confirm.Start(p.blocked())
	return report
}

// previewKey handles a key on the preview.
func (m *Model) previewKey(msg tea.KeyMsg) tea.Cmd {
	p, k := m.pv, m.keys
	m.note = ""
	switch {
	case key.Matches(msg, k.Back) && p.applying:
		m.setNote("the apply is on its way: wait for its answer", false)
		return nil
	case key.Matches(msg, k.Back):
		m.mode, m.pv = modeForm, nil
		return m.focusCmd()
	case key.Matches(msg, k.Patch) && msg.Type != tea.KeyRunes && msg.Type != tea.KeySpace:
		// ctrl+p (a key that types nothing) works everywhere on the
		// page; p only while no confirmation is typed into (there it is
		// a letter).
		p.patch = !p.patch
		return nil
	case key.Matches(msg, k.Down, k.PageDown):
		m.page += m.step(msg)
		return nil
	case key.Matches(msg, k.Up, k.PageUp):
		m.page = max(m.page-m.step(msg), 0)
		return nil
	case key.Matches(msg, k.Apply):
		return m.apply()
	}
	if p.typing() {
		if key.Matches(msg, k.Next) {
			return p.confirm.Next()
		}
		return p.confirm.Update(msg)
	}
	switch {
	case key.Matches(msg, k.Patch):
		p.patch = !p.patch
	case p.patch && msg.Type == tea.KeyRight:
		p.hscroll += 20
	case p.patch && msg.Type == tea.KeyLeft:
		p.hscroll = max(p.hscroll-20, 0)
	case key.Matches(msg, k.ReadAgain) && !p.applying:
		m.setNote("reading "+m.name()+" again…", false)
		return m.readCmd(readRebase)
	}
	return nil
}

// apply writes the previewed change once nothing refuses it and every
// warning is confirmed; the confirmed reasons go with it.
func (m *Model) apply() tea.Cmd {
	p := m.pv
	if p.applying {
		return nil
	}
	if why := p.blocked(); why != "" {
		m.setNote("cannot apply: "+why, true)
		return nil
	}
	if p.confirm.Unconfirmed() > 0 {
		m.setNote(p.confirm.Summary(), true)
		return p.confirm.Advance()
	}
	p.applying, p.applyErr = true, nil
	return m.applyCmd(m.form.base, p.after, p.confirm.Reasons(), false)
}

// previewLines draws the preview's body: the changes, the dry run, the
// guards' verdicts with their confirmations, the patch when asked and the
// apply's failure.
func (m *Model) previewLines(w int) []string {
	st, p := m.vc.Styles, m.pv
	var out []string
	add := func(s string) { out = append(out, " "+s) }
	if p.running {
		add(st.Muted.Render("running server dry run…"))
		return views.WrapLines(out, w)
	}
	if p.err != nil {
		add(st.Error.Render("✗ dry run: " + errText(p.err)))
		if r, ok := asRefusal(p.err); ok && r.Reason == kube.ReasonConflict {
			add(st.Error.Render("the object changed since you read it") + " · r reads it again and keeps your edits")
		}
		return views.WrapLines(out, w)
	}
	width := 0
	for _, c := range p.p.Changes {
		width = max(width, len(changeWhere(c)))
	}
	for _, c := range p.p.Changes {
		one := fmt.Sprintf("%-*s  %s  →  %s", width, changeWhere(c), orNone(c.Before), orNone(c.After))
		if ansi.StringWidth(one) < w {
			add(one)
			continue
		}
		// Too long for a line: each value on lines of its own, cut at the
		// width (nothing inserted), so that it reads as it will be written.
		add(changeWhere(c))
		out = append(out, valueLines("     ", orNone(c.Before), w)...)
		out = append(out, valueLines("   → ", orNone(c.After), w)...)
	}
	if len(p.p.Changes) == 0 {
		add(st.Muted.Render("(no changes listed)"))
	}
	switch {
	case p.p.DryRunError != "" && p.p.Verdicts.Refusal() != nil:
		// A guard refused before anything was sent (--readonly, --strict,
		// the access review): not the API server's answer.
		why := strings.TrimPrefix(p.p.DryRunError, "not sent: ")
		add(st.Error.Render(fmt.Sprintf("server dry run  not sent: %s (%s)", views.Sanitize(why), p.p.DryRunReason)))
	case p.p.DryRunError != "":
		add(st.Error.Render(fmt.Sprintf("server dry run  ✗ refused (%s): %s", p.p.DryRunReason, views.Sanitize(p.p.DryRunError))))
	default:
		add(fmt.Sprintf("server dry run  ✓ accepted (%s)", plural(len(p.p.DryRunWarnings), "warning")))
	}
	for _, wn := range p.p.DryRunWarnings {
		add("                ! " + views.Sanitize(wn))
	}
	label := "guards         "
	wi := 0
	for _, v := range p.p.Verdicts {
		switch v.Outcome {
		case kube.OutcomePass:
			add(label + " ✓ " + views.VerdictSentence(v))
		case kube.OutcomeRefuse:
			add(label + " " + st.Error.Render(fmt.Sprintf("✗ %s (%s)", views.VerdictSentence(v), v.Reason)))
		case kube.OutcomeWarn:
			add(label + " ! " + views.VerdictSentence(v) + fmt.Sprintf(" (%s)", v.Reason))
			if wi < p.confirm.Len() {
				ask := "type y to confirm: "
				if v.Confirm != "" {
					ask = "type the name to confirm: "
				}
				add("               " + p.confirm.Cursor(wi) + "  " + ask + p.confirm.Field(wi))
			}
			wi++
		}
		label = "               "
	}
	if p.applying {
		add(st.Muted.Render("applying…"))
	}
	if p.applyErr != nil {
		add(st.Error.Render("✗ apply refused: " + errText(p.applyErr)))
		if r, ok := asRefusal(p.applyErr); ok && r.Reason == kube.ReasonConflict {
			add(st.Error.Render("the object changed since you read it") + " · r reads it again and keeps your edits")
		} else {
			add(st.Muted.Render("your edits are kept: esc returns to the form"))
		}
	}
	out = views.WrapLines(out, w)
	if p.patch {
		out = append(out, " "+st.Muted.Render("patch body (strategic merge patch as sent, indented; ←/→ scroll wide lines):"))
		for _, l := range patchLines(p.p.Patch) {
			out = append(out, cutLine("   ", l, p.hscroll, w))
		}
	}
	return out
}

// valueLines lays a value out after prefix, broken at the width exactly
// (no character added or dropped); the lines after the first are indented
// as far as prefix.
func valueLines(prefix, v string, w int) []string {
	room := max(w-ansi.StringWidth(prefix), 10)
	var out []string
	for i, part := range strings.Split(ansi.Hardwrap(v, room, true), "\n") {
		if i > 0 {
			prefix = strings.Repeat(" ", ansi.StringWidth(prefix))
		}
		out = append(out, prefix+part)
	}
	return out
}

// patchLines is the patch body as sent, indented (encoding/json's Indent
// adds only whitespace between tokens); a body that is not JSON is shown
// as it is.
func patchLines(body string) []string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(body), "", "  "); err == nil {
		body = buf.String()
	}
	return strings.Split(body, "\n")
}

// cutLine shows l after prefix from cell from on, within w cells: a line
// that goes on past either edge is cut there with a … marker, never
// broken or padded inside.
func cutLine(prefix, l string, from, w int) string {
	l = views.Sanitize(l)
	room := max(w-ansi.StringWidth(prefix), 2)
	total := ansi.StringWidth(l)
	lead := ""
	if from > 0 && total > 0 {
		from = min(from, max(total-1, 0))
		l = ansi.Cut(l, from, total)
		lead = "…"
		room--
	}
	if ansi.StringWidth(l) > room {
		l = ansi.Truncate(l, room, "…")
	}
	return prefix + lead + l
}

// previewHelp is the preview's last line.
func (m *Model) previewHelp() string {
	p := m.pv
	switch {
	case p.running:
		return "esc back to the form"
	case p.applying:
		return "applying…"
	case isConflict(p.applyErr) || isConflict(p.err):
		return "r read again and keep your edits · p patch body · esc back to the form"
	case p.blocked() != "":
		return "cannot apply: " + p.blocked() + " · p patch body · r read again · esc back to the form"
	case p.typing():
		return fmt.Sprintf("confirm %s · tab next · ctrl+p patch body · esc back to the form", plural(p.confirm.Unconfirmed(), "warning"))
	}
	return "p patch body · enter apply · r read again · esc back to the form"
}

// isConflict reports whether err is a conflict refusal.
func isConflict(err error) bool {
	r, ok := asRefusal(err)
	return ok && r.Reason == kube.ReasonConflict
}

// changeWhere is "container web   env LOG_LEVEL", or "replicas".
func changeWhere(c kube.Change) string {
	if c.Container == "" {
		return c.Field
	}
	return "container " + c.Container + "  " + c.Field
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return views.Sanitize(s)
}
