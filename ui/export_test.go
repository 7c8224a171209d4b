package ui

import tea "github.com/charmbracelet/bubbletea"

// CommandInfo is what the tests of package ui_test read of one entry of
// the command table (commands).
type CommandInfo struct {
	// Words are the entry's words, the offered one first; none for the
	// kind command.
	Words []string
	// Offered says the prompt completes Words[0].
	Offered bool
	// MaxArgs is how many words may follow (AnyArgs: any number).
	MaxArgs int
	// KeepsScreens says the command runs whatever a screen holds (quit).
	KeepsScreens bool
	// Start says -c may start on it.
	Start bool
	// Help is what the help overlay's Commands line lists for it.
	Help []string
}

// AnyArgs is CommandInfo.MaxArgs of a command that ignores what follows.
const AnyArgs = anyArgs

// Commands returns the command table, in its order.
func Commands() []CommandInfo {
	out := make([]CommandInfo, len(commands))
	for i, c := range commands {
		out[i] = CommandInfo{Words: c.words, Offered: len(c.words) > 0 && !c.hidden, MaxArgs: c.maxArgs,
			KeepsScreens: c.keepsScreens, Start: c.start != "", Help: c.help}
	}
	return out
}

// CommandSuggestions is commandSuggestions: the words the prompt completes
// first, for the client's kind names.
func CommandSuggestions(names []string) []string { return commandSuggestions(names) }

// Tag is what Panes gets when a Cmd of pane returned msg (paneMsg).
func Tag(pane *Model, msg tea.Msg) tea.Msg { return paneMsg{pane: pane, msg: msg} }

// Untag returns the message a paneMsg carries, else msg itself.
func Untag(msg tea.Msg) tea.Msg {
	if pm, ok := msg.(paneMsg); ok {
		return pm.msg
	}
	return msg
}
