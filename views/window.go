package views

import tea "github.com/charmbracelet/bubbletea"

// Window returns the first line of a list to show so that the cursor line
// is on screen: offset as it was when it already is, else the least move,
// and never past the end (height lines of total, cursor and offset from 0).
func Window(cursor, offset, height, total int) int {
	if cursor < offset {
		offset = cursor
	}
	if cursor >= offset+height {
		offset = cursor - height + 1
	}
	return max(min(offset, total-height), 0)
}

// wheelLines is how many lines one turn of the mouse wheel scrolls.
const wheelLines = 3

// WheelKeys turns a turn of the mouse wheel (issue 27's mouse, on with
// --mouse) into the arrow keys a text screen (describe, YAML, logs)
// scrolls by: wheelLines presses of up or down; none for any other mouse
// event.
func WheelKeys(msg tea.MouseMsg) []tea.KeyMsg {
	var k tea.KeyType
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		k = tea.KeyUp
	case tea.MouseButtonWheelDown:
		k = tea.KeyDown
	default:
		return nil
	}
	out := make([]tea.KeyMsg, wheelLines)
	for i := range out {
		out[i] = tea.KeyMsg{Type: k}
	}
	return out
}
