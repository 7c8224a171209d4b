package vocab

import (
	"hash"
	"slices"
	"strings"
	"time"
)

// SnapshotRequest says what a screen wants to see.
type SnapshotRequest struct {
	// Kinds are plugin ids or aliases; each becomes one Table.
	Kinds []Kind
	// Namespace scopes namespaced kinds: "" means all namespaces; a name
	// one namespace; names joined by commas ("shop,web", JoinNamespaces)
	// several, each read on its own (as a user allowed into some
	// namespaces only may), their rows together.
	Namespace string
	// Selector narrows every kind's objects (a drill-down: a Deployment's
	// pods, a Node's pods). A kind that is part of another (containers)
	// needs Fields "metadata.name=<parent>".
	Selector Selector
}

// Truncation names a kind a Snapshot could not read, and why.
type Truncation struct {
	// Kind is the kind as it was asked for.
	Kind Kind
	// Reason classifies the failure (forbidden, unavailable, timeout, ...).
	Reason Reason
	// Message is the API server's own message, for the details line.
	Message string
}

// Snapshot is the inventory one screen asked for, read at one moment.
type Snapshot struct {
	// Namespace is the request's namespace ("" for all namespaces).
	Namespace string
	// Tables holds one table per kind that could be read, in request order.
	Tables []Table
	// Truncated names every kind that could not be read; the others are
	// still in Tables (one forbidden list never blanks the screen).
	Truncated []Truncation
	// Generation changes only when the rows or truncations changed since the
	// previous snapshot of the same request, so an idle screen does no work.
	// It is at least 1, and no two requests (another selector, namespace or
	// kind) ever share one, so a screen whose request changed always sees a
	// new generation.
	Generation uint64
	// Taken is when the reads finished.
	Taken time.Time
}

// SplitNamespaces returns the namespaces a SnapshotRequest.Namespace
// names, sorted and without repeats or empty names: none for "" (all
// namespaces), one for a name, several for names joined by commas.
func SplitNamespaces(ns string) []string {
	if ns == "" {
		return nil
	}
	var out []string
	for _, n := range strings.Split(ns, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// JoinNamespaces writes namespaces as a SnapshotRequest.Namespace: sorted,
// without repeats, joined by commas; "" (all namespaces) for none.
func JoinNamespaces(nss []string) string {
	return strings.Join(SplitNamespaces(strings.Join(nss, ",")), ",")
}

// SeveralNamespaces reports whether a SnapshotRequest.Namespace names more
// than one namespace.
func SeveralNamespaces(ns string) bool { return len(SplitNamespaces(ns)) > 1 }

// Table returns the table of a kind, if it was read.
func (s Snapshot) Table(kind Kind) (Table, bool) {
	for _, t := range s.Tables {
		if t.Kind == kind {
			return t, true
		}
	}
	return Table{}, false
}

// Truncation returns why a kind could not be read, if it could not.
func (s Snapshot) Truncation(kind Kind) (Truncation, bool) {
	for _, t := range s.Truncated {
		if t.Kind == kind {
			return t, true
		}
	}
	return Truncation{}, false
}

// HashStrings adds values to h, each ended by a NUL (so "a","b" and "ab"
// differ): how a snapshot's rows and a metrics sample are hashed into the
// generation that says whether they changed.
func HashStrings(h hash.Hash64, values ...string) {
	for _, v := range values {
		h.Write([]byte(v))
		h.Write([]byte{0})
	}
}
