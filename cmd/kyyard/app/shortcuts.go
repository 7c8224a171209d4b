package app

import (
	"errors"

	"github.com/kyyard/kyyard/config"
	"github.com/kyyard/kyyard/ui"
	"github.com/kyyard/kyyard/views"
)

// shortcuts returns the configuration file's aliases and hotkeys for the
// ui. Errors: an alias named like one of kyyard's own commands (:q would
// no longer quit), a hotkey on a key kyyard binds on its tables (it would
// take that key away; km is the key map checkedKeyMap returned, nil for
// the defaults), each naming the file, the entry and its line.
func shortcuts(cfg *config.File, km views.KeyMap) (map[string]ui.Alias, map[string]string, error) {
	aliases := make(map[string]ui.Alias, len(cfg.Aliases))
	for word, a := range cfg.Aliases {
		if ui.IsCommand(word) {
			return nil, nil, cfg.ErrorAt([]any{"aliases", word}, ":%s is kyyard's own command; give the alias another word", word)
		}
		aliases[word] = ui.Alias{Kind: a.Kind, Namespace: a.Namespace, Filter: a.Filter}
	}
	for k := range cfg.Hotkeys {
		if ui.ReservedKey(k, km) {
			return nil, nil, cfg.ErrorAt([]any{"hotkeys", k}, "kyyard binds %s on its tables already; choose another key", k)
		}
	}
	return aliases, cfg.Hotkeys, nil
}

// configShortcuts are the configuration file's aliases and hotkeys as the
// ui takes them (shortcuts).
type configShortcuts struct {
	aliases map[string]ui.Alias
	hotkeys map[string]string
}

// checkedConfig reads the configuration file at path (loadConfig) and
// checks what only kyyard's screens can: the key map against their key
// tables (checkedKeyMap), the aliases and hotkeys against kyyard's
// commands and keys (shortcuts). The dashboard and every subcommand start
// only with a file it accepts. Errors: loadConfig's, then every fault of
// the key map, then the first of the shortcuts, each naming its line.
func checkedConfig(path string) (*config.File, views.KeyMap, configShortcuts, error) {
	cfg, err := loadConfig(path)
	if err != nil {
		return nil, nil, configShortcuts{}, err
	}
	km, err := checkedKeyMap(cfg)
	if err != nil {
		return nil, nil, configShortcuts{}, err
	}
	aliases, hotkeys, err := shortcuts(cfg, km)
	if err != nil {
		return nil, nil, configShortcuts{}, err
	}
	return cfg, km, configShortcuts{aliases: aliases, hotkeys: hotkeys}, nil
}

// keyMap returns the configuration file's `keys:` section as the screens
// take it (views.KeyMap: "space" written as Bubble Tea names it).
func keyMap(cfg *config.File) views.KeyMap {
	if len(cfg.Keys) == 0 {
		return nil
	}
	km := make(views.KeyMap, len(cfg.Keys))
	for table, actions := range cfg.Keys {
		km[table] = make(map[string][]string, len(actions))
		for action, keys := range actions {
			names := make([]string, len(keys))
			for i, k := range keys {
				names[i] = views.KeyName(k)
			}
			km[table][action] = names
		}
	}
	return km
}

// checkedKeyMap returns the configuration file's key map once ui has
// checked it against the screens' key tables (ui.CheckKeyMap). The error
// names every fault, one per line, each with the file, its line and the
// entry.
func checkedKeyMap(cfg *config.File) (views.KeyMap, error) {
	km := keyMap(cfg)
	var faults []error
	for _, err := range ui.CheckKeyMap(km) {
		var kme *ui.KeyMapError
		if !errors.As(err, &kme) {
			faults = append(faults, err)
			continue
		}
		at := make([]any, len(kme.Path))
		for i, p := range kme.Path {
			at[i] = p
		}
		faults = append(faults, cfg.ErrorAt(at, "%s", kme.Msg))
	}
	if len(faults) > 0 {
		return nil, errors.Join(faults...)
	}
	return km, nil
}
