package ui

import (
	"context"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

func (m *Model) promptKey(msg tea.KeyMsg) tea.Cmd {
	if msg.Type == tea.KeyTab {
		m.tab()
		return nil
	}
	m.cycle = nil
	switch msg.Type {
	case tea.KeyEsc:
		m.prompting = false
		m.prompt.Blur()
		return nil
	case tea.KeyEnter:
		m.prompting = false
		m.prompt.Blur()
		return m.run(m.completed(), false)
	}
	var cmd tea.Cmd
	m.prompt, cmd = m.prompt.Update(msg)
	m.suggest(false)
	return cmd
}

// tab completes the prompt as a shell does: the first tab takes the
// completion shown (completed), each next one the next completion that
// matched what was typed before the first, in the prompt's order, back to
// the first after the last (":pods de" tab "default", tab "demo", tab
// "default"). The prompt then holds the candidate itself, so enter runs
// what is shown. Any other key ends the run.
func (m *Model) tab() {
	if len(m.cycle) > 0 {
		m.cycleAt = (m.cycleAt + 1) % len(m.cycle)
	} else {
		value := m.prompt.Value()
		candidates := m.prompt.MatchedSuggestions()
		at := slices.Index(candidates, m.completed())
		if at < 0 || candidates[at] == value {
			// Nothing shown beyond a whole word (":po"): the first
			// candidate that changes the text.
			at = slices.IndexFunc(candidates, func(c string) bool { return c != value })
		}
		if at < 0 {
			return
		}
		m.cycle, m.cycleAt = candidates, at
	}
	m.prompt.SetValue(m.cycle[m.cycleAt])
	m.prompt.CursorEnd()
	m.suggest(true)
}

// completed returns the prompt's text with the completion it shows taken:
// ":d" shows "deploy", and enter runs ":deploy", as tab would have; ":ns de"
// shows "ns demo" and runs it. A word typed in full (a kind, a listed
// namespace or context) is kept as typed, and so is a trailing space: ":ns "
// is ":ns".
func (m *Model) completed() string {
	value := m.prompt.Value()
	fields := strings.Fields(value)
	if len(fields) == 0 || strings.HasSuffix(value, " ") {
		return value
	}
	last := fields[len(fields)-1]
	switch {
	case len(fields) == 1:
		if _, ok := m.vc.Client.Kind(last); ok || isCommandWord(last) {
			return value // a whole kind or command: ":q" quits, never ":quota"
		}
	case last == "all" || last == "-A" || slices.Contains(m.nsNames, last) || slices.Contains(m.ctxNames, last):
		return value
	}
	if s := m.prompt.CurrentSuggestion(); s != "" && strings.HasPrefix(s, value) {
		return s
	}
	return value
}

// preferredNames are completed before any other kind name that shares
// their prefix: the kinds people open most (":d" is deploy, ":s" svc, ":p"
// pods), as k9s and kubectl users expect.
var preferredNames = []string{
	"pods", "po", "deployments", "deploy", "services", "svc", "nodes", "no", "namespaces", "ns",
	"events", "ev", "statefulsets", "sts", "daemonsets", "ds", "jobs", "cronjobs", "cj",
	"configmaps", "cm", "secrets", "ingresses", "ing", "persistentvolumeclaims", "pvc",
}

// commandSuggestions are the words the prompt completes, in the order it
// offers them: the preferred kind names, every other kind id and alias
// (sorted), then the table's command words (offeredWords).
func commandSuggestions(names []string) []string {
	return append(kindSuggestions(names), offeredWords()...)
}

// kindSuggestions are the kind names of commandSuggestions, in its order.
func kindSuggestions(names []string) []string {
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	out := make([]string, 0, len(names)+1)
	taken := map[string]bool{}
	for _, n := range preferredNames {
		if known[n] {
			out = append(out, n)
			taken[n] = true
		}
	}
	for _, n := range names {
		if !taken[n] {
			out = append(out, n)
		}
	}
	return out
}

// namesTimeout bounds the read of the namespace names the prompt completes.
const namesTimeout = 15 * time.Second

// namesMsg carries the names the prompt completes: namespaces (none when
// they cannot be listed) and kubeconfig contexts.
type namesMsg struct {
	epoch      int
	namespaces []string
	contexts   []string
}

// loadNames reads what the prompt completes after a command word: the
// namespaces (none when they cannot be listed: the prompt then completes
// nothing, and typed names still work) and the kubeconfig's contexts.
func (m *Model) loadNames() tea.Cmd {
	client, k, epoch := m.vc.Client, m.kubeconfig, m.epoch
	return func() tea.Msg {
		msg := namesMsg{epoch: epoch}
		ctx, cancel := context.WithTimeout(context.Background(), namesTimeout)
		defer cancel()
		snap := client.Snapshot(ctx, kube.SnapshotRequest{Kinds: []kube.Kind{"namespaces"}})
		if t, ok := snap.Table("namespaces"); ok {
			for _, r := range t.Rows {
				msg.namespaces = append(msg.namespaces, r.Name)
			}
		}
		if k != nil {
			msg.contexts, _, _ = k.Contexts()
		}
		return msg
	}
}

// takeNames keeps the names the prompt completes.
func (m *Model) takeNames(msg namesMsg) {
	if msg.epoch != m.epoch {
		return
	}
	m.nsNames, m.ctxNames = msg.namespaces, msg.contexts
	if m.prompting {
		m.suggest(true)
	}
}

// suggest sets the prompt's completions for what is typed: command words
// (kinds, then the table's) for the first word; after it, what its command
// completes (argsFor: after `<kind> ` or `ns ` the namespaces and "all",
// nothing when namespaces cannot be listed; after `ctx ` the contexts).
// They are rebuilt only when the first word changed, unless force.
func (m *Model) suggest(force bool) {
	first, _, spaced := strings.Cut(m.prompt.Value(), " ")
	scope := ""
	if spaced {
		scope = " " + first
	}
	if !force && scope == m.suggestedFor {
		return
	}
	m.suggestedFor = scope
	if !spaced {
		m.prompt.SetSuggestions(append(m.aliasWords(), commandSuggestions(m.vc.Client.Names())...))
		return
	}
	args := m.argsFor(first)
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = first + " " + a
	}
	m.prompt.SetSuggestions(out)
}

