package views

// BackCapturer is implemented by a screen that uses esc itself in some
// states (an inventory with marked rows or a filter applied clears them
// first, the way k9s does). The root asks it before closing the screen:
// when CapturesBack is true, the root hands esc to the screen instead of
// closing it; the screen sends BackMsg itself once nothing is left to clear.
// Screens that do not implement it are closed by esc as before.
type BackCapturer interface {
	// CapturesBack reports whether esc would change the screen rather
	// than close it.
	CapturesBack() bool
}

// KeyPasser is implemented by a capturing screen (Capturing true) that
// still lets some keys reach the root's global bindings: a form whose
// fields take digits only lets `?` open the help overlay. The root asks it
// before handing a key to a capturing screen.
type KeyPasser interface {
	// PassesKey reports whether key (tea.KeyMsg.String(): "?") goes to
	// the root's global bindings rather than to the screen.
	PassesKey(key string) bool
}

// Hinter is implemented by a screen whose state makes the root's usual
// bottom line ("? help  : command  esc back  q quit") untrue, such as a
// form that takes ?, : and q as text. The root shows Hint instead when it
// is not "" and no status is shown.
type Hinter interface {
	// Hint is the bottom line's keys ("ctrl+s preview · esc back · ctrl+c
	// quit"), "" for the root's usual line.
	Hint() string
}
