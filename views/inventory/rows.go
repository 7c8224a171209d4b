package inventory

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Cells are addressed by slot: slot 0 is the row's namespace, slot c+1 is
// Row.Cells[c] (slot 1 is NAME), slot len(Columns)+1 the row's kubeconfig
// context (Row.Context, on a screen across several clusters; see
// contextSlot), and the metrics columns follow. The marker column has no
// slot.
const (
	markerSlot    = -1
	namespaceSlot = 0
	nameSlot      = 1
)

// index is what one snapshot generation's rows yield once, so that neither
// a filter keystroke nor a frame touches every row's text again: the width
// of every static cell, each row's lower-cased text for the filter, and
// sort keys per column as they are asked for.
type index struct {
	rows  []kube.Row
	slots int // columns + 2 (the namespace, the context)
	// widths[r*slots+s] is the drawn width of row r's slot s; 0 for a
	// relative time, whose width depends on the clock.
	widths []uint16
	// hay holds every row's cells lower-cased, NAME first, then the
	// namespace and the other cells, each ended by '\n'; row r's text is
	// hay[hayEnd[r-1]:hayEnd[r]] (from 0 for row 0). Relative times are
	// left out: they change without the row changing.
	hay    []byte
	hayEnd []int32
	keys   map[int][]sortKey
	// met are the metrics cells of the rows (slots from slots on), nil for
	// a kind without metrics columns; replaced when a new reading comes.
	met *metricCells
	// maxes[s] is the widest of slot s over every row, measured when first
	// asked (slotMax); nil until then.
	maxes []int
}

// slotMax returns the widest cell of slot s over every row (widths).
func (ix *index) slotMax(s int) int {
	if ix.maxes == nil {
		ix.maxes = make([]int, ix.slots)
		for i, w := range ix.widths {
			ix.maxes[i%ix.slots] = max(ix.maxes[i%ix.slots], int(w))
		}
	}
	return ix.maxes[s]
}

// setMetrics replaces the rows' metrics cells and forgets the sort keys
// made of the old ones.
func (ix *index) setMetrics(mc *metricCells) {
	ix.met = mc
	for s := range ix.keys {
		if s >= ix.slots {
			delete(ix.keys, s)
		}
	}
}

// newIndex measures and lower-cases every row of t: O(rows × columns),
// once per generation.
func newIndex(t kube.Table) *index {
	slots := len(t.Columns) + 2
	ix := &index{rows: t.Rows, slots: slots, widths: make([]uint16, len(t.Rows)*slots),
		hayEnd: make([]int32, len(t.Rows)), keys: map[int][]sortKey{}}
	// The text's length, known before it is written: at 100,000 rows a
	// guessed buffer doubling as it fills held twice the text.
	size := 0
	for r := range t.Rows {
		row := &t.Rows[r]
		size += len(row.Namespace) + 1
		if row.Context != "" {
			size += len(row.Context) + 1
		}
		for c := range row.Cells {
			size += len(row.Cells[c].Text) + 1
		}
	}
	hay := make([]byte, 0, size)
	for r := range t.Rows {
		row := &t.Rows[r]
		w := ix.widths[r*slots : (r+1)*slots]
		w[namespaceSlot] = cellWidth(row.Namespace)
		w[slots-1] = cellWidth(row.Context)
		for c := 0; c < len(row.Cells) && c+1 < slots-1; c++ {
			if row.Cells[c].Since.IsZero() {
				w[c+1] = cellWidth(row.Cells[c].Text)
			}
		}
		if len(row.Cells) > 0 {
			hay = appendLower(hay, row.Cells[0].Text)
		}
		hay = appendLower(hay, row.Namespace)
		for c := 1; c < len(row.Cells); c++ {
			hay = appendLower(hay, row.Cells[c].Text)
		}
		if row.Context != "" {
			hay = appendLower(hay, row.Context)
		}
		ix.hayEnd[r] = int32(len(hay))
	}
	ix.hay = hay
	return ix
}

// text returns row r's lower-cased filter text, cells separated by '\n'
// (without the one that ends the row).
func (ix *index) text(r int32) []byte {
	start := int32(0)
	if r > 0 {
		start = ix.hayEnd[r-1]
	}
	return ix.hay[start : ix.hayEnd[r]-1]
}

// contextSlot returns the slot of the rows' kubeconfig context.
func (ix *index) contextSlot() int { return ix.slots - 1 }

// width returns the static width of row r's slot s.
func (ix *index) width(r int32, s int) int { return int(ix.widths[int(r)*ix.slots+s]) }

// appendLower appends s lower-cased and a '\n'. Text that is not empty is
// kept whole; an empty cell adds only the separator.
func appendLower(b []byte, s string) []byte {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if !ascii {
		b = append(b, strings.ToLower(s)...)
		return append(b, '\n')
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return append(b, '\n')
}

// cellWidth is the width s is drawn at once sanitized, in cells (capped at
// 65535): its length for printable ASCII, else what the terminal shows.
func cellWidth(s string) uint16 {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return uint16(min(ansi.StringWidth(views.Sanitize(s)), 1<<16-1))
		}
	}
	return uint16(min(len(s), 1<<16-1))
}
