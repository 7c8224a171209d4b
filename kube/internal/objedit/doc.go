// Package objedit holds the parts of editing one object of any kind as
// YAML (what `kubectl edit` does) that need no cluster, and the Editor
// that reads, plans and sends such an edit: the text a person edits
// (Shown: managedFields and status left out, a Secret's values decoded),
// the edited text read back (Parse, Stored), the patch of only what
// changed (Patch: a strategic merge patch for kinds built into the API
// server, a JSON merge patch for the others, as kubectl edit chooses,
// with the resourceVersion read as its precondition), and the rebase of a
// person's changes onto an object another writer changed meanwhile
// (Rebase: re-applied where they do not collide, named where they do).
package objedit
