package pickers

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
)

// Choice is one item of NewChoice: Label is shown (and filtered on),
// Value is what picking it hands to pick.
type Choice struct {
	Label, Value string
}

// NewChoice returns a picker over choices for a screen to embed (the log
// viewer's container picker): noun names what is picked ("container"),
// the choice whose Value is preselected is under the cursor and marked
// with mark ("(default)"). Picking runs pick with the chosen Value; esc
// sends views.BackMsg, which an embedding screen takes before it. Only
// listed choices can be picked.
func NewChoice(vc *views.Context, noun string, choices []Choice, preselected, mark string, pick func(value string) tea.Cmd) *Model {
	m := newModel(vc, noun, preselected, pick)
	m.title = noun
	m.mark = mark
	items := make([]item, len(choices))
	for i, c := range choices {
		items[i] = item{label: c.Label, value: c.Value}
	}
	if len(choices) == 0 {
		m.notice = "Nothing to choose from."
	}
	m.setItems(items)
	return m
}
