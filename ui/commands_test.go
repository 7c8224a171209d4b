package ui_test

import (
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/ui"
	"github.com/kyyard/kyyard/views"
)

// tableWords returns every word of the command table, aliases included,
// with the entry that holds it.
func tableWords() map[string]ui.CommandInfo {
	out := map[string]ui.CommandInfo{}
	for _, c := range ui.Commands() {
		for _, w := range c.Words {
			out[w] = c
		}
	}
	return out
}

// TestCommandTableIsWellFormed: every word of the table is one word and
// names one command, never a kind's name or alias (the command would hide
// the kind); one entry, without words, is the kind command; an offered
// command is listed in the help.
func TestCommandTableIsWellFormed(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	kinds := client.Names()
	seen := map[string]bool{}
	kindCommands := 0
	for _, c := range ui.Commands() {
		if len(c.Words) == 0 {
			kindCommands++
			if c.Start || c.KeepsScreens || len(c.Help) == 0 {
				t.Errorf("the kind command: %+v", c)
			}
			continue
		}
		for _, w := range c.Words {
			if w == "" || strings.ContainsAny(w, " \t") {
				t.Errorf("word %q of %v is not one word", w, c.Words)
			}
			if seen[w] {
				t.Errorf("word %q names two commands", w)
			}
			seen[w] = true
			if slices.Contains(kinds, w) {
				t.Errorf("word %q of %v is a kind's name", w, c.Words)
			}
		}
		if c.Offered && len(c.Help) == 0 {
			t.Errorf("%v is offered but not in the help", c.Words)
		}
	}
	if kindCommands != 1 {
		t.Errorf("%d kind commands, want 1", kindCommands)
	}
}

// TestEveryStartCommandStarts: each word of a command the table lets -c
// start on (StartScreen) opens, at start and alone, the screen its `:`
// command opens, and --help names it (StartScreenHelp); a word of any
// other command leaves the first kind's list.
func TestEveryStartCommandStarts(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	starts := 0
	for word, c := range tableWords() {
		if ui.StartScreen(word) != c.Start {
			t.Fatalf("StartScreen(%q) = %v, the table says %v", word, !c.Start, c.Start)
		}
		h := startWith(t, deploying{client}, "demo", 120, 30, ui.WithStartScreen(word))
		if !c.Start {
			if got := h.title(); got != "pods(demo)[1]" {
				t.Fatalf("-c %s is not a start screen but opened %q", word, got)
			}
			continue
		}
		starts++
		want := startWith(t, deploying{client}, "demo", 120, 30)
		want.command(word)
		if got := h.title(); got != want.title() || strings.Contains(h.m.View(), "›") {
			t.Fatalf("-c %s opened %q, :%s opens %q:\n%s", word, got, word, want.title(), h.m.View())
		}
		if help := ui.StartScreenHelp(); !strings.Contains(help, c.Words[0]+" (") {
			t.Fatalf("--help's -c (%q) does not name %s", help, c.Words[0])
		}
	}
	if starts == 0 {
		t.Fatal("no command starts with -c")
	}
	if ui.StartScreen("pods") {
		t.Fatal("pods is a kind")
	}
}

// TestCompletionComesFromTheTable: the prompt's first words are the kinds'
// then the table's offered words, in the table's order; tab reaches every
// offered word from all but its last letter, and never a hidden one.
func TestCompletionComesFromTheTable(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	kinds := client.Names()
	var offered []string
	for _, c := range ui.Commands() {
		if c.Offered {
			offered = append(offered, c.Words[0])
		}
	}
	got := ui.CommandSuggestions(kinds)
	if tail := got[len(got)-len(offered):]; !slices.Equal(tail, offered) {
		t.Fatalf("the completions end in %q, want the table's %q", tail, offered)
	}
	for _, k := range kinds {
		if !slices.Contains(got[:len(got)-len(offered)], k) {
			t.Fatalf("kind name %q is not completed before the commands", k)
		}
	}
	for word, c := range tableWords() {
		if word != c.Words[0] || len(word) < 2 {
			continue
		}
		h := startWith(t, client, "demo", width, height)
		h.keys(":")
		h.typeText(word[:len(word)-1])
		var reached []string
		for range 200 {
			h.keys("tab")
			line := strings.TrimPrefix(h.promptLine(), ":")
			if slices.Contains(reached, line) {
				break
			}
			reached = append(reached, line)
		}
		if slices.Contains(reached, word) != c.Offered {
			t.Errorf("tab after :%s went through %q (%s offered: %v)", word[:len(word)-1], reached, word, c.Offered)
		}
	}
}

