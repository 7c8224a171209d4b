package logs_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views/logs"
)

// rowOf returns the drawn row that holds text once colours are stripped.
func rowOf(t *testing.T, view, text string) string {
	t.Helper()
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(ansi.Strip(l), text) {
			return l
		}
	}
	t.Fatalf("no row holds %q:\n%s", text, view)
	return ""
}

// TestC01BracketText: bracketed text is text: the row's visible text
// equals the line byte for byte, and the saved file holds its bytes.
func TestC01BracketText(t *testing.T) {
	const text = "cluster health changed from [YELLOW] to [GREEN] (reason: [shards started [[idx-1][0]] ...])"
	f := &fake{batches: []kube.LogBatch{{Lines: []kube.LogLine{line("web-x2k", "web", 0, text)}}}}
	h := open(t, f, podReq, 200, 10)
	if got := strings.TrimRight(ansi.Strip(rowOf(t, h.view(), "cluster")), " "); got != text {
		t.Fatalf("row shows %q, want %q", got, text)
	}
	h.keys("ctrl+s")
	path := savedPath(t, h)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != text+"\n" {
		t.Fatalf("saved %q, want %q", b, text+"\n")
	}
}

// savedPath reads the file name from the footer's "saved N lines to PATH".
func savedPath(t *testing.T, h *harness) string {
	t.Helper()
	v := h.m.Note()
	_, path, ok := strings.Cut(v, " to ")
	if !ok {
		t.Fatalf("footer does not say where the lines were saved: %q", v)
	}
	return strings.TrimSpace(path)
}

// TestC02ColourEscapes: colours show as colours, never as escape junk; a
// coloured line that never resets colours nothing after it.
func TestC02ColourEscapes(t *testing.T) {
	f := &fake{batches: []kube.LogBatch{{Lines: []kube.LogLine{
		line("web-x2k", "web", 0, "\x1b[30;47mdbug\x1b[0m message"),
		line("web-x2k", "web", 1, "\x1b[31mred and never reset"),
		line("web-x2k", "web", 2, "plain after"),
	}}}}
	h := open(t, f, podReq, 80, 10)
	v := h.view()
	if got := strings.TrimRight(ansi.Strip(rowOf(t, v, "dbug")), " "); got != "dbug message" {
		t.Fatalf("row text %q, want %q", got, "dbug message")
	}
	red := rowOf(t, v, "red and never reset")
	if !strings.HasSuffix(red, "\x1b[0m") {
		t.Fatalf("coloured row does not end reset: %q", red)
	}
	if plain := rowOf(t, v, "plain after"); strings.Contains(plain, "\x1b") {
		t.Fatalf("plain row carries a style: %q", plain)
	}
	// Stripped, no colour is left at all.
	h.keys("a")
	if v := h.view(); strings.Contains(v, "\x1b") || !strings.Contains(v, "dbug message") {
		t.Fatalf("colours not stripped:\n%q", v)
	}
}

// TestC05Bursts: 10,000 numbered lines written at once reach a viewer in
// order; through a queue too small for them, the view says exactly how
// many were dropped, and the lines it has are in order.
func TestC05Bursts(t *testing.T) {
	f := &fake{batches: []kube.LogBatch{{Lines: numbered(10_000)}}}
	h := open(t, f, podReq, 80, 10)
	h.has("10,000 lines · 0 dropped")
	h.keys("g")
	h.has("line 1\n")
	h.keys("G")
	h.has("line 10000")

	// A slow consumer: the queue holds 2,500 lines, written as 10 batches
	// of 1,000 while the screen takes nothing.
	var batches []kube.LogBatch
	all := numbered(10_000)
	for i := 0; i < 10; i++ {
		batches = append(batches, kube.LogBatch{Lines: all[i*1000 : (i+1)*1000]})
	}
	f = &fake{batches: batches}
	h = open(t, f, podReq, 80, 10, logs.WithQueue(2500))
	h.has("2,500 lines · 7,500 dropped")
	h.has("7,500 lines dropped here")
	got := h.m.Lines()
	for i, l := range got {
		if want := fmt.Sprintf("line %d", i+1); l != want {
			t.Fatalf("line %d is %q, want %q", i, l, want)
		}
	}
	if len(got) != 2500 {
		t.Fatalf("%d lines held, want 2,500", len(got))
	}
}

