package views

// Closer is implemented by a screen that holds a stream (the log viewer):
// the root calls Close when the screen leaves the stack (esc, a `:`
// command that starts afresh, a context switch), so that nothing it
// started outlives it. Close must be safe to call more than once.
type Closer interface {
	Close()
}
