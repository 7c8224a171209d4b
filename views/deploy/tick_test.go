package deploy_test

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
)

// isTick reports a spinner tick or a cursor blink.
func isTick(msg tea.Msg) bool {
	if _, ok := msg.(spinner.TickMsg); ok {
		return true
	}
	return strings.HasPrefix(fmt.Sprintf("%T", msg), "cursor.")
}
