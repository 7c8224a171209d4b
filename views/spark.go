package views

import (
	"math"
	"strings"

	"github.com/kyyard/kyyard/kube"
)

// sparkBlocks are the eight heights a sparkline cell takes, lowest first.
var sparkBlocks = [8]rune{'▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'}

// Sparkline draws values (oldest first) as exactly width cells of block
// characters (▁▂▃▄▅▆▇█), the latest value in the rightmost cell. When there
// are more values than cells only the latest width are drawn; when fewer,
// the left is padded with spaces. Heights are scaled per call, from zero to
// the largest value drawn: a cell is ▁ for zero and █ for the largest, so
// a flat line at its peak reads as full and a busy minute as a spike, not
// the noise of a min-to-max scale. A value that is NaN is drawn as a space,
// a negative or infinite one as zero. width <= 0 gives "".
func Sparkline(values []float64, width int) string {
	if width <= 0 {
		return ""
	}
	if len(values) > width {
		values = values[len(values)-width:]
	}
	peak := 0.0
	for _, v := range values {
		if v > peak && !math.IsInf(v, 1) {
			peak = v
		}
	}
	var b strings.Builder
	b.Grow(width * 3)
	for range width - len(values) {
		b.WriteByte(' ')
	}
	for _, v := range values {
		b.WriteRune(sparkCell(v, peak))
	}
	return b.String()
}

// sparkCell returns the block for v on a scale of 0..peak.
func sparkCell(v, peak float64) rune {
	switch {
	case math.IsNaN(v):
		return ' '
	case v <= 0 || math.IsInf(v, 0) || peak <= 0:
		return sparkBlocks[0]
	}
	i := int(math.Ceil(v/peak*8)) - 1
	return sparkBlocks[max(min(i, 7), 0)]
}

// TrendCPU returns the CPU of samples (millicores), oldest first, for a
// Sparkline or a Chart.
func TrendCPU(samples []kube.Sample) []float64 {
	out := make([]float64, len(samples))
	for i, s := range samples {
		out[i] = float64(s.Usage.CPU)
	}
	return out
}

// TrendMemory returns the memory of samples (bytes), oldest first.
func TrendMemory(samples []kube.Sample) []float64 {
	out := make([]float64, len(samples))
	for i, s := range samples {
		out[i] = float64(s.Usage.Memory)
	}
	return out
}

// Chart draws values (oldest first) as a bar chart of exactly height lines
// of exactly width cells each (top line first), one column per value, the
// latest at the right, bars rising from the bottom line in eighths of a
// cell (▁..█), scaled from zero to the largest value drawn. Like
// Sparkline, only the latest width values are drawn and the left is padded
// with spaces; a zero value shows a ▁ on the bottom line so that a sample
// is told from no sample. NaN is no sample, negative and infinite values
// are zero. width or height <= 0 gives nil.
func Chart(values []float64, width, height int) []string {
	if width <= 0 || height <= 0 {
		return nil
	}
	if len(values) > width {
		values = values[len(values)-width:]
	}
	peak := 0.0
	for _, v := range values {
		if v > peak && !math.IsInf(v, 1) {
			peak = v
		}
	}
	pad := width - len(values)
	// eighths[i] is column i's bar height in eighths of a cell; -1 for none.
	eighths := make([]int, len(values))
	for i, v := range values {
		switch {
		case math.IsNaN(v):
			eighths[i] = -1
		case v <= 0 || math.IsInf(v, 0) || peak <= 0:
			eighths[i] = 1
		default:
			eighths[i] = max(int(math.Ceil(v/peak*float64(8*height))), 1)
		}
	}
	lines := make([]string, height)
	for row := range height {
		var b strings.Builder
		b.Grow(width * 3)
		for range pad {
			b.WriteByte(' ')
		}
		floor := (height - 1 - row) * 8 // eighths below this line
		for _, e := range eighths {
			switch {
			case e <= floor:
				b.WriteByte(' ')
			case e >= floor+8:
				b.WriteRune(sparkBlocks[7])
			default:
				b.WriteRune(sparkBlocks[e-floor-1])
			}
		}
		lines[row] = b.String()
	}
	return lines
}
