// Package assets holds kyyard's embedded defaults: the colour themes (a
// dark and a light one; issue 27), read once where the styles are built
// (views.NewStyles), and the theme without colours NO_COLOR asks for.
package assets

import (
	"embed"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
)

//go:embed themes/*.json
var themes embed.FS

// Theme is a named set of colours. Each colour is a lipgloss colour string:
// an ANSI 256 index ("39") or a hex value ("#5fafff"); "" is none (the
// terminal's own), as in NoColorTheme. Each field's JSON name (its json
// tag: "headerKey", "ok") is its name in the theme files and in the
// configuration file's themes.
type Theme struct {
	// Name identifies the theme ("default").
	Name string `json:"name"`
	// Foreground is the ordinary text colour; Muted is for secondary text;
	// Accent marks the focused screen's title and prompt.
	Foreground string `json:"foreground"`
	Muted      string `json:"muted"`
	Accent     string `json:"accent"`
	// HeaderKey and HeaderValue colour the facts line ("Context:" / "kyyard-local").
	HeaderKey   string `json:"headerKey"`
	HeaderValue string `json:"headerValue"`
	// Title colours the screen title; ColumnHeader the table header.
	Title        string `json:"title"`
	ColumnHeader string `json:"columnHeader"`
	// SelectedForeground and SelectedBackground colour the cursor row.
	SelectedForeground string `json:"selectedForeground"`
	SelectedBackground string `json:"selectedBackground"`
	// OK, Progressing, Warning and Failed colour rows by health.
	OK          string `json:"ok"`
	Progressing string `json:"progressing"`
	Warning     string `json:"warning"`
	Failed      string `json:"failed"`
	// Error colours error messages and banners.
	Error string `json:"error"`
	// PromptForeground colours the command prompt's text.
	PromptForeground string `json:"promptForeground"`
	// HelpKey and HelpDescription colour the help overlay.
	HelpKey         string `json:"helpKey"`
	HelpDescription string `json:"helpDescription"`
	// MatchBackground marks search matches in a text view (describe, YAML);
	// CurrentMatchBackground the match n/N moved to. Both are drawn under
	// SelectedForeground.
	MatchBackground        string `json:"matchBackground"`
	CurrentMatchBackground string `json:"currentMatchBackground"`
	// Palette colours what must be told apart by a stable colour, such as
	// the pods of a workload's logs (each name hashed into it); always
	// shown next to a text label, never alone.
	Palette []string `json:"palette"`
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

// Builtin names the embedded themes: "dark" (the default) and "light".
func Builtin() []string { return []string{"dark", "light"} }

// DefaultTheme returns the built-in dark theme, the default.
func DefaultTheme() Theme {
	t, err := LoadTheme("dark")
	if err != nil {
		panic(err) // the embedded file is part of the binary; a unit test loads it
	}
	return t
}

// NoColorTheme is the theme without colours, for NO_COLOR
// (https://no-color.org): every colour "" and no palette; the styles then
// mark the cursor row and search matches by reverse video and underline,
// not colour.
func NoColorTheme() Theme { return Theme{Name: "no-color"} }

// colourSyntax is what a colour may be: an ANSI 256 index or #rgb/#rrggbb.
var colourSyntax = regexp.MustCompile(`^(#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}|[0-9]{1,3})$`)

// ColourError is the error Validate returns: one colour of the theme is
// not a colour.
type ColourError struct {
	// Field is the colour's name in the theme files ("accent", "palette").
	Field string
	// Index is the colour's place in Palette, -1 for any other colour.
	Index int
	// Colour is the value written; Want says what a colour must be.
	Colour, Want string
}

// Error names the colour and what it must be: `accent "blue" is not a
// colour: an ANSI 256 index (0-255) or #rrggbb`, `palette[1] ...`.
func (e *ColourError) Error() string {
	name := e.Field
	if e.Index >= 0 {
		name = fmt.Sprintf("%s[%d]", e.Field, e.Index)
	}
	return fmt.Sprintf("%s %q is not a colour: %s", name, e.Colour, e.Want)
}

// Validate checks every colour of the theme ("" is allowed: none). The
// error, a *ColourError, names the first colour that is not one by its
// JSON name and says what a colour must be.
func (t Theme) Validate() error {
	check := func(name string, index int, c string) error {
		if c == "" {
			return nil
		}
		if !colourSyntax.MatchString(c) {
			return &ColourError{Field: name, Index: index, Colour: c, Want: "an ANSI 256 index (0-255) or #rrggbb"}
		}
		if n, err := strconv.Atoi(c); err == nil && n > 255 {
			return &ColourError{Field: name, Index: index, Colour: c, Want: "an ANSI 256 index is at most 255"}
		}
		return nil
	}
	v := reflect.ValueOf(t)
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		name := f.Tag.Get("json")
		switch val := v.Field(i).Interface().(type) {
		case string:
			if f.Name == "Name" {
				continue
			}
			if err := check(name, -1, val); err != nil {
				return err
			}
		case []string:
			for j, c := range val {
				if err := check(name, j, c); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
