package views_test

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kyyard/kyyard/views"
)

func TestSparkline(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name   string
		values []float64
		width  int
		want   string
	}{
		{"none", nil, 5, "     "},
		{"zero width", []float64{1, 2}, 0, ""},
		{"negative width", []float64{1, 2}, -3, ""},
		{"ramp", []float64{1, 2, 3, 4, 5, 6, 7, 8}, 8, "▁▂▃▄▅▆▇█"},
		{"latest at the right, padded left", []float64{8, 4}, 4, "  █▄"},
		{"only the latest width", []float64{100, 1, 2, 4}, 3, "▂▄█"},
		{"flat at its peak", []float64{3, 3, 3}, 3, "███"},
		{"all zero", []float64{0, 0}, 2, "▁▁"},
		{"zero beside a peak", []float64{0, 10}, 2, "▁█"},
		{"tiny beside a peak", []float64{0.01, 10}, 2, "▁█"},
		{"no sample", []float64{nan, 4}, 2, " █"},
		{"negative and inf as zero", []float64{-5, math.Inf(1), 2}, 3, "▁▁█"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := views.Sparkline(c.values, c.width); got != c.want {
				t.Errorf("Sparkline(%v, %d) = %q, want %q", c.values, c.width, got, c.want)
			}
		})
	}
}

func TestChart(t *testing.T) {
	for _, c := range []struct {
		name          string
		values        []float64
		width, height int
		want          []string
	}{
		{"empty size", []float64{1}, 0, 3, nil},
		{"one line is a sparkline", []float64{1, 2, 4, 8}, 4, 1, []string{"▁▂▄█"}},
		{"two lines", []float64{2, 4, 8, 0}, 5, 2, []string{
			"   █ ",
			" ▄██▁",
		}},
		{"half a line", []float64{1, 2}, 2, 2, []string{
			" █",
			"██",
		}},
		{"odd eighths", []float64{3, 16}, 2, 2, []string{
			" █",
			"▃█",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := views.Chart(c.values, c.width, c.height)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") || len(got) != len(c.want) {
				t.Errorf("Chart(%v, %d, %d) =\n%s\nwant\n%s", c.values, c.width, c.height, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// floats reads the fuzzer's bytes as float64s, any bit pattern (NaN, ±Inf,
// negative zero, huge and subnormal numbers included).
func floats(b []byte) []float64 {
	var out []float64
	for len(b) >= 8 {
		out = append(out, math.Float64frombits(binary.LittleEndian.Uint64(b)))
		b = b[8:]
	}
	return out
}

// FuzzSparkline: any samples, any width give exactly width cells (none for
// a width <= 0), each a block or a space; never a panic. Chart gives height
// lines of that shape.
func FuzzSparkline(f *testing.F) {
	f.Add([]byte{}, 10, 3)
	f.Add(binary.LittleEndian.AppendUint64(nil, math.Float64bits(math.NaN())), 1, 1)
	f.Add(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, math.Float64bits(1e308)), math.Float64bits(5e-324)), 3, 2)
	f.Add(binary.LittleEndian.AppendUint64(nil, math.Float64bits(-1)), -4, 0)
	f.Fuzz(func(t *testing.T, raw []byte, width, height int) {
		width %= 500
		height %= 50
		values := floats(raw)
		check := func(s string) {
			t.Helper()
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 %q", s)
			}
			if n := utf8.RuneCountInString(s); n != max(width, 0) {
				t.Fatalf("%d cells, want %d: %q", n, max(width, 0), s)
			}
			for _, r := range s {
				if r != ' ' && (r < '▁' || r > '█') {
					t.Fatalf("cell %q is no block: %q", r, s)
				}
			}
		}
		check(views.Sparkline(values, width))
		lines := views.Chart(values, width, height)
		if width <= 0 || height <= 0 {
			if lines != nil {
				t.Fatalf("Chart(_, %d, %d) = %q, want nil", width, height, lines)
			}
			return
		}
		if len(lines) != height {
			t.Fatalf("%d lines, want %d", len(lines), height)
		}
		for _, l := range lines {
			check(l)
		}
	})
}
