package exec

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/cancelreader"
	"golang.org/x/term"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// SignalError is what a session ended by SIGTERM or SIGHUP returns: the
// terminal was restored and kyyard should quit.
type SignalError struct{ Signal os.Signal }

// Error names the signal.
func (e *SignalError) Error() string { return "ended by " + e.Signal.String() }

// shutdownWait bounds the wait for a session cancelled by a signal to
// return.
const shutdownWait = 5 * time.Second

// Command is the in-process command tea.Exec runs with the terminal
// released (a tea.ExecCommand): it clears the screen and prints the banner
// at its top, puts the terminal in
// raw mode (golang.org/x/term on the stdin fd), runs the session with the
// local size first and each SIGWINCH's size after, and when the session
// ends, panics, or SIGTERM or SIGHUP arrive, writes the resets of the
// modes a remote program may have left on (reset.go) and restores the
// terminal's settings.
type Command struct {
	session kube.ExecSession
	banner  string
	limits  kube.ExecLimits

	stdin          io.Reader
	stdout, stderr io.Writer

	// Result and Err are the session's, set when Run returns.
	Result kube.ExecResult
	Err    error
}

// NewCommand returns the command that runs session with banner printed
// first.
func NewCommand(session kube.ExecSession, banner string, limits kube.ExecLimits) *Command {
	return &Command{session: session, banner: banner, limits: limits}
}

// SetStdin sets the terminal's input (tea.ExecCommand).
func (c *Command) SetStdin(r io.Reader) { c.stdin = r }

// SetStdout sets the terminal's output (tea.ExecCommand).
func (c *Command) SetStdout(w io.Writer) { c.stdout = w }

// SetStderr sets where a panic's text goes (tea.ExecCommand).
func (c *Command) SetStderr(w io.Writer) { c.stderr = w }

// outcome is how the session goroutine ended.
type outcome struct {
	res   kube.ExecResult
	err   error
	panic any
	stack []byte
}

// Run runs the session (tea.ExecCommand). It returns a *SignalError after
// SIGTERM or SIGHUP, else nil with the session's outcome in Result and
// Err. A panic in the session is recovered, the terminal restored, its
// text and stack written to stderr, and then re-raised here, where
// Bubble Tea's own handler leaves the alternate screen and restores the
// terminal it started with before the program ends (casebook C41).
func (c *Command) Run() error {
	stdin, stdout, stderr := c.stdin, c.stdout, c.stderr
	if stdin == nil {
		stdin = os.Stdin
	}
	if stdout == nil {
		stdout = os.Stdout
	}
	if stderr == nil {
		stderr = os.Stderr
	}
	fd, isTerm := terminalFd(stdin)
	fmt.Fprint(stdout, titlePush+clearScreen+c.banner+"\r\n")
	var resetOnce sync.Once
	reset := func() { resetOnce.Do(func() { _, _ = io.WriteString(stdout, resetSequence()) }) }
	defer reset()
	restore := func() {}
	if isTerm {
		if state, err := term.MakeRaw(fd); err == nil {
			var once sync.Once
			restore = func() { once.Do(func() { _ = term.Restore(fd, state) }) }
		}
	}
	defer restore()

	sizes := newSizeQueue()
	defer sizes.close()
	if isTerm {
		if w, h, err := term.GetSize(fd); err == nil {
			sizes.push(w, h)
		}
	}
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGWINCH, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sig)

	in, err := newInputPump(stdin)
	if err != nil {
		restore()
		c.Err = fmt.Errorf("the terminal's input cannot be read: %w", err)
		return nil
	}
	defer in.stop()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{panic: p, stack: debug.Stack()}
			}
		}()
		res, err := c.session.Run(ctx, kube.ExecStreams{Stdin: in.r, Stdout: stdout, Sizes: sizes}, c.limits)
		done <- outcome{res: res, err: err}
	}()
	for {
		select {
		case s := <-sig:
			if s == syscall.SIGWINCH {
				if w, h, err := term.GetSize(fd); isTerm && err == nil {
					sizes.push(w, h)
				}
				continue
			}
			cancel()
			in.stop()
			reset()
			restore()
			select {
			case <-done:
			case <-time.After(shutdownWait):
			}
			c.Err = &SignalError{Signal: s}
			return c.Err
		case o := <-done:
			in.stop()
			reset()
			restore()
			if o.panic != nil {
				fmt.Fprintf(stderr, "\r\nkyyard: panic during the shell session: %v\n%s\n", o.panic, o.stack)
				panic(o.panic)
			}
			c.Result, c.Err = o.res, o.err
			return nil
		}
	}
}

