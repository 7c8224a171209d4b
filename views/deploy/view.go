package deploy

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/render"
	"github.com/kyyard/kyyard/views"
)

// areaLines is how many lines of a multi-line field are shown when it is
// not focused; areaMax when it is.
const (
	areaLines = 4
	areaMax   = 8
)

// View draws the page of the current mode in Context.Width x
// Context.Height cells.
func (m *Model) View() string {
	st, w, h := m.vc.Styles, m.vc.Width, m.vc.Height
	switch m.mode {
	case modeLoading:
		body := []string{st.Muted.Render(fmt.Sprintf("reading the record of %s in %s…", views.Sanitize(m.instance), views.Sanitize(m.namespace)))}
		if m.loadErr != nil {
			body = []string{st.Error.Render(fmt.Sprintf("✗ the record of %s in %s could not be read: %s", views.Sanitize(m.instance),
				views.Sanitize(m.namespace), views.ErrText(m.loadErr)))}
		}
		return views.Page(st, w, h, body, views.Hint("back", m.keys.Back), &m.offset)
	case modePreview:
		return m.previewView()
	case modeRun:
		return m.runView()
	}
	return m.formView()
}

// box draws an input in brackets.
func box(in *textinput.Model) string { return "[" + in.View() + "]" }

// formLines lays the form out: its lines, the line of each field, and the
// errors under the fields they belong to.
func (m *Model) formLines(w int) ([]string, int) {
	st, f := m.vc.Styles, m.f
	fields := f.fields()
	errs := map[int][]string{}
	var general []string
	for _, e := range m.errs {
		if i := owner(fields, e.Path); i >= 0 {
			errs[i] = append(errs[i], views.Sanitize(e.Reason))
		} else {
			general = append(general, views.Sanitize(e.Path+": "+e.Reason))
		}
	}
	index := map[any]int{}
	for i, fd := range fields {
		if fd.in != nil {
			index[fd.in] = i
		} else if fd.area != nil {
			index[fd.area] = i
		} else {
			index[fmt.Sprintf("%d.%s", fd.svc, fd.list)] = i
		}
	}
	var out []string
	focusLine := 0
	// line adds a line holding the fields of ids (the cursor's gets ▸),
	// then their errors.
	line := func(text string, ids ...any) {
		mark := " "
		var lineErrs []string
		for _, id := range ids {
			i, ok := index[id]
			if !ok {
				continue
			}
			if i == m.focus {
				mark, focusLine = "▸", len(out)
			}
			lineErrs = append(lineErrs, errs[i]...)
		}
		out = append(out, mark+text)
		for _, e := range lineErrs {
			out = append(out, "            "+st.Error.Render("✗ "+e))
		}
	}
	area := func(label string, a *textarea.Model) {
		i := index[a]
		if i == m.focus {
			a.SetWidth(max(w-16, 20))
			a.SetHeight(min(max(a.LineCount(), 1)+1, areaMax))
			line(fmt.Sprintf("%-10s %s", label, st.Muted.Render("(enter: a new line; ↑ on the first / ↓ on the last line leaves)")), a)
			for _, l := range strings.Split(a.View(), "\n") {
				out = append(out, "            "+l)
			}
			return
		}
		v := a.Value()
		if v == "" {
			line(fmt.Sprintf("%-10s %s", label, st.Muted.Render("│ "+a.Placeholder)), a)
			return
		}
		ls := strings.Split(v, "\n")
		line(fmt.Sprintf("%-10s │ %s", label, views.Sanitize(ls[0])), a)
		for j, l := range ls[1:] {
			if j+1 >= areaLines {
				out = append(out, "            "+st.Muted.Render("│ … "+kube.Plural(len(ls)-areaLines, "more line")))
				break
			}
			out = append(out, "            │ "+views.Sanitize(l))
		}
	}
	if f.fixed {
		line(fmt.Sprintf("instance  %s   namespace  %s   %s", views.Sanitize(f.instance.Value()), views.Sanitize(f.namespace.Value()),
			st.Muted.Render("(from its record)")))
	} else {
		line(fmt.Sprintf("instance  %s   namespace %s", box(f.instance), box(f.namespace)), f.instance, f.namespace)
	}
	for _, g := range general {
		out = append(out, "            "+st.Error.Render("✗ "+g))
	}
	for i, s := range f.svcs {
		title := fmt.Sprintf("── service %d of %d ", i+1, len(f.svcs))
		if n := s.name.Value(); n != "" {
			title = fmt.Sprintf("── service %s (%d of %d) ", views.Sanitize(n), i+1, len(f.svcs))
		}
		out = append(out, " "+title+strings.Repeat("─", max(w-2-ansi.StringWidth(title), 0)))
		line(fmt.Sprintf("name       %s", box(s.name)), s.name)
		line(fmt.Sprintf("image      %s", box(s.image)), s.image)
		out = append(out, "            "+st.Muted.Render(securityHint(w-13)))
		line(fmt.Sprintf("ports      %s  %s", box(s.ports), st.Muted.Render("8080, http:8080, 53/udp")), s.ports)
		line(fmt.Sprintf("replicas   %s", box(s.replicas)), s.replicas)
		line(fmt.Sprintf("cpu        request %s  limit %s  %s", box(s.cpuReq), box(s.cpuLim), st.Muted.Render("empty: the defaults shown")), s.cpuReq, s.cpuLim)
		line(fmt.Sprintf("memory     request %s  limit %s", box(s.memReq), box(s.memLim)), s.memReq, s.memLim)
		area("env", s.env)
		line(fmt.Sprintf("config     path %s  %s", box(s.cfgPath), st.Muted.Render("a file mounted from a ConfigMap")), s.cfgPath)
		area("", s.cfg)
		if len(s.secrets) == 0 {
			line("secrets    "+st.Muted.Render("none · ctrl+n here adds one (values are typed masked)"), fmt.Sprintf("%d.secrets", i))
		}
		for j, r := range s.secrets {
			label := "secrets   "
			if j > 0 {
				label = "          "
			}
			line(fmt.Sprintf("%s %s = %s", label, box(r.name), box(r.value)), r.name, r.value)
		}
		if len(s.volumes) == 0 {
			line("volumes    "+st.Muted.Render("none · ctrl+n here adds a claim"), fmt.Sprintf("%d.volumes", i))
		}
		for j, r := range s.volumes {
			label := "volumes   "
			if j > 0 {
				label = "          "
			}
			line(fmt.Sprintf("%s name %s mount %s size %s class %s", label, box(r.name), box(r.mount), box(r.size), box(r.class)),
				r.name, r.mount, r.size, r.class)
		}
	}
	return out, focusLine
}

