package ui

// The screens of one object of any kind: its YAML edit, a Secret's decoded
// values, a Node's drain.

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/drain"
	"github.com/kyyard/kyyard/views/secret"
	"github.com/kyyard/kyyard/views/yamledit"
)

// WithYAMLEditor hands the terminal to hand for YAML edits (E, and e on a
// kind the workload form does not edit); without it, or with nil, the
// edit is typed in kyyard's own text area. cmd passes
// yamledit.ExecEditor of $KUBE_EDITOR or $EDITOR when one is set.
func WithYAMLEditor(hand yamledit.Handoff) Option {
	return func(m *Model) { m.yamlEditor = hand }
}

// openYAMLEdit pushes the YAML edit of one object when the client can edit
// objects as YAML (yamledit.Editor).
func (m *Model) openYAMLEdit(msg views.OpenYAMLEditMsg) tea.Cmd {
	ed, ok := m.vc.Client.(yamledit.Editor)
	if !ok {
		m.status = views.StatusMsg{Text: "YAML editing is not available with this client", Error: true}
		return nil
	}
	m.status = views.StatusMsg{}
	return m.push(yamledit.New(m.vc, ed, m.yamlEditor, msg), false)
}

// openSecret pushes the decoded view of a Secret when the client can read
// its values (secret.Reader).
func (m *Model) openSecret(msg views.OpenSecretMsg) tea.Cmd {
	rd, ok := m.vc.Client.(secret.Reader)
	if !ok {
		m.status = views.StatusMsg{Text: "the decoded view is not available with this client", Error: true}
		return nil
	}
	m.status = views.StatusMsg{}
	return m.push(secret.New(m.vc, rd, msg), false)
}

// openDrain pushes the drain of a Node when the client can drain
// (drain.Drainer).
func (m *Model) openDrain(msg views.OpenDrainMsg) tea.Cmd {
	d, ok := m.vc.Client.(drain.Drainer)
	if !ok {
		m.status = views.StatusMsg{Text: "drain is not available with this client", Error: true}
		return nil
	}
	m.status = views.StatusMsg{}
	return m.push(drain.New(m.vc, d, msg.Node, 0), false)
}
