package app

import (
	"bufio"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/views"
)

// terminalCell is a cell's text as kubectl's terminal printer writes it
// (k8s.io/cli-runtime/pkg/printers tableprinter.go appendCellValue): cut at
// the first line break (\f, \n or \r, which the tabwriter would take for a
// new line) with "..." after it, and ESC escaped as "^[" (EscapeTerminal).
// Where kubectl would still pass a control character through (a tab, a
// bell, a C1 code) or a bidirectional formatting character, kyyard replaces
// it with U+FFFD (views.Sanitize): it never lets cluster text reach the
// terminal as a command.
func terminalCell(s string) string {
	cut := false
	if i := strings.IndexAny(s, "\f\n\r"); i >= 0 {
		s, cut = s[:i], true
	}
	s = strings.ReplaceAll(s, "\x1b", "^[")
	s = views.Sanitize(s)
	if cut {
		s += "..."
	}
	return s
}

// cellWidth is the number of terminal cells s takes: wide characters
// (Hangul, CJK, most emoji) count two, combining marks none.
func cellWidth(s string) int { return ansi.StringWidth(s) }

// rawWidth is how wide kubectl reserves a cell's column for its text before
// the terminal rules cut and escape it (tableprinter.go pre-scans the raw
// cells and pads the header to the widest): in display cells, with each
// control character counted as one, as kubectl counts its byte.
func rawWidth(s string) int {
	return cellWidth(strings.Map(func(r rune) rune {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return 'x'
		}
		return r
	}, strings.ToValidUTF8(s, "x")))
}

// writeAligned writes lines of cells the way kubectl's tabwriter lays them
// out (minimum column width tableMinWidth, tablePadding spaces after the
// widest cell, the last cell of a line never padded), except that widths are
// counted in terminal cells, not bytes or runes: text with wide characters in
// one column no longer pushes the columns after it out of line. reserve[i],
// when longer than column i's cells, widens it as kubectl's header padding
// does (rawWidth). On text of one-cell characters the output is byte for
// byte kubectl's. Every line must hold the same number of cells.
func writeAligned(out io.Writer, lines [][]string, reserve []int) error {
	if len(lines) == 0 {
		return nil
	}
	n := len(lines[0])
	widths := make([]int, n)
	for i := 0; i < n-1 && i < len(reserve); i++ {
		widths[i] = max(reserve[i]+tablePadding, tableMinWidth)
	}
	for _, line := range lines {
		for i := 0; i < len(line)-1; i++ {
			widths[i] = max(widths[i], cellWidth(line[i])+tablePadding, tableMinWidth)
		}
	}
	w := bufio.NewWriter(out)
	for _, line := range lines {
		for i, cell := range line {
			w.WriteString(cell)
			if i < len(line)-1 {
				w.WriteString(strings.Repeat(" ", widths[i]-cellWidth(cell)))
			}
		}
		w.WriteByte('\n')
	}
	return w.Flush()
}
