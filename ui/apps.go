package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/apps"
	"github.com/kyyard/kyyard/views/deploy"
)

// noDeploy is the status line when the client cannot deploy.
const noDeploy = "deploying is not available with this client"

// openApps shows the `:apps` list of namespace ("" for every namespace;
// the namespace `:` commands use unless `:apps <namespace>` names one)
// when the client lists apps: afresh for the command (fresh), else pushed.
func (m *Model) openApps(namespace string, fresh bool) tea.Cmd {
	l, ok := m.vc.Client.(apps.Lister)
	if !ok {
		m.status = views.StatusMsg{Text: noDeploy, Error: true}
		return nil
	}
	m.status = views.StatusMsg{}
	return m.place(apps.New(m.vc, l, namespace), fresh)
}

// openDeploy pushes the deploy form (a new app, or an instance's from its
// record) when the client deploys.
func (m *Model) openDeploy(msg views.OpenDeployMsg) tea.Cmd {
	d, ok := m.vc.Client.(deploy.Deployer)
	if !ok {
		m.status = views.StatusMsg{Text: noDeploy, Error: true}
		return nil
	}
	m.status = views.StatusMsg{}
	return m.push(deploy.New(m.vc, d, msg.Namespace, msg.Instance, deploy.WithTimeout(m.vc.Config.DeployTimeout)), false)
}

// openRemove pushes the remove confirmation when the client removes.
func (m *Model) openRemove(msg views.OpenRemoveMsg) tea.Cmd {
	r, ok := m.vc.Client.(deploy.Remover)
	if !ok {
		m.status = views.StatusMsg{Text: noDeploy, Error: true}
		return nil
	}
	m.status = views.StatusMsg{}
	return m.push(deploy.NewRemove(m.vc, r, msg.Namespace, msg.Instance), false)
}
