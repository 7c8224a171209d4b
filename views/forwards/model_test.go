package forwards_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/forwards"
	"github.com/kyyard/kyyard/views/viewtest"
)

type fakeForwards struct {
	list    []kube.ForwardStatus
	stopped []int
}

func (f *fakeForwards) PortForwards() []kube.ForwardStatus { return f.list }

func (f *fakeForwards) StopPortForward(id int) error {
	for i, st := range f.list {
		if st.ID == id {
			f.stopped = append(f.stopped, id)
			f.list = append(f.list[:i:i], f.list[i+1:]...)
			return nil
		}
	}
	return errors.New("no such port-forward")
}

func sample() []kube.ForwardStatus {
	ago := func(d time.Duration) time.Time { return viewtest.Now.Add(-d) }
	return []kube.ForwardStatus{
		{ID: 1, Request: kube.PortForwardRequest{Kind: "services", Namespace: "demo", Name: "web", RemotePort: 80}, LocalPort: 8080,
			Pod: "web-7c9d5-x2k", State: kube.ForwardActive, BytesIn: 1536, BytesOut: 312, Connections: 4, Started: ago(12 * time.Minute)},
		{ID: 2, Request: kube.PortForwardRequest{Kind: kube.KindDeployments, Namespace: "demo", Name: "api", RemotePort: 9090}, LocalPort: 9090,
			State: kube.ForwardMoving, Err: "pod api-5f6b8-zz1 was deleted; deployments/api has no ready pod", BytesIn: 3 << 20, BytesOut: 20,
			Connections: 1, Started: ago(45 * time.Second)},
		{ID: 4, Request: kube.PortForwardRequest{Kind: "services", Namespace: "demo", Name: "web", RemotePort: 80}, LocalPort: 36837,
			Pod: "web-7c9d5-p9q", State: kube.ForwardActive, BytesOut: 79, Connections: 2, Failed: 2,
			LastError: `no forward found for port 8080 in pod "demo/web-7c9d5-p9q" (error forwarding port 8080 to pod web-7c9d5-p9q, uid)`,
			Started:   ago(30 * time.Second)},
		{ID: 3, Request: kube.PortForwardRequest{Kind: kube.KindPods, Namespace: "demo", Name: "db-0", RemotePort: 5432}, LocalPort: 15432,
			Pod: "db-0", State: kube.ForwardFailed, Err: "pod db-0 was deleted", Started: ago(3 * time.Hour)},
	}
}

func TestForwardsGoldens(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		m := forwards.New(viewtest.Context(nil, size[0], size[1]), &fakeForwards{list: sample()}, forwards.WithClock(func() time.Time { return viewtest.Now }))
		m.Init()
		v := m.View()
		viewtest.Size(t, v, size[0], size[1])
		viewtest.Golden(t, "forwards-"+map[int]string{80: "80x24", 200: "200x50"}[size[0]], v)
	}
	empty := forwards.New(viewtest.Context(nil, 80, 24), &fakeForwards{})
	if v := empty.View(); !strings.Contains(v, "no port-forward runs") {
		t.Fatalf("empty:\n%s", v)
	}
}

func TestForwardsStop(t *testing.T) {
	f := &fakeForwards{list: sample()}
	var m views.Screen = forwards.New(viewtest.Context(nil, 200, 50), f)
	m.Init()
	m, _ = m.Update(viewtest.Key("down"))
	m, cmd := m.Update(viewtest.Key("x"))
	m, cmd = m.Update(cmd())
	if len(f.stopped) != 1 || f.stopped[0] != 2 {
		t.Fatalf("stopped %v", f.stopped)
	}
	if st, ok := cmd().(views.StatusMsg); !ok || st.Text != "forward 2 stopped" {
		t.Fatalf("status %#v", cmd())
	}
	if v := m.View(); strings.Contains(v, "deployments/api") || m.Title() != "port-forwards[3]" {
		t.Fatalf("after the stop:\n%s", v)
	}
	// ctrl+d stops too; the cursor stays on a row.
	m, _ = m.Update(viewtest.Key("down"))
	m, _ = m.Update(viewtest.Key("down"))
	_, cmd = m.Update(viewtest.Key("ctrl+d"))
	m.Update(cmd())
	if len(f.stopped) != 2 || f.stopped[1] != 3 {
		t.Fatalf("stopped %v", f.stopped)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 3 << 20: "3.0 MiB", 5 << 30: "5.0 GiB"} {
		if got := forwards.Bytes(n); got != want {
			t.Errorf("%d: %q, want %q", n, got, want)
		}
	}
}

