package portforward_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/portforward"
	"github.com/kyyard/kyyard/views/viewtest"
)

type fakeForwarder struct {
	ports   []kube.ForwardPort
	err     error
	started []kube.PortForwardRequest
	fail    error
}

func (f *fakeForwarder) PortForwardPorts(context.Context, kube.Kind, string, string) ([]kube.ForwardPort, error) {
	return f.ports, f.err
}

func (f *fakeForwarder) StartPortForward(_ context.Context, req kube.PortForwardRequest) (kube.ForwardStatus, error) {
	f.started = append(f.started, req)
	if f.fail != nil {
		return kube.ForwardStatus{}, f.fail
	}
	return kube.ForwardStatus{ID: 1, Request: req, LocalPort: 18080, Pod: "web-7c9d5-x2k", State: kube.ForwardActive}, nil
}

func servicePorts() []kube.ForwardPort {
	return []kube.ForwardPort{
		{Port: 80, Name: "web", Protocol: "TCP", TargetPort: "http"},
		{Port: 53, Name: "dns", Protocol: "UDP", TargetPort: "53"},
		{Port: 9090, Name: "metrics", Protocol: "TCP", TargetPort: "9090"},
	}
}

// run feeds the messages a command returns back into the model (one
// level, and the messages of a batch).
func run(t *testing.T, m views.Screen, cmd tea.Cmd) (views.Screen, []tea.Msg) {
	t.Helper()
	var out []tea.Msg
	if cmd == nil {
		return m, nil
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		for _, c := range batch {
			if c != nil {
				out = append(out, c())
			}
		}
		return m, out
	}
	next, more := m.Update(msg)
	out = append(out, msg)
	if more != nil {
		_, rest := run(t, next, more)
		out = append(out, rest...)
	}
	return next, out
}

func open(t *testing.T, f *fakeForwarder, w, h int, kind kube.Kind) views.Screen {
	t.Helper()
	m := portforward.New(viewtest.Context(nil, w, h), f, views.OpenPortForwardMsg{Kind: kind, Namespace: "demo", Name: "web", UID: "u1"})
	scr, _ := run(t, m, m.Init())
	return scr
}

func TestDialogGoldens(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		m := open(t, &fakeForwarder{ports: servicePorts()}, size[0], size[1], "services")
		v := m.View()
		viewtest.Size(t, v, size[0], size[1])
		viewtest.Golden(t, "dialog-"+map[int]string{80: "80x24", 200: "200x50"}[size[0]], v)
	}
}

// The local port follows the chosen port (0 below 1024) until typed; the
// request carries the choice and the object's UID; success goes back
// with a status line.
func TestDialogStarts(t *testing.T) {
	f := &fakeForwarder{ports: servicePorts()}
	m := open(t, f, 80, 24, "services")
	if v := m.View(); !strings.Contains(v, "▸ 80/TCP web → http") || !strings.Contains(v, "[0    ]") {
		t.Fatalf("first port, local 0:\n%s", v)
	}
	m, _ = m.Update(viewtest.Key("down"))
	m, _ = m.Update(viewtest.Key("down")) // past the UDP port to metrics
	if v := m.View(); !strings.Contains(v, "[9090 ]") {
		t.Fatalf("local follows 9090:\n%s", v)
	}
	m, _ = m.Update(viewtest.Key("tab"))
	for _, k := range []string{"backspace", "backspace", "backspace", "backspace", "1", "9", "0", "9", "0"} {
		m, _ = m.Update(viewtest.Key(k))
	}
	m, _ = m.Update(viewtest.Key("tab"))
	m, _ = m.Update(viewtest.Key("up")) // the typed local port stays
	m, _ = m.Update(viewtest.Key("down"))
	_, cmd := m.Update(viewtest.Key("enter"))
	_, msgs := run(t, m, cmd)
	want := kube.PortForwardRequest{Kind: "services", Namespace: "demo", Name: "web", UID: "u1", RemotePort: 9090, LocalPort: 19090}
	if len(f.started) != 1 || f.started[0] != want {
		t.Fatalf("started %+v, want %+v", f.started, want)
	}
	var status, back bool
	for _, msg := range msgs {
		switch msg := msg.(type) {
		case views.StatusMsg:
			status = strings.Contains(msg.Text, "forwarding 127.0.0.1:18080 → services/web:9090 (pod web-7c9d5-x2k)")
		case views.BackMsg:
			back = true
		}
	}
	if !status || !back {
		t.Fatalf("messages %#v", msgs)
	}
}