// securityHint says under each image what render's restricted
// securityContext means for it, in w cells or the short form.
func securityHint(w int) string {
	long := fmt.Sprintf("runs as non-root user %d with no capabilities (Pod Security restricted): an image that needs root will not start", render.RunAsUser)
	if ansi.StringWidth(long) <= w {
		return long
	}
	return fmt.Sprintf("non-root uid %d, no capabilities: an image needing root fails", render.RunAsUser)
}

// formView draws the form scrolled to keep the cursor's line in sight,
// then the note and the help line.
func (m *Model) formView() string {
	st, w, h := m.vc.Styles, m.vc.Width, m.vc.Height
	lines, focusLine := m.formLines(w)
	rest := max(h-2, 1)
	if focusLine < m.offset {
		m.offset = focusLine
	}
	if focusLine >= m.offset+rest-1 {
		m.offset = focusLine - rest + 2
	}
	m.offset = max(min(m.offset, len(lines)-rest), 0)
	shown := lines[m.offset:min(m.offset+rest, len(lines))]
	out := make([]string, 0, h)
	for _, l := range shown {
		out = append(out, ansi.Truncate(l, w, "…"))
	}
	for len(out) < rest {
		out = append(out, "")
	}
	switch {
	case m.note != "" && m.noteErr:
		out = append(out, ansi.Truncate(" "+st.Error.Render(m.note), w, "…"))
	case m.note != "":
		out = append(out, ansi.Truncate(" "+m.note, w, "…"))
	case len(m.errs) > 0:
		out = append(out, ansi.Truncate(" "+st.Error.Render(fmt.Sprintf("✗ %s: %s", kube.Plural(len(m.errs), "field error"), m.firstError())), w, "…"))
	default:
		out = append(out, ansi.Truncate(" "+st.Muted.Render("✓ the form is valid"), w, "…"))
	}
	k := m.keys
	does := "preview"
	if len(m.errs) > 0 {
		does = fmt.Sprintf("preview (fix %s)", kube.Plural(len(m.errs), "field"))
	}
	help := views.Hints(views.Hint("move", k.Next), views.Hint("add", k.Add), views.Hint("remove", k.Delete), views.Hint(does, k.Preview), views.Hint("discard", k.Back))
	out = append(out, ansi.Truncate(" "+st.Muted.Render(help), w, "…"))
	return strings.Join(out[:min(len(out), h)], "\n")
}