// TestC39HostileEscapes: no control sequence but colour reaches the
// terminal, each is shown escaped, and no line is swallowed.
func TestC39HostileEscapes(t *testing.T) {
	hostile := []string{
		"osc52 \x1b]52;c;aGVsbG8=\x07 end",
		"osc0 \x1b]0;pwned title\x07 end",
		"osc8 \x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\ end",
		"clear \x1b[2J end",
		"report \x1b[6n end",
		"reset \x1bc end",
		"dcs \x1bP1$qm\x1b\\ end",
		"c1 \x9b2J \x9d0;t\x07 end",
		"unterminated \x1b]0;never ends",
		"after the unterminated one",
		"\x1b[32mgreen kept\x1b[0m",
	}
	var lines []kube.LogLine
	for i, s := range hostile {
		lines = append(lines, line("web-x2k", "web", i, s))
	}
	h := open(t, &fake{batches: []kube.LogBatch{{Lines: lines}}}, podReq, 200, 20)
	v := h.view()
	rest := v
	for rest != "" {
		i := strings.IndexByte(rest, 0x1b)
		if i < 0 {
			break
		}
		rest = rest[i:]
		end := strings.IndexByte(rest, 'm')
		if end < 0 || strings.TrimLeft(rest[2:end], "0123456789;:") != "" || rest[1] != '[' {
			t.Fatalf("a sequence other than SGR reaches the terminal: %q", rest[:min(len(rest), 20)])
		}
		rest = rest[end+1:]
	}
	if !utf8.ValidString(v) {
		t.Fatalf("invalid UTF-8 reaches the terminal:\n%q", v)
	}
	for _, r := range v {
		if r < 0x20 && r != '\n' && r != 0x1b || r >= 0x7f && r < 0xa0 {
			t.Fatalf("control %U reaches the terminal:\n%q", r, v)
		}
	}
	for _, want := range []string{"osc52 ␛]52;c;aGVsbG8=␇ end", "␛[2J", "␛[6n", "␛c end", "␛P1$qm␛\\", "unterminated ␛]0;never ends", "after the unterminated one", "green kept"} {
		if !strings.Contains(ansi.Strip(v), want) {
			t.Fatalf("view lacks %q:\n%s", want, v)
		}
	}
}

// TestC40CarriageReturns: a carriage return never moves the cursor: the
// line shows its last segment; "x\r\n" shows x alone.
func TestC40CarriageReturns(t *testing.T) {
	f := &fake{batches: []kube.LogBatch{{Lines: []kube.LogLine{
		line("web-x2k", "web", 0, "10%\r55%\r100%"),
		line("web-x2k", "web", 1, "x\r"), // kube strips "\n"; a lone "\r" may be left
	}}}}
	h := open(t, f, podReq, 80, 10)
	v := h.view()
	if strings.Contains(v, "\r") {
		t.Fatalf("a carriage return reaches the terminal: %q", v)
	}
	lines := strings.Split(v, "\n")
	if got := strings.TrimRight(lines[1], " "); got != "100%" {
		t.Fatalf("first line shows %q, want 100%%", got)
	}
	if got := strings.TrimRight(lines[2], " "); got != "x" {
		t.Fatalf("second line shows %q, want x", got)
	}
	// Search and save keep the whole line.
	h.keys("ctrl+s")
	b, err := os.ReadFile(savedPath(t, h))
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "10%\r55%\r100%\nx\r\n" {
		t.Fatalf("saved %q", b)
	}
}

// TestC39ControlsShowOneWayInEveryMode: a control character shows as the
// raw view shows it in every mode: ESC and BEL sent as bytes in a raw line,
// and sent escaped in a JSON value ("\u001b", "\u0007") that fields mode
// (f) decodes, both show as ␛ and ␇, never as �; a decoded colour sequence
// is shown escaped, not obeyed, and nothing but SGR reaches the terminal
// (C02's colours of the raw line are kept).
func TestC39ControlsShowOneWayInEveryMode(t *testing.T) {
	lines := []kube.LogLine{
		line("web-x2k", "web", 0, "raw a\x1bb\x07c \x1b[31mred\x1b[0m"),
		line("web-x2k", "web", 1, `{"level":"info","msg":"a\u001bb\u0007c \u001b[31mred\u001b]0;title\u0007 \u009b2J"}`),
	}
	h := open(t, &fake{batches: []kube.LogBatch{{Lines: lines}}}, podReq, 120, 12)
	h.has("raw a␛b␇c \x1b[31mred\x1b[0m")
	h.keys("f", "ctrl+u")
	h.typed("level,msg")
	h.keys("enter")
	v := h.view()
	if !strings.Contains(v, "a␛b␇c ␛[31mred␛]0;title␇ �2J") {
		t.Fatalf("fields mode shows controls otherwise than the raw view:\n%s", v)
	}
	for _, r := range strings.ReplaceAll(v, "\x1b[31mred\x1b[0m", "") {
		if r < 0x20 && r != '\n' || r >= 0x7f && r < 0xa0 {
			t.Fatalf("control %U reaches the terminal:\n%q", r, v)
		}
	}
	h.keys("f", "ctrl+u", "enter", "J")
	h.has(`"msg": "a\u001bb\u0007c`)
}
