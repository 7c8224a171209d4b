package views

import "github.com/kyyard/kyyard/kube"

// OpenLogsMsg asks the root to push the log viewer (views/logs) for a
// pod, one of its containers, or a workload's pods (`l`, and `p` for the
// previous container's logs).
type OpenLogsMsg struct {
	// Request names the object and the options (Options.Previous for
	// `p`); the viewer adds follow, since and tail as the person chooses.
	Request kube.LogRequest
	// Across, when set, are objects of several clusters whose logs are
	// merged in timestamp order (a fleet screen's `l` on rows of several
	// contexts); Request then carries only the options.
	Across []ContextLogRequest
	// Beside asks for the viewer in the other pane of a split screen,
	// split first when it is not (`L`), the keys staying with the screen
	// that asked. Where there is no other pane to show it in (a screen
	// of one cluster of a fleet, several clusters' logs, a terminal too
	// small for two panes) the viewer opens as for `l`.
	Beside bool
}

// ContextLogRequest is one object's logs in one kubeconfig context.
type ContextLogRequest struct {
	// Context is the kubeconfig context's name.
	Context string
	// Request names the object.
	Request kube.LogRequest
}

// OpenShellMsg asks the root to open a shell (views/exec) in a pod's
// container (`s` on a pod or a container row).
type OpenShellMsg struct {
	// Namespace, Pod and UID name the pod as the person saw it.
	Namespace, Pod, UID string
	// Container is the container row's container; "" for a pod row (the
	// only container, or a picker).
	Container string
}

// OpenPortForwardMsg asks the root to open the port-forward dialog for a
// pod, a Service or a workload (`shift+f`).
type OpenPortForwardMsg struct {
	// Kind is the row's plugin id.
	Kind kube.Kind
	// Namespace, Name and UID name the object as the person saw it.
	Namespace, Name, UID string
}

// OpenForwardsMsg asks the root to show the active port-forwards (`:pf`).
type OpenForwardsMsg struct{}

// OpenCopyMsg asks the root to open the file copy screen (views/filecopy)
// of a pod's container (`T` on a pod or a container row).
type OpenCopyMsg struct {
	// Namespace, Pod and UID name the pod as the person saw it.
	Namespace, Pod, UID string
	// Container is the container row's container; "" for a pod row (the
	// only container, or a choice on the screen).
	Container string
}

// OpenOwnerTreeMsg asks the root to open the owner tree (views/ownertree)
// of an object of any kind (`o` on a row).
type OpenOwnerTreeMsg struct {
	// Kind is the row's plugin id; Namespace and Name name the object.
	Kind            kube.Kind
	Namespace, Name string
}

// OpenEventsMsg asks the root to open the events (views/events) of an
// object of any kind and of what it owns (`v` on a row).
type OpenEventsMsg struct {
	// Kind is the row's plugin id; Namespace and Name name the object.
	Kind            kube.Kind
	Namespace, Name string
}
