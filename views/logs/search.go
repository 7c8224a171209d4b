package logs

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"unicode"
)

// match is one search hit: bytes [start, end) of the plain text (colour
// sequences stripped) of the entry numbered seq.
type match struct {
	seq        int64
	start, end int32
}

// index holds a search's matches over the buffer, kept up to date as
// lines arrive (scan), are extended (rescan) and evicted (evict).
type index struct {
	query string
	re    *regexp.Regexp
	// lower, for a query without upper-case letters, is the query matched
	// case-sensitively against ASCII text lower-cased: the same matches as
	// re, found faster (a literal prefix is searched for directly). It is
	// nil when that would not give re's matches (an escape or class that
	// names an upper-case letter, such as \x41 or [[:upper:]]).
	lower *regexp.Regexp
	// lit is the query as a literal (lower-cased when low), for the fast
	// path; nil when the query is a real regular expression.
	lit  []byte
	fold bool
	// low is true when ASCII lines are matched lower-cased (by lit or
	// lower); cre is the expression that matches a line's text then
	// (lower when low, else re), nil when lit does.
	low bool
	cre *regexp.Regexp
	// chunk is true when lines may be matched many at a time, joined by
	// '\n' (see batcher): the expression has no ^, $, \A or \z, whose
	// meaning depends on where the text ends. limit bounds such a text.
	chunk bool
	limit int
	// need is a literal that every match contains (in the text cre or lit
	// matches), nil when there is none: text without it has no hit.
	need []byte
	// matches are every hit, ordered by seq then start; lines are the
	// distinct seqs that have one, ascending.
	matches []match
	lines   []int64
	scratch []byte
}

// chunkBytes bounds the text of lines matched at once: small enough that
// the regexp package's backtracker (which clears a bit per instruction and
// byte of its input on every call) stays cheap, large enough to spread the
// cost of a call over several lines. litChunkBytes is the same for a
// literal, searched by bytes.Index alone.
const (
	chunkBytes    = 1024
	litChunkBytes = 8192
)

// maxBacktrackBits is the regexp package's bound on its backtracker's bit
// vector (regexp/backtrack.go, maxBacktrackVector): an input of at least
// maxBacktrackBits / len(prog.Inst) bytes is matched by the slower NFA.
const maxBacktrackBits = 256 * 1024

// compile builds an index for query: a regular expression (RE2 syntax),
// matched ignoring case unless it has an upper-case letter (less's and
// vim's smart case, as the describe view). Errors: the query is not a
// valid regular expression.
func compile(query string) (*index, error) {
	fold := !strings.ContainsFunc(query, unicode.IsUpper)
	pattern := query
	if fold {
		pattern = "(?i)" + query
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("not a regular expression: %w", err)
	}
	ix := &index{query: query, re: re, fold: fold, cre: re}
	exact, err := syntax.Parse(query, syntax.Perl)
	if err != nil { // not expected: pattern parsed
		return ix, nil
	}
	if fold {
		folded, err := syntax.Parse(pattern, syntax.Perl)
		if err == nil && sameOnLowered(folded, exact) {
			ix.lower, _ = regexp.Compile(query)
		}
	}
	if exact.Op == syntax.OpLiteral && exact.Flags&syntax.FoldCase == 0 && isASCII(string(exact.Rune)) {
		ix.lit = []byte(string(exact.Rune))
		if fold {
			ix.lit = bytes.ToLower(ix.lit)
		}
	}
	ix.low = fold && (ix.lit != nil || ix.lower != nil)
	tree := exact // the tree of what matches a line's text
	switch {
	case ix.lit != nil:
		ix.cre = nil
	case ix.low:
		ix.cre = ix.lower
	case fold:
		tree, _ = syntax.Parse(pattern, syntax.Perl)
	}
	if tree == nil {
		return ix, nil
	}
	ix.chunk = !hasTextAnchor(tree)
	ix.limit = litChunkBytes
	if ix.cre != nil {
		ix.need = requiredLiteral(tree)
		ix.limit = chunkBytes
		if prog, err := syntax.Compile(tree.Simplify()); err == nil && len(prog.Inst) > 0 {
			// The backtracker serves inputs shorter than this.
			ix.limit = min(ix.limit, maxBacktrackBits/len(prog.Inst)-1)
		}
	}
	if ix.limit < 256 { // too small a text to be worth joining lines
		ix.chunk = false
	}
	return ix, nil
}

// find appends the hits of plain (the entry seq's plain text) to out.
func (ix *index) find(out []match, seq int64, plain []byte) []match {
	if !ix.low {
		return ix.findIn(out, seq, plain)
	}
	var ok bool
	ix.scratch, ok = lowerASCII(ix.scratch, plain)
	if !ok {
		return findAll(out, ix.re, seq, plain)
	}
	return ix.findIn(out, seq, ix.scratch)
}

