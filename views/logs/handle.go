package logs

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/pickers"
)

// handleKey runs a key of the viewer.
func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Back):
		if m.ix != nil || m.problem != "" {
			m.endSearch()
			return nil
		}
		m.Close()
		return func() tea.Msg { return views.BackMsg{} }
	case key.Matches(msg, k.Up):
		m.scroll(-1)
	case key.Matches(msg, k.Down):
		if !m.follow {
			m.scroll(1)
		}
	case key.Matches(msg, k.PageUp):
		m.scroll(-max(m.height()-1, 1))
	case key.Matches(msg, k.PageDown):
		if !m.follow {
			m.scroll(max(m.height()-1, 1))
		}
	case key.Matches(msg, k.Top):
		m.home()
	case key.Matches(msg, k.Bottom):
		m.follow = true
	case key.Matches(msg, k.Follow):
		if m.follow {
			p, _ := m.topPos()
			m.follow, m.top, m.sub = false, p.seq, p.sub
		} else {
			m.follow = true
		}
	case key.Matches(msg, k.Wrap):
		p, _ := m.topPos()
		m.wrap = !m.wrap
		m.top, m.sub = p.seq, 0
	case key.Matches(msg, k.Time):
		m.times = (m.times + 1) % 3
	case key.Matches(msg, k.Colour):
		m.strip = !m.strip
	case key.Matches(msg, k.JSON):
		m.json = !m.json
	case key.Matches(msg, k.Previous):
		o := &m.req.Options
		o.Previous = !o.Previous
		o.Follow = !o.Previous
		return m.start()
	case key.Matches(msg, k.Tail):
		o := &m.req.Options
		o.Since, o.TailLines = 0, DefaultTail
		return m.start()
	case key.Matches(msg, k.Since):
		i := slices.Index(k.Since.Keys(), msg.String())
		if i < 0 || i >= len(sinceDurations) {
			return nil
		}
		o := &m.req.Options
		o.Since, o.TailLines = sinceDurations[i], -1
		return m.start()
	case key.Matches(msg, k.Container):
		if len(m.containers) == 0 {
			m.note = "no container list yet: it comes with the stream"
			return nil
		}
		m.openPicker()
	case key.Matches(msg, k.Save):
		return m.save()
	case key.Matches(msg, k.Copy):
		return m.copyShown()
	case key.Matches(msg, k.Search):
		m.prompting = promptSearch
		m.prompt.Prompt = "/"
		m.prompt.SetValue("")
		return m.prompt.Focus()
	case key.Matches(msg, k.Next):
		m.move(1)
	case key.Matches(msg, k.PrevMatch):
		m.move(-1)
	case key.Matches(msg, k.Only):
		m.setFilter(showOnly)
	case key.Matches(msg, k.Hide):
		m.setFilter(showHidden)
	case key.Matches(msg, k.Fields):
		m.prompting = promptFields
		m.prompt.Prompt = "fields (comma-separated, empty for none): "
		m.prompt.SetValue(strings.Join(m.fields, ","))
		m.prompt.CursorEnd()
		m.note = ""
		if seen := m.seenFields(); len(seen) > 0 {
			m.prompt.Placeholder = strings.Join(seen, ",")
		}
		return m.prompt.Focus()
	}
	return nil
}

// promptKey types into the search or fields prompt; enter applies it,
// esc closes it.
func (m *Model) promptKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.Type {
	case tea.KeyEsc:
		m.prompting = promptNone
		m.prompt.Blur()
		return nil
	case tea.KeyEnter:
		which := m.prompting
		m.prompting = promptNone
		m.prompt.Blur()
		if which == promptSearch {
			m.find(m.prompt.Value())
		} else {
			m.setFields(m.prompt.Value())
		}
		return nil
	}
	var cmd tea.Cmd
	m.prompt, cmd = m.prompt.Update(msg)
	return cmd
}

// find starts a search: every held line is indexed, and lines arriving
// later as they come. The first match at or below the screen's top is
// current (the last one while following). An empty query ends it.
func (m *Model) find(query string) {
	if query == "" {
		m.endSearch()
		return
	}
	ix, err := compile(query)
	if err != nil {
		m.problem = err.Error()
		return
	}
	m.problem = ""
	p, _ := m.topPos()
	wasFollowing := m.follow
	m.ix = ix
	m.buf.setSearch(ix)
	m.current = 0
	if len(ix.matches) == 0 {
		return
	}
	if wasFollowing {
		m.current = len(ix.matches) - 1
	} else {
		m.current = sort.Search(len(ix.matches), func(i int) bool { return ix.matches[i].seq >= p.seq })
		m.current = min(m.current, len(ix.matches)-1)
	}
	m.reveal(ix.matches[m.current].seq)
}

