package logs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views/logs"
	"github.com/kyyard/kyyard/views/viewtest"
)

// safeForTerminal fails the test when v, a frame the viewer draws, holds
// anything but text, newlines and colour (SGR) sequences: another escape
// sequence, a C0 or C1 control, DEL, or invalid UTF-8.
func safeForTerminal(t *testing.T, what, v string) {
	t.Helper()
	for rest := v; ; {
		i := strings.IndexByte(rest, 0x1b)
		if i < 0 {
			break
		}
		rest = rest[i:]
		end := strings.IndexByte(rest, 'm')
		if len(rest) < 2 || rest[1] != '[' || end < 0 || strings.TrimLeft(rest[2:end], "0123456789;:") != "" {
			t.Fatalf("%s: a sequence other than SGR reaches the terminal: %q", what, rest[:min(len(rest), 24)])
		}
		rest = rest[end+1:]
	}
	if !utf8.ValidString(v) {
		t.Fatalf("%s: invalid UTF-8 reaches the terminal", what)
	}
	for _, r := range v {
		if r < 0x20 && r != '\n' && r != 0x1b || r >= 0x7f && r < 0xa0 {
			t.Fatalf("%s: control %U reaches the terminal", what, r)
		}
	}
}

// TestE2ERealNodeLogViewerHostile: the viewer following the real node's
// hostile writer (demoapp hostile: escape sequences, C0 and C1 controls,
// invalid UTF-8, bidi overrides, a 200,000-byte line) draws frames that
// hold only text and colour sequences, at 80x24 and 200x50, cut and
// wrapped; every line is there and counted; invalid UTF-8 shows as �; the
// long line stays one line, cut with …, found by a search at its end and
// whole when wrapped; ctrl+s saves the log's own bytes, equal to kubectl
// logs.
func TestE2ERealNodeLogViewerHostile(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	kubetest.RequireRealNode(t, cs)
	ns := kubetest.TempNamespace(t, cs, "kyyard-realview")
	p := kubetest.RunRealNodePod(t, cs, ns, kubetest.RealNodePod("hostile", kubetest.DemoAppImage, "/demoapp", "hostile", "-every=1h"))
	client := kubetest.Client(t, cfg)
	req := kube.LogRequest{Kind: kube.KindPods, Namespace: ns, Name: "hostile", UID: string(p.UID),
		Options: kube.LogOptions{Follow: true, TailLines: -1}}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		w, h := size[0], size[1]
		dir := t.TempDir()
		vc := viewtest.Context(nil, w, h)
		pr := &program{t: t, m: logs.New(vc, client, req, logs.WithSaveDir(dir), logs.WithClipboard(func(string) error { return nil })),
			msgs: make(chan tea.Msg, 64)}
		pr.spawn(pr.m.Init())
		what := func(s string) string { return fmt.Sprintf("%s at %dx%d", s, w, h) }
		want := []string{"hostile: done with the first round", "10 lines"}
		if w >= 200 {
			want = append(want, "0 dropped")
		}
		v := pr.until(what("the first round followed"), contains(want...))
		safeForTerminal(t, what("following"), v)
		plain := ansi.Strip(v)
		for _, want := range []string{"hostile: colours red bold on green", "␛]0;pwned by a log␇", "hostile: invalid UTF-8 ��",
			"long-line-start xxx", "…"} {
			if w >= 200 && !strings.Contains(plain, want) {
				t.Errorf("%s: the view lacks %q:\n%s", what("following"), want, plain)
			}
		}
		if strings.Contains(plain, "long-line-end") {
			t.Errorf("%s: the long line is not cut:\n%s", what("following"), plain)
		}
		// Wrapped, at the bottom: the long line's end shows before the
		// last line, nothing lost.
		pr.key("w")
		v = pr.until(what("wrapped"), contains("long-line-end", "hostile: done with the first round"))
		safeForTerminal(t, what("wrapped"), v)
		pr.key("w")
		// The search finds the long line by its end: one match, shown
		// around the match.
		pr.key("/")
		for _, r := range "long-line-end" {
			pr.key(string(r))
		}
		pr.key("enter")
		v = pr.until(what("the search"), contains("1 of 1 match", "long-line-end"))
		safeForTerminal(t, what("the search"), v)
		pr.key("esc")
		// Saved: the log's own bytes, as kubectl logs prints them.
		pr.key("ctrl+s")
		var saved []byte
		for deadline := time.Now().Add(20 * time.Second); len(saved) == 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if files, _ := filepath.Glob(filepath.Join(dir, "*.log")); len(files) == 1 {
				saved, _ = os.ReadFile(files[0])
			}
		}
		kout, _, _ := kubetest.Kubectl(t, "", "-n", ns, "logs", "hostile")
		if string(saved) != kout {
			t.Errorf("%s: saved %d bytes, kubectl logs prints %d", what("ctrl+s"), len(saved), len(kout))
		}
		pr.m.Close()
	}
}
