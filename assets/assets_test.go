package assets_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/assets"
)

// TestBuiltinThemesAreWhole: every built-in theme loads, names itself,
// is valid, and sets every colour (a colour left out would be the
// terminal's own on one theme only).
func TestBuiltinThemesAreWhole(t *testing.T) {
	for _, name := range assets.Builtin() {
		th, err := assets.LoadTheme(name)
		if err != nil {
			t.Fatal(err)
		}
		if th.Name != name {
			t.Errorf("theme %s names itself %q", name, th.Name)
		}
		if err := th.Validate(); err != nil {
			t.Errorf("theme %s: %v", name, err)
		}
		v := reflect.ValueOf(th)
		for i := 0; i < v.NumField(); i++ {
			if s, ok := v.Field(i).Interface().(string); ok && s == "" {
				t.Errorf("theme %s leaves %s out", name, v.Type().Field(i).Name)
			}
		}
		if len(th.Palette) < 6 {
			t.Errorf("theme %s has a palette of %d colours", name, len(th.Palette))
		}
	}
	if assets.DefaultTheme().Name != "dark" {
		t.Errorf("the default theme is %q, want dark", assets.DefaultTheme().Name)
	}
	if _, err := assets.LoadTheme("solarized"); err == nil {
		t.Error("an unknown theme loaded")
	}
}

func TestThemeValidate(t *testing.T) {
	for _, tc := range []struct {
		theme assets.Theme
		want  string
	}{
		{assets.Theme{Accent: "33", SelectedBackground: "#005f87", Muted: "#abc"}, ""},
		{assets.NoColorTheme(), ""},
		{assets.Theme{Accent: "blue"}, `accent "blue" is not a colour`},
		{assets.Theme{HeaderKey: "256"}, "at most 255"},
		{assets.Theme{Palette: []string{"1", "#12345"}}, `palette[1] "#12345"`},
	} {
		err := tc.theme.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.theme, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: error %v, want one saying %q", tc.theme, err, tc.want)
		}
	}
}

// TestColourErrorNamesTheColour: Validate's error says which colour is
// wrong, by its JSON name and place in the palette, so that the
// configuration file can name the line it is on.
func TestColourErrorNamesTheColour(t *testing.T) {
	var ce *assets.ColourError
	if err := (assets.Theme{SelectedBackground: "#12"}).Validate(); !errors.As(err, &ce) || ce.Field != "selectedBackground" || ce.Index != -1 || ce.Colour != "#12" {
		t.Errorf("selectedBackground: %#v", err)
	}
	if err := (assets.Theme{OK: "green"}).Validate(); !errors.As(err, &ce) || ce.Field != "ok" {
		t.Errorf("ok (was named oK, its Go name's first letter lowered): %#v", err)
	}
	if err := (assets.Theme{Palette: []string{"1", "2", "300"}}).Validate(); !errors.As(err, &ce) || ce.Field != "palette" || ce.Index != 2 || ce.Want != "an ANSI 256 index is at most 255" {
		t.Errorf("palette[2]: %#v", err)
	}
}
