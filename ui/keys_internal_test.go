package ui

import (
	"slices"
	"testing"
)

// TestTypedActionsExist: every action typedActions names is an action of
// its table, and the table is one the root passes keys to (the others
// refuse every chord already).
func TestTypedActionsExist(t *testing.T) {
	byName := map[string]KeyTable{}
	for _, table := range KeyTables() {
		byName[table.Name] = table
	}
	for name, actions := range typedActions {
		table, ok := byName[name]
		if !ok || !table.Root {
			t.Errorf("typedActions: %s is no table the root passes keys to", name)
			continue
		}
		var names []string
		for _, a := range table.Actions(nil) {
			names = append(names, a.Name)
		}
		for _, a := range actions {
			if !slices.Contains(names, a) {
				t.Errorf("typedActions: %s has no action %s (its actions: %v)", name, a, names)
			}
		}
	}
}
