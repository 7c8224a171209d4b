package workload

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/rollout"
)

// Editor is what the workload screens read and write through; *kube.Client
// is one. Errors may be a *kube.Refusal (a guard or the API server refused,
// with a reason code and detail); others carry a kube.ReasonOf reason.
type Editor interface {
	// ReadWorkload reads the workload's editable part at its current
	// resourceVersion.
	ReadWorkload(ctx context.Context, ref kube.WorkloadRef) (kube.Workload, error)
	// DryRun runs the guards and a server-side dry run of the patch that
	// turns before into after, writing nothing.
	DryRun(ctx context.Context, before, after kube.Workload) (kube.Preview, error)
	// ApplyWorkload writes the patch that turns before into after, with
	// before's resourceVersion as precondition; confirmed are the reasons
	// of the warnings the person confirmed.
	ApplyWorkload(ctx context.Context, before, after kube.Workload, confirmed []kube.Reason) (kube.ApplyResult, error)
	// RolloutStatus reads where the workload's rollout stands.
	RolloutStatus(ctx context.Context, ref kube.WorkloadRef) (kube.RolloutStatus, error)
}

// Owners is implemented by an Editor that can tell which workload a pod
// or a ReplicaSet belongs to (*kube.Client's WorkloadOf): the screen then
// opens on a pod's or ReplicaSet's row edit its Deployment, StatefulSet or
// DaemonSet. Errors: the object has no such owner (kube.ErrNotManaged),
// or cannot be read.
type Owners interface {
	WorkloadOf(ctx context.Context, kind kube.Kind, namespace, name string) (kube.WorkloadRef, error)
}

// errNotWorkload is the error of opening the form on a kind it does not
// edit, without an Owners to find the workload.
var errNotWorkload = errors.New("are edited through the Deployment, StatefulSet or DaemonSet that owns them")

// Budgets of one call to the Editor.
const (
	callTimeout = 30 * time.Second
	// DefaultRolloutDeadline is how long the rollout screen follows a
	// rollout before it says rollout_timeout (rollout.DefaultDeadline).
	DefaultRolloutDeadline = rollout.DefaultDeadline
)

// readPurpose says why the workload was read.
type readPurpose int

const (
	readOpen   readPurpose = iota // the form opens
	readRebase                    // read again after a conflict: the edits are laid onto it
	readEdit                      // e on the rollout page: the form opens on the object as it is now
	readUndo                      // u after an undo refused as a conflict: the undo is laid onto it
)

// readMsg carries a finished ReadWorkload.
type readMsg struct {
	owner   *Model
	token   int
	purpose readPurpose
	ref     kube.WorkloadRef // the workload read (a pod's owner, resolved)
	w       kube.Workload
	err     error
}

// dryRunMsg carries a finished DryRun.
type dryRunMsg struct {
	owner   *Model
	token   int
	preview kube.Preview
	err     error
}

// applyMsg carries a finished ApplyWorkload; undo marks the undo of a
// failed rollout.
type applyMsg struct {
	owner         *Model
	token         int
	undo          bool
	before, after kube.Workload
	confirmed     []kube.Reason
	result        kube.ApplyResult
	err           error
}

// next starts a new call: answers of older calls are dropped.
func (m *Model) next() int {
	m.token++
	return m.token
}

// readCmd reads m.ref. The first read (readOpen) of an object whose kind
// the form does not edit itself (its KindInfo does not support
// kube.ActionEdit: a pod, a ReplicaSet) asks Owners for the workload that
// owns it; later reads are of that workload.
func (m *Model) readCmd(purpose readPurpose) tea.Cmd {
	owner, token, ed, ref := m, m.next(), m.editor, m.ref
	owned := purpose != readOpen || m.kind.Supports(kube.ActionEdit)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		if !owned {
			o, ok := ed.(Owners)
			if !ok {
				return readMsg{owner: owner, token: token, purpose: purpose, ref: ref,
					err: fmt.Errorf("%s %w", ref.Kind, errNotWorkload)}
			}
			owned, err := o.WorkloadOf(ctx, ref.Kind, ref.Namespace, ref.Name)
			if err != nil {
				return readMsg{owner: owner, token: token, purpose: purpose, ref: ref, err: err}
			}
			ref = owned
		}
		w, err := ed.ReadWorkload(ctx, ref)
		return readMsg{owner: owner, token: token, purpose: purpose, ref: ref, w: w, err: err}
	}
}

func (m *Model) dryRunCmd(before, after kube.Workload) tea.Cmd {
	owner, token, ed := m, m.next(), m.editor
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		p, err := ed.DryRun(ctx, before, after)
		return dryRunMsg{owner: owner, token: token, preview: p, err: err}
	}
}

func (m *Model) applyCmd(before, after kube.Workload, confirmed []kube.Reason, undo bool) tea.Cmd {
	owner, token, ed := m, m.next(), m.editor
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		res, err := ed.ApplyWorkload(ctx, before, after, confirmed)
		msg := applyMsg{owner: owner, token: token, undo: undo, before: before, after: after,
			confirmed: confirmed, result: res, err: err}
		return views.Answer(owner, msg, views.StatusMsg{}, applyOutcome(msg))
	}
}

func (m *Model) statusCmd() tea.Cmd { return m.ro.f.Read(m.editor) }
