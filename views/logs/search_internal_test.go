package logs

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
)

// refMatches is the reference every search path must agree with: each
// line alone, by the query's expression (with (?i) unless it has an
// upper-case letter), its non-empty matches.
func refMatches(t testing.TB, query string, lines []string) []match {
	t.Helper()
	pattern := query
	if !strings.ContainsFunc(query, unicode.IsUpper) {
		pattern = "(?i)" + query
	}
	re := regexp.MustCompile(pattern)
	var out []match
	for i, l := range lines {
		for _, loc := range re.FindAllIndex([]byte(l), -1) {
			if loc[1] > loc[0] {
				out = append(out, match{seq: int64(i), start: int32(loc[0]), end: int32(loc[1])})
			}
		}
	}
	return out
}

// batchMatches searches lines with a batcher whose joined text holds at
// most limit bytes (0: the index's own).
func batchMatches(ix *index, lines []string, limit int) []match {
	own := *ix
	if limit > 0 {
		own.limit = limit
	}
	bt := newBatcher(&own, nil)
	for i, l := range lines {
		bt.add(int64(i), []byte(l))
	}
	bt.flush()
	return bt.out
}

// checkEquivalent checks the per-line path (scan) and the batched path at
// several text sizes against the reference.
func checkEquivalent(t *testing.T, query string, lines []string) {
	t.Helper()
	ix, err := compile(query)
	if err != nil {
		return // not a regular expression: nothing to compare
	}
	want := refMatches(t, query, lines)
	var scanned []match
	for i, l := range lines {
		scanned = ix.find(scanned, int64(i), []byte(l))
	}
	if !slices.Equal(scanned, want) {
		t.Fatalf("query %q lines %q: find gives %v, want %v", query, lines, scanned, want)
	}
	for _, limit := range []int{0, 7, 64, 300} {
		if got := batchMatches(ix, lines, limit); !slices.Equal(got, want) {
			t.Fatalf("query %q lines %q (limit %d, chunk %v): batch gives %v, want %v", query, lines, limit, ix.chunk, got, want)
		}
	}
}

// TestSearchEdgeCases: anchors, classes that match '\n', a hit that would
// span two lines, empty matches, smart case, escapes naming upper-case
// letters and non-ASCII text, each against the per-line reference and
// with the hits it must find.
func TestSearchEdgeCases(t *testing.T) {
	cases := []struct {
		query string
		lines []string
		hits  int
	}{
		{"^a", []string{"ab", "ba", "a"}, 2},
		{"a$", []string{"ba", "ab", "a"}, 2},
		{"(?m)^a", []string{"ab", "ba", "a"}, 2},
		{`\Aa|b\z`, []string{"ab", "ba", "b"}, 3},
		{`a\sb`, []string{"xa", "by", "a b"}, 1},      // \s would match the '\n' between lines
		{`[^x]+`, []string{"ab", "cd", "xx", "e"}, 3}, // [^x] would run on across lines
		{`a[^q]*`, []string{"a1", "b2", "a3"}, 2},     // so would this, from a line's end
		{`(?s)b.c`, []string{"ab", "cd", "bxc"}, 1},   // (?s). matches '\n'
		{`a\nb`, []string{"a", "b", "ab"}, 0},         // a literal '\n' never matches within a line
		{`\bfoo\b`, []string{"foo", "xfoo", "foo.bar", "afoo"}, 2},
		{`\Bfoo`, []string{"foo", "xfoo"}, 1},
		{`x*`, []string{"axxb", "", "x"}, 2}, // empty matches mark nothing
		{`x*?`, []string{"xx"}, 0},
		{"alice", []string{"ALICE", "Alice", "alice", "bob"}, 3},
		{"Alice", []string{"ALICE", "Alice", "alice"}, 1}, // an upper-case letter: exact
		{`\x41`, []string{"A", "a", "b"}, 2},              // names 'A', folded
		{`a\.b`, []string{"a.b", "axb", "A.B"}, 2},
		{`[[:upper:]]x`, []string{"Ax", "ax", "1x"}, 2},
		{`[^a]b`, []string{"Ab", "ab", "cb"}, 1},
		{"ſ", []string{"s", "S", "ſ", "x"}, 3}, // folds to s
		{"héllo", []string{"HÉLLO", "héllo", "hello"}, 2},
		{"HÉLLO", []string{"HÉLLO", "héllo"}, 1},
		{`status=2\d\d duration`, []string{"status=200 duration=1", "STATUS=201 DURATION", "status=500 duration"}, 2},
		{"foo|bar", []string{"\x00foo\xffbar", "FOO", "baz"}, 3},
		{`\d+ms`, []string{"12ms 7ms", "ms", "3MS"}, 3},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			checkEquivalent(t, c.query, c.lines)
			if got := len(refMatches(t, c.query, c.lines)); got != c.hits {
				t.Errorf("%d hits, want %d", got, c.hits)
			}
		})
	}
}

