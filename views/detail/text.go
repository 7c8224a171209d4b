package detail

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/views"
)

// tabWidth is the distance between tab stops, the terminal's default.
const tabWidth = 8

// splitLines turns text from the cluster into lines safe to draw: line
// ends (\n, \r\n) split it, tabs become spaces up to the next tab stop, and
// every other control character or invalid byte becomes U+FFFD
// (views.Sanitize), so no escape sequence reaches the terminal. A final
// line end adds no empty line.
func splitLines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	raw := strings.Split(text, "\n")
	lines := make([]string, len(raw))
	for i, l := range raw {
		lines[i] = views.Sanitize(expandTabs(strings.TrimSuffix(l, "\r")))
	}
	return lines
}

// expandTabs replaces each tab by the spaces up to the next tab stop,
// counting cells as the terminal draws them.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for {
		i := strings.IndexByte(s, '\t')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		col += ansi.StringWidth(views.Sanitize(s[:i]))
		n := tabWidth - col%tabWidth
		b.WriteString(strings.Repeat(" ", n))
		col += n
		s = s[i+1:]
	}
}

// segment is one display line: bytes [start, end) of source line src.
type segment struct {
	src, start, end int
}

// layout turns source lines into display lines: one per source line, or,
// when wrapping, as many as it takes to fit width cells each.
func layout(lines []string, wrap bool, width int) (segs []segment, first []int) {
	segs = make([]segment, 0, len(lines))
	first = make([]int, len(lines))
	for i, l := range lines {
		first[i] = len(segs)
		if !wrap || width <= 0 || ansi.StringWidth(l) <= width {
			segs = append(segs, segment{src: i, start: 0, end: len(l)})
			continue
		}
		pieces := strings.Split(ansi.Hardwrap(l, width, true), "\n")
		if len(strings.Join(pieces, "")) != len(l) { // a piece lost or gained bytes: draw unwrapped
			segs = append(segs, segment{src: i, start: 0, end: len(l)})
			continue
		}
		at := 0
		for _, p := range pieces {
			segs = append(segs, segment{src: i, start: at, end: at + len(p)})
			at += len(p)
		}
	}
	return segs, first
}

// match is one search hit: bytes [start, end) of source line line.
type match struct {
	line, start, end int
}

// search finds every occurrence of query in lines, in order. The search
// ignores case unless query has an upper-case letter (less's and vim's
// smart case).
func search(lines []string, query string) []match {
	if query == "" {
		return nil
	}
	pattern := regexp.QuoteMeta(query)
	if !strings.ContainsFunc(query, unicode.IsUpper) {
		pattern = "(?i)" + pattern
	}
	re := regexp.MustCompile(pattern)
	var out []match
	for i, l := range lines {
		for _, loc := range re.FindAllStringIndex(l, -1) {
			out = append(out, match{line: i, start: loc[0], end: loc[1]})
		}
	}
	return out
}
