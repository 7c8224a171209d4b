package inventory

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sahilm/fuzzy"

	"github.com/kyyard/kyyard/kube"
)

// TestRegexPathsAgreeWithRowByRow: the one-scan and the prefiltered
// matching of an expression keep exactly the rows that matching each row
// on its own keeps, including expressions that could cross rows.
func TestRegexPathsAgreeWithRowByRow(t *testing.T) {
	cols := []kube.Column{{Name: "NAME"}, {Name: "STATUS"}}
	var rows []kube.Row
	for i, st := range []string{"Running", "CrashLoopBackOff", "", "Pending", "Completed", "数据库"} {
		for j := range 7 {
			name := fmt.Sprintf("Web-%d-%d", i, j*13)
			rows = append(rows, kube.Row{Namespace: "demo", Name: name, Cells: []kube.Cell{kube.Text(name), kube.Text(st)}})
		}
	}
	ix := newIndex(kube.Table{Columns: cols, Rows: rows})
	order := ix.sorted(-1, false)
	for _, pattern := range []string{`web-1.`, `^web-\d+-2`, `off$`, `g\s+demo`, `n\sw`, `(run|pend)ing`, `a*`, `^$`, `web-[0-5]-1.?3`, `库+`, `y$`, `y\n`, `(?:web){1,2}-3`, `\d\n\w`} {
		f := parseFilter(pattern)
		if f.mode != modeRegex {
			t.Fatalf("%q: mode %v", pattern, f.mode)
		}
		var want []int32
		for _, r := range order {
			if f.re.Match(ix.text(r)) {
				want = append(want, r)
			}
		}
		if got := f.apply(ix, order); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%q (literals %q): got %v, want %v", pattern, f.lits, got, want)
		}
		f.lits = nil // the one-scan path
		if got := f.apply(ix, order); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%q without literals: got %v, want %v", pattern, got, want)
		}
	}
}

func TestParseFilter(t *testing.T) {
	for _, c := range []struct {
		in     string
		mode   filterMode
		invert bool
		labels string
	}{
		{"", modeNone, false, ""},
		{"  ", modeNone, false, ""},
		{"!", modeNone, false, ""},
		{"web", modeText, false, ""},
		{"web-1", modeText, false, ""},
		{"!web", modeText, true, ""},
		{"w.b", modeRegex, false, ""},
		{"!w.b", modeRegex, true, ""},
		{"w[", modeText, false, ""},
		{"-f web", modeFuzzy, false, ""},
		{"~web", modeFuzzy, false, ""},
		{"-f", modeNone, false, ""},
		{"-l app=web,tier!=db", modeLabels, false, "app=web,tier!=db"},
		{"-l ", modeNone, false, ""},
	} {
		f := parseFilter(c.in)
		if f.mode != c.mode || f.invert != c.invert || f.labels != c.labels {
			t.Errorf("parseFilter(%q) = mode %v invert %v labels %q", c.in, f.mode, f.invert, f.labels)
		}
	}
}

func TestSortKeysCompareByType(t *testing.T) {
	for _, c := range []struct{ less, more string }{
		{"500m", "1"},      // quantities, casebook C11
		{"129M", "1.5Gi"},  // 129000000 < 1610612736
		{"1e9", "999Mi"},   // 1e9 < 1047527424
		{"2", "10"},        // numbers, not text
		{"3", "12%"},       // percentages as numbers
		{"0/1", "1/2"},     // ready ratio
		{"1/2", "2/4"},     // same ratio: the total
		{"1/1", "Running"}, // numbers before text
		{"pod-2", "pod-10"},
		{"Running", "<none>"}, // missing last
	} {
		a, b := keyOf(kube.Text(c.less)), keyOf(kube.Text(c.more))
		ix := &index{rows: []kube.Row{{Cells: []kube.Cell{{Text: c.more}}}, {Cells: []kube.Cell{{Text: c.less}}}}, keys: map[int][]sortKey{}}
		if got := ix.sorted(nameSlot, false); got[0] != 1 {
			t.Errorf("%q must sort before %q (keys %+v %+v)", ix.rows[1].Cells[0].Text, ix.rows[0].Cells[0].Text, a, b)
		}
		if got := ix.sorted(nameSlot, true); (c.more != "<none>" && got[0] != 0) || (c.more == "<none>" && got[0] != 1) {
			t.Errorf("descending: %q, %q in order %v", c.less, c.more, got)
		}
	}
}

// TestFuzzyRankInChunksEqualsOneSearch: the chunked, parallel fuzzy search
// of a big table ranks exactly as one fuzzy.FindFrom over all rows.
func TestFuzzyRankInChunksEqualsOneSearch(t *testing.T) {
	rows := make([]kube.Row, 3*fuzzyChunk+7)
	for i := range rows {
		// Names that tie often and score differently: w-e-b, web, xwxexb...
		name := []string{"web", "w-e-b", "xwxexb", "a-web", "webapp", "bew", "we-b"}[i%7] + fmt.Sprint(i%13)
		rows[i] = kube.Row{Name: name, Cells: []kube.Cell{kube.Text(name)}}
	}
	ix := newIndex(kube.Table{Columns: []kube.Column{{Name: "NAME"}}, Rows: rows})
	order := ix.sorted(-1, false)
	slices.Reverse(order) // an order that is not the rows' own
	for _, pattern := range []string{"w", "web", "wb1", "zz"} {
		matches := fuzzy.FindFrom(pattern, names{ix, order})
		want := make([]int32, len(matches))
		for i, m := range matches {
			want[i] = order[m.Index]
		}
		if got := fuzzyRank(pattern, ix, order); !slices.Equal(got, want) {
			t.Errorf("%q: chunked ranking differs from one search (%d vs %d rows)", pattern, len(got), len(want))
		}
	}
}

func TestKeepArrowsCutsBeforeTheArrow(t *testing.T) {
	got := keepArrows([]string{"NAME", "NOMINATED NODE↑", "READINESS GATES↓", "AGE↑"}, []int{4, 8, 20, 4})
	want := []string{"NAME", "NOMINA…↑", "READINESS GATES↓", "AGE↑"}
	if !slices.Equal(got, want) {
		t.Fatalf("keepArrows = %q, want %q", got, want)
	}
}
