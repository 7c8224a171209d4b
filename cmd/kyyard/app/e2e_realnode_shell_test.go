package app

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
)

// ask types line (and a carriage return, as the Enter key) into the
// remote terminal until re appears in the output after at, typing it again
// every two seconds (the first bytes may arrive before the remote program
// reads them, or before a resize has reached its pty); it returns the
// offset past it and fails after 30 seconds.
func (p *ptyRun) ask(at int, line string, re *regexp.Regexp) int {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		p.send(line + "\r")
		for typed := time.Now(); time.Since(typed) < 2*time.Second; time.Sleep(50 * time.Millisecond) {
			p.mu.Lock()
			seen := ansiSeq.ReplaceAllString(string(p.out[min(at, len(p.out)):]), "")
			end := len(p.out)
			p.mu.Unlock()
			if re.MatchString(seen) {
				return end
			}
		}
	}
	p.t.Fatalf("typed %q: %s not seen in 30 s:\n%q", line, re, ansiSeq.ReplaceAllString(p.output(at), ""))
	return 0
}

// TestE2ERealNodeShellAndDebugUnderPty runs kyyard under a
// pseudo-terminal of 150x40 against two pods of the real node in a
// namespace of its own. `s` on a busybox pod: the banner says the shell
// is busybox's sh because bash is not there, `stty size` says 40 150 and then
// 30 100 after the local terminal is resized, `exit 3` returns to the
// dashboard with `shell ended: exit 3`, the terminal settings are those
// kyyard had before, and the next key is kyyard's. `s` on a pod of
// demoapp (no shell): the offer of a debug container, kyyard's busybox
// image typed in, the session attached to it sees the app's process, its
// `exit 6` is the exit code shown, and the terminal is restored again.
func TestE2ERealNodeShellAndDebugUnderPty(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	kubetest.RequireRealNode(t, cs)
	ns := kubetest.TempNamespace(t, cs, "kyyard-realpty")
	kubetest.RunRealNodePod(t, cs, ns, kubetest.RealNodePod("shell", kubetest.BusyboxImage, "sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"))
	kubetest.RunRealNodePod(t, cs, ns, kubetest.RealNodePod("app", kubetest.DemoAppImage, "/demoapp", "idle"))

	p := startUnderPty(t, 150, 40, "--kubeconfig", os.Getenv(kubetest.KubeconfigEnv), "-n", ns)
	at := p.waitFor(0, "the pods table", regexp.MustCompile(`shell`))
	time.Sleep(300 * time.Millisecond) // let the first frames settle
	p.send("/shell\r")
	time.Sleep(300 * time.Millisecond)
	before := p.termios()
	if before.Lflag&unix.ICANON != 0 || before.Lflag&unix.ECHO != 0 {
		t.Fatalf("kyyard's terminal is not in raw mode before the shell: lflag %#x", before.Lflag)
	}

	p.send("s")
	at = p.waitFor(at, "the Pod Security confirmation", regexp.MustCompile(`y go on`))
	p.send("y")
	at = p.waitFor(at, "the banner", regexp.MustCompile(`shell: \S*sh in `+regexp.QuoteMeta(ns)+
		`/shell \(container main\) · bash not found, using sh · exit or ctrl\+d returns`))
	at = p.ask(at, "stty size", regexp.MustCompile(`(?m)^\r?40 150\r?$`))
	if err := pty.Setsize(p.master, &pty.Winsize{Cols: 100, Rows: 30}); err != nil {
		t.Fatal(err)
	}
	at = p.ask(at, "stty size", regexp.MustCompile(`(?m)^\r?30 100\r?$`))
	p.send("exit 3\r")
	at = p.waitFor(at, "the status line after the shell", regexp.MustCompile(`shell ended: exit 3`))
	time.Sleep(300 * time.Millisecond)
	if after := p.termios(); after != before {
		t.Fatalf("terminal settings after the shell differ:\nbefore %+v\nafter  %+v", before, after)
	}
	p.send("?")
	at = p.waitFor(at, "kyyard's help after the shell", regexp.MustCompile(`Row markers:`))
	p.send("\x1b") // close the help
	time.Sleep(300 * time.Millisecond)

	p.send("\x1b") // and the filter
	time.Sleep(300 * time.Millisecond)
	p.send("/app\r")
	time.Sleep(300 * time.Millisecond)
	p.send("s")
	at = p.waitFor(at, "the Pod Security confirmation", regexp.MustCompile(`y go on`))
	p.send("y")
	at = p.waitFor(at, "the debug container offer", regexp.MustCompile(`(?s)container main of `+regexp.QuoteMeta(ns)+`/app has no shell.*image \[`))
	p.send("\x15" + kubetest.BusyboxImage + "\r") // ctrl+u clears the default image
	at = p.waitFor(at, "the debug container's Pod Security confirmation", regexp.MustCompile(`y go on`))
	p.send("y")
	at = p.waitFor(at, "the debug session's banner", regexp.MustCompile(`shell: \(`+regexp.QuoteMeta(kubetest.BusyboxImage)+
		` entrypoint\) in `+regexp.QuoteMeta(ns)+`/app \(container debugger-[a-z0-9]{5}\).*exit or ctrl\+d returns`))
	at = p.ask(at, "echo dbg-$((40+2))", regexp.MustCompile(`dbg-42`))
	at = p.ask(at, "ps", regexp.MustCompile(`/demoapp idle`))
	p.send("exit 6\r")
	at = p.waitFor(at, "the status line after the debug session", regexp.MustCompile(`shell ended: exit 6`))
	time.Sleep(300 * time.Millisecond)
	if after := p.termios(); after != before {
		t.Fatalf("terminal settings after the debug session differ:\nbefore %+v\nafter  %+v", before, after)
	}
	p.send("?")
	p.waitFor(at, "kyyard's help after the debug session", regexp.MustCompile(`Row markers:`))
	if out := p.output(0); strings.Contains(out, "panic") {
		t.Fatalf("kyyard panicked:\n%s", out)
	}
}
