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
