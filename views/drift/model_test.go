package drift_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/drift"
	"github.com/kyyard/kyyard/views/viewtest"
)

// reader answers its workload (or error) after its delay.
type reader struct {
	w     kube.Workload
	err   error
	delay time.Duration
	reads int
}

func (r *reader) ReadWorkload(ctx context.Context, ref kube.WorkloadRef) (kube.Workload, error) {
	r.reads++
	select {
	case <-time.After(r.delay):
	case <-ctx.Done():
		return kube.Workload{}, ctx.Err()
	}
	return r.w, r.err
}

// screen is the drift screen of web across eu, us (another image and
// greeting), ap (missing) and lab (not connected), read once.
func screen(t *testing.T, w, h int) (*drift.Model, []*reader) {
	t.Helper()
	rs := []*reader{{w: web("nginx:1.27.3", "hello")}, {w: web("nginx:1.27.4", "hallo")}, {err: notFound()}}
	members := []drift.Member{{Context: "eu", Reader: rs[0]}, {Context: "us", Reader: rs[1]}, {Context: "ap", Reader: rs[2]},
		{Context: "lab", Err: fmt.Errorf("%w: context lab is not connected (yet): ctrl+r reads again", drift.ErrNotConnected)}}
	m := drift.New(viewtest.Context(nil, w, h), deployRef, members)
	if !strings.Contains(m.View(), "reading deployments/web (demo) in 4 contexts…") {
		t.Fatalf("no word while reading:\n%s", m.View())
	}
	m.Update(m.Init()())
	return m, rs
}

func TestDriftView(t *testing.T) {
	m, _ := screen(t, 110, 16)
	view := m.View()
	viewtest.Size(t, view, 110, 16)
	viewtest.Golden(t, "drift", view)
	for _, want := range []string{"3 of 11 fields differ", "≠ present", "≠ web: image", "≠ web: env GREETING", "secret db/password", "not connected"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	if m.Title() != "drift deployments/web(demo)" {
		t.Errorf("title %q", m.Title())
	}
}

func TestDriftOnlyTheDifferences(t *testing.T) {
	m, _ := screen(t, 110, 16)
	m.Update(viewtest.Key("d"))
	view := m.View()
	viewtest.Golden(t, "drift-differences", view)
	if strings.Contains(view, "replicas") || !strings.Contains(view, "web: image") || !strings.Contains(view, "only the fields that differ") {
		t.Fatalf("d did not keep the differences only:\n%s", view)
	}
	m.Update(viewtest.Key("d"))
	if !strings.Contains(m.View(), "replicas") {
		t.Fatalf("d again did not show every field:\n%s", m.View())
	}
}

// ctrl+r reads every context again; an earlier round's answer arriving
// after a later one's is dropped.
func TestDriftReadAgain(t *testing.T) {
	m, rs := screen(t, 110, 16)
	_, first := m.Update(viewtest.Key("ctrl+r"))
	rs[1].w = web("nginx:1.27.3", "hello") // us caught up
	_, second := m.Update(viewtest.Key("ctrl+r"))
	m.Update(second())
	if !strings.Contains(m.View(), "1 of 11 fields differ") {
		t.Fatalf("the second read is not shown:\n%s", m.View())
	}
	rs[1].w = web("nginx:9", "late")
	m.Update(first()) // read now, but asked first
	if strings.Contains(m.View(), "nginx:9") {
		t.Fatalf("an earlier round's answer replaced a later one's:\n%s", m.View())
	}
	if rs[0].reads != 3 {
		t.Errorf("eu read %d times, want 3", rs[0].reads)
	}
}

// A hostile value (escape sequences) never reaches the terminal raw.
func TestDriftSanitizesValues(t *testing.T) {
	rs := []*reader{{w: web("nginx\x1b]2;pwned\x07", "a\x1b[31mred")}, {w: web("nginx:1", "b")}}
	m := drift.New(viewtest.Context(nil, 120, 16), deployRef, []drift.Member{{Context: "a\x1b[2J", Reader: rs[0]}, {Context: "b", Reader: rs[1]}})
	m.Update(m.Init()())
	if v := m.View(); strings.Contains(v, "\x1b]") || strings.Contains(v, "\x1b[2J") || strings.Contains(v, "\x1b[31m") {
		t.Fatalf("raw escapes in the view: %q", v)
	}
}

// BenchmarkDriftReadTenContexts: the drift of one workload across 10
// contexts whose reads take 10 to 100 ms: the reads run in parallel, so
// the screen has them in about the slowest one's time (budget 1.2× it;
// ratio reported).
func BenchmarkDriftReadTenContexts(b *testing.B) {
	var members []drift.Member
	slowest := 100 * time.Millisecond
	for i := range 10 {
		members = append(members, drift.Member{Context: fmt.Sprintf("c%d", i), Reader: &reader{w: web("x:1", "hi"), delay: slowest * time.Duration(i+1) / 10}})
	}
	m := drift.New(viewtest.Context(nil, 200, 50), deployRef, members)
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		m.Update(m.Init()())
		total += time.Since(start)
	}
	b.ReportMetric(float64(total)/float64(b.N)/float64(slowest), "x-slowest")
}