// findIn appends the hits of hay, a line's text as lit or cre match it
// (lower-cased when low), to out.
func (ix *index) findIn(out []match, seq int64, hay []byte) []match {
	if ix.lit == nil {
		return findAll(out, ix.cre, seq, hay)
	}
	for at := 0; at <= len(hay); {
		i := bytes.Index(hay[at:], ix.lit)
		if i < 0 {
			break
		}
		s := at + i
		out = append(out, match{seq: seq, start: int32(s), end: int32(s + len(ix.lit))})
		at = s + len(ix.lit)
	}
	return out
}

// findAll appends re's non-empty matches in plain to out: the reference
// every faster path must agree with.
func findAll(out []match, re *regexp.Regexp, seq int64, plain []byte) []match {
	for _, loc := range re.FindAllIndex(plain, -1) {
		if loc[1] > loc[0] { // an empty match marks nothing
			out = append(out, match{seq: seq, start: int32(loc[0]), end: int32(loc[1])})
		}
	}
	return out
}

// lowerASCII returns b lower-cased in dst's space; ok is false (and dst
// unusable) when b is not all ASCII. Eight bytes are done at a time.
func lowerASCII(dst, b []byte) (_ []byte, ok bool) {
	if cap(dst) < len(b) {
		dst = make([]byte, len(b), 2*len(b))
	}
	dst = dst[:len(b)]
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if w&highs != 0 {
			return dst, false
		}
		// 0x80 in each byte from 'A' up, less each byte past 'Z': no
		// byte carries into the next, since every byte is below 0x80.
		upper := ((w + (0x80-'A')*ones) &^ (w + (0x80-'Z'-1)*ones)) & highs
		binary.LittleEndian.PutUint64(dst[i:], w|upper>>2)
	}
	for ; i < len(b); i++ {
		c := b[i]
		if c >= 0x80 {
			return dst, false
		}
		dst[i] = lower[c]
	}
	return dst, true
}

// lower maps ASCII upper-case letters to lower case.
var lower = func() (t [128]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()

// scan indexes a new entry, newer than every entry indexed so far.
func (ix *index) scan(seq int64, plain []byte) {
	n := len(ix.matches)
	ix.matches = ix.find(ix.matches, seq, plain)
	if len(ix.matches) > n {
		ix.lines = append(ix.lines, seq)
	}
}

// rescan indexes entry seq again after its text changed (a partial line
// extended). It returns where its hits start in matches and how many
// more (or fewer, negative) there are now.
func (ix *index) rescan(seq int64, plain []byte) (at, delta int) {
	lo := sort.Search(len(ix.matches), func(i int) bool { return ix.matches[i].seq >= seq })
	hi := lo
	for hi < len(ix.matches) && ix.matches[hi].seq == seq {
		hi++
	}
	fresh := ix.find(nil, seq, plain)
	ix.matches = append(ix.matches[:lo], append(fresh, ix.matches[hi:]...)...)
	li := sort.Search(len(ix.lines), func(i int) bool { return ix.lines[i] >= seq })
	had := li < len(ix.lines) && ix.lines[li] == seq
	switch {
	case had && len(fresh) == 0:
		ix.lines = append(ix.lines[:li], ix.lines[li+1:]...)
	case !had && len(fresh) > 0:
		ix.lines = append(ix.lines[:li], append([]int64{seq}, ix.lines[li:]...)...)
	}
	return lo, len(fresh) - (hi - lo)
}

// evict forgets the hits of entries older than first and returns how
// many hits went.
func (ix *index) evict(first int64) int {
	k := sort.Search(len(ix.matches), func(i int) bool { return ix.matches[i].seq >= first })
	if k == 0 {
		return 0
	}
	ix.matches = ix.matches[k:]
	l := sort.Search(len(ix.lines), func(i int) bool { return ix.lines[i] >= first })
	ix.lines = ix.lines[l:]
	// Reclaim the evicted prefix now and then, not on every line.
	if cap(ix.matches) > 2*len(ix.matches)+1024 {
		ix.matches = append([]match(nil), ix.matches...)
	}
	if cap(ix.lines) > 2*len(ix.lines)+1024 {
		ix.lines = append([]int64(nil), ix.lines...)
	}
	return k
}

// hits returns the hits of entry seq.
func (ix *index) hits(seq int64) []match {
	lo := sort.Search(len(ix.matches), func(i int) bool { return ix.matches[i].seq >= seq })
	hi := lo
	for hi < len(ix.matches) && ix.matches[hi].seq == seq {
		hi++
	}
	return ix.matches[lo:hi]
}

// has reports whether entry seq has a hit.
func (ix *index) has(seq int64) bool {
	i := sort.Search(len(ix.lines), func(i int) bool { return ix.lines[i] >= seq })
	return i < len(ix.lines) && ix.lines[i] == seq
}

// linesBefore counts the entries older than seq with a hit.
func (ix *index) linesBefore(seq int64) int {
	return sort.Search(len(ix.lines), func(i int) bool { return ix.lines[i] >= seq })
}
