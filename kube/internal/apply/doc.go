// Package apply holds the parts of a server-side apply from YAML (as
// `kubectl apply --server-side -f` does it) that need no cluster: the
// documents parsed from a file, a folder or text a person edited (Parse,
// ReadPaths), the per-field conflicts of the API server's 409 with the
// field managers that own them (ConflictsOf), and the diff of a server
// dry run's result against the live object, status and bookkeeping left
// out and a Secret's values masked (Diff).
package apply
