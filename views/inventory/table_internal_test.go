package inventory

import (
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// FuzzLineKeepsColumnsAligned: whatever names a cluster holds (wide
// characters, combining marks, control characters, very long text), a
// drawn line is exactly the screen's width, so columns stay aligned.
func FuzzLineKeepsColumnsAligned(f *testing.F) {
	f.Add("web-1", "Running", 80)
	f.Add("数据库-primary-数据库-primary", "CrashLoopBackOff", 30)
	f.Add("e\u0301\u0301\u0301", "\x1b[2J", 12)
	f.Add("a-very-long-pod-name-a-very-long-pod-name-a-very-long-pod-name", "Init:CrashLoopBackOff", 200)
	f.Fuzz(func(t *testing.T, name, status string, width int) {
		if width < 24 || width > 400 {
			return
		}
		table := kube.Table{Kind: "pods", Columns: []kube.Column{{Name: "NAME"}, {Name: "STATUS"}}, Rows: []kube.Row{
			{Name: name, Cells: []kube.Cell{kube.Text(name), kube.Text(status)}},
			{Name: "x", Cells: []kube.Cell{kube.Text("x"), kube.Text("ok")}},
		}}
		ix := newIndex(table)
		l := newLayout(columns{cols: table.Columns, sortSlot: -1}, ix, []int32{0, 1}, 0)
		var visible [][]string
		for i := range table.Rows {
			visible = append(visible, l.cells(ix, int32(i), "  ", fuzzNow))
		}
		widths, shown := l.widths(visible, width)
		if shown < 2 || len(widths) != shown {
			t.Fatalf("%d columns drawn (%d widths): the marker and NAME are never cut off", shown, len(widths))
		}
		for _, cells := range append(visible, l.headers) {
			got := line(cells[:shown], widths, width)
			if w := ansi.StringWidth(got); w != width {
				t.Fatalf("line %q is %d cells wide, want %d", got, w, width)
			}
			if got != views.Sanitize(got) {
				t.Fatalf("control characters in %q", got)
			}
		}
	})
}

var fuzzNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// FuzzTextWidth: the fast paths of textWidth measure what ansi.StringWidth
// measures, for sanitized cells (no control characters) of any text.
func FuzzTextWidth(f *testing.F) {
	for _, s := range []string{"", "web-1", "▁▂▃▄▅▆▇█", "  █▄", "数据库", "n/a", "45%*", "é", "\u2580\u2589", "ab\u0301c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = views.Sanitize(s)
		if got, want := textWidth(s), ansi.StringWidth(s); got != want {
			t.Fatalf("textWidth(%q) = %d, ansi.StringWidth %d", s, got, want)
		}
	})
}
