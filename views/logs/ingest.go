package logs

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// ingest adds what the sink delivered: lines, notes as marker lines, and
// the counts of lines dropped as marker lines that say how many. The
// current search match stays the same match (or the next one held).
func (m *Model) ingest(items []item) {
	var cur match
	hadCur := m.ix != nil && m.current < len(m.ix.matches)
	if hadCur {
		cur = m.ix.matches[m.current]
	}
	for i := range items {
		it := &items[i]
		switch {
		case it.note != nil:
			m.takeNote(*it.note)
		case it.dropped > 0:
			m.dropped += int64(it.dropped)
			m.buf.addNote(plural(int64(it.dropped), "line")+" dropped here: the viewer fell behind the stream", time.Time{}, -1, true)
		default:
			if seq := m.buf.addLine(it.line); seq >= 0 {
				delete(m.cache, seq)
			}
			if it.line.Pod != "" {
				m.pods[podKey(it.line.Context, it.line.Pod)] = true
			}
			if len(m.waiting) > 0 {
				delete(m.waiting, m.buf.streamIndex(it.line.Context, it.line.Namespace, it.line.Pod, it.line.Container))
			}
		}
	}
	m.buf.evictedHits = 0
	if m.ix != nil && hadCur {
		m.current = sort.Search(len(m.ix.matches), func(i int) bool {
			x := m.ix.matches[i]
			return x.seq > cur.seq || x.seq == cur.seq && x.start >= cur.start
		})
		m.current = min(m.current, max(len(m.ix.matches)-1, 0))
	}
	if !m.follow && m.top < m.buf.first {
		m.top, m.sub = m.buf.first, 0
	}
	if len(m.cache) > 4096 {
		m.cache = nil
	}
}

// podKey is how the viewer counts a pod: its name, after its context in
// a merge across several clusters (the same name may be in each).
func podKey(ctx, pod string) string {
	if ctx == "" {
		return pod
	}
	return ctx + ":" + pod
}

// takeNote records what a note says and adds its marker line, if it has
// one (a stream starting has none: it fills the container picker).
func (m *Model) takeNote(n kube.LogNote) {
	src := int32(-1)
	if n.Pod != "" {
		src = m.buf.streamIndex(n.Context, n.Namespace, n.Pod, n.Container)
	}
	pod := podKey(n.Context, n.Pod)
	if n.Kind != kube.LogNoteWaiting && src >= 0 {
		delete(m.waiting, src)
	}
	switch n.Kind {
	case kube.LogNoteStarted:
		if n.Pod != "" {
			m.pods[pod] = true
			delete(m.failed, pod)
		}
		if len(n.Containers) > 0 {
			m.containers, m.defaultContainer = n.Containers, n.DefaultContainer
		}
		return
	case kube.LogNoteWaiting:
		// One state per stream, updated in place: the header says it; a
		// marker only where several streams share the screen.
		m.pods[pod] = true
		if len(n.Containers) > 0 && len(m.containers) == 0 {
			m.containers, m.defaultContainer = n.Containers, n.DefaultContainer
		}
		m.waiting[src] = views.Sanitize(n.Text)
		if !m.multi() {
			return
		}
	case kube.LogNotePodGone:
		delete(m.pods, pod)
	case kube.LogNotePodJoined:
		m.pods[pod] = true
	case kube.LogNotePodsLeftOut:
		m.leftOut = n.Count
		if len(n.Names) == 0 {
			return // one left out is gone: the count says it
		}
	case kube.LogNotePodAdmitted:
		m.leftOut = n.Count
		m.pods[pod] = true
	case kube.LogNoteEnded:
		if n.Err != nil && n.Pod != "" && m.multi() {
			delete(m.pods, pod)
			m.failed[pod] = true
		}
	}
	failure := n.Err != nil || n.Kind == kube.LogNoteRetrying || n.Kind == kube.LogNotePodGone || n.Kind == kube.LogNoteGap
	m.buf.addNote(m.noteText(n), n.Time, src, failure)
}

// noteText is a marker line's sentence: "web-zz1 restarted · resumed at
// 06:14:02".
func (m *Model) noteText(n kube.LogNote) string {
	who := n.Pod
	if n.Container != "" && (m.req.AllContainers || m.req.Kind != kube.KindPods) {
		who += "/" + n.Container
	}
	if n.Context != "" {
		who = n.Context + ":" + who
	}
	at := m.clock(n.Time)
	var s string
	switch n.Kind {
	case kube.LogNoteResumed:
		if n.Restarted {
			s = who + " restarted · resumed at " + at
		} else {
			s = who + " stream reconnected · resumed at " + at
		}
	case kube.LogNoteRetrying:
		s = fmt.Sprintf("%s stream broke · retrying in %s", who, n.Backoff.Round(time.Millisecond))
	case kube.LogNotePodJoined:
		s = who + " joined"
	case kube.LogNotePodGone:
		s = who + " is gone; its stream ended"
	case kube.LogNotePodsLeftOut:
		s = fmt.Sprintf("%s not streamed (at most %s; each takes the place of a stream that ends): %s",
			plural(int64(len(n.Names)), "pod"), kube.Plural(m.maxStreams(), "stream"), strings.Join(n.Names, ", "))
		if n.Count != len(n.Names) {
			s += fmt.Sprintf(" · %d in all", n.Count)
		}
	case kube.LogNotePodAdmitted:
		s = fmt.Sprintf("%s streamed now, in place of a stream that ended (%d not streamed)", strings.Join(n.Names, ", "), n.Count)
	case kube.LogNoteWaiting:
		s = who + " waiting: " + n.Text
	case kube.LogNoteNoPrevious:
		s = n.Text
	case kube.LogNoteGap:
		s = strings.TrimSpace(who + " " + n.Text)
	case kube.LogNoteEnded:
		s = who + " stream ended"
		if who == "" {
			s = "stream ended"
		}
	default:
		s = who + " " + string(n.Kind)
	}
	switch n.Kind {
	case kube.LogNotePodsLeftOut, kube.LogNotePodAdmitted, kube.LogNoteWaiting, kube.LogNoteNoPrevious, kube.LogNoteGap:
	default:
		if n.Text != "" {
			s += " · " + n.Text
		}
	}
	// The error once: a Text that already quotes it is not repeated.
	if n.Err != nil && !strings.Contains(s, n.Err.Error()) {
		s += ": " + n.Err.Error()
	}
	return views.Sanitize(strings.TrimSpace(s))
}

func (m *Model) maxStreams() int {
	if m.req.MaxStreams > 0 {
		return m.req.MaxStreams
	}
	return kube.DefaultMaxLogStreams
}

// clock prints an instant's time of day in the zone timestamps are shown
// in (UTC unless local time was chosen); "?" for the zero time.
func (m *Model) clock(t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	if m.times == timeLocal {
		return t.In(m.loc).Format("15:04:05")
	}
	return t.UTC().Format("15:04:05")
}

// plural prints n and the noun, singular for 1: "1 line", "12,408 lines".
func plural(n int64, noun string) string {
	return count(n) + " " + kube.Noun(n, noun)
}

// abbrev prints a count in at most five cells: 999, 12.4k, 1.2M.
func abbrev(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10_000:
		return fmt.Sprintf("%.1fk", float64(n/100)/10)
	case n < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	case n < 10_000_000:
		return fmt.Sprintf("%.1fM", float64(n/100_000)/10)
	}
	return fmt.Sprintf("%dM", n/1_000_000)
}

// count prints n with thousands separators: 12,408.
func count(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
