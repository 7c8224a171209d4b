package deploy

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/render"
	"github.com/kyyard/kyyard/views"
)

// Preview bodies (tab switches).
const (
	bodyYAML = iota
	bodyDiff
)

// preview is the preview page: the rendered objects, PlanDeploy's answer,
// the confirmations typed and the search.
type preview struct {
	req       render.Request
	plan      render.Plan
	renderErr error
	running   bool
	dp        kube.DeployPlan
	err       error
	// warns are the warning verdicts; confirm their confirmations (the
	// verdict's Confirm text, or "y"), then, when the plan prunes
	// objects, the prune's (the instance name typed).
	warns   []kube.Verdict
	confirm *views.Confirm

	body   int
	offset int
	// search: searching while the query is typed; query the one applied;
	// at the body line of the current match.
	search    textinput.Model
	searching bool
	// showPasses lists the passing verdicts one a line (d).
	showPasses bool
	query      string
	at         int
}

func newPreview(st views.Styles, req render.Request, plan render.Plan, err error) *preview {
	p := &preview{req: req, plan: plan, renderErr: err, running: err == nil, at: -1}
	p.search = textinput.New()
	p.search.Prompt = "/"
	p.search.TextStyle, p.search.PromptStyle = st.Prompt, st.Prompt
	p.search.Cursor.SetMode(cursor.CursorStatic)
	return p
}

// takePlan shows PlanDeploy's answer and sets up the confirmations.
func (p *preview) takePlan(st views.Styles, msg planMsg) {
	p.running, p.dp, p.err = false, msg.plan, msg.err
	if msg.err != nil {
		return
	}
	p.warns = msg.plan.Verdicts.Warnings()
	asks := views.WarningAsks(msg.plan.Verdicts, 0)
	if len(msg.plan.Prune) > 0 {
		asks = append(asks, views.ConfirmAsk{Want: p.req.Instance})
	}
	p.confirm = views.NewConfirm(st, views.ConfirmAsTyped, asks)
	p.confirm.Start(p.blocked())
}

// prunes reports whether the plan deletes objects removed from the form
// (their confirmation is the last ask).
func (p *preview) prunes() bool { return len(p.dp.Prune) > 0 }

// pruneInput is the prune confirmation's index in the asks (-1 when none).
func (p *preview) pruneInput() int {
	if !p.prunes() || p.confirm.Len() <= len(p.warns) {
		return -1
	}
	return len(p.warns)
}