// endSearch forgets the search and its filter.
func (m *Model) endSearch() {
	if p, ok := m.topPos(); ok && !m.follow {
		m.top, m.sub = p.seq, 0
	}
	m.ix, m.problem, m.filter, m.current = nil, "", showAll, 0
	m.buf.setSearch(nil)
}

// move makes the next (d=1) or previous (d=-1) match current, around the
// ends, and shows its line with the lines around it.
func (m *Model) move(d int) {
	if m.ix == nil {
		m.note = "no search: / starts one"
		return
	}
	n := len(m.ix.matches)
	if n == 0 {
		return
	}
	if m.filter == showHidden {
		m.note = "matching lines are hidden: ! shows them"
		return
	}
	m.current = (m.current + d + n) % n
	m.reveal(m.ix.matches[m.current].seq)
}

// setFilter turns a filter mode on, or off when it is on.
func (m *Model) setFilter(mode int) {
	if m.ix == nil {
		m.note = "no search: / starts one"
		return
	}
	p, _ := m.topPos()
	if m.filter == mode {
		m.filter = showAll
	} else {
		m.filter = mode
	}
	m.top, m.sub = p.seq, 0
}

// setFields shows the comma-separated fields of JSON lines as columns,
// each as wide as its widest value among the last lines (at most 32
// cells).
func (m *Model) setFields(text string) {
	m.fields = nil
	for _, f := range strings.Split(text, ",") {
		if f = strings.TrimSpace(f); f != "" && !slices.Contains(m.fields, f) {
			m.fields = append(m.fields, f)
		}
	}
	m.widths = make([]int, len(m.fields))
	for i, f := range m.fields {
		m.widths[i] = min(ansi.StringWidth(views.Sanitize(f)), 32)
	}
	m.eachRecentJSON(func(obj map[string]json.RawMessage) {
		for i, f := range m.fields {
			m.widths[i] = min(max(m.widths[i], ansi.StringWidth(fieldValue(obj, f))), 32)
		}
	})
}

// seenFields lists the keys of the last JSON lines, sorted, for the
// fields prompt.
func (m *Model) seenFields() []string {
	seen := map[string]bool{}
	m.eachRecentJSON(func(obj map[string]json.RawMessage) {
		fieldPaths(obj, "", 0, func(p string) { seen[p] = true })
	})
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, views.Sanitize(k))
	}
	sort.Strings(out)
	return out
}

// eachRecentJSON calls f with each of the last 500 held lines that is a
// JSON object.
func (m *Model) eachRecentJSON(f func(map[string]json.RawMessage)) {
	b := m.buf
	for seq := b.end() - 1; seq >= b.first && seq >= b.end()-500; seq-- {
		e := b.at(seq)
		if e.kind != kindLine {
			continue
		}
		p := b.plainOf(e)
		if !isJSON(p) {
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(p, &obj) == nil {
			f(obj)
		}
	}
}

// allContainers is the picker's value for every container.
const allContainers = "\x00all"

// pickedMsg carries the container picked.
type pickedMsg struct {
	owner *Model
	value string
}

// openPicker shows the container picker: the pod's containers, the
// default one (or the one streamed) under the cursor, and "all
// containers".
func (m *Model) openPicker() {
	choices := make([]pickers.Choice, 0, len(m.containers)+1)
	for _, c := range m.containers {
		choices = append(choices, pickers.Choice{Label: c, Value: c})
	}
	choices = append(choices, pickers.Choice{Label: "all containers", Value: allContainers})
	pre, mark := m.defaultContainer, "(default)"
	switch {
	case m.req.AllContainers:
		pre, mark = allContainers, "(shown)"
	case m.req.Container != "":
		pre, mark = m.req.Container, "(shown)"
	}
	owner := m
	pvc := *m.vc
	pvc.Height = max(pvc.Height-1, 1)
	m.pvc = &pvc
	m.picker = pickers.NewChoice(m.pvc, "container", choices, pre, mark, func(v string) tea.Cmd {
		return func() tea.Msg { return pickedMsg{owner: owner, value: v} }
	})
}

// picked restarts the stream with the container chosen.
func (m *Model) picked(value string) tea.Cmd {
	m.picker = nil
	if value == allContainers {
		m.req.Container, m.req.AllContainers = "", true
	} else {
		m.req.Container, m.req.AllContainers = value, false
	}
	if m.req.Kind == kube.KindContainers {
		m.req.Kind = kube.KindPods
	}
	return m.start()
}
