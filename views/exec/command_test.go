package exec_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views/exec"
)

// handOffModel hands the terminal to cmd once the program knows its size
// (as kyyard has drawn its screen before a shell starts) and quits when it
// has ended and the terminal's size was read again after it: Bubble Tea
// reads the size in a goroutine at its start and when it takes the
// terminal back, and the test closes the terminal only once both reads
// have reached Update, which orders them before the close.
type handOffModel struct {
	cmd   *exec.Command
	ended chan error
	sizes int  // WindowSizeMsgs received
	done  bool // cmd ended
}

type endMsg struct{ err error }

func (h *handOffModel) Init() tea.Cmd { return nil }

func (h *handOffModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		h.sizes++
		if h.sizes == 1 {
			return h, tea.Exec(h.cmd, func(err error) tea.Msg { return endMsg{err} })
		}
		if h.done {
			return h, tea.Quit
		}
	case endMsg:
		h.ended <- msg.err
		h.done = true
		if h.sizes >= 2 {
			return h, tea.Quit
		}
	}
	return h, nil
}

func (h *handOffModel) View() string { return "dashboard" }

// underPty runs a Bubble Tea program (alternate screen) on a new
// pseudo-terminal's slave side with session handed off at once; it returns
// the program's error, what was written, the settings before and after.
func underPty(t *testing.T, session kube.ExecSession) (error, string, unix.Termios, unix.Termios, *handOffModel) {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	defer slave.Close()
	_ = pty.Setsize(master, &pty.Winsize{Cols: 80, Rows: 24})
	get := func() unix.Termios {
		st, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		return *st
	}
	before := get()
	var mu sync.Mutex
	var out bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	m := &handOffModel{cmd: exec.NewCommand(session, "shell: sh in demo/web (container web) · exit or ctrl+d returns", kube.ExecLimits{}), ended: make(chan error, 1)}
	// tea.Exec gives the command os.Stderr: the terminal, as in kyyard.
	savedStderr := os.Stderr
	os.Stderr = slave
	prog := tea.NewProgram(m, tea.WithInput(slave), tea.WithOutput(slave), tea.WithAltScreen())
	_, runErr := prog.Run()
	os.Stderr = savedStderr
	after := get()
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	return runErr, out.String(), before, after, m
}

// TestC41PanicRestoresTerminal: a panic in the goroutine that runs the
// session: echo and line mode are back, the alternate screen is left, and
// the panic text is readable on the restored terminal.
func TestC41PanicRestoresTerminal(t *testing.T) {
	session := &fakeSession{argv: []string{"sh"}, container: "web", run: func(ctx context.Context, s kube.ExecStreams) (kube.ExecResult, error) {
		panic("boom in the session")
	}}
	err, out, before, after, _ := underPty(t, session)
	if !errors.Is(err, tea.ErrProgramPanic) {
		t.Fatalf("program ended with %v; want the panic reported", err)
	}
	if after.Lflag&unix.ECHO == 0 || after.Lflag&unix.ICANON == 0 || after != before {
		t.Fatalf("terminal not restored after the panic: before %+v after %+v", before, after)
	}
	enter, leave := strings.Index(out, "\x1b[?1049h"), strings.LastIndex(out, "\x1b[?1049l")
	if enter < 0 || leave < enter {
		t.Fatalf("the alternate screen was not left (enter %d, leave %d)", enter, leave)
	}
	if !strings.Contains(out, "boom in the session") || !strings.Contains(out, "panic during the shell session") {
		t.Fatalf("the panic text is not on the terminal:\n%q", out)
	}
}

// TestHangupRestoresTerminal: SIGHUP during the session ends it, restores
// the terminal and reports the signal (the dashboard then quits).
func TestHangupRestoresTerminal(t *testing.T) {
	started := make(chan struct{})
	session := &fakeSession{argv: []string{"sh"}, container: "web", run: func(ctx context.Context, s kube.ExecStreams) (kube.ExecResult, error) {
		close(started)
		<-ctx.Done()
		return kube.ExecResult{}, ctx.Err()
	}}
	go func() {
		<-started
		time.Sleep(50 * time.Millisecond) // Run is waiting on its signals
		_ = syscall.Kill(os.Getpid(), syscall.SIGHUP)
	}()
	err, _, before, after, m := underPty(t, session)
	if err != nil {
		t.Fatalf("program: %v", err)
	}
	var sig *exec.SignalError
	if got := <-m.ended; !errors.As(got, &sig) || sig.Signal != syscall.SIGHUP {
		t.Fatalf("the hand-off ended with %v; want SIGHUP", got)
	}
	if after != before {
		t.Fatalf("terminal not restored after SIGHUP: before %+v after %+v", before, after)
	}
}