func TestDialogTypedPortAndErrors(t *testing.T) {
	f := &fakeForwarder{err: errors.New("forbidden: you may not get pods"), fail: errors.New("cannot listen on 127.0.0.1:5432: bind: address already in use")}
	m := open(t, f, 80, 24, kube.KindPods)
	if v := m.View(); !strings.Contains(v, "the ports cannot be read: forbidden") || !strings.Contains(v, "▸ other port") {
		t.Fatalf("no ports:\n%s", v)
	}
	m, _ = m.Update(viewtest.Key("enter"))
	if v := m.View(); !strings.Contains(v, "type a port") || len(f.started) != 0 {
		t.Fatalf("nothing typed:\n%s", v)
	}
	for _, k := range []string{"5", "x", "4", "3", ":", "2"} { // only digits are taken
		m, _ = m.Update(viewtest.Key(k))
	}
	if v := m.View(); !strings.Contains(v, "other port: [5432 ]") || !strings.Contains(v, "local port on 127.0.0.1: [5432 ]") {
		t.Fatalf("typed:\n%s", v)
	}
	_, cmd := m.Update(viewtest.Key("enter"))
	m, _ = run(t, m, cmd)
	if v := m.View(); !strings.Contains(v, "address already in use") {
		t.Fatalf("start error:\n%s", v)
	}
	_, cmd = m.Update(viewtest.Key("esc"))
	if _, ok := cmd().(views.BackMsg); !ok {
		t.Fatal("esc does not go back")
	}
}

// TestDialogUpFromLocalPort: ↑ on the local port field goes back to the
// port rows (the row chosen), as the hint "↑/↓ port" says; ↓ past the
// last row reaches the local port again.
func TestDialogUpFromLocalPort(t *testing.T) {
	m := open(t, &fakeForwarder{ports: servicePorts()}, 80, 24, "services")
	m, _ = m.Update(viewtest.Key("down"))
	m, _ = m.Update(viewtest.Key("down")) // metrics
	m, _ = m.Update(viewtest.Key("tab"))
	if v := m.View(); !strings.Contains(v, "▸ local port") {
		t.Fatalf("tab: not on the local port:\n%s", v)
	}
	m, _ = m.Update(viewtest.Key("up"))
	if v := m.View(); !strings.Contains(v, "▸ 9090/TCP metrics") || strings.Contains(v, "▸ local port") {
		t.Fatalf("up from the local port does not go back to the port chosen:\n%s", v)
	}
	m, _ = m.Update(viewtest.Key("down")) // the typed-port row
	m, _ = m.Update(viewtest.Key("down")) // past it: the local port
	if v := m.View(); !strings.Contains(v, "▸ local port") {
		t.Fatalf("down past the last row does not reach the local port:\n%s", v)
	}
}

// TestDialogTypingReplacesDefault: the local port's default gives way to
// the first digit typed (9999, not 09999 or 90909999), and leading zeros
// are dropped.
func TestDialogTypingReplacesDefault(t *testing.T) {
	f := &fakeForwarder{ports: servicePorts()}
	m := open(t, f, 80, 24, "services") // port 80: default local 0
	m, _ = m.Update(viewtest.Key("tab"))
	for _, k := range []string{"9", "9", "9", "9"} {
		m, _ = m.Update(viewtest.Key(k))
	}
	if v := m.View(); !strings.Contains(v, "[9999 ]") {
		t.Fatalf("typed 9999 over the default 0:\n%s", v)
	}
	_, cmd := m.Update(viewtest.Key("enter"))
	run(t, m, cmd)
	if len(f.started) != 1 || f.started[0].LocalPort != 9999 {
		t.Fatalf("started %+v", f.started)
	}
	m = open(t, f, 80, 24, "services")
	m, _ = m.Update(viewtest.Key("down"))
	m, _ = m.Update(viewtest.Key("down")) // metrics: default 9090
	m, _ = m.Update(viewtest.Key("tab"))
	for _, k := range []string{"0", "0", "8", "0"} {
		m, _ = m.Update(viewtest.Key(k))
	}
	if v := m.View(); !strings.Contains(v, "[80   ]") {
		t.Fatalf("leading zeros kept or the default not replaced:\n%s", v)
	}
	for _, tc := range [][2]string{{"09999", "9999"}, {"000", "0"}, {"", ""}, {"80", "80"}} {
		if got := portforward.TrimZeros(tc[0]); got != tc[1] {
			t.Errorf("TrimZeros(%q) = %q, want %q", tc[0], got, tc[1])
		}
	}
}

