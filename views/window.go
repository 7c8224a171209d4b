package views

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
