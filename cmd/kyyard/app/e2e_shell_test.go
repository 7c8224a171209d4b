package app

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
)

// ptyRun is kyyard running under a pseudo-terminal: everything it wrote
// so far, and the terminal's slave side for its settings.
type ptyRun struct {
	t      *testing.T
	master *os.File
	slave  *os.File
	mu     sync.Mutex
	out    []byte
}

// output returns what kyyard wrote since offset from.
func (p *ptyRun) output(from int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return string(p.out[min(from, len(p.out)):])
}

// mark is the current end of the output.
func (p *ptyRun) mark() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.out)
}

// ansiSeq matches terminal escape sequences, dropped before matching text.
var ansiSeq = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]|\x1b\][^\x07]*\x07`)

// waitFor waits (at most 30 s) for re to appear in the output after from
// and returns the offset past it.
func (p *ptyRun) waitFor(from int, what string, re *regexp.Regexp) int {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		seen := ansiSeq.ReplaceAllString(string(p.out[min(from, len(p.out)):]), "")
		end := len(p.out)
		p.mu.Unlock()
		if re.MatchString(seen) {
			return end
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatalf("waiting for %s: not seen in the output:\n%q", what, ansiSeq.ReplaceAllString(p.output(from), ""))
	return 0
}

// send types text.
func (p *ptyRun) send(text string) {
	p.t.Helper()
	if _, err := p.master.WriteString(text); err != nil {
		p.t.Fatal(err)
	}
}

// termios reads the terminal's settings (what `stty -g` prints), from the
// test side.
func (p *ptyRun) termios() unix.Termios {
	p.t.Helper()
	st, err := unix.IoctlGetTermios(int(p.slave.Fd()), unix.TCGETS)
	if err != nil {
		p.t.Fatal(err)
	}
	return *st
}

// startUnderPty builds kyyard and starts it with args on a new
// pseudo-terminal of cols x rows, as the session leader with it as its
// controlling terminal (so a resize sends it SIGWINCH).
func startUnderPty(t *testing.T, cols, rows uint16, args ...string) *ptyRun {
	t.Helper()
	bin := kyyardBinary(t)
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	if err := pty.Setsize(master, &pty.Winsize{Cols: cols, Rows: rows}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "XDG_CONFIG_HOME="+t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &ptyRun{t: t, master: master, slave: slave}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			p.mu.Lock()
			p.out = append(p.out, buf[:n]...)
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = master.Close()
		_ = slave.Close()
	})
	return p
}

// TestC15C17ShellUnderPty runs kyyard itself under a pseudo-terminal of
// 195x41, opens a shell on a Running pod of demo (`s`, then y to the Pod
// Security warning: demo enforces no level), and checks that `stty size`
// inside says 41 195 (C15), that a resize of the local terminal to 100x30
// reaches the remote one, and that after `exit` the terminal settings are
// those kyyard had before the shell, that the modes a remote program left
// on (mouse tracking, a hidden cursor, the alternate screen) are turned off,
// and the next key (`?`) opens kyyard's help (C17).
func TestC15C17ShellUnderPty(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	pods, err := cs.CoreV1().Pods(kubetest.DemoNamespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := ""
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && len(p.Spec.Containers) == 1 && len(p.Spec.InitContainers) == 0 && p.DeletionTimestamp == nil &&
			len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].State.Running != nil {
			pod = p.Name
			break
		}
	}
	if pod == "" {
		t.Fatal("no Running single-container pod in demo")
	}
	p := startUnderPty(t, 195, 41, "--kubeconfig", os.Getenv(kubetest.KubeconfigEnv), "-n", kubetest.DemoNamespace)
	at := p.waitFor(0, "the pods table", regexp.MustCompile(regexp.QuoteMeta(pod)))
	time.Sleep(300 * time.Millisecond) // let the first frames settle
	p.send("/" + pod + "\r")
	time.Sleep(300 * time.Millisecond)
	before := p.termios()
	if before.Lflag&unix.ICANON != 0 || before.Lflag&unix.ECHO != 0 {
		t.Fatalf("kyyard's terminal is not in raw mode before the shell: lflag %#x", before.Lflag)
	}
	p.send("s")
	at = p.waitFor(at, "the Pod Security confirmation", regexp.MustCompile(`y go on`))
	p.send("y")
	at = p.waitFor(at, "the banner", regexp.MustCompile(`shell: \S*sh in demo/`+regexp.QuoteMeta(pod)+` \(container \S+\).*exit or ctrl\+d returns`))
	during := p.termios()
	if during.Lflag&unix.ECHO != 0 {
		t.Fatalf("the local terminal echoes during the shell: lflag %#x", during.Lflag)
	}
	time.Sleep(500 * time.Millisecond) // the remote shell starts
	p.send("stty size\r")
	at = p.waitFor(at, "41 195 from stty size", regexp.MustCompile(`(?m)^\r?41 195\r?$`))
	if err := pty.Setsize(p.master, &pty.Winsize{Cols: 100, Rows: 30}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // SIGWINCH, the size queue, the remote resize
	p.send("stty size\r")
	at = p.waitFor(at, "30 100 after the resize", regexp.MustCompile(`(?m)^\r?30 100\r?$`))
	// A remote program that leaves the alternate screen, a hidden cursor
	// and mouse tracking on: kyyard turns them off after the session.
	// (Sent before exit and waited for: kwok may drop a pty's last output
	// when the shell exits.)
	p.send(`printf '\033[?1049h\033[?25l\033[?1000h'` + "\r")
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(p.output(at), "\x1b[?1000h"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the remote printf's mouse mode never came:\n%q", p.output(at))
		}
	}
	p.send("exit\r")
	at = p.waitFor(at, "the status line after the shell", regexp.MustCompile(`shell ended: exit 0`))
	out := p.output(0)
	on := strings.LastIndex(out, "\x1b[?1000h")
	if on < 0 || !strings.Contains(out[on:], "\x1b[?1000l") || !strings.Contains(out[on:], "\x1b[?25h") {
		t.Fatalf("mouse tracking or the hidden cursor left on after the shell:\n%q", out[max(on, 0):])
	}
	if banner := strings.Index(out, "exit or ctrl+d returns"); banner < 0 || !strings.Contains(out[:banner], "\x1b[H\x1b[2J") {
		t.Fatal("the screen was not cleared before the banner")
	}
	time.Sleep(300 * time.Millisecond)
	if after := p.termios(); after != before {
		t.Fatalf("terminal settings after the shell differ:\nbefore %+v\nafter  %+v", before, after)
	}
	p.send("?")
	p.waitFor(at, "kyyard's help after the shell", regexp.MustCompile(`Row markers:`))
	if strings.Contains(p.output(0), "panic") {
		t.Fatalf("kyyard panicked:\n%s", p.output(0))
	}
}