// dryRunFailures are the objects the server's dry run refused, sorted.
func (p *preview) dryRunFailures() []string {
	var out []string
	for k, v := range p.dp.DryRun {
		if v != "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// blocked says why the deploy cannot go ("" when it can once the warnings
// are confirmed).
func (p *preview) blocked() string {
	switch {
	case p.renderErr != nil:
		return "the objects could not be rendered"
	case p.running:
		return "the plan and dry run are running"
	case p.err != nil:
		return "the plan could not be made"
	case p.dp.Verdicts.Refusal() != nil:
		return "a guard refuses the deploy"
	case len(p.dryRunFailures()) > 0:
		return "the API server refused the dry run"
	}
	return ""
}

// typing reports whether keys go to a confirmation.
func (p *preview) typing() bool { return p.blocked() == "" && p.confirm.Typing() }

// previewKey handles a key on the preview.
func (m *Model) previewKey(msg tea.KeyMsg) tea.Cmd {
	p, k := m.pv, m.keys
	m.note = ""
	if p.searching {
		// The search's own keys, as a typed field's.
		switch msg.Type {
		case tea.KeyEsc:
			p.searching = false
			p.search.Blur()
		case tea.KeyEnter:
			p.searching, p.query = false, p.search.Value()
			p.search.Blur()
			p.at = -1
			m.findNext(1)
		default:
			var cmd tea.Cmd
			p.search, cmd = p.search.Update(msg)
			return cmd
		}
		return nil
	}
	switch {
	case key.Matches(msg, k.Back):
		m.mode, m.pv = modeForm, nil
		m.token++
		return m.focusCmd()
	case key.Matches(msg, k.Deploy):
		return m.deploy()
	case key.Matches(msg, k.PageDown):
		p.offset += max(m.vc.Height-8, 1)
		return nil
	case key.Matches(msg, k.PageUp):
		p.offset = max(p.offset-max(m.vc.Height-8, 1), 0)
		return nil
	case msg.Type == tea.KeyDown:
		p.offset++
		return nil
	case msg.Type == tea.KeyUp:
		p.offset = max(p.offset-1, 0)
		return nil
	}
	if p.typing() {
		return p.confirm.Update(msg)
	}
	switch {
	case key.Matches(msg, k.Tab):
		p.body = 1 - p.body
		p.offset, p.at = m.bodyStart(), -1
	case key.Matches(msg, k.Passes):
		p.showPasses = !p.showPasses
	case key.Matches(msg, k.Search):
		// A new search starts empty (n/N repeat the last one).
		p.searching = true
		p.search.SetValue("")
		return p.search.Focus()
	case key.Matches(msg, k.NextMatch):
		m.findNext(1)
	case key.Matches(msg, k.PrevMatch):
		m.findNext(-1)
	}
	return nil
}

// findNext moves to the next (d=1) or previous (d=-1) body line holding
// the query (case-insensitive), wrapping around.
func (m *Model) findNext(d int) {
	p := m.pv
	if p.query == "" {
		return
	}
	lines := m.bodyLines()
	q := strings.ToLower(p.query)
	n := len(lines)
	for i := 1; i <= n; i++ {
		j := ((p.at+d*i)%n + n) % n
		if p.at < 0 && d > 0 {
			j = (i - 1) % n
		}
		if strings.Contains(strings.ToLower(lines[j]), q) {
			p.at, p.offset = j, max(j-2+m.bodyStart(), 0)
			return
		}
	}
	m.note, m.noteErr = fmt.Sprintf("%q is not in the %s", p.query, []string{"objects", "diff"}[p.body]), true
}

// deploy starts the deploy once nothing refuses it and every warning is
// confirmed; the confirmed reasons and the record version planned against
// go with it.
func (m *Model) deploy() tea.Cmd {
	p := m.pv
	if why := p.blocked(); why != "" {
		m.note, m.noteErr = "cannot deploy: "+why, true
		return nil
	}
	if n := p.confirm.Unconfirmed(); n > 0 {
		m.note, m.noteErr = p.confirm.Summary(), true
		if i := p.pruneInput(); n == 1 && i >= 0 && !p.confirm.Confirmed(i) {
			m.note = fmt.Sprintf("type %q to confirm deleting %s first", p.confirm.Ask(i).Want, kube.Plural(len(p.dp.Prune), "object"))
		}
		return p.confirm.Advance()
	}
	confirmed := p.confirm.Reasons()
	d, req := m.d, m.req
	opts := kube.DeployOptions{Confirmed: confirmed, RecordVersion: p.dp.RecordVersion, RecordGeneration: p.dp.RecordGeneration, Timeout: m.timeout}
	m.token++
	m.mode, m.offset = modeRun, 0
	var cmd tea.Cmd
	name := m.name()
	left := func(r *run) kube.OperateOutcome { return deployOutcome(req.Namespace, req.Instance, name, r) }
	m.run, cmd = startRun(m, m.token, p.dp.Steps, left, func(ctx context.Context, progress func(kube.DeployStep)) (kube.DeployResult, error) {
		o := opts
		o.Progress = progress
		return d.Deploy(ctx, req, o)
	})
	m.run.now, m.run.deadline = m.now, m.deadline()
	return cmd
}

// headLines are the preview's fixed lines: what is deployed, the guards'
// verdicts with their confirmations, the dry run.
func (m *Model) headLines() []string {
	st, p := m.vc.Styles, m.pv
	var out []string
	if p.renderErr != nil {
		return append(out, st.Error.Render("✗ the objects could not be rendered: "+views.Sanitize(p.renderErr.Error())))
	}
	kinds := map[string]int{}
	for _, o := range p.plan.Objects {
		kinds[o.Kind]++
	}
	var parts []string
	for _, k := range []string{"Deployment", "Service", "ConfigMap", "Secret", "PersistentVolumeClaim"} {
		if n := kinds[k]; n > 0 {
			parts = append(parts, kube.Plural(n, k))
		}
	}
	out = append(out, fmt.Sprintf("%s in %s: %s", views.Sanitize(p.req.Instance), views.Sanitize(p.req.Namespace), strings.Join(parts, ", ")))
	switch {
	case p.running:
		return append(out, st.Muted.Render("guards and server dry run running…"))
	case p.err != nil:
		return append(out, st.Error.Render("✗ plan: "+views.ErrText(p.err)))
	}
	// What stops or needs a word first: refusals, then warnings with
	// their confirmations; the passing checks in one line (d lists them).
	for _, v := range p.dp.Verdicts {
		if v.Outcome == kube.OutcomeRefuse {
			out = append(out, st.Error.Render(fmt.Sprintf("✗ %s: %s", v.Reason, views.VerdictSentence(v))))
		}
	}
	wi := 0
	for _, v := range p.dp.Verdicts {
		if v.Outcome != kube.OutcomeWarn {
			continue
		}
		out = append(out, fmt.Sprintf("! %s: %s", v.Reason, views.VerdictSentence(v)))
		if wi < len(p.warns) && wi < p.confirm.Len() {
			out = append(out, "  "+p.confirmLine(wi))
		}
		wi++
	}
	out = append(out, p.passLines(st)...)
	out = append(out, p.pruneLines(st)...)
	fails := p.dryRunFailures()
	switch {
	case len(p.dp.DryRun) == 0 && p.dp.Verdicts.Refusal() != nil:
		// PlanDeploy does not dry-run what a guard refuses.
		out = append(out, "dry run  "+st.Muted.Render("not run (a guard refuses)"))
	case len(p.dp.DryRun) == 0:
		out = append(out, "dry run  "+st.Muted.Render("not run"))
	case len(fails) == 0:
		out = append(out, fmt.Sprintf("dry run  ✓ accepted (%s)", kube.Plural(len(p.dp.DryRun), "object")))
	}
	for i, k := range fails {
		label := "dry run  "
		if i > 0 {
			label = "         "
		}
		out = append(out, label+st.Error.Render(fmt.Sprintf("✗ %s: %s", views.Sanitize(k), views.Sanitize(p.dp.DryRun[k]))))
	}
	return out
}

// guardTopics name the guards' checks in the passing line.
var guardTopics = map[kube.Guard]string{
	kube.GuardAccess: "permissions", kube.GuardOwner: "names", kube.GuardClaimSpec: "claims", kube.GuardClaims: "claims",
	kube.GuardPodSecurity: "pod security", kube.GuardReadOnly: "read-only", kube.GuardManaged: "ownership",
}

// passLines are the passing verdicts: one line, "✓ 20 checks passed:
// permissions, names, claims — d shows them", or each verdict after d.
func (p *preview) passLines(st views.Styles) []string {
	var passes []kube.Verdict
	var topics []string
	for _, v := range p.dp.Verdicts {
		if v.Outcome != kube.OutcomePass {
			continue
		}
		passes = append(passes, v)
		t, ok := guardTopics[v.Guard]
		if !ok {
			t = strings.ReplaceAll(string(v.Guard), "_", " ")
		}
		if !slices.Contains(topics, t) {
			topics = append(topics, t)
		}
	}
	switch {
	case len(p.dp.Verdicts) == 0:
		return []string{st.Muted.Render("(no guard verdicts)")}
	case len(passes) == 0:
		return nil
	}
	head := fmt.Sprintf("✓ %s passed: %s", kube.Plural(len(passes), "check"), strings.Join(topics, ", "))
	if !p.showPasses {
		return []string{st.Muted.Render(head + " — d shows them")}
	}
	out := []string{st.Muted.Render(head + " — d hides them")}
	for _, v := range passes {
		out = append(out, st.Muted.Render("  ✓ "+views.VerdictSentence(v)))
	}
	return out
}

// confirmLine is confirmation i's line: what to type, the input, a ✓
// once typed, the cursor's mark.
func (p *preview) confirmLine(i int) string {
	want := p.confirm.Ask(i).Want
	ask := fmt.Sprintf("type %q to confirm: ", want)
	if want == "y" {
		ask = "type y to confirm: "
	}
	return p.confirm.Cursor(i) + " " + ask + p.confirm.Field(i)
}

// pruneLines say what the deploy deletes and keeps of the objects
// removed from the form (DeployPlan.Prune and Keep), with the prune's
// confirmation; none when nothing was removed.
func (p *preview) pruneLines(st views.Styles) []string {
	var parts []string
	if len(p.dp.Prune) > 0 {
		parts = append(parts, st.Error.Render("will delete: "+views.Sanitize(strings.Join(p.dp.Prune, ", "))+" (removed from the form)"))
	}
	if len(p.dp.Keep) > 0 {
		keep := "keeps " + views.Sanitize(strings.Join(p.dp.Keep, ", "))
		if len(p.dp.Prune) == 0 {
			keep += " (removed from the form; claims are retained)"
		}
		parts = append(parts, keep)
	}
	if len(parts) == 0 {
		return nil
	}
	out := []string{strings.Join(parts, " · ")}
	if i := p.pruneInput(); i >= 0 {
		out = append(out, "  "+p.confirmLine(i))
	}
	return out
}

// bodyLines are the lines of the body shown: every object's YAML, or its
// diff against what is deployed.
func (m *Model) bodyLines() []string {
	p := m.pv
	var out []string
	if p.body == bodyYAML {
		for _, o := range p.plan.Objects {
			out = append(out, fmt.Sprintf("# %s %s (service %s)", o.Kind, o.Name, o.Service))
			out = append(out, sanitizedLines(o.YAML)...)
			out = append(out, "---")
		}
		if len(out) > 0 {
			out = out[:len(out)-1]
		}
		return out
	}
	if p.running || p.err != nil {
		return []string{"(the diff comes with the plan)"}
	}
	keys := make([]string, 0, len(p.dp.Diff))
	for k := range p.dp.Diff {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, "── "+views.Sanitize(k))
		switch d := p.dp.Diff[k]; d {
		case "":
			out = append(out, "   (new: created)")
		case kube.DiffUnchanged:
			out = append(out, "   (unchanged)")
		default:
			out = append(out, sanitizedLines(d)...)
		}
	}
	if len(out) == 0 {
		out = append(out, "(no differences: what is deployed is what the form describes)")
	}
	return out
}

// sanitizedLines splits text into lines, each sanitised (views.Sanitize
// would mark the line breaks themselves).
func sanitizedLines(text string) []string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = views.Sanitize(l)
	}
	return lines
}
