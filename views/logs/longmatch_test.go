package logs_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views/viewtest"
)

// longLines are a few short lines around one of 8,000 characters whose
// only match of "NEEDLE" starts at character 6,000.
func longLines() []kube.LogLine {
	long := strings.Repeat("x", 6000) + "NEEDLE" + strings.Repeat("y", 1994)
	var out []kube.LogLine
	for i := range 30 {
		text := fmt.Sprintf("short %d", i)
		if i == 15 {
			text = long
		}
		out = append(out, line("web-x2k", "web", i, text))
	}
	return out
}

// TestSearchMatchInALongLineIsInSight: a match 6,000 characters into an
// 8,000-character line is on screen after the search and after n: cut,
// the line is shown around the match (… before and after); wrapped, the
// row holding the match is shown, not the line's first row.
func TestSearchMatchInALongLineIsInSight(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		for _, wrap := range []bool{false, true} {
			name := fmt.Sprintf("longmatch-cut-%dx%d", size[0], size[1])
			if wrap {
				name = fmt.Sprintf("longmatch-wrap-%dx%d", size[0], size[1])
			}
			t.Run(name, func(t *testing.T) {
				h := open(t, &fake{batches: []kube.LogBatch{{Lines: longLines()}}}, podReq, size[0], size[1])
				if wrap {
					h.keys("w")
				}
				h.keys("/")
				h.typed("NEEDLE")
				h.keys("enter")
				h.has("1 of 1 match")
				body := func() string {
					v := h.view()
					return v[:strings.LastIndex(v, "\n")] // not the footer, which shows the query
				}
				if !strings.Contains(body(), "NEEDLE") {
					t.Fatalf("the match is not in sight:\n%s", h.view())
				}
				h.keys("n")
				if !strings.Contains(body(), "NEEDLE") {
					t.Fatalf("after n the match is not in sight:\n%s", h.view())
				}
				viewtest.Golden(t, name, h.view())
			})
		}
	}
}

// TestMergedSaveKeepsEachLinesSource: the saved file of a Deployment's
// merged logs gives each line its source, "<pod>/<container> " before the
// log's own bytes, and the footer says so; one container's save stays
// the log's own bytes.
func TestMergedSaveKeepsEachLinesSource(t *testing.T) {
	lines := []kube.LogLine{line("web-a", "web", 0, "from a"), line("web-b", "web", 1, "from b \x1b[31mred\x1b[0m"), line("web-a", "web", 2, "a again")}
	h := open(t, &fake{batches: []kube.LogBatch{{Lines: lines}}}, workReq, 120, 12)
	h.keys("ctrl+s")
	b, err := os.ReadFile(savedPath(t, h))
	if err != nil {
		t.Fatal(err)
	}
	if want := "web-a/web from a\nweb-b/web from b \x1b[31mred\x1b[0m\nweb-a/web a again\n"; string(b) != want {
		t.Fatalf("merged save %q, want %q", b, want)
	}
	h.has("saved 3 lines, each after its pod/container, to")
	h = open(t, &fake{batches: []kube.LogBatch{{Lines: lines[:1]}}}, podReq, 120, 12)
	h.keys("ctrl+s")
	if b, err := os.ReadFile(savedPath(t, h)); err != nil || string(b) != "from a\n" {
		t.Fatalf("one container's save %q %v", b, err)
	}
}

// TestSearchMatchInAPrettyJSONLineIsInSight: pretty-printed (J), a JSON
// line of 150 fields is 152 rows; its match in the 120th field is on
// screen after the search, not the line's first row.
func TestSearchMatchInAPrettyJSONLineIsInSight(t *testing.T) {
	var fields []string
	for i := range 150 {
		v := fmt.Sprintf("value-%d", i)
		if i == 120 {
			v = "NEEDLE"
		}
		fields = append(fields, fmt.Sprintf(`"k%03d":%q`, i, v))
	}
	lines := []kube.LogLine{line("web-x2k", "web", 0, "before"), line("web-x2k", "web", 1, "{"+strings.Join(fields, ",")+"}"),
		line("web-x2k", "web", 2, "after")}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		h := open(t, &fake{batches: []kube.LogBatch{{Lines: lines}}}, podReq, size[0], size[1])
		h.keys("J", "/")
		h.typed("NEEDLE")
		h.keys("enter")
		h.has("1 of 1 match")
		v := h.view()
		if !strings.Contains(v[:strings.LastIndex(v, "\n")], `"k120": "NEEDLE"`) {
			t.Fatalf("%dx%d: the match is not in sight:\n%s", size[0], size[1], v)
		}
		viewtest.Golden(t, fmt.Sprintf("longmatch-json-%dx%d", size[0], size[1]), v)
	}
}