// TestSessionEndRestoresTerminal: a normal end gives the settings back and
// the session's input is the terminal's (what was typed reaches it).
func TestSessionEndRestoresTerminal(t *testing.T) {
	session := &fakeSession{argv: []string{"sh"}, container: "web", run: func(ctx context.Context, s kube.ExecStreams) (kube.ExecResult, error) {
		if s.Sizes == nil {
			return kube.ExecResult{}, errors.New("no size queue")
		}
		if sz := s.Sizes.Next(); sz == nil || sz.Width != 80 || sz.Height != 24 {
			return kube.ExecResult{}, errors.New("the first size is not the terminal's")
		}
		_, _ = io.WriteString(s.Stdout, "remote says hi\r\n")
		return kube.ExecResult{ExitCode: 3}, nil
	}}
	err, out, before, after, m := underPty(t, session)
	if err != nil || <-m.ended != nil {
		t.Fatalf("program: %v", err)
	}
	if m.cmd.Err != nil || m.cmd.Result.ExitCode != 3 {
		t.Fatalf("result %+v, %v", m.cmd.Result, m.cmd.Err)
	}
	if after != before || !strings.Contains(out, "remote says hi") || !strings.Contains(out, "exit or ctrl+d returns") {
		t.Fatalf("settings before %+v after %+v; output %q", before, after, out)
	}
}

// TestSessionEndResetsTerminalModes: a remote program that turned on the
// alternate screen, a hidden cursor and mouse tracking and then ended
// leaves none of them on: after its output the command writes the resets
// (mouse modes, cursor, bracketed paste, focus, keypad and cursor keys,
// alternate screen, SGR, scroll region); before the banner it clears the
// screen so the banner is at the top of a clean one.
func TestSessionEndResetsTerminalModes(t *testing.T) {
	remote := "\x1b[?1049h\x1b[?25l\x1b[?1000h\x1b[?1006h\x1b[?2004h\x1b=\x1b[?1h\x1b[5;10r\x1b[31mred"
	session := &fakeSession{argv: []string{"sh"}, container: "web", run: func(ctx context.Context, s kube.ExecStreams) (kube.ExecResult, error) {
		_, _ = io.WriteString(s.Stdout, remote)
		return kube.ExecResult{}, nil
	}}
	cmd := exec.NewCommand(session, "shell: sh in demo/web", kube.ExecLimits{})
	var out bytes.Buffer
	cmd.SetStdin(strings.NewReader(""))
	cmd.SetStdout(&out)
	cmd.SetStderr(io.Discard)
	if err := cmd.Run(); err != nil || cmd.Err != nil {
		t.Fatalf("Run: %v, %v", err, cmd.Err)
	}
	got := out.String()
	if !strings.HasPrefix(got, "\x1b[22;0t\x1b[H\x1b[2Jshell: sh in demo/web\r\n") {
		t.Fatalf("output %q: want the titles saved, the screen cleared, then the banner", got)
	}
	at := strings.Index(got, remote)
	if at < 0 {
		t.Fatalf("output %q lacks the remote's", got)
	}
	after := got[at+len(remote):]
	for _, want := range []string{"\x1b[?1000l", "\x1b[?1002l", "\x1b[?1003l", "\x1b[?1005l", "\x1b[?1006l", "\x1b[?1015l",
		"\x1b[?25h", "\x1b[?2004l", "\x1b[?1004l", "\x1b>", "\x1b[?1l", "\x1b[?1049l", "\x1b[0m", "\x1b[r",
		"\x1b[23;0t"} { // the titles saved before, back (a remote OSC 0 does not outlive the session)
		if !strings.Contains(after, want) {
			t.Errorf("after the session, no %q in %q", want, after)
		}
	}
}
