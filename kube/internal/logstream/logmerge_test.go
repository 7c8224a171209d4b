package logstream

import (
	"testing"
	"time"
)

func mline(pod string, t time.Time, text string) LogLine {
	return LogLine{Namespace: "ns", Pod: pod, Container: "c", Time: t, Raw: []byte(text)}
}

func texts(b LogBatch) []string {
	var out []string
	for _, l := range b.Lines {
		out = append(out, l.Pod+":"+string(l.Raw))
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestC37MergedPods: pod B writes at t2; pod A writes at t1 and t3 and
// A's stream is read after B's: the merge gives t1, t2, t3, whole lines
// labelled with their pod.
func TestC37MergedPods(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := t0.Add(time.Hour)
	m := newLogMerger(LogReorderWindow)
	m.ensure(1) // A is 0, B is 1
	var out LogBatch
	m.addLines(1, []LogLine{mline("b", t0.Add(2*time.Millisecond), "t2")}, now)
	m.release(now, false, &out)
	if len(out.Lines) != 0 {
		t.Fatalf("B's line went out before A's stream said anything: %v", texts(out))
	}
	now = now.Add(10 * time.Millisecond)
	m.addLines(0, []LogLine{mline("a", t0.Add(time.Millisecond), "t1"), mline("a", t0.Add(3*time.Millisecond), "t3")}, now)
	m.release(now, false, &out)
	if want := []string{"a:t1", "b:t2"}; !equal(texts(out), want) {
		t.Fatalf("got %v, want %v (t3 waits for B)", texts(out), want)
	}
	m.release(now.Add(LogReorderWindow), false, &out)
	if want := []string{"a:t1", "b:t2", "a:t3"}; !equal(texts(out), want) {
		t.Fatalf("after the window: got %v, want %v", texts(out), want)
	}
}

func TestLogMerger(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := t0
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

	t.Run("one stream goes out at once", func(t *testing.T) {
		m := newLogMerger(time.Second)
		m.ensure(0)
		var out LogBatch
		m.addLines(0, []LogLine{mline("a", at(5), "x"), mline("a", at(1), "y")}, now)
		m.release(now, false, &out)
		if want := []string{"a:x", "a:y"}; !equal(texts(out), want) {
			t.Fatalf("got %v, want the stream's own order %v", texts(out), want)
		}
	})
	t.Run("an ended stream holds nothing back", func(t *testing.T) {
		m := newLogMerger(time.Second)
		m.ensure(1)
		var out LogBatch
		m.addLines(0, []LogLine{mline("a", at(5), "x")}, now)
		m.end(1)
		m.release(now, false, &out)
		if want := []string{"a:x"}; !equal(texts(out), want) {
			t.Fatalf("got %v, want %v", texts(out), want)
		}
	})
	t.Run("lines without time follow their neighbour", func(t *testing.T) {
		m := newLogMerger(time.Second)
		m.ensure(1)
		var out LogBatch
		m.addLines(0, []LogLine{mline("a", at(1), "1"), mline("a", time.Time{}, "1b"), mline("a", at(4), "4")}, now)
		m.addLines(1, []LogLine{mline("b", at(2), "2"), mline("b", at(9), "9")}, now)
		m.release(now, false, &out)
		if want := []string{"a:1", "a:1b", "b:2", "a:4"}; !equal(texts(out), want) {
			t.Fatalf("got %v, want %v", texts(out), want)
		}
		m.release(now, true, &out)
		if want := []string{"a:1", "a:1b", "b:2", "a:4", "b:9"}; !equal(texts(out), want) {
			t.Fatalf("all: got %v, want %v", texts(out), want)
		}
	})
	t.Run("notes are placed among the lines", func(t *testing.T) {
		m := newLogMerger(time.Second)
		m.ensure(0)
		var out LogBatch
		m.addNote(-1, LogNote{Kind: LogNotePodsLeftOut}, &out)
		m.addLines(0, []LogLine{mline("a", at(1), "1")}, now)
		m.addNote(0, LogNote{Kind: LogNoteResumed}, &out)
		m.addLines(0, []LogLine{mline("a", at(2), "2")}, now)
		m.release(now, false, &out)
		if len(out.Notes) != 2 || out.Notes[0].At != 0 || out.Notes[0].Note.Kind != LogNotePodsLeftOut ||
			out.Notes[1].At != 1 || out.Notes[1].Note.Kind != LogNoteResumed || len(out.Lines) != 2 {
			t.Fatalf("got %+v", out)
		}
	})
}