// inputPump copies the terminal's input to the session through a pipe, so
// that when the session ends no goroutine of it is left reading the
// terminal: stop cancels the read (muesli/cancelreader, as Bubble Tea
// does) and waits for the copy to end, and the next key press is
// kyyard's (casebook C17).
type inputPump struct {
	cr   cancelreader.CancelReader
	r    *io.PipeReader
	done chan struct{}
	once sync.Once
}

// pumpStopWait bounds stop's wait for the copy to end.
const pumpStopWait = 2 * time.Second

func newInputPump(stdin io.Reader) (*inputPump, error) {
	cr, err := cancelreader.NewReader(stdin)
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	p := &inputPump{cr: cr, r: pr, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		buf := make([]byte, 4096)
		for {
			n, err := cr.Read(buf)
			if n > 0 {
				if _, werr := pw.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return p, nil
}

// stop ends the copy and waits for it (at most pumpStopWait).
func (p *inputPump) stop() {
	p.once.Do(func() {
		p.cr.Cancel()
		_ = p.r.CloseWithError(io.EOF)
		select {
		case <-p.done:
		case <-time.After(pumpStopWait):
		}
		_ = p.cr.Close()
	})
}

// terminalFd returns r's file descriptor and whether it is a terminal.
func terminalFd(r io.Reader) (int, bool) {
	f, ok := r.(interface{ Fd() uintptr })
	if !ok {
		return -1, false
	}
	fd := int(f.Fd())
	return fd, term.IsTerminal(fd)
}

// sizeQueue is a kube.TerminalSizeQueue fed by push: the latest size not
// yet taken wins; close ends it.
type sizeQueue struct {
	ch   chan kube.TerminalSize
	done chan struct{}
	once sync.Once
}

func newSizeQueue() *sizeQueue {
	return &sizeQueue{ch: make(chan kube.TerminalSize, 1), done: make(chan struct{})}
}

// push queues a size (cells), replacing one not yet taken.
func (q *sizeQueue) push(width, height int) {
	sz := kube.TerminalSize{Width: uint16(max(min(width, 0xffff), 0)), Height: uint16(max(min(height, 0xffff), 0))}
	for {
		select {
		case q.ch <- sz:
			return
		default:
			select {
			case <-q.ch:
			default:
			}
		}
	}
}

// Next returns the next size, nil once closed.
func (q *sizeQueue) Next() *kube.TerminalSize {
	select {
	case sz := <-q.ch:
		return &sz
	case <-q.done:
		return nil
	}
}

// close ends the queue.
func (q *sizeQueue) close() { q.once.Do(func() { close(q.done) }) }

// Banner is the line printed before a session: the argv, the pod and the
// container, the note on how the shell was chosen, and how to return
// (screens.md: "shell: /bin/sh in demo/web-x2k (container web) · bash not
// found, using sh · exit or ctrl+d returns").
func Banner(s kube.ExecSession, namespace, pod string) string {
	parts := []string{fmt.Sprintf("shell: %s in %s/%s (container %s)", strings.Join(s.Argv(), " "), namespace, pod, s.Container())}
	if n := s.Note(); n != "" {
		parts = append(parts, n)
	}
	parts = append(parts, "exit or ctrl+d returns")
	return views.Sanitize(strings.Join(parts, " · "))
}

// handOff releases the terminal to session with tea.Exec; endedMsg
// follows.
func (m *Model) handOff(s kube.ExecSession) tea.Cmd {
	cmd := NewCommand(s, Banner(s, m.target.Namespace, m.target.Pod), kube.ExecLimits{})
	owner := m
	return tea.Exec(cmd, func(err error) tea.Msg {
		if err == nil {
			err = cmd.Err
		}
		return endedMsg{owner: owner, session: s, res: cmd.Result, err: err}
	})
}

// ended closes the screen with the outcome in the history and on the
// status line, one views.Report; a signal quits kyyard.
func (m *Model) ended(msg endedMsg) tea.Cmd {
	if _, ok := msg.err.(*SignalError); ok {
		return tea.Quit
	}
	text, isError := endedText(msg.res, msg.err)
	reason := kube.ReasonOf(msg.err)
	if msg.err != nil && reason == "" {
		reason = kube.ReasonError
	}
	o := m.teller().outcome(m.action(), reason, endedDetail(msg.session, msg.res, msg.err), m.image != "")
	return tea.Sequence(views.Report(views.StatusMsg{Text: fit(text, m.vc.Width), Error: isError}, o), back)
}
