package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestLongLine(t *testing.T) {
	l := LongLine()
	if len(l) != LongLineBytes || !strings.HasPrefix(l, "long-line-start ") || !strings.HasSuffix(l, " long-line-end") || strings.Contains(l, "\n") {
		t.Errorf("long line: %d bytes, %.20q...%q", len(l), l, l[len(l)-20:])
	}
}

func TestHostileLinesAreHostile(t *testing.T) {
	all := strings.Join(HostileLines, "\n")
	for _, want := range []string{"\x1b[", "\x1b]0;", "\x1b]52;", "\r", "\b", "\a", "\x00", "\x9b"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q", want)
		}
	}
	if utf8.ValidString(all) {
		t.Error("all valid UTF-8")
	}
	for _, l := range HostileLines {
		if strings.Contains(l, "\n") {
			t.Errorf("%q holds a newline", l)
		}
	}
}

// cancelAfter cancels its context once it has seen n newlines.
type cancelAfter struct {
	buf    bytes.Buffer
	n      int
	cancel func()
}

func (w *cancelAfter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	if bytes.Count(w.buf.Bytes(), []byte("\n")) >= w.n {
		w.cancel()
	}
	return len(p), nil
}

func TestLogsNumbersEveryLine(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w := &cancelAfter{n: 5000, cancel: cancel}
	if err := logs(ctx, w, 0, 100); err == nil {
		t.Fatal("logs returned nil")
	}
	lines := strings.Split(strings.TrimSuffix(w.buf.String(), "\n"), "\n")
	if len(lines) < 5000 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, "seq="+strconv.Itoa(i+1)+" ") || len(l) != 100 {
			t.Fatalf("line %d = %q (%d bytes)", i, l, len(l))
		}
	}
}