// TestSearchPlan: what compile learns from a query decides the path.
func TestSearchPlan(t *testing.T) {
	for _, c := range []struct {
		query       string
		lit, need   string
		low, chunk  bool
		lowerExists bool
	}{
		{query: "alice", lit: "alice", low: true, chunk: true, lowerExists: true},
		{query: "ALICE", lit: "ALICE", chunk: true},
		{query: `a\.b`, lit: "a.b", low: true, chunk: true, lowerExists: true},
		{query: `\x41`, lit: "a", low: true, chunk: true},
		{query: `status=2\d\d duration`, need: " duration", low: true, chunk: true, lowerExists: true},
		{query: `[[:upper:]]x`, chunk: true},
		{query: `^foo`, need: "foo", low: true, lowerExists: true},
		{query: `Foo\d+bar`, need: "Foo", chunk: true},
	} {
		ix, err := compile(c.query)
		if err != nil {
			t.Fatal(err)
		}
		if string(ix.lit) != c.lit || string(ix.need) != c.need || ix.low != c.low || ix.chunk != c.chunk || (ix.lower != nil) != c.lowerExists {
			t.Errorf("%q: lit %q need %q low %v chunk %v lower %v, want %+v", c.query, ix.lit, ix.need, ix.low, ix.chunk, ix.lower != nil, c)
		}
	}
}

// genPattern builds a random query from a small grammar: literals (either
// case, punctuation, UTF-8), classes, \d, \s, \b, ., .*, alternation,
// repetition, anchors and (?i).
func genPattern(r *rand.Rand, depth int) string {
	atoms := []string{"a", "b", "A", "x", "é", "É", "=", " ", `\.`, `\d`, `\s`, `\w`, `\W`, "[a-c]", "[^a]", "[A-Z]",
		"[[:upper:]]", `\x41`, ".", "ſ", "K"}
	var sb strings.Builder
	n := 1 + r.IntN(4)
	for range n {
		switch k := r.IntN(14); {
		case k < 7:
			sb.WriteString(atoms[r.IntN(len(atoms))])
		case k == 7 && depth < 2:
			sb.WriteString("(" + genPattern(r, depth+1) + "|" + genPattern(r, depth+1) + ")")
		case k == 8:
			sb.WriteString(".*")
		case k == 9:
			sb.WriteString([]string{"^", "$", `\b`, `\B`, `(?m)^`, `\A`, `\z`}[r.IntN(7)])
		case k == 10 && depth < 2:
			sb.WriteString("(?i:" + genPattern(r, depth+1) + ")")
		case k == 11:
			sb.WriteString(atoms[r.IntN(len(atoms))] + []string{"*", "+", "?", "{2}", "*?"}[r.IntN(5)])
		default:
			sb.WriteString("ab")
		}
	}
	return sb.String()
}

// genLine builds a random line without '\n': letters of both cases,
// digits, spaces, punctuation, UTF-8 and ANSI colour (for the buffer).
func genLine(r *rand.Rand) string {
	parts := []string{"a", "b", "A", "B", "x", "X", "1", "2", " ", "=", ".", "é", "É", "ſ", "K", "ab", "AB", "\t",
		"\x1b[31m", "\x1b[0m", "status=200 duration", "\xff"}
	var sb strings.Builder
	for range r.IntN(12) {
		sb.WriteString(parts[r.IntN(len(parts))])
	}
	return sb.String()
}

// TestSearchEquivalenceRandom runs the fuzz check on a fixed sample of
// generated queries and lines, so that every go test run covers it.
func TestSearchEquivalenceRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		q := genPattern(r, 0)
		lines := make([]string, r.IntN(20))
		for i := range lines {
			lines[i] = genLine(r)
		}
		checkEquivalent(t, q, lines)
	}
}

// FuzzSearchEquivalence: the batched and per-line search paths find
// exactly the reference's hits, for a generated query and lines (seeded
// by the fuzzer) or the fuzzer's own query and text (split at '\n').
func FuzzSearchEquivalence(f *testing.F) {
	f.Add(uint64(1), "alice", "user=alice\nALICE\nAlice bob")
	f.Add(uint64(2), `status=2\d\d duration`, "status=200 duration\nstatus=500 duration")
	f.Add(uint64(3), `a\sb`, "xa\nby")
	f.Add(uint64(4), `[^x]+`, "ab\ncd\nxx")
	f.Add(uint64(5), `\bfoo`, "foo\nxfoo\n\x1b[31mfoo\x1b[0m")
	f.Fuzz(func(t *testing.T, seed uint64, query, text string) {
		checkEquivalent(t, query, strings.Split(text, "\n"))
		r := rand.New(rand.NewPCG(seed, 7))
		lines := make([]string, r.IntN(30))
		for i := range lines {
			lines[i] = genLine(r)
		}
		checkEquivalent(t, genPattern(r, 0), lines)
	})
}

// TestSetSearchMatchesScan: the first full search of a buffer (split across
// cores, batched, colour sequences stripped) finds what scanning each
// entry as it arrives finds, with markers between lines.
func TestSetSearchMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	raws := make([]string, 40_000)
	for i := range raws {
		raws[i] = genLine(r)
	}
	for _, q := range []string{"a", "ab", "AB", `\d`, `[^a]b`, `x.*X`, "^a", `\bx`, "é", "status=2", `a\sb`} {
		t.Run(q, func(t *testing.T) {
			ix, err := compile(q)
			if err != nil {
				t.Fatal(err)
			}
			scanned, _ := compile(q)
			b := newBuffer(len(raws) + 100)
			b.setSearch(scanned)
			for i, raw := range raws {
				if i%1000 == 0 {
					b.addNote(fmt.Sprintf("marker %d", i), time.Time{}, -1, false)
				}
				e := entry{raw: []byte(raw), src: -1, kind: kindLine}
				b.fill(&e, false)
				b.push(e)
			}
			b.setSearch(ix)
			if !slices.Equal(ix.matches, scanned.matches) || !slices.Equal(ix.lines, scanned.lines) {
				t.Fatalf("setSearch: %d hits on %d lines; scan: %d hits on %d lines", len(ix.matches), len(ix.lines), len(scanned.matches), len(scanned.lines))
			}
		})
	}
}
