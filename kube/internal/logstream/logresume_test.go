package logstream

import (
	"testing"
	"time"
)

func TestLogResume(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	l := func(ms int, text string) LogLine {
		return LogLine{Time: t0.Add(time.Duration(ms) * time.Millisecond), Raw: []byte(text)}
	}
	r := newLogResume()
	r.begin()
	for _, x := range []LogLine{l(-500, "old"), l(100, "a"), l(200, "same"), l(200, "same")} {
		if !r.filter(&x) {
			t.Fatalf("the first connection dropped %q", x.Raw)
		}
		r.record(&x)
	}
	if !r.since().Equal(t0) {
		t.Fatalf("since %v, want %v", r.since(), t0)
	}
	// The reconnection repeats the second resumed from, and more.
	r.begin()
	var kept []string
	for _, x := range []LogLine{l(100, "a"), l(200, "same"), l(200, "same"), l(200, "same"), l(300, "new"), l(1100, "a")} {
		if r.filter(&x) {
			kept = append(kept, string(x.Raw))
			r.record(&x)
		}
	}
	if want := []string{"same", "new", "a"}; !equal(kept, want) {
		t.Fatalf("kept %v, want %v (a third identical line is new)", kept, want)
	}
	// A second reconnection in the same second skips both connections' lines.
	r2 := newLogResume()
	r2.begin()
	for _, x := range []LogLine{l(100, "a")} {
		r2.record(&x)
	}
	r2.begin()
	x := l(200, "b")
	r2.filter(&x)
	r2.record(&x)
	r2.begin()
	kept = nil
	for _, x := range []LogLine{l(100, "a"), l(200, "b"), l(300, "c")} {
		if r2.filter(&x) {
			kept = append(kept, string(x.Raw))
		}
	}
	if want := []string{"c"}; !equal(kept, want) {
		t.Fatalf("kept %v, want %v", kept, want)
	}
	// A line delivered Partial comes back whole: only its rest goes out.
	r3 := newLogResume()
	r3.begin()
	p := l(100, "progress: 50%")
	p.Partial = true
	r3.record(&p)
	r3.begin()
	whole := l(100, "progress: 50% 100%")
	if !r3.filter(&whole) || !whole.Continued || string(whole.Raw) != " 100%" {
		t.Fatalf("got %+v, want the rest, Continued", whole)
	}
	r3.record(&whole)
	if r3.open {
		t.Fatal("the line is still open after its rest")
	}
}
