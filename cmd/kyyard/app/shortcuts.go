package app

import (
	"github.com/kyyard/kyyard/config"
	"github.com/kyyard/kyyard/ui"
)

// shortcuts returns the configuration file's aliases and hotkeys for the
// ui. Errors: an alias named like one of kyyard's own commands (:q would
// no longer quit), a hotkey on a key kyyard binds on its tables (it would
// take that key away), each naming the file, the entry and its line.
func shortcuts(cfg *config.File) (map[string]ui.Alias, map[string]string, error) {
	aliases := make(map[string]ui.Alias, len(cfg.Aliases))
	for word, a := range cfg.Aliases {
		if ui.IsCommand(word) {
			return nil, nil, cfg.ErrorAt([]any{"aliases", word}, ":%s is kyyard's own command; give the alias another word", word)
		}
		aliases[word] = ui.Alias{Kind: a.Kind, Namespace: a.Namespace, Filter: a.Filter}
	}
	for k := range cfg.Hotkeys {
		if ui.ReservedKey(k) {
			return nil, nil, cfg.ErrorAt([]any{"hotkeys", k}, "kyyard binds %s on its tables already; choose another key", k)
		}
	}
	return aliases, cfg.Hotkeys, nil
}
