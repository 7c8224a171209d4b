package logs

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// View draws the header (what is streamed, its state, the counts), the
// rows of the entries on screen and the footer (the search, a prompt, or
// the keys), in exactly Context.Width x Context.Height cells. Only the
// rows on screen are drawn: the cost does not grow with the buffer.
func (m *Model) View() string {
	w, h := m.vc.Width, m.vc.Height
	if w <= 0 || h <= 0 {
		return ""
	}
	if m.picker != nil {
		return m.pickerView()
	}
	lines := make([]string, 0, h)
	lines = append(lines, m.header(w))
	if m.columnsShown() {
		lines = append(lines, m.columnHeader())
	}
	body := m.body()
	lines = append(lines, body...)
	if msg := m.emptyText(); msg != "" && len(body) == 0 {
		lines = append(lines, strings.Split(msg, "\n")...)
	}
	for len(lines) < h-1 {
		lines = append(lines, "")
	}
	lines = append(lines[:h-1], m.footer(w))
	return strings.Join(lines[:h], "\n")
}

// body draws the rows on screen.
func (m *Model) body() []string {
	h := m.height()
	p, ok := m.topPos()
	if !ok {
		return nil
	}
	out := make([]string, 0, h)
	seq := p.seq
	rows := m.rows(seq)[p.sub:]
	for {
		for _, r := range rows {
			if len(out) == h {
				return out
			}
			out = append(out, r)
		}
		next, ok := m.next(seq)
		if !ok {
			return out
		}
		seq, rows = next, m.rows(next)
	}
}

// emptyText says why no line is shown.
func (m *Model) emptyText() string {
	st := m.vc.Styles
	switch {
	case m.endErr != nil:
		return st.Error.Render(ansi.Truncate("! "+views.Sanitize(m.failure()), m.vc.Width, "…"))
	case m.buf.n > 0 && m.ix != nil && m.filter == showOnly:
		return st.Muted.Render("no line matches")
	case m.buf.n > 0:
		return ""
	case m.ended:
		return st.Muted.Render("no lines")
	case len(m.waiting) > 0:
		// Wrapped: the scheduler's and kubelet's reasons are long.
		var out []string
		for _, l := range strings.Split(ansi.Wrap(m.waitingText(), max(m.vc.Width, 1), " "), "\n") {
			out = append(out, st.Muted.Render(l))
		}
		return strings.Join(out, "\n")
	}
	return st.Muted.Render("waiting for lines…")
}

// waitingText says why the streams wait: "waiting: pod is Pending
// (Unschedulable: ...)" for one, how many for several.
func (m *Model) waitingText() string {
	if len(m.waiting) == 1 && !m.multi() {
		for _, why := range m.waiting {
			return "waiting: " + why
		}
	}
	return fmt.Sprintf("%d waiting (their markers say why)", len(m.waiting))
}

// failure says why the stream stopped: the reason's sentence and the
// error, or the error alone when it is kyyard's own sentence.
func (m *Model) failure() string {
	r := kube.ReasonOf(m.endErr)
	if r == "" || r == kube.ReasonError {
		return m.endErr.Error()
	}
	return r.Sentence() + " (" + m.endErr.Error() + ")"
}

// header is the first line: "logs deployments/web (demo) · 3 pods ·
// following · wrap · 12,408 lines · 0 dropped". What is streamed and its
// state come first, then the settings that are on, then the counts; when
// that is too wide the counts are abbreviated ("12k lines", no "0
// dropped"), then the name is cut, then the end.
func (m *Model) header(w int) string {
	st := m.vc.Styles
	fit := func(parts []string) (string, bool) {
		s := views.Sanitize(strings.Join(parts, " · "))
		return s, ansi.StringWidth(s) <= w
	}
	text, ok := fit(m.headerParts(false, false))
	if !ok {
		text, ok = fit(m.headerParts(true, false))
	}
	if !ok {
		parts := m.headerParts(true, true)
		if text, ok = fit(parts); !ok {
			rest := ansi.StringWidth(views.Sanitize(strings.Join(parts[1:], " · "))) + 3
			if room := w - rest; room >= 16 {
				parts[0] = ansi.Truncate(views.Sanitize(parts[0]), room, "…")
			} else {
				parts[0] = ansi.Truncate(views.Sanitize(parts[0]), 16, "…")
			}
			text, _ = fit(parts)
		}
	}
	return st.Title.Render(ansi.Truncate(text, w, "…"))
}

