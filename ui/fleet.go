package ui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/drift"
	"github.com/kyyard/kyyard/views/fleet"
	"github.com/kyyard/kyyard/views/inventory"
)

// Screens across several clusters. While a fleet is chosen (--contexts,
// --fleet, :fleet) every kind a `:` command or a picker opens shows the
// rows of all its contexts (a views/fleet Source, the inventory's CONTEXT
// column), and a screen opened from one of those rows (describe, logs, a
// confirmation...) is that row's cluster's alone: the root handles what a
// row asks for (a views.ContextMsg) with a Context whose client is that
// cluster's (memberVC), and remembers it for each screen of the stack
// (tags), so that what such a screen asks for later goes to its cluster
// too (within). Switching to one context (:ctx, enter on :clusters) leaves
// the fleet.

// across is the fleet the root shows kinds across.
type across struct {
	// src reads every context; vc is the Context of its screens.
	src *fleet.Source
	vc  *views.Context
	// members are the Contexts of one cluster each, made as asked.
	members map[string]*views.Context
}

// fleetVC returns the Context of screens across the chosen fleet, made
// (connecting in the background) on first use; nil when no fleet is
// chosen, or kyyard has no kubeconfig.
func (m *Model) fleetVC() *views.Context {
	if !m.fleetOn || m.fleet == nil || m.kubeconfig == nil {
		return nil
	}
	if m.across == nil {
		home := m.context
		if home == "" {
			_, home, _ = m.kubeconfig.Contexts()
		}
		vc := *m.vc
		var opts []fleet.Option
		if k, ok := m.kubeconfig.(contextNamespaces); ok {
			if ns, err := k.ContextNamespace(home); err == nil {
				opts = append(opts, fleet.WithHomeNamespace(ns)) // not -n's
			}
		}
		src := fleet.New(m.kubeconfig, m.fleet, home, m.vc.Client, opts...)
		vc.Client = src
		m.across = &across{src: src, vc: &vc, members: map[string]*views.Context{}}
	}
	return m.across.vc
}

// contextNamespaces is a kubeconfig that says a context's own namespace
// (cmd's: the kubeconfig's, else "default", whatever -n chose).
type contextNamespaces interface {
	ContextNamespace(name string) (string, error)
}

// leaveFleet closes the fleet's connections (not the root's own) and opens
// kinds in one context again; the screens that read it are closed by the
// caller.
func (m *Model) leaveFleet() {
	m.fleetOn = false
	if m.namespace == views.OwnNamespaces {
		m.namespace = m.vc.Client.Namespace()
	}
	if m.across != nil {
		m.across.src.Close()
		m.across = nil
	}
}

// memberVC returns the Context of one cluster of the fleet.
// Errors: no fleet is shown, or the context is not connected.
func (m *Model) memberVC(name string) (*views.Context, error) {
	if m.across == nil {
		return nil, fmt.Errorf("context %s: no fleet is shown any more; nothing was sent", views.Sanitize(name))
	}
	if vc, ok := m.across.members[name]; ok {
		return vc, nil
	}
	src, ok := m.across.src.Member(name)
	if !ok {
		return nil, fmt.Errorf("context %s is not connected; nothing was sent", views.Sanitize(name))
	}
	vc := *m.vc
	vc.Client, vc.Name = src, name
	m.across.members[name] = &vc
	return &vc, nil
}

// inContext handles a message about one cluster's object (views.ContextMsg).
func (m *Model) inContext(msg views.ContextMsg) tea.Cmd {
	vc, err := m.memberVC(msg.Context)
	if err != nil {
		switch msg.Msg.(type) {
		case views.AnswerMsg, views.OutcomesMsg:
			// A write's outcome outlives the fleet it was sent in: it
			// is recorded under its context all the same.
			named := *m.vc
			named.Name = msg.Context
			return m.within(&named, msg.Msg)
		}
		m.status = views.StatusMsg{Error: true, Text: err.Error()}
		return nil
	}
	return m.within(vc, msg.Msg)
}

// within handles msg with vc as the root's Context: the screens it opens
// read vc's cluster and are tagged with it.
func (m *Model) within(vc *views.Context, msg tea.Msg) tea.Cmd {
	home, outer := m.vc, m.routing
	m.vc, m.routing = vc, vc
	_, cmd := m.Update(msg)
	m.vc, m.routing = home, outer
	return cmd
}

// routable reports whether msg asks the root for something about an
// object of the cluster of the screen that sent it: it is handled with
// that screen's Context (within).
func routable(msg tea.Msg) bool {
	switch msg.(type) {
	case views.OpenKindMsg, views.OpenObjectMsg, views.PushMsg, views.OpenWorkloadMsg, views.OpenYAMLEditMsg,
		views.OpenSecretMsg, views.OpenDrainMsg, views.OperateMsg, views.ActionsMsg, views.OpenRolloutMsg,
		views.OpenShellMsg, views.OpenLogsMsg, views.OpenPortForwardMsg, views.OpenCopyMsg, views.OpenOwnerTreeMsg,
		views.OpenEventsMsg, views.OutcomesMsg, views.AnswerMsg:
		return true
	}
	return false
}