// TestAliasesCompleteAndRunAlike: every word of a command completes its
// arguments as its first word does and runs the same screen (or says the
// same); a line with more arguments than the command takes is read as a
// kind's name, which none is.
func TestAliasesCompleteAndRunAlike(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	k := newKubeconfig(t, "prod")
	for word, c := range tableWords() {
		if c.KeepsScreens {
			continue
		}
		complete := func(w string) string {
			h := startWith(t, deploying{client}, "demo", 120, 30, ui.WithKubeconfig(k))
			h.keys(":")
			h.typeText(w + " ")
			h.keys("tab")
			return strings.TrimPrefix(h.promptLine(), ":"+w)
		}
		if got, want := complete(word), complete(c.Words[0]); got != want {
			t.Errorf(":%s tab completed %q, :%s tab %q", word, got, c.Words[0], want)
		}
		runs := func(line string) (string, string) {
			h := startWith(t, deploying{client}, "demo", 120, 30)
			h.command(line)
			return h.title(), statusLine(h.m.View())
		}
		title, status := runs(word)
		if wantTitle, wantStatus := runs(c.Words[0]); title != wantTitle || status != wantStatus {
			t.Errorf(":%s opened %q (%q), :%s %q (%q)", word, title, status, c.Words[0], wantTitle, wantStatus)
		}
		if strings.Contains(status, "unknown command") {
			t.Errorf(":%s: %s", word, status)
		}
		if c.MaxArgs == ui.AnyArgs {
			continue
		}
		line := word + strings.Repeat(" x", c.MaxArgs+1)
		if _, status := runs(line); !strings.Contains(status, `unknown command "`+line+`"`) {
			t.Errorf(":%s: %q", line, status)
		}
	}
}

// TestEveryQuitWordQuits: each word of a command that keeps the screens
// (quit's; the panes' :split and :only keep this pane's too) quits when
// nothing is unsaved, whatever follows it.
func TestEveryQuitWordQuits(t *testing.T) {
	for word, c := range tableWords() {
		if !c.KeepsScreens || slices.Contains(c.Words, "split") || slices.Contains(c.Words, "only") {
			continue
		}
		for _, line := range []string{word, word + " now"} {
			h := start(t)
			h.keys(":")
			h.typeText(line)
			cmd := h.keys("enter")
			if cmd == nil {
				t.Fatalf(":%s returned no command", line)
			}
			if _, ok := cmd().(tea.QuitMsg); !ok {
				t.Fatalf(":%s did not quit", line)
			}
		}
	}
}

// TestEveryTableCommandKeepsUnappliedEdits: every word of every command
// but quit's, which replace the screens, first says it would close a form
// holding an edit, and closes nothing.
func TestEveryTableCommandKeepsUnappliedEdits(t *testing.T) {
	h := start(t)
	h.command("deploy")
	h.run(h.send(h.keys("e")()))
	h.keys("backspace", "5")
	h.run(h.send(views.OpenObjectMsg{View: views.DescribeView, Kind: "deployments", Namespace: "demo", Name: "web"}))
	top := h.title()
	for word, c := range tableWords() {
		if c.KeepsScreens {
			continue
		}
		h.command(word)
		if v := h.m.View(); !strings.Contains(v, ":"+word+" would close 1 unapplied edit") {
			t.Fatalf(":%s:\n%s", word, v)
		}
		if got := h.title(); got != top {
			t.Fatalf(":%s closed a screen: title %q, was %q", word, got, top)
		}
	}
}

// TestHelpListsTheTable: the help overlay's Commands line lists every
// command's items, in the table's order.
func TestHelpListsTheTable(t *testing.T) {
	h := start(t)
	h.send(tea.WindowSizeMsg{Width: 200, Height: 50})
	h.keys("?")
	var line string
	for _, l := range strings.Split(h.m.View(), "\n") {
		if strings.Contains(l, "Commands:") {
			line = l
		}
	}
	at := strings.Index(line, "Commands:")
	if at < 0 {
		t.Fatalf("no Commands line:\n%s", h.m.View())
	}
	for _, c := range ui.Commands() {
		for _, item := range c.Help {
			next := strings.Index(line[at:], "  "+item+"  ")
			if next < 0 {
				t.Fatalf("the Commands line %q lacks %q after column %d", line, item, at)
			}
			at += next + len(item)
		}
	}
}
