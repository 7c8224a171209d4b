package app

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views/viewtest"
)

// kubectlPrint prints table with kubectl's own terminal printer
// (k8s.io/cli-runtime/pkg/printers, through its tabwriter), as `kubectl get`
// does with the API server's Table answer.
func kubectlPrint(t *testing.T, table kube.Table, wide, withNS bool, now time.Time) string {
	t.Helper()
	mt := &metav1.Table{}
	for _, c := range table.Columns {
		p := int32(0)
		if c.Wide {
			p = 1
		}
		mt.ColumnDefinitions = append(mt.ColumnDefinitions, metav1.TableColumnDefinition{Name: c.Name, Type: "string", Priority: p})
	}
	for _, r := range table.Rows {
		row := metav1.TableRow{Object: runtimeObject(r.Namespace)}
		for _, c := range r.Cells {
			row.Cells = append(row.Cells, c.Render(now))
		}
		mt.Rows = append(mt.Rows, row)
	}
	var out bytes.Buffer
	w := printers.GetNewTabWriter(&out)
	p := printers.NewTablePrinter(printers.PrintOptions{Wide: wide, WithNamespace: withNS})
	if err := p.PrintObj(mt, w); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// runtimeObject is a row's object as the Table carries it, for the
// NAMESPACE column.
func runtimeObject(ns string) runtime.RawExtension {
	return runtime.RawExtension{Object: &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: ns}}}
}