// route handles a routable message from a screen of one cluster of the
// fleet (the top screen's tag) with that cluster's Context; ok is false
// when the message is the root's own.
func (m *Model) route(msg tea.Msg) (tea.Cmd, bool) {
	if m.routing != nil || !routable(msg) {
		return nil, false
	}
	vc := m.tags[len(m.tags)-1]
	if a, ok := msg.(views.AnswerMsg); ok && a.Owner != nil {
		// An answer belongs to the screen that asked, wherever it is.
		vc = nil
		for i, s := range m.stack {
			if s == a.Owner {
				vc = m.tags[i]
			}
		}
	}
	if vc == nil || vc.Name == "" {
		return nil, false
	}
	return m.within(vc, msg), true
}

// tag is what a screen pushed now is tagged with: the Context of the
// cluster it reads when it is not the root's own.
func (m *Model) tag() *views.Context { return m.routing }

// tagLabel names the cluster of the stack's screen i in the title bar:
// "@prod-eu" for one cluster of a fleet, "@fleet prod" (or "@3
// contexts") for a screen across a fleet; "" for the root's context.
func (m *Model) tagLabel(i int) string {
	vc := m.tags[i]
	switch {
	case vc == nil:
		return ""
	case vc.Name != "":
		return " @" + vc.Name
	case m.fleetName != "":
		return " @fleet " + m.fleetName
	}
	return fmt.Sprintf(" @%d contexts", len(m.fleet))
}

// resizeFleet gives the fleet's Contexts the root's size.
func (m *Model) resizeFleet() {
	if m.across == nil {
		return
	}
	m.across.vc.Width, m.across.vc.Height = m.vc.Width, m.vc.Height
	for _, vc := range m.across.members {
		vc.Width, vc.Height = m.vc.Width, m.vc.Height
	}
}

// openAcross shows a kind across the fleet (OpenKindMsg, from a `:`
// command or a picker, while a fleet is chosen).
func (m *Model) openAcross(msg views.OpenKindMsg, chosen bool) (tea.Cmd, bool) {
	vc := m.fleetVC()
	if vc == nil || m.routing != nil {
		return nil, false
	}
	home := m.vc
	m.vc, m.routing = vc, vc
	cmd := m.open(msg, chosen)
	m.vc, m.routing = home, nil
	return cmd, true
}

// startAcross replaces the first screen, an inventory of the root's
// context, with the same kind across the fleet (kyyard --contexts -c KIND),
// in each context's own namespace unless the command line chose one
// (WithNamespaceChosen).
func (m *Model) startAcross() {
	if !m.fleetOn {
		return
	}
	if !m.nsChosen {
		m.namespace = views.OwnNamespaces
	}
	ks, ok := m.stack[0].(*inventory.Model)
	if len(m.stack) != 1 || !ok || m.tags[0] != nil {
		return
	}
	vc := m.fleetVC()
	if vc == nil {
		return
	}
	if scr, err := inventory.New(vc, ks.Kind(), m.namespace); err == nil {
		m.stack[0], m.tags[0] = scr, vc
	}
}

// singleNamespace is the namespace of what reads one namespace (the
// namespace picker's, :apps, :helm, :create): while the fleet reads each
// context's own (views.OwnNamespaces), the context in use's; while
// several are shown (-n a,b), the first.
func (m *Model) singleNamespace() string {
	if m.namespace == views.OwnNamespaces {
		return m.vc.Client.Namespace()
	}
	if nss := kube.SplitNamespaces(m.namespace); len(nss) > 1 {
		return nss[0] // several (-n a,b): the first
	}
	return m.namespace
}

// chooseContexts shows several contexts at once (the context picker's
// marks): the top screen's kind opens across them, each in its own
// namespace (views.OwnNamespaces), as with --contexts without -n.
func (m *Model) chooseContexts(names []string) tea.Cmd {
	if m.closesWork("a switch to several contexts") {
		return nil
	}
	m.leaveFleet()
	m.fleet, m.fleetName, m.fleetOn = names, "", true
	m.namespace = views.OwnNamespaces
	return m.open(views.OpenKindMsg{Kind: m.topKind(), Namespace: m.namespace, Replace: true}, false)
}

// openDrift pushes the drift screen of one workload across the fleet
// (=): every context of the fleet, in its order, read through its own
// connection; one not connected (yet) is a column saying so.
func (m *Model) openDrift(msg views.OpenDriftMsg) tea.Cmd {
	if m.across == nil {
		m.status = views.StatusMsg{Error: true, Text: "no fleet is shown: = compares a workload across the contexts of one (--contexts, :fleet NAME)"}
		return nil
	}
	var members []drift.Member
	for _, name := range m.across.src.Contexts() {
		mb := drift.Member{Context: name}
		if src, ok := m.across.src.Member(name); !ok {
			mb.Err = fmt.Errorf("%w: context %s is not connected (yet)", drift.ErrNotConnected, views.Sanitize(name))
		} else if r, ok := src.(drift.WorkloadReader); ok {
			mb.Reader = r
		}
		members = append(members, mb)
	}
	m.status = views.StatusMsg{}
	cmd := m.push(drift.New(m.across.vc, msg.Ref, members), false)
	m.tags[len(m.tags)-1] = m.across.vc
	return cmd
}
