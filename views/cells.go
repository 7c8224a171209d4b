package views

import (
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
)

// Cut returns s sanitised (Sanitize) and shortened to w cells, the cut
// marked with "…": a cell of untrusted text in a fixed-width column.
func Cut(s string, w int) string { return ansi.Truncate(Sanitize(s), w, "…") }

// Ago is how long before now t was, as the inventory's ages ("45s",
// "12m", "3h", "2d"); "-" for a zero t.
func Ago(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return kube.Age(t).Render(now)
}
