package exec

// What is written to the terminal around a session: the screen cleared
// before it (so the banner is at the top of a clean screen, not under an
// earlier session's output), and after it the resets of every mode a
// remote program may have left on, before Bubble Tea takes the terminal
// back (Bubble Tea then turns on again what kyyard itself uses: the
// alternate screen, bracketed paste, focus reports).

// clearScreen moves the cursor home and erases the screen (ECMA-48 CUP,
// ED 2).
const clearScreen = "\x1b[H\x1b[2J"

// titlePush saves the window and icon titles on the terminal's title
// stack before a session (xterm's XTWINOPS 22;0), and titlePop, the last
// of terminalResets, puts them back after it (23;0): a remote program may
// set its own title (OSC 0), which would otherwise outlive the session.
const (
	titlePush = "\x1b[22;0t"
	titlePop  = "\x1b[23;0t"
)

// terminalResets undoes what a remote program may leave on, each a DEC
// private mode reset or an ECMA-48 control (xterm's ctlseqs):
//
//	?1000l ?1002l ?1003l   mouse tracking: clicks, drags, all motion
//	?1005l ?1006l ?1015l   mouse encodings: UTF-8, SGR, urxvt
//	?1004l                 focus in/out reports
//	?2004l                 bracketed paste
//	?25h                   cursor visible
//	ESC >  ?1l             numeric keypad, normal cursor keys
//	?1049l                 the alternate screen left (cursor restored)
//	ESC[0m                 colours and attributes reset
//	ESC[r                  the scroll region is the whole screen
//	ESC[23;0t              the titles saved before the session (titlePush)
var terminalResets = []string{
	"\x1b[?1000l", "\x1b[?1002l", "\x1b[?1003l",
	"\x1b[?1005l", "\x1b[?1006l", "\x1b[?1015l",
	"\x1b[?1004l",
	"\x1b[?2004l",
	"\x1b[?25h",
	"\x1b>", "\x1b[?1l",
	"\x1b[?1049l",
	"\x1b[0m",
	"\x1b[r",
	titlePop,
}

// resetSequence is terminalResets written at once.
func resetSequence() string {
	out := ""
	for _, s := range terminalResets {
		out += s
	}
	return out
}
