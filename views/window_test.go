package views_test

import (
	"testing"

	"github.com/kyyard/kyyard/views"
)

func TestWindow(t *testing.T) {
	for _, c := range []struct{ cursor, offset, height, total, want int }{
		{0, 0, 5, 100, 0},   // at the top
		{4, 0, 5, 100, 0},   // last visible line: no move
		{5, 0, 5, 100, 1},   // one below: the least move
		{2, 10, 5, 100, 2},  // above: up to the cursor
		{99, 0, 5, 100, 95}, // the end
		{3, 50, 5, 10, 3},   // an offset past the end after rows went
		{0, 7, 5, 3, 0},     // fewer rows than lines
	} {
		if got := views.Window(c.cursor, c.offset, c.height, c.total); got != c.want {
			t.Errorf("Window(%d, %d, %d, %d) = %d, want %d", c.cursor, c.offset, c.height, c.total, got, c.want)
		}
	}
}