// headerParts are the header's parts in order; fewer abbreviates the
// counts, short the state and the settings.
func (m *Model) headerParts(fewer, short bool) []string {
	parts := []string{m.what()}
	if m.multi() && !(len(m.pods) == 0 && len(m.failed) == 0 && m.ended && m.endErr != nil) {
		pods := len(m.pods) + len(m.failed)
		one := m.req.Kind == kube.KindPods && m.across == "" // every container of one pod
		if one {
			pods = 1
		}
		s := plural(int64(pods), "pod")
		if n := len(m.failed); n > 0 && !one {
			s += fmt.Sprintf(" (%d failed)", n)
		}
		if m.leftOut > 0 {
			s += fmt.Sprintf(" +%d not streamed", m.leftOut)
		}
		parts = append(parts, s)
	}
	parts = append(parts, m.state(short))
	o := m.req.Options
	switch {
	case o.Since > 0:
		parts = append(parts, "since "+o.Since.String())
	case o.TailLines >= 0 && short:
		parts = append(parts, "tail "+abbrev(o.TailLines))
	case o.TailLines >= 0:
		parts = append(parts, fmt.Sprintf("tail %d", o.TailLines))
	}
	if m.wrap {
		parts = append(parts, "wrap")
	}
	switch {
	case m.times == timeUTC:
		parts = append(parts, "UTC")
	case m.times == timeLocal && short:
		parts = append(parts, "local")
	case m.times == timeLocal:
		parts = append(parts, "local time")
	}
	if m.strip {
		parts = append(parts, map[bool]string{false: "colours stripped", true: "no colours"}[short])
	}
	if m.json {
		parts = append(parts, "JSON")
	}
	if len(m.fields) > 0 {
		parts = append(parts, "fields "+strings.Join(m.fields, ","))
	}
	lines := int64(m.buf.lines)
	switch {
	case !fewer:
		parts = append(parts, plural(lines, "line"), count(m.dropped)+" dropped")
		if m.buf.evicted > 0 {
			parts = append(parts, count(m.buf.evicted)+" older evicted (buffer "+count(int64(m.buf.cap))+")")
		}
	default:
		if lines == 1 {
			parts = append(parts, "1 line")
		} else {
			parts = append(parts, abbrev(lines)+" lines")
		}
		if m.dropped > 0 {
			parts = append(parts, abbrev(m.dropped)+" dropped")
		}
		if m.buf.evicted > 0 {
			parts = append(parts, abbrev(m.buf.evicted)+" evicted")
		}
	}
	return parts
}

// what names the stream: "deployments/web (demo)", "pods/web-1 (demo)
// container app", "previous" when reading the previous instance.
func (m *Model) what() string {
	s := "logs " + string(m.req.Kind) + "/" + m.req.Name
	if m.req.Namespace != "" {
		s += " (" + m.req.Namespace + ")"
	}
	if m.across != "" {
		s = "logs " + m.across
	}
	switch {
	case m.req.AllContainers:
		s += " all containers"
	case m.req.Container != "":
		s += " container " + m.req.Container
	}
	if m.req.Options.Previous {
		s += " · previous instance"
	}
	return s
}

// state says whether the stream ended, waits or follows, and whether the
// screen follows or is paused where; short abbreviates it.
func (m *Model) state(short bool) string {
	end := ""
	switch {
	case m.ended && m.endErr != nil:
		end = "stopped"
	case m.ended:
		end = "ended"
	case len(m.waiting) > 0 && !m.multi():
		end = m.waitingText()
		if short {
			// "waiting: pod is Pending": the body says the rest.
			end, _, _ = strings.Cut(end, " (")
		}
	case len(m.waiting) > 0:
		end = fmt.Sprintf("following · %d waiting", len(m.waiting))
	}
	if m.follow {
		if end != "" {
			return end
		}
		return "following"
	}
	p, _ := m.topPos()
	rank, total := m.shown(p.seq)
	s := fmt.Sprintf("paused at %s of %s (G follows)", count(int64(rank)), count(int64(total)))
	if short {
		s = fmt.Sprintf("paused %s/%s", count(int64(rank)), count(int64(total)))
	}
	if end != "" {
		s = end + " · " + s
	}
	return s
}

// footer is the last line: the prompt while it is open, else the search's
// state and the main keys, or what the last action did.
func (m *Model) footer(w int) string {
	st := m.vc.Styles
	if m.prompting != promptNone {
		return ansi.Truncate(m.prompt.View(), w, "…")
	}
	var parts []string
	if m.problem != "" {
		return st.Error.Render(ansi.Truncate(views.Sanitize(m.problem), w, "…"))
	}
	if m.ix != nil {
		q := "/" + views.Echo(m.ix.query, w)
		switch n := len(m.ix.matches); {
		case n == 0:
			parts = append(parts, q+"  no match")
		default:
			noun := "matches"
			if n == 1 {
				noun = "match"
			}
			parts = append(parts, fmt.Sprintf("%s  %s of %s %s", q, count(int64(m.current+1)), count(int64(n)), noun))
		}
		switch m.filter {
		case showOnly:
			parts = append(parts, "only matching (&)")
		case showHidden:
			parts = append(parts, "matching hidden (!)")
		}
		parts = append(parts, views.Hint("next/prev", m.keys.Next, m.keys.PrevMatch))
	}
	if m.note != "" {
		parts = append(parts, m.note)
	} else {
		k := m.keys
		parts = append(parts, views.Hints(views.Hint("follow", k.Follow), views.Hint("wrap", k.Wrap), views.Hint("time", k.Time),
			views.Hint("JSON", k.JSON), views.Hint("search", k.Search), views.Hint("container", k.Container),
			views.Hint("save", k.Save), views.Hint("copy", k.Copy)))
	}
	return st.Muted.Render(ansi.Truncate(views.Hints(parts...), w, "…"))
}

// pickerView draws the container picker under a line that says why.
func (m *Model) pickerView() string {
	st := m.vc.Styles
	head := "choose a container of " + m.req.Name
	if m.endErr != nil {
		head = "the pod has several containers: choose one"
	}
	m.pvc.Width, m.pvc.Height = m.vc.Width, max(m.vc.Height-1, 1)
	return st.Title.Render(ansi.Truncate(views.Sanitize(head), m.vc.Width, "…")) + "\n" + m.picker.View()
}
