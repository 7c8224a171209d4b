package app

import (
	"fmt"

	"github.com/kyyard/kyyard/config"
	"github.com/kyyard/kyyard/ui"
)

// shortcuts returns the configuration file's aliases and hotkeys for the
// ui. Errors: a hotkey on a key kyyard binds on its tables (it would take
// that key away), naming it.
func shortcuts(cfg *config.File) (map[string]ui.Alias, map[string]string, error) {
	aliases := make(map[string]ui.Alias, len(cfg.Aliases))
	for word, a := range cfg.Aliases {
		aliases[word] = ui.Alias{Kind: a.Kind, Namespace: a.Namespace, Filter: a.Filter}
	}
	for k := range cfg.Hotkeys {
		if ui.ReservedKey(k) {
			return nil, nil, fmt.Errorf("configuration file: hotkeys.%s: kyyard binds %s on its tables already; choose another key", k, k)
		}
	}
	return aliases, cfg.Hotkeys, nil
}
