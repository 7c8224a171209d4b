package ui

// A split's frames (issue 27: a split must not cost more per frame than
// one screen of the terminal's size). Bubble Tea draws the whole view
// after every message, and most messages reach one pane only (its
// refresh, a key in the focused pane): the other pane's frame is the
// same as last time, and is reused rather than drawn again. What a pane
// shows changes only through its Update, or through what Panes itself
// changes (the focus, the panes shown, the size, a status it sets): the
// first touches that pane, the second every pane.

// frames holds each pane's last frame and whether it is still its frame.
type frames struct {
	text map[*Model]string
	// clean are the panes nothing reached since their frame was drawn.
	clean map[*Model]bool
}

// touch marks pane m's frame stale: a message reaches it.
func (f *frames) touch(m *Model) { delete(f.clean, m) }

// keep notes what every pane's frame hangs on beside the pane itself
// (the focus, the panes shown and the size) and returns the check to run
// once the message is handled: when any of them changed, every frame is
// stale. Panes' own changes to a pane (a status line it sets) come with
// one of them or with a message to that pane.
func (f *frames) keep(p *Panes) func() {
	focus, panes, w, h := p.sess.focus, len(p.panes), p.width, p.height
	var top, bottom *Model
	if panes == 2 {
		top, bottom = p.panes[0], p.panes[1]
	}
	return func() {
		if p.sess.focus != focus || len(p.panes) != panes || p.width != w || p.height != h ||
			panes == 2 && (p.panes[0] != top || p.panes[1] != bottom) {
			f.clean = nil
		}
	}
}

// view returns pane m's frame: the last one while nothing reached it
// since, else drawn now.
func (f *frames) view(m *Model) string {
	if f.clean[m] {
		return f.text[m]
	}
	if f.text == nil {
		f.text, f.clean = map[*Model]string{}, map[*Model]bool{}
	}
	if f.clean == nil {
		f.clean = map[*Model]bool{}
	}
	v := m.View()
	f.text[m], f.clean[m] = v, true
	return v
}
