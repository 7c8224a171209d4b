package ui

// :create: a new object from a kind's template or a file (views/create).

import (
	"fmt"
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/create"
)

// maxCreateFile is the largest file `:create -f` reads (bytes): larger
// manifests go through `kyyard apply -f`.
const maxCreateFile = 1 << 20

// createArgs are what the prompt completes after `:create`: the kinds
// people make most, and -f.
func createArgs(m *Model, _ string) []string {
	out := []string{"-f"}
	for _, n := range preferredNames {
		if _, ok := m.vc.Client.Kind(n); ok {
			out = append(out, n)
		}
	}
	return out
}

// runCreate opens the :create screen: `:create <kind> [namespace]` on the
// kind's template (in the namespace shown when none is named), `:create
// -f <file>` on the file's text.
func (m *Model) runCreate(l commandLine) tea.Cmd {
	cr, ok := m.vc.Client.(create.Creator)
	if !ok {
		m.status = views.StatusMsg{Text: ":create is not available with this client", Error: true}
		return nil
	}
	req := create.Request{Namespace: m.singleNamespace()}
	switch {
	case len(l.args) == 0:
		m.status = views.StatusMsg{Error: true, Text: "name a kind or a file: :create configmap, :create deploy demo, :create -f web.yaml"}
		return nil
	case l.args[0] == "-f":
		if len(l.args) != 2 {
			m.status = views.StatusMsg{Error: true, Text: ":create -f takes one file: :create -f web.yaml"}
			return nil
		}
		text, err := readCreateFile(l.args[1])
		if err != nil {
			m.status = views.StatusMsg{Error: true, Text: views.ErrText(err)}
			return nil
		}
		req.Text, req.Source = text, l.args[1]
	default:
		req.Kind = kube.Kind(l.args[0])
		if info, ok := m.vc.Client.Kind(l.args[0]); ok {
			req.Kind = info.ID // "cm" is "configmaps" on the screen and in :history
		}
		if len(l.args) == 2 {
			if l.args[1] == "all" || l.args[1] == "-A" {
				m.status = views.StatusMsg{Error: true, Text: "a new object goes to one namespace: :create " + l.args[0] + " <namespace>"}
				return nil
			}
			if req.Namespace, ok = m.commandNamespace(l.args[1]); !ok {
				return nil
			}
			if kube.SeveralNamespaces(req.Namespace) {
				m.status = views.StatusMsg{Error: true, Text: "a new object goes to one namespace: :create " + l.args[0] + " <namespace>"}
				return nil
			}
		}
	}
	m.status = views.StatusMsg{}
	return m.push(create.New(m.vc, cr, m.yamlEditor, req), false)
}

// readCreateFile reads a file for :create, at most maxCreateFile bytes.
// Errors: it cannot be read, is a folder, or is larger.
func readCreateFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.IsDir() {
		return "", fmt.Errorf("%s is not a file (a folder goes through kyyard apply -f)", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxCreateFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxCreateFile {
		return "", fmt.Errorf("%s is over 1 MiB: apply it with kyyard apply -f", path)
	}
	return string(b), nil
}