// promptView draws the `:` prompt: what is typed, the cursor, and, muted,
// the rest of the command enter would run (completed), so the hint never
// differs from what runs (":pv" shows nothing more and opens
// persistentvolumes). Every part is cleaned with views.Sanitize: the
// completions are kubeconfig context names and the cluster's namespace
// names, which may hold control characters (a context named "evil\x1b[2J"
// must not clear the screen). A line wider than the screen keeps the
// cursor in view and cuts the text before it.
func (m *Model) promptView() string {
	st := m.vc.Styles
	value := []rune(m.prompt.Value())
	pos := min(max(m.prompt.Position(), 0), len(value))
	before := views.Sanitize(string(value[:pos]))
	var under, after, rest string
	if pos < len(value) {
		under, after = views.Sanitize(string(value[pos])), views.Sanitize(string(value[pos+1:]))
	} else if run := []rune(m.completed()); len(run) > len(value) && string(run[:len(value)]) == string(value) {
		completion := run[len(value):]
		under, rest = views.Sanitize(string(completion[0])), views.Sanitize(string(completion[1:]))
	}
	if under == "" {
		under = " "
	}
	avail := max(m.width-1, 1) // after ":"
	if w := ansi.StringWidth(before) + ansi.StringWidth(under); w > avail {
		before = ansi.TruncateLeft(before, w-avail+1, "…")
	}
	room := avail - ansi.StringWidth(before) - ansi.StringWidth(under)
	after = ansi.Truncate(after, max(room, 0), "")
	rest = ansi.Truncate(rest, max(room-ansi.StringWidth(after), 0), "")
	cursor := st.Prompt.Reverse(true)
	if rest != "" || (pos == len(value) && under != " ") {
		cursor = st.Muted.Reverse(true)
	}
	return st.Prompt.Render(":"+before) + cursor.Render(under) + st.Prompt.Render(after) + st.Muted.Render(rest)
}
