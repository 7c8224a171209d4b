package inventory

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// podOf returns the namespace, pod name and pod UID behind the cursor row:
// the row itself on pods, the pod the containers belong to on containers
// (its UID is the part of the row's before "/"), and the container's name
// there. ok is false on other kinds or without a row.
func (m *Model) podOf(row *kube.Row) (ns, pod, uid, container string, ok bool) {
	switch m.info.ID {
	case kube.KindPods:
		return row.Namespace, row.Name, row.UID, "", true
	case kube.KindContainers:
		_, parent, found := strings.Cut(m.parent, "/")
		if !found {
			return "", "", "", "", false
		}
		podUID, _, _ := strings.Cut(row.UID, "/")
		return row.Namespace, parent, podUID, row.Name, true
	}
	return "", "", "", "", false
}

// logs asks the root for the log viewer of the cursor row (`l`, or `p`
// for the previous container's logs): a pod, a container or a workload.
func (m *Model) logs(previous bool) tea.Cmd { return m.logsOf(previous, false) }

// logsBeside asks the root for the cursor row's logs in the other pane of
// a split screen (`L`), splitting it first.
func (m *Model) logsBeside() tea.Cmd { return m.logsOf(false, true) }

// logsOf asks for the cursor row's logs (previous: the previous
// container's), beside: in the other pane.
func (m *Model) logsOf(previous, beside bool) tea.Cmd {
	row := m.current()
	if row == nil {
		return nil
	}
	kind := m.info.ID
	if !m.info.Capabilities.Has(kube.CanLogs) {
		return views.Status(m.info.NotOffered("logs"), false)
	}
	req := kube.LogRequest{Kind: kind, Namespace: row.Namespace, Name: row.Name, UID: row.UID}
	if ns, pod, uid, container, ok := m.podOf(row); ok {
		req = kube.LogRequest{Kind: kube.KindPods, Namespace: ns, Name: pod, UID: uid, Container: container}
	} else if kind == kube.KindContainers {
		return views.Status("containers are parts of pods: open the pod to see them", false)
	}
	req.Options = kube.LogOptions{Follow: !previous, Previous: previous, TailLines: -1}
	msg := views.OpenLogsMsg{Request: req, Beside: beside}
	return func() tea.Msg { return msg }
}

// shell asks the root for a shell in the cursor row's pod or container
// (`s` on a kind whose plugin has kube.CanExec); elsewhere `s` is scale
// (see operate).
func (m *Model) shell() tea.Cmd {
	row := m.current()
	if row == nil {
		return nil
	}
	ns, pod, uid, container, ok := m.podOf(row)
	if !ok {
		return views.Status(fmt.Sprintf("a shell opens in pods and containers, not in %s", m.info.ID), false)
	}
	if m.vc.ReadOnly() {
		return views.Refuse(kube.ActionShell, kube.ReasonReadOnly, "kyyard runs read-only (--readonly): no shell is opened",
			kube.ObjectRef{Kind: kube.KindPods, Namespace: ns, Name: pod, UID: uid})
	}
	if why := m.off[kube.ActionShell]; why != "" {
		return views.Refuse(kube.ActionShell, kube.ReasonForbidden, fmt.Sprintf("shell is disabled: %s; nothing was sent", why),
			kube.ObjectRef{Kind: kube.KindPods, Namespace: ns, Name: pod, UID: uid})
	}
	msg := views.OpenShellMsg{Namespace: ns, Pod: pod, UID: uid, Container: container}
	return func() tea.Msg { return msg }
}

// copyFiles asks the root for the file copy screen of the cursor row's
// pod or container (`T`). A copy runs tar over pods/exec, so it is
// refused where a shell is: read-only mode, or create pods/exec denied.
func (m *Model) copyFiles() tea.Cmd {
	row := m.current()
	if row == nil {
		return nil
	}
	ns, pod, uid, container, ok := m.podOf(row)
	if !ok {
		return views.Status(fmt.Sprintf("files are copied to and from pods and containers, not %s", m.info.ID), false)
	}
	ref := kube.ObjectRef{Kind: kube.KindPods, Namespace: ns, Name: pod, UID: uid}
	if m.vc.ReadOnly() {
		return views.Refuse(kube.ActionCopy, kube.ReasonReadOnly, "kyyard runs read-only (--readonly): no file is copied (a copy runs tar over pods/exec)", ref)
	}
	if why := m.off[kube.ActionShell]; why != "" {
		return views.Refuse(kube.ActionCopy, kube.ReasonForbidden, fmt.Sprintf("file copy is disabled: %s (a copy runs tar over pods/exec); nothing was sent", why), ref)
	}
	msg := views.OpenCopyMsg{Namespace: ns, Pod: pod, UID: uid, Container: container}
	return func() tea.Msg { return msg }
}

// ownerTree asks the root for the owner tree of the cursor row's object
// (`o`); a container's is its pod's.
func (m *Model) ownerTree() tea.Cmd {
	row := m.current()
	if row == nil {
		return nil
	}
	msg := views.OpenOwnerTreeMsg{Kind: m.info.ID, Namespace: row.Namespace, Name: row.Name}
	if m.info.PartOf != "" {
		ns, pod, _, _, ok := m.podOf(row)
		if !ok {
			return views.Status(fmt.Sprintf("%s are parts of %s: open the %s's owner tree", m.info.ID, m.info.PartOf, m.info.PartOf), false)
		}
		msg = views.OpenOwnerTreeMsg{Kind: kube.KindPods, Namespace: ns, Name: pod}
	}
	return func() tea.Msg { return msg }
}

// events asks the root for the events of the cursor row's object and of
// what it owns (`v`); a container's are its pod's.
func (m *Model) events() tea.Cmd {
	cmd := m.ownerTree()
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		if o, ok := cmd().(views.OpenOwnerTreeMsg); ok {
			return views.OpenEventsMsg{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
		}
		return cmd()
	}
}

// portForward asks the root for the port-forward dialog of the cursor row
// (`shift+f`): a pod, a Service or a workload.
func (m *Model) portForward() tea.Cmd {
	row := m.current()
	if row == nil {
		return nil
	}
	if !m.info.Supports(kube.ActionPortForward) {
		return views.Status(m.info.NotOffered(kube.ActionPortForward), false)
	}
	if why := m.off[kube.ActionPortForward]; why != "" {
		// Not a write (allowed in read-only mode): said, not kept in the
		// history.
		return views.Status(fmt.Sprintf("port-forward is disabled: %s", why), true)
	}
	if ns, pod, uid, _, ok := m.podOf(row); ok {
		msg := views.OpenPortForwardMsg{Kind: kube.KindPods, Namespace: ns, Name: pod, UID: uid}
		return func() tea.Msg { return msg }
	} else if m.info.PartOf != "" {
		return views.Status(fmt.Sprintf("%s are parts of %s: open the %s to see them", m.info.ID, m.info.PartOf, m.info.PartOf), false)
	}
	msg := views.OpenPortForwardMsg{Kind: m.info.ID, Namespace: row.Namespace, Name: row.Name, UID: row.UID}
	return func() tea.Msg { return msg }
}
