package inventory

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// filterMode is how a filter's text matches rows.
type filterMode int

const (
	modeNone   filterMode = iota
	modeText              // case-insensitive substring
	modeRegex             // case-insensitive regular expression, ^ and $ at each cell
	modeFuzzy             // subsequence of the name, ranked by score
	modeLabels            // a label selector the Source applies
)

// filter is what a person typed after `/`, parsed:
//
//	web            rows whose cells contain "web" (any case)
//	^web-\d+$      a regular expression (Go syntax, case-insensitive; ^ and $
//	               match at every cell's ends); text that is not a valid
//	               expression is matched as plain text, and note says so
//	!web           rows that do not match (text or expression)
//	-f wb / ~wb    fuzzy: names holding w then b, best matches first
//	-l app=web     a label selector, in the API server's syntax, read by
//	               the Source (server-side when listing, in memory when cached)
//
// Cells are every cell of the row, NAME first, the namespace and kubectl's
// -o wide columns included (so that /kwok-node-0 finds a node's pods even
// when NODE is hidden); ages are not matched, since they change by the clock.
type filter struct {
	raw    string
	mode   filterMode
	invert bool
	needle []byte // lower-cased text (modeText), or the fuzzy pattern
	re     *regexp.Regexp
	lits   [][]byte // lower-cased ASCII literals every match of re holds
	labels string
	note   string // why the filter is not what it looks like
}

// parseFilter reads a filter's text; empty text is no filter.
func parseFilter(raw string) filter {
	f := filter{raw: raw}
	s := strings.TrimSpace(raw)
	switch {
	case s == "":
		return f
	case strings.HasPrefix(s, "-l ") || s == "-l":
		f.labels = strings.TrimSpace(s[2:])
		if f.labels != "" {
			f.mode = modeLabels
		}
		return f
	case strings.HasPrefix(s, "-f ") || s == "-f":
		return f.fuzzy(strings.TrimSpace(s[2:]))
	case strings.HasPrefix(s, "~"):
		return f.fuzzy(strings.TrimSpace(s[1:]))
	case strings.HasPrefix(s, "!"):
		f.invert = true
		s = s[1:]
		if s == "" {
			f.invert = false
			return f
		}
	}
	f.mode = modeText
	f.needle = []byte(strings.ToLower(s))
	if regexp.QuoteMeta(s) == s {
		return f // plain text: a substring search is the same and faster
	}
	re, err := regexp.Compile("(?im)" + s)
	if err != nil {
		f.note = fmt.Sprintf("not a regular expression (%s); matching as text", regexError(err))
		return f
	}
	f.mode, f.re, f.lits = modeRegex, re, requiredLiterals("(?im)"+s)
	return f
}

func (f filter) fuzzy(pattern string) filter {
	if pattern != "" {
		f.mode, f.needle = modeFuzzy, []byte(pattern)
	}
	return f
}

// regexError shortens regexp's message: "missing closing ]" rather than
// "error parsing regexp: missing closing ]: `[`".
func regexError(err error) string {
	msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
	if i := strings.LastIndex(msg, ": `"); i > 0 {
		msg = msg[:i]
	}
	return msg
}

// narrows reports whether the filter hides rows in memory.
func (f filter) narrows() bool {
	return f.mode == modeText || f.mode == modeRegex || f.mode == modeFuzzy
}

// extends reports whether every row f keeps was kept by prev: typing one
// more letter of a substring, or of a fuzzy pattern (a name holding the
// letters of "wbs" in order holds those of "wb"), only narrows what is shown.
func (f filter) extends(prev filter) bool {
	return f.mode == prev.mode && (f.mode == modeText || f.mode == modeFuzzy) && !f.invert && !prev.invert &&
		bytes.HasPrefix(f.needle, prev.needle)
}

// apply returns the rows of order (in order) that f keeps; when f is fuzzy
// they are ranked by score, ties in order's order.
func (f filter) apply(ix *index, order []int32) []int32 {
	switch f.mode {
	case modeRegex:
		return f.applyRegex(ix, order)
	case modeText:
		out := make([]int32, 0, len(order)/4)
		for _, r := range order {
			text := ix.text(r)
			if bytes.Contains(text, f.needle) != f.invert {
				out = append(out, r)
			}
		}
		return out
	case modeFuzzy:
		return fuzzyRank(string(f.needle), ix, order)
	}
	return order
}

