package deploy_test

import (
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
)

func isTick(msg tea.Msg) bool {
	_, ok := msg.(spinner.TickMsg)
	return ok
}
