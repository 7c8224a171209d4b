package pickers

import (
	"context"
	"slices"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// namespacesKind is the plugin id the namespace list is read with.
const namespacesKind kube.Kind = "namespaces"

// AllNamespaces is the label of the first choice of the namespace picker,
// whose value is "" (kubectl's --all-namespaces).
const AllNamespaces = "all namespaces"

// snapshotTimeout bounds the read of the namespace list.
const snapshotTimeout = 30 * time.Second

// snapshotMsg carries the namespace list to the picker that asked for it.
type snapshotMsg struct {
	owner *Model
	snap  kube.Snapshot
}

// NewNamespaces returns the namespace picker for a screen showing kind in
// current ("" is all namespaces; several "shop,web": each is marked in the
// list). Picking sends views.OpenKindMsg{Kind: kind, Namespace: picked,
// Replace: true}; tab marks several namespaces, and enter with two or more
// marked sends them as one namespace ("shop,web", kube.JoinNamespaces;
// issue 27); esc
// sends views.BackMsg. On a cluster-scoped kind the picker says that the
// namespace picked applies to namespaced kinds only. Init reads the list; when it cannot be read (any
// Truncation: forbidden, unavailable, ...), the picker says why and enter
// takes the typed text, refused unless it is a valid namespace name or
// several joined by commas (views.ParseNamespaces); "all" (or "-A") typed there is all
// namespaces, as in `:pods all`.
func NewNamespaces(vc *views.Context, kind kube.Kind, current string) *Model {
	m := newModel(vc, "namespace", current, func(ns string) tea.Cmd {
		if several, err := views.ParseNamespaces(ns); err == nil {
			ns = several // typed "web,shop"
		}
		return func() tea.Msg { return views.OpenKindMsg{Kind: kind, Namespace: ns, Replace: true} }
	})
	m.pickMany = func(nss []string) tea.Cmd {
		ns := kube.JoinNamespaces(nss)
		if slices.Contains(nss, "") {
			ns = "" // all namespaces marked among others: all
		}
		return func() tea.Msg { return views.OpenKindMsg{Kind: kind, Namespace: ns, Replace: true} }
	}
	m.title = "namespace for " + string(kind)
	if info, ok := vc.Client.Kind(string(kind)); ok && !info.Namespaced {
		// Picking still sets the namespace `:` commands open kinds in.
		m.title = "namespace for namespaced kinds"
		m.scope = string(info.ID) + " are cluster-scoped: the namespace picked applies to namespaced kinds"
	}
	m.validate = func(typed string) error {
		_, err := views.ParseNamespaces(typed)
		return err
	}
	m.allWords = []string{"all", "-A"}
	m.loading = true
	m.notice = "Reading namespaces… (type a name and press enter to go there now)"
	return m
}

// Init reads the namespace list of a namespace picker; a context picker
// has nothing to read.
func (m *Model) Init() tea.Cmd {
	if !m.loading {
		return nil
	}
	owner, client := m, m.vc.Client
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), snapshotTimeout)
		defer cancel()
		return snapshotMsg{owner: owner, snap: client.Snapshot(ctx, kube.SnapshotRequest{Kinds: []kube.Kind{namespacesKind}})}
	}
}

// apply takes the namespace list in, or the reason it could not be read.
func (m *Model) apply(msg snapshotMsg) {
	m.loading = false
	if t, ok := msg.snap.Truncation(namespacesKind); ok {
		m.typed = true
		m.input.Placeholder = "type a namespace name"
		m.notice = "Namespaces cannot be listed: " + t.Reason.Sentence() + ". Type a namespace name (or all) and press enter."
		m.setItems(nil)
		return
	}
	m.notice = ""
	t, _ := msg.snap.Table(namespacesKind)
	items := make([]item, 0, len(t.Rows)+1)
	items = append(items, item{label: AllNamespaces, value: ""})
	for _, r := range t.Rows {
		items = append(items, item{label: r.Name, value: r.Name})
	}
	m.setItems(items)
}
