package logs

import (
	"bytes"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// reset ends every drawn line that carries the log's own colours, so a
// line that never resets colours nothing after it (casebook C02).
const reset = "\x1b[0m"

// cutMark ends a line cut at the screen's edge (wrap off).
const cutMark = "…"

// maxLabel bounds the stream label column, in cells; maxAcrossLabel
// when each label starts with its context (Across).
const (
	maxLabel       = 32
	maxAcrossLabel = 56
)

// cacheKey is what drawn rows depend on besides the entry: when it
// changes, the rows are drawn again.
type cacheKey struct {
	width, label               int
	wrap, strip, json, columns bool
	times                      int
	ix                         *index
	current                    int
	fields                     string
}

func (m *Model) key() cacheKey {
	return cacheKey{width: m.vc.Width, label: m.labelWidth(), wrap: m.wrap, strip: m.strip, json: m.json,
		columns: len(m.fields) > 0, times: m.times, ix: m.ix, current: m.current, fields: strings.Join(m.fields, ",")}
}

// rows returns entry seq drawn as screen rows (one, or more when wrapped
// or pretty-printed), cached until the settings change.
func (m *Model) rows(seq int64) []string {
	k := m.key()
	if m.cache == nil || k != m.cacheKey {
		m.cache, m.cacheKey = map[int64][]string{}, k
	}
	if r, ok := m.cache[seq]; ok {
		return r
	}
	r := m.draw(seq)
	m.cache[seq] = r
	return r
}

// multi reports whether lines carry their stream's label: a workload's
// pods, or every container of a pod.
func (m *Model) multi() bool {
	return m.req.Kind != kube.KindPods && m.req.Kind != kube.KindContainers || m.req.AllContainers || m.across != ""
}

// label is the text that names a stream: the pod, with the container
// when every container is shown ("web-x2k/app"), the container alone for
// every container of one pod.
func (m *Model) label(src int32) string {
	if src < 0 || int(src) >= len(m.buf.streams) {
		return ""
	}
	st := m.buf.streams[src]
	var l string
	switch {
	case m.req.AllContainers && m.across != "":
		l = st.pod + "/" + st.container
	case m.across != "":
		l = st.pod
	case m.req.Kind == kube.KindPods || m.req.Kind == kube.KindContainers:
		return st.container
	case m.req.AllContainers:
		return st.pod + "/" + st.container
	default:
		return st.pod
	}
	if st.context != "" {
		l = st.context + ":" + l
	}
	return l
}

// labelWidth is the label column's width: the widest label, at most
// maxLabel cells; 0 when lines carry none.
func (m *Model) labelWidth() int {
	if !m.multi() {
		return 0
	}
	w := 0
	for i := range m.buf.streams {
		w = max(w, ansi.StringWidth(m.label(int32(i))))
	}
	if m.across != "" {
		return min(w, maxAcrossLabel)
	}
	return min(w, maxLabel)
}

// prefix draws the timestamp and the stream label of a line, and returns
// its width in cells.
func (m *Model) prefix(e *entry) (string, int) {
	st := m.vc.Styles
	var b strings.Builder
	w := 0
	if m.times != timeOff {
		ts := strings.Repeat(" ", m.stampWidth())
		if e.nanos != 0 {
			ts = m.stamp(time.Unix(0, e.nanos))
		}
		b.WriteString(st.Muted.Render(ts))
		b.WriteByte(' ')
		w += ansi.StringWidth(ts) + 1
	}
	if lw := m.labelWidth(); lw > 0 {
		l := views.Sanitize(m.label(e.src))
		if ansi.StringWidth(l) > lw {
			l = ansi.TruncateLeft(l, ansi.StringWidth(l)-lw+1, "…")
		}
		pad := strings.Repeat(" ", max(lw-ansi.StringWidth(l), 0))
		b.WriteString(st.Pick(m.label(e.src)).Render(l))
		b.WriteString(pad + " │ ")
		w += lw + 3
	}
	return b.String(), w
}

// stamp prints a timestamp in the chosen zone, to the millisecond.
func (m *Model) stamp(t time.Time) string {
	if m.times == timeLocal {
		return t.In(m.loc).Format("2006-01-02T15:04:05.000Z07:00")
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

func (m *Model) stampWidth() int {
	return len(m.stamp(time.Unix(0, 0)))
}

// draw draws entry seq: a marker line, or a log line's prefix and text
// (pretty JSON, JSON columns, or the text with its search matches), each
// piece wrapped or cut to the width.
func (m *Model) draw(seq int64) []string {
	st := m.vc.Styles
	w := max(m.vc.Width, 1)
	e := m.buf.at(seq)
	if e.kind == kindNote {
		style := st.Muted
		if e.flags&flagError != 0 {
			style = st.Error
		}
		text := "── " + string(e.text) + " ──"
		if m.wrap {
			var out []string
			for _, p := range strings.Split(ansi.Hardwrap(text, w, true), "\n") {
				out = append(out, style.Render(p))
			}
			return out
		}
		return []string{style.Render(ansi.Truncate(text, w, cutMark))}
	}
	pre, pw := m.prefix(e)
	bw := max(w-pw, 10)
	indent := strings.Repeat(" ", pw)
	var body []string
	plain := m.buf.plainOf(e)
	// found is the row of body where the current match starts (fit notes
	// it in currentRow, counted within each call).
	found := -1
	add := func(pieces []piece) {
		m.currentRow = -1
		rows := m.fit(m.cutAround(pieces, bw), bw)
		if m.currentRow >= 0 {
			found = len(body) + m.currentRow
		}
		body = append(body, rows...)
	}
	switch {
	case m.json && isJSON(plain):
		k := m.currentOrdinal(seq)
		for _, l := range strings.Split(pretty(plain), "\n") {
			var pieces []piece
			pieces, k = m.marked([]byte(l), k)
			add(pieces)
		}
	case len(m.fields) > 0 && isJSON(plain):
		pieces, _ := m.marked([]byte(m.columns(plain)), m.currentOrdinal(seq))
		add(pieces)
	default:
		add(m.textOf(seq, e, plain))
	}
	m.currentRow = found
	out := make([]string, len(body))
	for i, r := range body {
		if i == 0 {
			out[i] = pre + r
		} else {
			out[i] = indent + r
		}
	}
	return out
}

// piece is a run of text with its style; a run with raw set is the
// log's own text with its colour sequences.
type piece struct {
	text  []byte
	style *lipgloss.Style
	raw   bool
	// current marks the current match: fit notes its row (currentRow).
	current bool
}

// textOf is a log line's text as pieces: with its colours (kept unless
// stripped) when it has no match, else plain with the matches marked.
func (m *Model) textOf(seq int64, e *entry, plain []byte) []piece {
	st := m.vc.Styles
	var hits []match
	if m.ix != nil && m.filter != showHidden {
		hits = m.ix.hits(seq)
	}
	if len(hits) == 0 {
		if e.flags&flagSGR != 0 && !m.strip {
			return []piece{{text: e.text, raw: true}}
		}
		return []piece{{text: plain}}
	}
	var out []piece
	at := 0
	for _, h := range hits {
		s, t := int(h.start), int(h.end)
		if s < at || t > len(plain) {
			continue
		}
		style, current := &st.Match, m.current < len(m.ix.matches) && m.ix.matches[m.current] == h
		if current {
			style = &st.CurrentMatch
		}
		out = append(out, piece{text: plain[at:s]}, piece{text: plain[s:t], style: style, current: current})
		at = t
	}
	return append(out, piece{text: plain[at:]})
}

// cutAround brings the current match into a line cut at w cells (wrap
// off): when the match would end past the cut, the line's start is left
// out, marked with "…", so that the match begins a third of the way into
// the row (its end cut with "…" as any long line). Other lines, and a
// match already in sight, are left as they are.
func (m *Model) cutAround(pieces []piece, w int) []piece {
	if m.wrap {
		return pieces
	}
	before, cur := 0, -1
	for i, p := range pieces {
		if p.current {
			cur = i
			break
		}
		before += ansi.StringWidth(string(p.text))
	}
	if cur < 0 || before+ansi.StringWidth(string(pieces[cur].text)) <= w-1 {
		return pieces
	}
	skip := before - max(w/3-1, 0) // the cells left out; "…" takes one
	out := []piece{{text: []byte(cutMark), style: &m.vc.Styles.Muted}}
	for _, p := range pieces {
		if skip > 0 && !p.current {
			n, cells := span(p.text, skip, false)
			skip -= cells
			if p.text = p.text[n:]; len(p.text) == 0 {
				continue
			}
			skip = 0
		}
		out = append(out, p)
	}
	return out
}

// currentOrdinal is which of entry seq's matches is the current one (0
// for its first), -1 when the current match is not in it.
func (m *Model) currentOrdinal(seq int64) int {
	if m.ix == nil || m.current >= len(m.ix.matches) || m.ix.matches[m.current].seq != seq {
		return -1
	}
	for i, h := range m.ix.hits(seq) {
		if h == m.ix.matches[m.current] {
			return i
		}
	}
	return -1
}

// marked is a derived text (a pretty JSON row, columns) with the search's
// matches in it marked; the k-th of them (counted from 0 across the
// entry's rows: k is what is left to count, -1 for none) is the current
// one, as the k-th match of the line's text is. It returns the pieces and
// k less the matches it passed.
func (m *Model) marked(text []byte, k int) ([]piece, int) {
	if m.ix == nil || m.filter == showHidden {
		return []piece{{text: text}}, k
	}
	var out []piece
	at := 0
	for _, loc := range m.ix.re.FindAllIndex(text, -1) {
		if loc[1] > loc[0] {
			p := piece{text: text[loc[0]:loc[1]], style: &m.vc.Styles.Match}
			if k == 0 {
				p.style, p.current = &m.vc.Styles.CurrentMatch, true
			}
			if k >= 0 {
				k--
			}
			out = append(out, piece{text: text[at:loc[0]]}, p)
			at = loc[1]
		}
	}
	return append(out, piece{text: text[at:]}), k
}

// fit lays pieces out in rows of w cells: wrapped (every byte kept, rows
// cut at w cells) or one row cut at w cells with a visible "…" when the
// text is longer. A row with the log's own colours ends with a reset.
func (m *Model) fit(pieces []piece, w int) []string {
	var rows []string
	var cur strings.Builder
	col, colour := 0, false
	flush := func() {
		s := cur.String()
		if colour && !strings.HasSuffix(s, reset) {
			s += reset
		}
		rows = append(rows, s)
		cur.Reset()
		col, colour = 0, false
	}
	for _, p := range pieces {
		text := p.text
		if p.current {
			m.currentRow = len(rows)
		}
		for len(text) > 0 {
			n, cells := span(text, w-col, p.raw)
			if n == 0 && col == 0 { // one character wider than the row
				_, size := utf8.DecodeRune(text)
				n, cells = size, w
			}
			if n > 0 {
				chunk := text[:n]
				switch {
				case p.style != nil:
					cur.WriteString(p.style.Render(string(chunk)))
				default:
					cur.Write(chunk)
					colour = colour || p.raw && bytes.IndexByte(chunk, 0x1b) >= 0
				}
				col += cells
				text = text[n:]
			}
			if len(text) == 0 {
				break
			}
			if !m.wrap {
				// Cut: the last cell makes room for the marker.
				s := cur.String()
				if ansi.StringWidth(s) >= w {
					s = ansi.Truncate(s, w-1, "")
				}
				cur.Reset()
				cur.WriteString(s)
				if colour {
					cur.WriteString(reset)
					colour = false
				}
				cur.WriteString(m.vc.Styles.Muted.Render(cutMark))
				rows = append(rows, cur.String())
				return rows
			}
			flush()
		}
	}
	flush()
	return rows
}

// span returns how many bytes of text fit in room cells, and their
// width. Colour sequences (raw) take no cells.
func span(text []byte, room int, raw bool) (n, cells int) {
	for n < len(text) {
		c := text[n]
		if c < utf8.RuneSelf {
			if raw && c == 0x1b {
				if k := sgrLen(text[n:]); k > 0 {
					n += k
					continue
				}
			}
			if cells+1 > room {
				return n, cells
			}
			n++
			cells++
			continue
		}
		r, size := utf8.DecodeRune(text[n:])
		rw := ansi.StringWidth(string(r))
		if cells+rw > room {
			return n, cells
		}
		n += size
		cells += rw
	}
	return n, cells
}
