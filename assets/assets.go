// Package assets holds kyyard's embedded defaults: the colour theme. It is
// read once, where the styles are built (views.NewStyles).
package assets

import (
	"embed"
	"encoding/json"
	"fmt"
)

//go:embed themes/*.json
var themes embed.FS

// Theme is a named set of colours. Each colour is a lipgloss colour string:
// an ANSI 256 index ("39") or a hex value ("#5fafff").
type Theme struct {
	// Name identifies the theme ("default").
	Name string `json:"name"`
	// Foreground is the ordinary text colour; Muted is for secondary text;
	// Accent marks the focused screen's title and prompt.
	Foreground, Muted, Accent string
	// HeaderKey and HeaderValue colour the facts line ("Context:" / "kyyard-local").
	HeaderKey, HeaderValue string
	// Title colours the screen title; ColumnHeader the table header.
	Title, ColumnHeader string
	// SelectedForeground and SelectedBackground colour the cursor row.
	SelectedForeground, SelectedBackground string
	// OK, Progressing, Warning and Failed colour rows by health.
	OK, Progressing, Warning, Failed string
	// Error colours error messages and banners.
	Error string
	// PromptForeground colours the command prompt's text.
	PromptForeground string
	// HelpKey and HelpDescription colour the help overlay.
	HelpKey, HelpDescription string
	// MatchBackground marks search matches in a text view (describe, YAML);
	// CurrentMatchBackground the match n/N moved to. Both are drawn under
	// SelectedForeground.
	MatchBackground, CurrentMatchBackground string
	// Palette colours what must be told apart by a stable colour, such as
	// the pods of a workload's logs (each name hashed into it); always
	// shown next to a text label, never alone.
	Palette []string
}

// LoadTheme returns the embedded theme of that name. Errors: no such theme,
// or a theme file that is not valid JSON.
func LoadTheme(name string) (Theme, error) {
	b, err := themes.ReadFile("themes/" + name + ".json")
	if err != nil {
		return Theme{}, fmt.Errorf("theme %q: %w", name, err)
	}
	var t Theme
	if err := json.Unmarshal(b, &t); err != nil {
		return Theme{}, fmt.Errorf("theme %q: %w", name, err)
	}
	return t, nil
}

// DefaultTheme returns the built-in default theme.
func DefaultTheme() Theme {
	t, err := LoadTheme("default")
	if err != nil {
		panic(err) // the embedded file is part of the binary; a unit test loads it
	}
	return t
}
