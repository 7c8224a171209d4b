package views

import (
	"github.com/charmbracelet/lipgloss"

	"github.com/kyyard/kyyard/assets"
	"github.com/kyyard/kyyard/kube"
)

// Styles are the theme's colours made into lipgloss styles, built once.
type Styles struct {
	// HeaderKey and HeaderValue draw the facts line.
	HeaderKey, HeaderValue lipgloss.Style
	// Title draws the screen title bar.
	Title lipgloss.Style
	// ColumnHeader draws a table's header row.
	ColumnHeader lipgloss.Style
	// Selected draws the cursor row.
	Selected lipgloss.Style
	// Muted draws secondary text.
	Muted lipgloss.Style
	// Error draws errors and banners.
	Error lipgloss.Style
	// Prompt draws the command prompt.
	Prompt lipgloss.Style
	// HelpKey and HelpDescription draw the help overlay.
	HelpKey, HelpDescription lipgloss.Style
	// Match draws a search match in a text view; CurrentMatch the one n/N
	// moved to.
	Match, CurrentMatch lipgloss.Style
	// Palette draws what is told apart by colour (the pods of a
	// workload's logs): Pick hashes a name into it.
	Palette []lipgloss.Style
	// health draws rows by health; see Health.
	health [4]lipgloss.Style
}

// NewStyles builds the styles of a theme.
func NewStyles(t assets.Theme) Styles {
	c := func(s string) lipgloss.TerminalColor {
		if s == "" {
			return lipgloss.NoColor{} // the terminal's own (NO_COLOR)
		}
		return lipgloss.Color(s)
	}
	fg := lipgloss.NewStyle().Foreground(c(t.Foreground))
	palette := make([]lipgloss.Style, len(t.Palette))
	for i, p := range t.Palette {
		palette[i] = lipgloss.NewStyle().Foreground(c(p))
	}
	selected := lipgloss.NewStyle().Foreground(c(t.SelectedForeground)).Background(c(t.SelectedBackground))
	match := lipgloss.NewStyle().Foreground(c(t.SelectedForeground)).Background(c(t.MatchBackground))
	current := lipgloss.NewStyle().Foreground(c(t.SelectedForeground)).Background(c(t.CurrentMatchBackground)).Bold(true)
	if t.SelectedBackground == "" {
		// No colours (NO_COLOR): the cursor row and the matches are told
		// by reverse video and underline.
		selected, match, current = selected.Reverse(true), match.Underline(true), current.Reverse(true)
	}
	return Styles{
		Palette:         palette,
		HeaderKey:       lipgloss.NewStyle().Foreground(c(t.HeaderKey)),
		HeaderValue:     lipgloss.NewStyle().Foreground(c(t.HeaderValue)).Bold(true),
		Title:           lipgloss.NewStyle().Foreground(c(t.Title)).Bold(true),
		ColumnHeader:    lipgloss.NewStyle().Foreground(c(t.ColumnHeader)).Bold(true),
		Selected:        selected,
		Muted:           lipgloss.NewStyle().Foreground(c(t.Muted)),
		Error:           lipgloss.NewStyle().Foreground(c(t.Error)).Bold(true),
		Prompt:          lipgloss.NewStyle().Foreground(c(t.PromptForeground)),
		HelpKey:         lipgloss.NewStyle().Foreground(c(t.HelpKey)).Bold(true),
		HelpDescription: lipgloss.NewStyle().Foreground(c(t.HelpDescription)),
		Match:           match,
		CurrentMatch:    current,
		health: [4]lipgloss.Style{
			kube.HealthOK:          fg.Foreground(c(t.OK)),
			kube.HealthProgressing: fg.Foreground(c(t.Progressing)),
			kube.HealthWarning:     fg.Foreground(c(t.Warning)),
			kube.HealthFailed:      fg.Foreground(c(t.Failed)),
		},
	}
}

// Pick returns the palette's style for name: the same name always gets
// the same colour (an FNV-1a hash of it); the plain style when the theme
// has no palette.
func (s Styles) Pick(name string) lipgloss.Style {
	if len(s.Palette) == 0 {
		return lipgloss.NewStyle()
	}
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		h ^= uint32(name[i])
		h *= 16777619
	}
	return s.Palette[h%uint32(len(s.Palette))]
}

// Health returns the style of rows with health h.
func (s Styles) Health(h kube.Health) lipgloss.Style {
	if h < 0 || int(h) >= len(s.health) {
		return s.health[kube.HealthOK]
	}
	return s.health[h]
}

// HealthMarker is the text marker shown next to a row's colour, so health is
// never told by colour alone: " " ok, "~" progressing, "!" warning, "x" failed.
func HealthMarker(h kube.Health) string {
	switch h {
	case kube.HealthProgressing:
		return "~"
	case kube.HealthWarning:
		return "!"
	case kube.HealthFailed:
		return "x"
	default:
		return " "
	}
}
