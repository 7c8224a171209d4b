package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kyyard/kyyard/assets"
	"github.com/kyyard/kyyard/config"
)

// chooseTheme returns the colour theme kyyard draws with (issue 27):
// none when NO_COLOR is set to anything (https://no-color.org), else the
// one --theme names (flag), else the configuration file's theme; "auto"
// (or nothing named) is the dark theme on a dark background and the light
// one on a light background, as the terminal answers (dark tells, which
// asks it; a terminal that does not answer reads as dark). A name may be
// "dark", "light" or one of the file's themes. Errors: an unknown name,
// with the names there are.
func chooseTheme(flag string, cfg *config.File, getenv func(string) string, dark func() bool) (assets.Theme, error) {
	if getenv("NO_COLOR") != "" {
		return assets.NoColorTheme(), nil
	}
	name := flag
	if name == "" && cfg != nil {
		name = cfg.Theme
	}
	switch {
	case name == "" || name == "auto":
		if dark() {
			return assets.LoadTheme("dark")
		}
		return assets.LoadTheme("light")
	case slices.Contains(assets.Builtin(), name):
		return assets.LoadTheme(name)
	}
	if cfg != nil {
		if t, ok := cfg.Themes[name]; ok {
			t.Name = name
			return t, nil
		}
	}
	known := append([]string{"auto"}, assets.Builtin()...)
	if cfg != nil {
		for n := range cfg.Themes {
			known = append(known, n)
		}
	}
	slices.Sort(known[3:])
	return assets.Theme{}, fmt.Errorf("--theme %q: no such theme (there are %s)", name, strings.Join(known, ", "))
}