// BenchmarkDriftFrame: one 200x50 frame of a workload with 4 containers
// of 30 env entries each across 10 contexts (budget 2 ms).
func BenchmarkDriftFrame(b *testing.B) {
	var members []drift.Member
	for i := range 10 {
		w := web("x:1", "hi")
		w.Containers = nil
		for c := range 4 {
			ct := kube.Container{Name: fmt.Sprintf("c%d", c), Image: fmt.Sprintf("img:%d", i%3)}
			for e := range 30 {
				ct.Env = append(ct.Env, kube.EnvVar{Name: fmt.Sprintf("E%d", e), Source: kube.EnvLiteral, Value: fmt.Sprintf("v%d", (e+i)%4)})
			}
			w.Containers = append(w.Containers, ct)
		}
		members = append(members, drift.Member{Context: fmt.Sprintf("cluster-%d", i), Reader: &reader{w: w}})
	}
	m := drift.New(viewtest.Context(nil, 200, 50), deployRef, members)
	m.Update(m.Init()())
	for b.Loop() {
		_ = m.View()
	}
}

// A context that could not be read says why below the table, the
// server's text whole.
func TestDriftSaysWhyAContextWasNotRead(t *testing.T) {
	forbidden := fmt.Errorf("deployments.apps \"web\" is forbidden: User \"viewer\" cannot get resource \"deployments\": %w", kube.ErrInvalid)
	m := drift.New(viewtest.Context(nil, 120, 16), deployRef, []drift.Member{{Context: "a", Reader: &reader{w: web("x:1", "hi")}}, {Context: "b", Reader: &reader{err: forbidden}}})
	m.Update(m.Init()())
	if v := m.View(); !strings.Contains(v, "unread: invalid") || !strings.Contains(v, `b: invalid — deployments.apps "web" is forbidden`) {
		t.Fatalf("no reason:\n%s", v)
	}
}

// At 80 columns not every context fits at a readable width: the first
// ones are shown, said so, and ←/→ scroll through the others.
func TestDriftNarrowScrollsContexts(t *testing.T) {
	m, _ := screen(t, 80, 16)
	view := m.View()
	viewtest.Size(t, view, 80, 16)
	viewtest.Golden(t, "drift-80", view)
	if !strings.Contains(view, "contexts 1–3 of 4 (←/→ for the others)") || strings.Contains(view, "not connected") {
		t.Fatalf("no scroll hint, or the fourth context shown:\n%s", view)
	}
	m.Update(viewtest.Key("right"))
	m.Update(viewtest.Key("right")) // past the last: stays at 2–4
	if v := m.View(); !strings.Contains(v, "contexts 2–4 of 4") || !strings.Contains(v, "not connected") || strings.Contains(lineWith(v, "FIELD"), " eu ") {
		t.Fatalf("→ did not show the others:\n%s", v)
	}
}

// lineWith is the first line of view holding s.
func lineWith(view, s string) string {
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// TestDriftKeysRebound: with `drift: {only-diffs: D}`, d keeps every
// field; D shows only those that differ, and the help line names D.
func TestDriftKeysRebound(t *testing.T) {
	rs := []*reader{{w: web("nginx:1.27.3", "hello")}, {w: web("nginx:1.27.4", "hallo")}}
	vc := viewtest.Context(nil, 110, 16)
	vc.KeyMap = views.KeyMap{"drift": {"only-diffs": {"D"}}}
	m := drift.New(vc, deployRef, []drift.Member{{Context: "eu", Reader: rs[0]}, {Context: "us", Reader: rs[1]}})
	m.Update(m.Init()())
	m.Update(viewtest.Key("d"))
	if v := m.View(); !strings.Contains(v, "replicas") || !strings.Contains(v, "D only the differences") {
		t.Fatalf("d (only-diffs' old key) acted, or D is not named:\n%s", v)
	}
	m.Update(viewtest.Key("D"))
	if v := m.View(); strings.Contains(v, "replicas") {
		t.Fatalf("D (only-diffs' new key) kept every field:\n%s", v)
	}
}