// TestForwardsCompactKeepsColumns: at 80x24 every column keeps its whole
// header (CONN, AGE: none cut to "CON" or dropped) and each row is one
// line that shows its age.
func TestForwardsCompactKeepsColumns(t *testing.T) {
	m := forwards.New(viewtest.Context(nil, 80, 24), &fakeForwards{list: sample()}, forwards.WithClock(func() time.Time { return viewtest.Now }))
	lines := strings.Split(m.View(), "\n")
	header := strings.Fields(lines[0])
	want := []string{"ID", "LOCAL", "TARGET", "POD", "STATE", "IN", "OUT", "CONN", "AGE"}
	if strings.Join(header, " ") != strings.Join(want, " ") {
		t.Fatalf("header %q, want %q", header, want)
	}
	if !strings.HasSuffix(strings.TrimRight(lines[1], " "), "12m") || strings.Contains(lines[1], "…") {
		t.Fatalf("row %q: want the whole row with its age", lines[1])
	}
}

// TestForwardsShowsFailures: a forward whose connections failed shows the
// count and the last error under its row, and (wide) in its FAILED column.
func TestForwardsShowsFailures(t *testing.T) {
	for _, w := range []int{80, 200} {
		m := forwards.New(viewtest.Context(nil, w, 50), &fakeForwards{list: sample()}, forwards.WithClock(func() time.Time { return viewtest.Now }))
		v := m.View()
		if !strings.Contains(v, "2 of 2 connections failed; last: no forward found for port 8080") {
			t.Fatalf("at %d columns no failure line:\n%s", w, v)
		}
		if w == 200 && !strings.Contains(strings.Split(v, "\n")[0], "FAILED") {
			t.Fatalf("no FAILED column at 200 columns:\n%s", v)
		}
	}
}

// TestForwardsSayTheMove: a forward that moved and is active again says
// under its row why it left its pod and where it went, and how many
// times when more than once.
func TestForwardsSayTheMove(t *testing.T) {
	list := []kube.ForwardStatus{{ID: 1, Request: kube.PortForwardRequest{Kind: kube.KindDeployments, Namespace: "demo", Name: "web", RemotePort: 8080},
		LocalPort: 8080, Pod: "web-7c9d5-p9q", State: kube.ForwardActive, Moves: 1,
		LastMove: "pod web-7c9d5-x2k was deleted (terminating); now pod web-7c9d5-p9q", Started: viewtest.Now}}
	m := forwards.New(viewtest.Context(nil, 200, 50), &fakeForwards{list: list}, forwards.WithClock(func() time.Time { return viewtest.Now }))
	if v := m.View(); !strings.Contains(v, "    moved: pod web-7c9d5-x2k was deleted (terminating); now pod web-7c9d5-p9q") {
		t.Fatalf("the move is not said:\n%s", v)
	}
	list[0].Moves = 3
	m = forwards.New(viewtest.Context(nil, 80, 24), &fakeForwards{list: list}, forwards.WithClock(func() time.Time { return viewtest.Now }))
	if v := m.View(); !strings.Contains(v, "    moved 3 times; last: pod web-7c9d5-x2k was deleted") {
		t.Fatalf("the moves are not counted:\n%s", v)
	}
}

// TestForwardsStopRebound: with `forwards: {stop: X}`, x and ctrl+d stop
// nothing; X stops the selected forward, and the help line names it.
func TestForwardsStopRebound(t *testing.T) {
	f := &fakeForwards{list: sample()}
	vc := viewtest.Context(nil, 200, 50)
	vc.KeyMap = views.KeyMap{"forwards": {"stop": {"X"}}}
	var m views.Screen = forwards.New(vc, f)
	m.Init()
	for _, k := range []string{"x", "ctrl+d"} {
		if _, cmd := m.Update(viewtest.Key(k)); cmd != nil {
			t.Fatalf("%s (stop's old key) acted", k)
		}
	}
	if v := m.View(); !strings.Contains(v, "↑/↓ move · X stop · esc back") {
		t.Errorf("the help line does not name X:\n%s", v)
	}
	_, cmd := m.Update(viewtest.Key("X"))
	if cmd == nil {
		t.Fatal("X (stop's new key) did nothing")
	}
	m.Update(cmd())
	if len(f.stopped) != 1 || f.stopped[0] != 1 {
		t.Fatalf("stopped %v", f.stopped)
	}
}