// TestDialogErrorClearedOnEdit: a start that failed to listen says why,
// without "invalid request:" (a taken port is not the request's fault),
// and the error goes when the person edits a field.
func TestDialogErrorClearedOnEdit(t *testing.T) {
	f := &fakeForwarder{ports: servicePorts(), fail: errors.New("cannot listen on 127.0.0.1:36837: bind: address already in use")}
	m := open(t, f, 80, 24, "services")
	_, cmd := m.Update(viewtest.Key("enter"))
	m, _ = run(t, m, cmd)
	v := m.View()
	if !strings.Contains(v, "cannot listen on 127.0.0.1:36837: bind: address already in use") || strings.Contains(v, "invalid request") {
		t.Fatalf("start error:\n%s", v)
	}
	viewtest.Golden(t, "dialog-error-80x24", v)
	m, _ = m.Update(viewtest.Key("tab"))
	if !strings.Contains(m.View(), "address already in use") {
		t.Fatal("moving to the field is not an edit: the error should stay until a change")
	}
	m, _ = m.Update(viewtest.Key("5"))
	if v := m.View(); strings.Contains(v, "address already in use") {
		t.Fatalf("the error stays while editing:\n%s", v)
	}
}

// TestDialogPassesHelp: `?` goes to the root's help overlay (the fields
// take digits only); digits do not.
func TestDialogPassesHelp(t *testing.T) {
	m := open(t, &fakeForwarder{ports: servicePorts()}, 80, 24, "services")
	kp, ok := m.(views.KeyPasser)
	if !ok || !kp.PassesKey("?") || kp.PassesKey("5") || kp.PassesKey("q") {
		t.Fatalf("KeyPasser %v: want ? only", ok)
	}
}

func TestParsePort(t *testing.T) {
	for _, tc := range []struct {
		in   string
		zero bool
		want int32
		err  string
	}{
		{"8080", false, 8080, ""},
		{" 80 ", false, 80, ""},
		{"0", true, 0, ""},
		{"0", false, 0, "1-65535"},
		{"65535", false, 65535, ""},
		{"65536", false, 0, "at most 65535"},
		{"99999999999999999999", false, 0, "at most 65535"},
		{"-1", true, 0, "digits only"},
		{"80a", false, 0, "digits only"},
		{"", true, 0, "type a port"},
		{"٣", false, 0, "digits only"},
	} {
		got, err := portforward.ParsePort(tc.in, tc.zero)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %d %v", tc.in, got, err)
		}
	}
}

func FuzzParsePort(f *testing.F) {
	for _, s := range []string{"8080", "0", "65536", "-1", " 1", "1e3"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, zero bool) {
		n, err := portforward.ParsePort(s, zero)
		if err != nil {
			return
		}
		if n < 0 || n > 65535 || (n == 0 && !zero) {
			t.Fatalf("%q → %d", s, n)
		}
	})
}

// TestDialogKeysRebound: with `port-forward: {start: ctrl+s}` and the
// help moved to f1 (`global: {help: f1}`), enter starts nothing and ?
// stays in the dialog; ctrl+s starts the forward, f1 reaches the help.
func TestDialogKeysRebound(t *testing.T) {
	f := &fakeForwarder{ports: servicePorts()}
	vc := viewtest.Context(nil, 80, 24)
	vc.KeyMap = views.KeyMap{"port-forward": {"start": {"ctrl+s"}}, "global": {"help": {"f1"}}}
	vc.Keys = views.BoundKeys(vc, "global", views.DefaultGlobalKeys)
	var m views.Screen = portforward.New(vc, f, views.OpenPortForwardMsg{Kind: "services", Namespace: "demo", Name: "web", UID: "u1"})
	m, _ = run(t, m, m.Init())
	if kp := m.(views.KeyPasser); kp.PassesKey("?") || !kp.PassesKey("f1") {
		t.Fatal("the dialog passes ? rather than f1 to the help")
	}
	if _, cmd := m.Update(viewtest.Key("enter")); cmd != nil || len(f.started) != 0 {
		t.Fatalf("enter (start's old key) started %+v", f.started)
	}
	if v := m.View(); !strings.Contains(v, "ctrl+s forward") {
		t.Errorf("the help line does not name ctrl+s:\n%s", v)
	}
	_, cmd := m.Update(viewtest.Key("ctrl+s"))
	run(t, m, cmd)
	if len(f.started) != 1 || f.started[0].RemotePort != 80 {
		t.Fatalf("ctrl+s (start's new key) started %+v", f.started)
	}
}
