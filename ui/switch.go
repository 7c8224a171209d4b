package ui

import (
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/pickers"
)

// Option configures a root model made by New.
type Option func(*Model)

// WithKubeconfig lets the root switch kubeconfig contexts (`:ctx`, the
// context picker) through k. Without it `:ctx` says that there is no
// kubeconfig to switch in (kyyard runs in a pod, or a test).
func WithKubeconfig(k views.Kubeconfig) Option {
	return func(m *Model) { m.kubeconfig = k }
}

// kindScreen is a screen that shows one kind in one namespace (an
// inventory screen): the namespace picker and `:ns <name>` replace it with
// the same kind elsewhere.
type kindScreen interface {
	Kind() kube.Kind
	Namespace() string
}

// contextsMsg carries the kubeconfig's contexts to open the context picker.
type contextsMsg struct {
	names   []string
	current string
	err     error
}

// connectedMsg carries a connection to another kubeconfig context, or why
// there is none.
type connectedMsg struct {
	context string
	source  views.Source
	err     error
	// seq is the switch it answers (Model.switchSeq): an answer to a
	// switch asked before the last one is dropped.
	seq int
}

// Overlay returns the picker open over the top screen, or nil.
func (m *Model) Overlay() views.Screen { return m.overlay }

// topKind returns the kind the top screen shows, "pods" when it shows no
// single kind.
func (m *Model) topKind() kube.Kind {
	if ks, ok := m.Top().(kindScreen); ok {
		return ks.Kind()
	}
	return "pods"
}

// openNamespacePicker opens the namespace picker for the top screen's kind,
// the namespace shown marked.
func (m *Model) openNamespacePicker() tea.Cmd {
	current := m.singleNamespace()
	if ks, ok := m.Top().(kindScreen); ok && ks.Namespace() != "" && ks.Namespace() != views.OwnNamespaces {
		current = ks.Namespace()
	}
	m.overlay = pickers.NewNamespaces(m.vc, m.topKind(), current)
	m.status = views.StatusMsg{}
	return m.overlay.Init()
}

// listContexts reads the kubeconfig's contexts for the context picker.
func (m *Model) listContexts() tea.Cmd {
	if m.kubeconfig == nil {
		m.status = noKubeconfig
		return nil
	}
	k := m.kubeconfig
	return func() tea.Msg {
		names, current, err := k.Contexts()
		return contextsMsg{names: names, current: current, err: err}
	}
}

var noKubeconfig = views.StatusMsg{Error: true, Text: "kyyard was not started from a kubeconfig: there are no contexts to switch to"}

// openContextPicker opens the context picker, the context in use marked.
func (m *Model) openContextPicker(msg contextsMsg) tea.Cmd {
	if msg.err != nil {
		m.status = views.StatusMsg{Error: true, Text: "cannot list contexts: " + msg.err.Error()}
		return nil
	}
	current := m.context
	if current == "" {
		current = msg.current
	}
	m.overlay = pickers.NewContexts(m.vc, msg.names, current)
	m.status = views.StatusMsg{}
	return m.overlay.Init()
}

// switchContext connects to the kubeconfig context name, off the Update
// loop; connected takes the result. A context the kubeconfig does not
// name is refused before anything changes.
func (m *Model) switchContext(name string) tea.Cmd {
	if m.kubeconfig == nil {
		m.status = noKubeconfig
		return nil
	}
	m.switchSeq++ // a switch still connecting is not wanted any more
	if m.hasFacts && name == m.facts.Context && m.fleetOn {
		// Out of the fleet, into this context alone: its pods.
		m.leaveFleet()
		return m.open(views.OpenKindMsg{Kind: "pods", Namespace: m.vc.Client.Namespace(), Replace: true}, false)
	}
	if m.hasFacts && name == m.facts.Context {
		// Already connected there: keep the screens and their namespace.
		m.status = views.StatusMsg{Text: "already in context " + name}
		return nil
	}
	k := m.kubeconfig
	seq := m.switchSeq
	m.status = views.StatusMsg{Text: "connecting to context " + views.Echo(name, m.width) + "…"}
	return func() tea.Msg {
		names, _, err := k.Contexts()
		if err != nil {
			return connectedMsg{context: name, err: err, seq: seq}
		}
		if !slices.Contains(names, name) {
			return connectedMsg{context: name, err: fmt.Errorf("unknown context %q (the kubeconfig has %s)", views.Echo(name, 0), strings.Join(names, ", ")), seq: seq}
		}
		src, err := k.Connect(name)
		return connectedMsg{context: name, source: src, err: err, seq: seq}
	}
}

// connected switches to a new connection: the same kind in the new
// context's namespace replaces the whole stack, the old connection is
// closed (its informers stopped), and the header's facts and the prompt's
// names are read again. An error changes nothing but the status line.
func (m *Model) connected(msg connectedMsg) tea.Cmd {
	if msg.seq != m.switchSeq {
		// A later switch was asked meanwhile: this one is not wanted.
		if msg.source != nil {
			views.CloseSource(msg.source)
		}
		return nil
	}
	if msg.err != nil {
		m.status = views.StatusMsg{Error: true, Text: "cannot switch to context " + views.Echo(msg.context, m.width) + ": " + msg.err.Error()}
		return nil
	}
	old := m.vc.Client
	ns := msg.source.Namespace()
	m.vc.Client = msg.source
	scr, err := inventory.New(m.vc, m.topKind(), ns)
	if err != nil { // a kind the new cluster does not serve
		scr, err = inventory.New(m.vc, "pods", ns)
	}
	if err != nil {
		m.vc.Client = old
		views.CloseSource(msg.source)
		m.status = views.StatusMsg{Error: true, Text: "cannot switch to context " + msg.context + ": " + err.Error()}
		return nil
	}
	m.release(old) // unless the other pane reads it
	m.epoch++
	m.context = msg.context
	m.facts, m.hasFacts, m.factsStale = kube.Facts{}, false, false
	m.namespace = ns
	closeScreens(m.stack...)
	m.stack, m.tags = []views.Screen{scr}, []*views.Context{nil}
	m.leaveFleet()
	m.overlay = nil
	m.nsNames, m.ctxNames = nil, nil
	m.status = views.StatusMsg{Text: "switched to context " + msg.context + ", namespace " + ns}
	return tea.Batch(scr.Init(), m.readFacts(), m.loadNames())
}
