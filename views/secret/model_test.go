package secret_test

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/secret"
	"github.com/kyyard/kyyard/views/viewtest"
)

const width, height = 90, 14

type fake struct {
	data  *kube.SecretData
	err   error
	reads int
}

func (f *fake) SecretValues(context.Context, string, string) (*kube.SecretData, error) {
	f.reads++
	return f.data, f.err
}

func data() *kube.SecretData {
	return &kube.SecretData{Ref: kube.ObjectRef{Kind: "secrets", Namespace: "demo", Name: "db"}, Type: "Opaque",
		Values: []kube.SecretValue{
			{Key: "bin", Value: []byte{0, 1, 0xff}},
			{Key: "cert", Value: []byte("line one\nline two\n"), Text: true},
			{Key: "password", Value: []byte("hunter2\x1b]52;c;evil\x07"), Text: true},
		}}
}

func open(t *testing.T, f *fake) *secret.Model {
	t.Helper()
	m := secret.New(viewtest.Context(nil, width, height), f, views.OpenSecretMsg{Namespace: "demo", Name: "db"})
	run(m, m.Init())
	return m
}

func run(m *secret.Model, cmd tea.Cmd) tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	m.Update(msg)
	return msg
}

func press(m *secret.Model, k string) tea.Msg {
	_, cmd := m.Update(viewtest.Key(k))
	if cmd == nil {
		return nil
	}
	return run(m, cmd)
}

func TestValuesHiddenUntilRevealed(t *testing.T) {
	m := open(t, &fake{data: data()})
	v := m.View()
	viewtest.Size(t, v, width, height)
	viewtest.Golden(t, "hidden", v)
	if strings.Contains(v, "hunter2") || strings.Contains(v, "line one") {
		t.Fatalf("a value shows before it is revealed:\n%s", v)
	}
	press(m, "down")
	press(m, "down")
	press(m, "enter") // password
	press(m, "up")
	press(m, "enter") // cert
	press(m, "up")
	press(m, "enter") // bin
	v = m.View()
	viewtest.Size(t, v, width, height)
	viewtest.Golden(t, "revealed", v)
	if strings.Contains(v, "\x1b]52") || strings.Contains(v, "\x07") {
		t.Fatalf("an escape sequence of a value reaches the terminal: %q", v)
	}
	press(m, "enter")
	if strings.Contains(m.View(), "AAH/") {
		t.Fatal("enter again does not hide the value")
	}
}

func TestReadAgainHidesAndEditOpensTheYAMLEdit(t *testing.T) {
	f := &fake{data: data()}
	m := open(t, f)
	press(m, "enter")
	press(m, "ctrl+r")
	if f.reads != 2 || strings.Contains(m.View(), "AAH/") {
		t.Fatalf("ctrl+r: %d reads\n%s", f.reads, m.View())
	}
	_, cmd := m.Update(viewtest.Key("e"))
	if got, ok := cmd().(views.OpenYAMLEditMsg); !ok || got != (views.OpenYAMLEditMsg{Kind: "secrets", Namespace: "demo", Name: "db"}) {
		t.Fatalf("e: %#v", got)
	}
	m.Close()
	if strings.Contains(m.View(), "password") {
		t.Fatal("the values outlive Close")
	}
}

func TestForbiddenRead(t *testing.T) {
	m := open(t, &fake{err: &kube.Refusal{Reason: kube.ReasonForbidden, Detail: `secrets "db" is forbidden`}})
	v := m.View()
	viewtest.Size(t, v, width, height)
	if !strings.Contains(v, "cannot read secret demo/db") || !strings.Contains(v, "forbidden") {
		t.Fatalf("forbidden:\n%s", v)
	}
}

// TestSecretKeysRebound: with `secret: {reveal: v}`, enter and space
// reveal nothing; v reveals the cursor's value, and the view names v.
func TestSecretKeysRebound(t *testing.T) {
	vc := viewtest.Context(nil, width, height)
	vc.KeyMap = views.KeyMap{"secret": {"reveal": {"v"}}}
	m := secret.New(vc, &fake{data: data()}, views.OpenSecretMsg{Namespace: "demo", Name: "db"})
	run(m, m.Init())
	press(m, "down")
	press(m, "enter")
	press(m, " ")
	if v := m.View(); strings.Contains(v, "line one") || !strings.Contains(v, "values hidden until revealed (v)") || !strings.Contains(v, "v reveal/hide") {
		t.Fatalf("enter or space (reveal's old keys) revealed, or v is not named:\n%s", v)
	}
	press(m, "v")
	if !strings.Contains(m.View(), "line one") {
		t.Fatalf("v (reveal's new key) did not reveal:\n%s", m.View())
	}
}
