package helm

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/kyyard/kyyard/views"
)

// ReleasesKeys are the Helm releases list's bindings (:helm): its key
// table is "helm".
type ReleasesKeys struct {
	// Up and Down move the cursor.
	Up, Down key.Binding
	// Open shows the release's revisions (enter).
	Open key.Binding
	// Values and Manifest show the latest revision's values and manifest
	// (v, m).
	Values, Manifest key.Binding
	// Refresh reads the releases again (ctrl+r).
	Refresh key.Binding
}

// ReleasesKeyTable is the name of the releases list's keys in the
// configuration file's key map (views.KeyMap): `keys: {helm: {ACTION:
// KEYS}}`.
const ReleasesKeyTable = "helm"

// DefaultReleasesKeys returns the releases list's default bindings.
func DefaultReleasesKeys() ReleasesKeys {
	return ReleasesKeys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "the release's revisions (diff, rollback)")),
		Values:   key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "the latest revision's values")),
		Manifest: key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "the latest revision's manifest (Secret values as sizes)")),
		Refresh:  key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "read again")),
	}
}

// HistoryKeys are the bindings of a release's revisions: their key table
// is "helm-history".
type HistoryKeys struct {
	// Up and Down move the cursor.
	Up, Down key.Binding
	// Values shows the selected revision's values as given (v, enter);
	// AllValues with the chart's defaults (V); Manifest its manifest (m).
	Values, AllValues, Manifest key.Binding
	// Mark marks the selected revision to diff from, or unmarks it
	// (space).
	Mark key.Binding
	// Diff diffs the marked revision (else the one before) against the
	// selected one (d).
	Diff key.Binding
	// Rollback plans the rollback to the selected revision, confirmed on
	// its own screen (r).
	Rollback key.Binding
	// Refresh reads the revisions again (ctrl+r).
	Refresh key.Binding
}

// HistoryKeyTable is the name of the revisions' keys in the configuration
// file's key map: `keys: {helm-history: {ACTION: KEYS}}`.
const HistoryKeyTable = "helm-history"

// DefaultHistoryKeys returns the revisions' default bindings.
func DefaultHistoryKeys() HistoryKeys {
	return HistoryKeys{
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Values:    key.NewBinding(key.WithKeys("v", "enter"), key.WithHelp("v/enter", "the revision's values (as given)")),
		AllValues: key.NewBinding(key.WithKeys("V"), key.WithHelp("V", "its values with the chart's defaults (helm get values --all)")),
		Manifest:  key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "its manifest (Secret values as sizes)")),
		Mark:      key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "mark the revision to diff from (again: unmark)")),
		Diff:      key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "diff: the marked revision (else the one before) → the selected one")),
		Rollback:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "roll back to the selected revision (planned and confirmed first)")),
		Refresh:   key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "read again")),
	}
}

// RollbackKeys are the bindings of a rollback's plan and run: their key
// table is "helm-rollback".
type RollbackKeys struct {
	// Rollback rolls the release back, once the plan is shown (y).
	Rollback key.Binding
	// Cancel leaves the plan: nothing is sent (n).
	Cancel key.Binding
	// Back leaves the screen, but while the rollback runs (Helm runs it to
	// its end) (esc).
	Back key.Binding
	// ScrollKeys scroll the plan (the verdicts, the objects, the diff).
	views.ScrollKeys
}

// RollbackKeyTable is the name of the rollback's keys in the
// configuration file's key map: `keys: {helm-rollback: {ACTION: KEYS}}`.
const RollbackKeyTable = "helm-rollback"

// DefaultRollbackKeys returns the rollback's default bindings.
func DefaultRollbackKeys() RollbackKeys {
	return RollbackKeys{
		Rollback:   key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "roll back (after the plan)")),
		Cancel:     key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "cancel: nothing is sent")),
		Back:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel: nothing is sent")),
		ScrollKeys: views.DefaultScrollKeys(),
	}
}