// randomTable draws a table whose text kubectl's printer and writeTable
// must print alike: one-cell characters, line breaks and ESC (the escapes
// both apply), empty cells, wide columns, ages.
func randomTable(r *rand.Rand, now time.Time) kube.Table {
	alphabet := []string{"a", "b", "Z", "0", "-", ".", "/", " ", "(", "<none>", "\n", "\r", "\f", "\x1b", "~"}
	text := func() string {
		var b strings.Builder
		for range r.IntN(14) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	table := kube.Table{Kind: "widgets"}
	for i := range 1 + r.IntN(6) {
		name := strings.Repeat("COL", r.IntN(4)) + string(rune('A'+i))
		table.Columns = append(table.Columns, kube.Column{Name: name, Wide: i > 0 && r.IntN(3) == 0})
	}
	for range 1 + r.IntN(5) {
		row := kube.Row{Namespace: text()}
		for range table.Columns {
			if r.IntN(5) == 0 {
				row.Cells = append(row.Cells, kube.Age(now.Add(-time.Duration(r.IntN(1e6))*time.Second)))
			} else {
				row.Cells = append(row.Cells, kube.Text(text()))
			}
		}
		table.Rows = append(table.Rows, row)
	}
	return table
}

// TestWriteTableIsKubectlsOnOneCellText: on ASCII text (line breaks and ESC
// included), `kyyard get` prints byte for byte what kubectl's printer
// prints, in every layout. (Beyond ASCII kubectl pads by bytes, which kyyard
// does not copy on purpose.)
func TestWriteTableIsKubectlsOnOneCellText(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := rand.New(rand.NewPCG(13, 13))
	for i := range 3000 {
		table := randomTable(r, now)
		wide, withNS := r.IntN(2) == 0, r.IntN(2) == 0
		var got bytes.Buffer
		if err := writeTable(&got, table, wide, withNS, now); err != nil {
			t.Fatal(err)
		}
		if want := kubectlPrint(t, table, wide, withNS, now); got.String() != want {
			t.Fatalf("table %d (wide=%v, namespaces=%v) %+v:\n--- kyyard ---\n%q\n--- kubectl ---\n%q", i, wide, withNS, table, got.String(), want)
		}
	}
}

// TestTerminalCell: kubectl's rule for a cell on the terminal, and kyyard's
// sanitising of what kubectl would still pass through.
func TestTerminalCell(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"line one\nline two", "line one..."},
		{"carriage\rreturn", "carriage..."},
		{"form\ffeed", "form..."},
		{"\nleading", "..."},
		{"\x1b[31mred\x1b[0m", "^[[31mred^[[0m"},
		{"\x1b]0;title\x07 then\nmore", "^[]0;title\uFFFD then..."},
		{"tab\there", "tab\uFFFDhere"},
		{"bidi\u202Eevil", "bidi\uFFFDevil"},
		{"한글 😀", "한글 😀"},
		{"bad \xff utf8", "bad \uFFFD utf8"},
	}
	for _, tt := range tests {
		if got := terminalCell(tt.in); got != tt.want {
			t.Errorf("terminalCell(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestWriteTableWideText: Hangul and emoji (two cells each) in a middle
// column; the columns after it line up on screen (golden
// testdata/get_wide_text.golden).
func TestWriteTableWideText(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	table := kube.Table{
		Kind:    "configmaps",
		Columns: []kube.Column{{Name: "NAME"}, {Name: "OWNER"}, {Name: "DATA"}, {Name: "AGE"}},
		Rows: []kube.Row{
			{Namespace: "demo", Cells: []kube.Cell{kube.Text("settings"), kube.Text("한글-팀"), kube.Text("3"), kube.Age(now.Add(-5 * time.Minute))}},
			{Namespace: "demo", Cells: []kube.Cell{kube.Text("party"), kube.Text("🎉🎉 crew"), kube.Text("12"), kube.Age(now.Add(-49 * time.Hour))}},
			{Namespace: "데모", Cells: []kube.Cell{kube.Text("plain"), kube.Text("ops"), kube.Text("1"), kube.Age(now.Add(-30 * time.Second))}},
			{Namespace: "demo", Cells: []kube.Cell{kube.Text("mixed-é"), kube.Text("a😀b한c"), kube.Text("0"), kube.Age(now.Add(-3 * time.Hour))}},
		},
	}
	var out bytes.Buffer
	if err := writeTable(&out, table, false, true, now); err != nil {
		t.Fatal(err)
	}
	viewtest.Golden(t, "get_wide_text", out.String())
	// Every line's DATA cell starts at the same display column as the
	// header's.
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	col := dataColumn(lines[0])
	for _, line := range lines[1:] {
		if at := dataColumn(line); at != col || col < 0 {
			t.Errorf("DATA at cell %d, header's at %d: %q", at, col, line)
		}
	}
}

// dataColumn returns the display column where the fourth cell of a line
// (NAMESPACE NAME OWNER DATA AGE: DATA) starts, cells being separated by
// runs of at least three spaces.
func dataColumn(line string) int {
	cells := 0
	for i := 0; i < len(line); {
		j := strings.Index(line[i:], "   ")
		if j < 0 {
			return -1
		}
		i += j
		for i < len(line) && line[i] == ' ' {
			i++
		}
		cells++
		if cells == 3 {
			return cellWidth(line[:i])
		}
	}
	return -1
}

// FuzzWriteAligned: whatever the text, nothing but printable text, spaces
// and line ends reaches the terminal, every line keeps its cells, and each
// column ends at the same display cell on every line.
func FuzzWriteAligned(f *testing.F) {
	f.Add("한글", "a\nb", "😀", "\x1b[31m", "x", "")
	f.Add("", "", "", "", "", "")
	f.Add("tab\t", "\r", "é", "\u202e", "\xff", "long text here")
	f.Fuzz(func(t *testing.T, a, b, c, d, e, g string) {
		raw := [][]string{{"NAME", "OWNER", "AGE"}, {a, b, c}, {d, e, g}}
		lines := make([][]string, len(raw))
		reserve := make([]int, 3)
		for i, r := range raw {
			for j, s := range r {
				lines[i] = append(lines[i], terminalCell(s))
				if i > 0 {
					reserve[j] = max(reserve[j], rawWidth(s))
				}
			}
		}
		var out bytes.Buffer
		if err := writeAligned(&out, lines, reserve); err != nil {
			t.Fatal(err)
		}
		for _, r := range out.String() {
			if r != '\n' && (r < 0x20 || (r >= 0x7f && r < 0xa0) || r == 0x202e) {
				t.Fatalf("control character %U in %q", r, out.String())
			}
		}
		got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(got) != len(lines) {
			t.Fatalf("%d lines, want %d: %q", len(got), len(lines), out.String())
		}
		ends := make([]int, 2)
		for i, line := range got {
			rest := line
			for j, cell := range lines[i] {
				if !strings.HasPrefix(rest, cell) {
					t.Fatalf("line %q lost cell %q", line, cell)
				}
				rest = rest[len(cell):]
				if j == len(lines[i])-1 {
					if rest != "" {
						t.Fatalf("line %q: trailing %q", line, rest)
					}
					break
				}
				at := cellWidth(line[:len(line)-len(rest)])
				if i == 0 { // header names hold no spaces
					ends[j] = at + len(rest) - len(strings.TrimLeft(rest, " "))
				}
				pad := ends[j] - at
				if pad < tablePadding || !strings.HasPrefix(rest, strings.Repeat(" ", pad)) {
					t.Fatalf("column %d of line %d does not end at %d, as on the header:\n%s", j, i, ends[j], out.String())
				}
				rest = rest[pad:]
			}
		}
	})
}