// previewView draws the fixed lines, the body's title, the body scrolled
// (search matches highlighted) and the help line.
func (m *Model) previewView() string {
	st, w, h, p := m.vc.Styles, m.vc.Width, m.vc.Height, m.pv
	head := m.headRows()
	body := m.bodyLines()
	title := "── objects (YAML) · tab: diff "
	if p.body == bodyDiff {
		title = "── diff against what is deployed · tab: YAML "
	}
	if p.query != "" {
		title += fmt.Sprintf("· /%s ", views.Sanitize(p.query))
	}
	var out []string
	titleLine := " " + st.Muted.Render(title+strings.Repeat("─", max(w-2-ansi.StringWidth(title), 0)))
	if m.headScrolls() {
		// A small screen: the head is never cut; head, title and body
		// scroll together.
		all := make([]string, 0, len(head)+1+len(body))
		for _, l := range head {
			all = append(all, " "+l)
		}
		all = append(all, titleLine)
		for i, l := range body {
			all = append(all, " "+m.highlight(l, i == p.at))
		}
		room := max(h-1, 1)
		start := max(min(p.offset, len(all)-room), 0)
		p.offset = start
		out = append(out, all[start:min(start+room, len(all))]...)
	} else {
		for _, l := range head {
			out = append(out, " "+l)
		}
		out = append(out, titleLine)
		room := max(h-len(out)-1, 1)
		p.offset = max(min(p.offset, len(body)-room), 0)
		for i := p.offset; i < min(p.offset+room, len(body)); i++ {
			out = append(out, " "+m.highlight(body[i], i == p.at))
		}
	}
	for len(out) < h-1 {
		out = append(out, "")
	}
	k := m.keys
	scroll, toForm := views.Hint("scroll", k.Up, k.Down), views.Hint("back to the form", k.Back)
	var help string
	switch {
	case p.searching:
		help = p.search.View() + "  " + st.Muted.Render("enter search · esc cancel")
	case m.note != "":
		help = st.Error.Render(m.note)
	case p.blocked() != "" && !p.running:
		help = st.Muted.Render(views.Hints("cannot deploy: "+p.blocked(), toForm))
	case p.running:
		help = st.Muted.Render(views.Hints(toForm, views.Hint("YAML/diff", k.Tab), views.Hint("search", k.Search), scroll))
	case p.typing():
		what := kube.Plural(p.confirm.Unconfirmed(), "warning")
		if i := p.pruneInput(); i >= 0 && !p.confirm.Confirmed(i) {
			what = fmt.Sprintf("the deletion (type %q)", p.confirm.Ask(i).Want)
			if n := p.confirm.Unconfirmed() - 1; n > 0 {
				what += " and " + kube.Plural(n, "warning")
			}
		}
		help = st.Muted.Render(views.Hints("confirm "+what, scroll, toForm))
	default:
		help = st.Muted.Render(views.Hints(views.Hint("deploy", k.Deploy), toForm, views.Hint("YAML/diff", k.Tab), views.Hint("search", k.Search),
			views.Hint("next/previous match", k.NextMatch, k.PrevMatch), scroll))
	}
	out = append(out[:min(len(out), h-1)], " "+help)
	for i, l := range out {
		out[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(out, "\n")
}

// minBody is the fewest body lines the preview shows under its head;
// a head taller than that leaves scrolls with the body (headScrolls).
const minBody = 5

// headRows are the preview's head lines wrapped to the width.
func (m *Model) headRows() []string { return views.WrapLines(m.headLines(), m.vc.Width-1) }

// headScrolls reports whether the head is too tall to stay fixed above
// minBody lines of the body: the preview then scrolls as one page, its
// offset counting from the head's first line.
func (m *Model) headScrolls() bool { return len(m.headRows())+2+minBody > m.vc.Height }

// bodyStart is the offset of the body's first line in the scrolled
// lines (the head and the title when they scroll, else 0).
func (m *Model) bodyStart() int {
	if m.headScrolls() {
		return len(m.headRows()) + 1
	}
	return 0
}

// highlight marks the query's occurrences in a body line (the current
// match's line in the current-match style).
func (m *Model) highlight(l string, current bool) string {
	p, st := m.pv, m.vc.Styles
	if p.query == "" {
		return l
	}
	lower, q := strings.ToLower(l), strings.ToLower(p.query)
	if len(lower) != len(l) || !strings.Contains(lower, q) {
		return l
	}
	style := st.Match
	if current {
		style = st.CurrentMatch
	}
	var b strings.Builder
	for {
		i := strings.Index(lower, q)
		if i < 0 {
			b.WriteString(l)
			return b.String()
		}
		b.WriteString(l[:i])
		b.WriteString(style.Render(l[i : i+len(q)]))
		l, lower = l[i+len(q):], lower[i+len(q):]
	}
}

// runView draws the live step list.
func (m *Model) runView() string {
	st, r := m.vc.Styles, m.run
	done, failed, skipped := stepCounts(r.steps)
	head := fmt.Sprintf("deploying %s in %s: %d of %s done", m.name(), views.Sanitize(m.req.Namespace), done, kube.Plural(len(r.steps), "step"))
	k := m.keys
	help := "the deploy goes on; wait for its end"
	if back := views.HintKeys(k.Back); back != "" {
		help = back + ": " + help
	}
	switch {
	case r.done && r.failed():
		head = st.Error.Render(fmt.Sprintf("✗ the deploy of %s stopped: %d done, %d failed, %d skipped", m.name(), done, failed, skipped))
		help = views.Hints(views.Hint("back to the form (kept) to fix it", k.Edit, k.Back), views.Hint("scroll", k.Up, k.Down))
	case r.done:
		head = fmt.Sprintf("✓ deployed %s in %s: %s done", m.name(), views.Sanitize(m.req.Namespace), kube.Plural(done, "step"))
		help = views.Hints(views.Hint("edit again", k.Edit), views.Hint("back", k.Back), views.Hint("scroll", k.Up, k.Down))
	}
	body := []string{head}
	body = append(body, stepLines(st, r.steps, r.spin.View(), r.runningText)...)
	if r.done && r.err != nil {
		body = append(body, st.Error.Render("✗ "+views.ErrText(r.err)))
	} else if r.done && r.result.Reason != "" {
		body = append(body, st.Error.Render(fmt.Sprintf("✗ %s: %s", r.result.Reason, r.result.Reason.Sentence())))
	}
	if m.note != "" {
		body = append(body, st.Muted.Render(m.note))
	}
	return views.Page(st, m.vc.Width, m.vc.Height, body, help, &m.offset)
}
