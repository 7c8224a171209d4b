package inventory_test

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/kyyard/kyyard/assets"
	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/viewtest"
)

// TestThemesDrawTheSameWords is issue 27's themes at a fixed size: the
// pods screen drawn in the dark, the light and the NO_COLOR theme (with
// colours on, as a terminal shows them) differs only in its escapes: the
// same words, statuses and row markers (x, !) in each, so nothing that
// carries meaning is in colour alone; without colours the cursor row is
// in reverse video and no colour escape is written.
func TestThemesDrawTheSameWords(t *testing.T) {
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	dark, err := assets.LoadTheme("dark")
	if err != nil {
		t.Fatal(err)
	}
	light, err := assets.LoadTheme("light")
	if err != nil {
		t.Fatal(err)
	}
	views := map[string]string{}
	for _, th := range []assets.Theme{dark, light, assets.NoColorTheme()} {
		client, _ := kubetest.FakeClient(t, demoObjects()...)
		m, vc := load(t, client, "pods", "demo", 80, 24)
		lipgloss.SetColorProfile(termenv.ANSI256) // after viewtest.Context's Ascii
		vc.Styles = stylesOf(th)
		view := m.View()
		viewtest.Golden(t, "pods-theme-"+th.Name+"-80x24", view)
		views[th.Name] = view
	}
	if views["dark"] == views["light"] {
		t.Fatal("the dark and the light theme draw alike")
	}
	plain := ansi.Strip(views["dark"])
	for name, v := range views {
		if ansi.Strip(v) != plain {
			t.Errorf("theme %s draws other words than dark:\n%s", name, ansi.Strip(v))
		}
	}
	if !strings.Contains(plain, ">x") || !strings.Contains(plain, "CrashLoopBackOff") {
		t.Fatalf("the markers and statuses are not in the text:\n%s", plain)
	}
	none := views["no-color"]
	if strings.Contains(none, "38;5;") || strings.Contains(none, "48;5;") || !strings.Contains(none, "\x1b[7m") {
		t.Fatalf("NO_COLOR: colour escapes, or no reverse video for the cursor row:\n%q", none)
	}
}

func stylesOf(th assets.Theme) views.Styles { return views.NewStyles(th) }
