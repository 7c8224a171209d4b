package apps

import tea "github.com/charmbracelet/bubbletea"

// TickForTest is the refresh tick the screen's current chain waits for.
func (m *Model) TickForTest() tea.Msg { return tickMsg{owner: m, token: m.token} }
