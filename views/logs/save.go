package logs

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/kyyard/kyyard/kube"
)

// savedMsg says how a save went.
type savedMsg struct {
	owner *Model
	path  string
	lines int
	// prefixed says each line was prefixed with its pod/container.
	prefixed bool
	err      error
}

// source names line's stream for a merged save: "<pod>/<container>".
func (m *Model) source(src int32) string {
	if src < 0 || int(src) >= len(m.buf.streams) {
		return "?/?"
	}
	st := m.buf.streams[src]
	return st.pod + "/" + st.container
}

// save writes every held log line's own bytes, each followed by "\n"
// (markers are not log lines and are left out; casebook C01: the file
// holds the log byte for byte), to <pod>-<container>-<time>.log (or
// <kind>-<name>-<time>.log for a workload) in the current directory, or
// in $TMPDIR when that cannot be written. A merged log (a workload's pods,
// every container of a pod) keeps each line's source: the line is
// prefixed with "<pod>/<container> ", as `kubectl logs --prefix` does
// ("[pod/<pod>/<container>] "), in kyyard's own label. The writing runs as
// a command.
func (m *Model) save() tea.Cmd {
	b := m.buf
	merged := m.multi()
	raws := make([][]byte, 0, b.lines)
	for seq := b.first; seq < b.end(); seq++ {
		e := b.at(seq)
		if e.kind != kindLine {
			continue
		}
		if merged {
			raws = append(raws, append([]byte(m.source(e.src)+" "), e.raw...))
			continue
		}
		raws = append(raws, e.raw)
	}
	name := m.fileName()
	dirs := []string{m.saveDir}
	if m.saveDir == "" {
		dirs = []string{".", os.TempDir()}
	}
	owner := m
	m.note = "saving…"
	return func() tea.Msg {
		var err error
		for _, dir := range dirs {
			var path string
			if path, err = writeLines(filepath.Join(dir, name), raws); err == nil {
				return savedMsg{owner: owner, path: path, lines: len(raws), prefixed: merged}
			}
		}
		return savedMsg{owner: owner, err: err}
	}
}

// fileName is "<pod>-<container>-<20060102-150405>.log", with the kind and
// name for a workload; only letters, digits, '.', '_' and '-' are kept.
func (m *Model) fileName() string {
	parts := []string{m.req.Name}
	switch {
	case m.req.Kind != kube.KindPods && m.req.Kind != kube.KindContainers:
		parts = []string{strings.TrimSuffix(string(m.req.Kind), "s"), m.req.Name}
	case m.req.AllContainers:
		parts = append(parts, "all")
	case m.req.Container != "":
		parts = append(parts, m.req.Container)
	case len(m.buf.streams) == 1:
		parts = append(parts, m.buf.streams[0].container)
	}
	if m.req.Options.Previous {
		parts = append(parts, "previous")
	}
	parts = append(parts, m.now().Format("20060102-150405"))
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, strings.Join(parts, "-"))
	return name + ".log"
}

// writeLines creates path (never over an existing file) and writes the
// lines, each followed by "\n". It returns the absolute path.
func writeLines(path string, lines [][]byte) (string, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	for _, l := range lines {
		w.Write(l)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path, nil
}

// saved shows where the lines went, or why they could not be saved.
func (m *Model) saved(msg savedMsg) {
	if msg.err != nil {
		m.note = "! not saved: " + msg.err.Error()
		return
	}
	m.note = fmt.Sprintf("saved %s to %s", plural(int64(msg.lines), "line"), msg.path)
	if msg.prefixed {
		m.note = fmt.Sprintf("saved %s, each after its pod/container, to %s", plural(int64(msg.lines), "line"), msg.path)
	}
}

// copyShown puts the log lines on screen (their text as shown, without
// colours or prefixes; the lines matching the search when only those are
// shown) on the clipboard.
func (m *Model) copyShown() tea.Cmd {
	p, ok := m.topPos()
	if !ok {
		m.note = "nothing to copy"
		return nil
	}
	var lines []string
	rows := 0
	for seq := p.seq; rows < m.height(); {
		e := m.buf.at(seq)
		if e.kind == kindLine {
			lines = append(lines, string(m.buf.plainOf(e)))
		}
		rows += len(m.rows(seq))
		next, ok := m.next(seq)
		if !ok {
			break
		}
		seq = next
	}
	if err := m.clip(strings.Join(lines, "\n") + "\n"); err != nil {
		m.note = "! not copied: " + err.Error()
		return nil
	}
	m.note = fmt.Sprintf("copied %s (OSC 52: the terminal must allow clipboard writes)", plural(int64(len(lines)), "line"))
	return nil
}

// osc52 writes text to the clipboard through the terminal: an OSC 52
// sequence (termenv, wrapped for screen/tmux) on standard output, the
// program's own output.
func osc52(text string) error {
	termenv.NewOutput(os.Stdout).Copy(ansi.Strip(text))
	return nil
}