// applyRegex matches the expression once over every row's text (one scan
// costs far less than 100k calls) and maps the matches to rows. A match
// that runs from one row into the next (an expression like `a\sb` can
// cross the '\n' that ends a row) proves nothing: the rows it touches are
// matched one by one.
func (f filter) applyRegex(ix *index, order []int32) []int32 {
	if len(f.lits) > 0 {
		return f.applyPrefiltered(ix, order)
	}
	hit := make([]bool, len(ix.rows))
	r := int32(0)
	for _, loc := range f.re.FindAllIndex(ix.hay, -1) {
		for r < int32(len(ix.rows)) && int(ix.hayEnd[r]) <= loc[0] {
			r++
		}
		if r == int32(len(ix.rows)) {
			break
		}
		if loc[1] < int(ix.hayEnd[r]) { // not into the '\n' that ends the row
			hit[r] = true
			continue
		}
		for x := r; x < int32(len(ix.rows)); x++ {
			hit[x] = hit[x] || f.re.Match(ix.text(x))
			if int(ix.hayEnd[x]) >= loc[1] {
				break
			}
		}
	}
	return pick(order, hit, f.invert)
}

// applyPrefiltered runs the expression only on the rows that hold every
// literal it requires, found by a fast scan for the longest one.
func (f filter) applyPrefiltered(ix *index, order []int32) []int32 {
	hit := make([]bool, len(ix.rows))
	first := f.lits[0]
	r, at := int32(0), 0
	for {
		i := bytes.Index(ix.hay[at:], first)
		if i < 0 {
			break
		}
		at += i
		for int(ix.hayEnd[r]) <= at {
			r++
		}
		text := ix.text(r)
		ok := true
		for _, lit := range f.lits[1:] {
			ok = ok && bytes.Contains(text, lit)
		}
		hit[r] = ok && f.re.Match(text)
		at = int(ix.hayEnd[r]) // the next row
		if r++; int(r) >= len(ix.rows) {
			break
		}
	}
	return pick(order, hit, f.invert)
}

// requiredLiterals returns the ASCII literals, lower-cased and longest
// first, that every match of pattern contains: those of its top-level
// concatenation (and of parts that must occur at least once). Literals of
// alternatives and optional parts are left out; none means no prefilter.
func requiredLiterals(pattern string) [][]byte {
	t, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	var out [][]byte
	var walk func(n *syntax.Regexp)
	walk = func(n *syntax.Regexp) {
		switch n.Op {
		case syntax.OpLiteral:
			lit := strings.ToLower(string(n.Rune))
			ascii := true
			for i := 0; i < len(lit); i++ {
				ascii = ascii && lit[i] < utf8.RuneSelf && lit[i] != '\n'
			}
			if ascii && lit != "" {
				out = append(out, []byte(lit))
			}
		case syntax.OpConcat:
			for _, c := range n.Sub {
				walk(c)
			}
		case syntax.OpCapture, syntax.OpPlus:
			walk(n.Sub[0])
		case syntax.OpRepeat:
			if n.Min >= 1 {
				walk(n.Sub[0])
			}
		}
	}
	walk(t.Simplify())
	slices.SortStableFunc(out, func(a, b []byte) int { return len(b) - len(a) })
	return out
}

// fuzzyChunk is the fewest rows worth a goroutine of their own.
const fuzzyChunk = 16384

// fuzzyHit is a row that matched the fuzzy pattern: its position in the
// order searched, and its score.
type fuzzyHit struct {
	pos   int32
	score int32
}

// fuzzyRank returns the rows of order whose names match pattern, best
// score first, ties in order's order: exactly what one fuzzy.FindFrom over
// all of them returns (it sorts stably by score; fuzzyScore scores as it
// does, allocating nothing per row). Big tables are searched in chunks on
// every core; the hits, in order's order, are then sorted stably by score
// in one counting pass when the scores span a small range (they do: a few
// bonuses and penalties per letter), else by a stable sort.
func fuzzyRank(pattern string, ix *index, order []int32) []int32 {
	runes := []rune(pattern)
	if len(runes) == 0 {
		return nil
	}
	chunks := max(1, min(runtime.GOMAXPROCS(0), (len(order)+fuzzyChunk-1)/fuzzyChunk))
	parts := make([][]fuzzyHit, chunks)
	size := (len(order) + chunks - 1) / chunks
	search := func(c int) {
		lo, hi := c*size, min((c+1)*size, len(order))
		var hits []fuzzyHit
		for pos := lo; pos < hi; pos++ {
			if score, ok := fuzzyScore(runes, ix.rows[order[pos]].Name); ok {
				hits = append(hits, fuzzyHit{pos: int32(pos), score: int32(score)})
			}
		}
		parts[c] = hits
	}
	if chunks == 1 {
		search(0)
	} else {
		var wg sync.WaitGroup
		for c := range chunks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				search(c)
			}()
		}
		wg.Wait()
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	all := make([]fuzzyHit, 0, n)
	for _, p := range parts {
		all = append(all, p...)
	}
	out := make([]int32, len(all))
	for i, h := range sortHitsByScore(all) {
		out[i] = order[h.pos]
	}
	return out
}

