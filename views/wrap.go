package views

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// WrapWords breaks s into lines of at most width cells at spaces, each
// "\n" of s starting a new line; only a word wider than width is cut into
// pieces. A width of 0 or less leaves s whole.
func WrapWords(s string, width int) []string {
	if width <= 0 {
		return strings.Split(s, "\n")
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		var cur string
		for _, word := range strings.Fields(para) {
			switch {
			case cur == "":
				cur = word
			case ansi.StringWidth(cur)+1+ansi.StringWidth(word) <= width:
				cur += " " + word
			default:
				out = append(out, cur)
				cur = word
			}
			for ansi.StringWidth(cur) > width {
				r := []rune(cur)
				cut := 0
				for w := 0; cut < len(r) && w+ansi.StringWidth(string(r[cut])) <= width; cut++ {
					w += ansi.StringWidth(string(r[cut]))
				}
				cut = max(cut, 1)
				out = append(out, string(r[:cut]))
				cur = string(r[cut:])
			}
		}
		out = append(out, cur)
	}
	return out
}

// FitWords returns the first of texts (longest first, each a shorter way
// to say the same) that fits in width x height cells wrapped at spaces with
// no word cut; when none does, the last one, wrapped and cut to height.
func FitWords(width, height int, texts ...string) []string {
	var lines []string
	for _, t := range texts {
		lines = WrapWords(t, width)
		fits := len(lines) <= height
		for _, word := range strings.Fields(t) {
			fits = fits && ansi.StringWidth(word) <= width
		}
		if fits {
			return lines
		}
	}
	return lines[:min(len(lines), max(height, 0))]
}

// TooSmall says that a terminal of w x h cells is smaller than the needW x
// needH kyyard needs, in at most height lines of at most width cells: in
// fewer words when the whole sentence does not fit, and never with a word
// (a size) cut in two while the shortest way ("20x7") fits.
func TooSmall(w, h, needW, needH, width, height int) []string {
	need := fmt.Sprintf("%dx%d", needW, needH)
	return FitWords(width, height,
		fmt.Sprintf("Terminal too small: %dx%d, kyyard needs %s.", w, h, need),
		fmt.Sprintf("Too small: %dx%d, kyyard needs %s.", w, h, need),
		fmt.Sprintf("Too small %dx%d, need %s", w, h, need),
		"Need "+need,
		need)
}

// GiveWay narrows the widths w (in cells) by excess cells, in place: the
// widest first, each step down to the next widest at most, none below
// floor(i). It returns the excess still left when every width is at its
// floor (0 when they now fit). The inventory's columns and the header's
// facts give way this way.
func GiveWay(w []int, excess int, floor func(i int) int) int {
	for excess > 0 {
		widest, slack := -1, 0
		for i := range w {
			if s := w[i] - floor(i); s > 0 && (widest < 0 || w[i] > w[widest]) {
				widest, slack = i, s
			}
		}
		if widest < 0 {
			break
		}
		second := 0
		for i, x := range w {
			if i != widest && x > second {
				second = x
			}
		}
		cut := min(slack, excess, max(w[widest]-second, 1))
		w[widest] -= cut
		excess -= cut
	}
	return max(excess, 0)
}
