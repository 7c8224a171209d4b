package history_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/history"
	"github.com/kyyard/kyyard/views/viewtest"
)

func entries() []history.Entry {
	ref := func(kind kube.Kind, name string) kube.ObjectRef {
		return kube.ObjectRef{Kind: kind, Namespace: "demo", Name: name, UID: "u-" + name}
	}
	return []history.Entry{
		{Time: viewtest.Now, Context: "kind-local", Outcome: kube.OperateOutcome{
			Op: kube.Operation{Ref: ref(kube.KindDeployments, "web"), Action: kube.ActionRestart}, Written: true,
			Detail: "restarted demo/deployments/web: its pods are replaced"}},
		{Time: viewtest.Now.Add(65e9), Context: "kind-local", Outcome: kube.OperateOutcome{
			Op:     kube.Operation{Ref: ref(kube.KindDeployments, "shop"), Action: kube.ActionDelete},
			Reason: kube.ReasonApplicationManaged, Detail: "managed by Helm (release shop)\tnot confirmed"}},
	}
}

func TestHistoryScreen(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		m := history.New(viewtest.Context(nil, size[0], size[1]), entries(), "/home/me/.config/kyyard/history.log")
		v := m.View()
		viewtest.Size(t, v, size[0], size[1])
		viewtest.Golden(t, "history-"+map[int]string{80: "80x24", 200: "200x50"}[size[0]], v)
	}
	empty := history.New(viewtest.Context(nil, 80, 24), nil, "")
	if v := empty.View(); !strings.Contains(v, "no action in this session yet") || !strings.Contains(v, "kept for this session only") {
		t.Fatalf("empty history:\n%s", v)
	}
}

func TestAppend(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kyyard", "history.log")
	if err := history.Append(path, entries()); err != nil {
		t.Fatal(err)
	}
	if err := history.Append(path, entries()[:1]); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), b)
	}
	want := "2026-11-30T12:01:05Z\tkind-local\tdemo/deployments/shop\tdelete\tapplication_managed\tmanaged by Helm (release shop) not confirmed"
	if lines[1] != want {
		t.Fatalf("line %q, want %q", lines[1], want)
	}
	if err := history.Append(filepath.Join(dir, "kyyard", "history.log", "x"), entries()); err == nil {
		t.Fatal("an unwritable path was written")
	}
}

// TestHistoryKeysRebound: with `history: {top: T}`, g leaves the list at
// its end; T scrolls to the first entries.
func TestHistoryKeysRebound(t *testing.T) {
	vc := viewtest.Context(nil, 120, 5)
	vc.KeyMap = views.KeyMap{"history": {"top": {"T"}}}
	var list []history.Entry
	for range 5 {
		list = append(list, entries()...)
	}
	var m views.Screen = history.New(vc, list, "")
	end := m.View()
	if strings.Contains(end, "TIME") {
		t.Fatalf("the list does not start at its end:\n%s", end)
	}
	m, _ = m.Update(viewtest.Key("g"))
	if v := m.View(); v != end {
		t.Fatalf("g (top's old key) scrolled:\n%s", v)
	}
	m, _ = m.Update(viewtest.Key("T"))
	if v := m.View(); !strings.Contains(v, "TIME") {
		t.Fatalf("T (top's new key) did not scroll to the top:\n%s", v)
	}
}