// maxScoreSpan is the widest range of scores sortHitsByScore counts.
const maxScoreSpan = 1 << 16

// sortHitsByScore returns hits (in position order) sorted by score, best
// first, ties in position order: a counting sort when the scores span at
// most maxScoreSpan values, else a stable sort.
func sortHitsByScore(hits []fuzzyHit) []fuzzyHit {
	if len(hits) < 2 {
		return hits
	}
	lo, hi := hits[0].score, hits[0].score
	for _, h := range hits {
		lo, hi = min(lo, h.score), max(hi, h.score)
	}
	if int(hi)-int(lo) >= maxScoreSpan {
		slices.SortStableFunc(hits, func(a, b fuzzyHit) int { return int(b.score) - int(a.score) })
		return hits
	}
	// starts[k] is where score hi-k begins in the output.
	starts := make([]int, int(hi-lo)+2)
	for _, h := range hits {
		starts[hi-h.score+1]++
	}
	for k := 1; k < len(starts); k++ {
		starts[k] += starts[k-1]
	}
	out := make([]fuzzyHit, len(hits))
	for _, h := range hits {
		k := hi - h.score
		out[starts[k]] = h
		starts[k]++
	}
	return out
}

// pick returns the rows of order whose hit differs from invert, in order.
func pick(order []int32, hit []bool, invert bool) []int32 {
	out := make([]int32, 0, len(order)/4)
	for _, x := range order {
		if hit[x] != invert {
			out = append(out, x)
		}
	}
	return out
}

// refilter recomputes the shown rows and their layout, keeping the cursor
// on its object. prev, when given, is the filter just replaced: if the new
// one only narrows it, only the rows it showed are searched.
func (m *Model) refilter(prev *filter) {
	if m.ix == nil {
		return
	}
	keep := m.cursorKey()
	if m.following {
		keep, m.followKey, m.following = m.followKey, "", false
	}
	if prev == nil || len(m.memo) >= memoSize {
		m.memo = map[string][]int32{} // the rows or their order changed
	}
	base := m.order
	shown, seen := m.memo[m.filter.raw]
	if seen {
		// Typed back to a filter of this session (backspace): no search.
	} else if prev != nil && m.filter.extends(*prev) {
		base = m.shown
		if prev.mode == modeFuzzy {
			// Fuzzy rows are ranked by score; search them in the sort
			// order, so that ties rank exactly as a search of all rows would.
			base = inOrder(m.order, m.shown, len(m.ix.rows))
		}
	}
	if !seen {
		shown = m.filter.apply(m.ix, base)
		m.memo[m.filter.raw] = shown
	}
	if m.unhealthy {
		kept := make([]int32, 0, len(shown)/8)
		for _, r := range shown {
			if m.ix.rows[r].Health >= kube.HealthWarning {
				kept = append(kept, r)
			}
		}
		shown = kept
	}
	m.shown = shown
	m.countMarks()
	m.relayout()
	m.follow(keep)
}

// selectorProblem returns what is wrong with a malformed label selector,
// the parser's own words first ("found ..., expected: ... in label
// selector ..."). message is the Source's, which may repeat the
// selector (joined with a drill-down's) in prefixes of its own.
func selectorProblem(selector, message string) string {
	problem := message
	if i := strings.LastIndex(problem, `label selector "`); i >= 0 {
		// `label selector "<the request's whole selector>": <problem>`
		if _, rest, ok := strings.Cut(problem[i:], `": `); ok {
			problem = rest
		}
	}
	problem = strings.TrimPrefix(problem, "unable to parse requirement: ")
	return fmt.Sprintf("%s in label selector %q", problem, views.Echo(selector, 0))
}

// inOrder returns the rows of subset in the order they have in order (n is
// the number of rows indexed).
func inOrder(order, subset []int32, n int) []int32 {
	in := make([]bool, n)
	for _, r := range subset {
		in[r] = true
	}
	out := make([]int32, 0, len(subset))
	for _, r := range order {
		if in[r] {
			out = append(out, r)
		}
	}
	return out
}

// memoSize bounds the filter results a screen remembers while a filter is
// typed (each at most 4 bytes per row).
const memoSize = 32
