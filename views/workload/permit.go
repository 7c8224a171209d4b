package workload

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// The form says up front when it cannot be applied, rather than at
// ctrl+s: in read-only mode, or when the API server denies the user the
// patch an apply is (a SelfSubjectAccessReview, kube.ActionEdit, asked
// once when the form opens; kube keeps the answer 30 s). The form still
// opens, to look; ctrl+s still previews, and the guards refuse there.

// permitTimeout bounds the access review; without an answer nothing is said.
const permitTimeout = 10 * time.Second

// permitMsg carries why the workload may not be patched (the access
// review's sentence, "" when it may).
type permitMsg struct {
	owner *Model
	why   string
}

// permitter returns what says which actions the user may not do: the
// editor, else the client; ok false when neither does.
func (m *Model) permitter() (views.Permitter, bool) {
	if p, ok := m.editor.(views.Permitter); ok {
		return p, true
	}
	p, ok := m.vc.Client.(views.Permitter)
	return p, ok
}

// permitCmd finds out whether the workload read may be patched: read-only
// mode says so at once; otherwise the Permitter is asked off the UI
// goroutine. nil when there is nothing to ask.
func (m *Model) permitCmd() tea.Cmd {
	if m.vc.ReadOnly() {
		m.forbidden = "applying is off: kyyard runs read-only (--readonly or the context's setting)"
		return nil
	}
	p, ok := m.permitter()
	if !ok {
		return nil
	}
	owner, ref := m, m.ref
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), permitTimeout)
		defer cancel()
		return permitMsg{owner: owner, why: p.Permissions(ctx, ref.Kind, ref.Namespace)[kube.ActionEdit]}
	}
}
