package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/helm"
	"github.com/kyyard/kyyard/views/history"
	"github.com/kyyard/kyyard/views/keylist"
)

// command is one `:` command of the table (commands): everything the root
// knows of it. The prompt's completion, the help overlay's Commands line,
// `-c` (StartScreen, WithStartScreen, StartScreenHelp) and the command
// line's parsing (run) all read it; none keeps a list of its own.
type command struct {
	// words are what the command line starts with: the first is the one
	// the prompt offers (unless hidden), the others its aliases. None for
	// the kind command, whose words are the client's kind names and
	// aliases (discovery).
	words []string
	// hidden keeps the command out of the prompt's completions.
	hidden bool
	// maxArgs is how many words may follow the command's word (anyArgs:
	// any number); a line with more is read as a kind's name.
	maxArgs int
	// complete returns what the prompt completes after word and a space
	// (none when nil).
	complete func(m *Model, word string) []string
	// keepsScreens runs the command even while a screen holds unsaved work
	// (quit asks about it itself); every other command replaces the
	// screens, so closesWork asks first.
	keepsScreens bool
	// start, when set, names the screen `-c <first word>` starts on alone
	// in --help ("the :apps list"); "" when -c cannot start on it.
	start string
	// help is what the help overlay's Commands line lists for it.
	help []string
	// run runs a line that starts with one of words (the kind command: any
	// other line): it opens the command's screen afresh, or says on the
	// status line why not.
	run func(m *Model, line commandLine) tea.Cmd
}

// anyArgs is command.maxArgs of a command that ignores what follows it.
const anyArgs = -1

// commandLine is a `:` line being run.
type commandLine struct {
	// text is the line as typed, for the status line.
	text string
	// word is its first word, args the words after it.
	word string
	args []string
	// rediscovered is set when the API server's discovery was read again
	// for the line (a kind kyyard did not know): it is not read again.
	rediscovered bool
}

// commands is the table of `:` commands, in the order the prompt offers
// them (after the kinds) and the help overlay lists them. Every word is
// unique (a test checks it).
//
// A screen with a command of its own is its package under views/ and one
// entry here: its words, what it takes and completes, its help item, start
// when `-c` may open it, and a run that finds the screen's interface on the
// client (adding it to client.go's checks), says on the status line when
// the client lacks it, and starts the screen afresh. The prompt, the help
// overlay, -c and its --help line follow from the entry.
var commands = []command{
	{
		// `<kind> [namespace|all|-A]`; `ns <namespace>|all|-A` is the top
		// screen's kind in that namespace, `:ns` alone the namespaces.
		maxArgs:  1,
		complete: (*Model).namespaceArgs,
		help:     []string{":<kind> [ns|all]", ":ns <ns>|all"},
		run:      (*Model).runKind,
	},
	{
		// The context picker, or a switch to the context named.
		words:    []string{"ctx", "context", "contexts"},
		maxArgs:  1,
		complete: func(m *Model, _ string) []string { return m.ctxNames },
		help:     []string{":ctx [context]"},
		run: func(m *Model, l commandLine) tea.Cmd {
			if len(l.args) == 0 {
				return m.listContexts()
			}
			return m.switchContext(l.args[0])
		},
	},
	{
		words: []string{"pf", "portforwards", "port-forwards"},
		start: "the :pf port-forwards",
		help:  []string{":pf"},
		run:   func(m *Model, _ commandLine) tea.Cmd { return m.openForwards(true) },
	},
	{
		// The kyyard-managed apps of the namespace named (`:apps all`, as
		// `:<kind> all`), else of the current one.
		words:   []string{"apps", "app"},
		maxArgs: 1,
		start:   "the :apps list",
		help:    []string{":apps"},
		run: func(m *Model, l commandLine) tea.Cmd {
			ns := m.singleNamespace()
			if len(l.args) == 1 {
				var ok bool
				if ns, ok = m.oneNamespace(l.args[0], l.word); !ok {
					return nil
				}
			}
			return m.openApps(ns, true)
		},
	},
	{
		// A new object from a kind's template in a namespace, or from a
		// file: edited, then sent by server-side apply (views/create).
		words:    []string{"create"},
		maxArgs:  2,
		complete: createArgs,
		help:     []string{":create"},
		run:      (*Model).runCreate,
	},
	{
		// The cluster's events as one timeline, newest first, live: the
		// events kind's screen (filter with /, sort, COUNT for repeats).
		words:   []string{"timeline"},
		maxArgs: 1,
		help:    []string{":timeline"},
		run: func(m *Model, l commandLine) tea.Cmd {
			l.word, l.text = "events", strings.TrimSpace("events "+strings.Join(l.args, " "))
			return m.runKind(l)
		},
		complete: (*Model).namespaceArgs,
	},
	{
		// The Helm releases of the namespace named (`:helm all`, as
		// `:<kind> all`), else of the current one (views/helm).
		words:    []string{"helm", "releases"},
		maxArgs:  1,
		complete: (*Model).namespaceArgs,
		start:    "the :helm releases",
		help:     []string{":helm"},
		run: func(m *Model, l commandLine) tea.Cmd {
			ns := m.singleNamespace()
			if len(l.args) == 1 {
				var ok bool
				if ns, ok = m.oneNamespace(l.args[0], l.word); !ok {
					return nil
				}
			}
			r, ok := m.vc.Client.(helm.Reader)
			if !ok {
				m.status = views.StatusMsg{Text: "Helm releases are not available with this client", Error: true}
				return nil
			}
			m.status = views.StatusMsg{}
			return m.afresh(helm.New(m.vc, r, ns))
		},
	},
	{
		// One row per context of the fleet (views/clusters).
		words: []string{"clusters"},
		start: "the :clusters overview",
		help:  []string{":clusters"},
		run:   (*Model).openClusters,
	},
	{
		// A fleet of the configuration file chosen for :clusters.
		words:    []string{"fleet"},
		maxArgs:  1,
		help:     []string{":fleet"},
		complete: (*Model).fleetNames,
		run:      (*Model).chooseFleet,
	},
	{
		// The session's outcomes.
		words: []string{"history"},
		help:  []string{":history"},
		run: func(m *Model, _ commandLine) tea.Cmd {
			m.status = views.StatusMsg{}
			return m.afresh(history.New(m.vc, m.sess.history, m.historyPath))
		},
	},
	{
		// Every key in force, by screen, and where each came from
		// (views/keylist).
		words: []string{"keys"},
		help:  []string{":keys"},
		run: func(m *Model, _ commandLine) tea.Cmd {
			m.status = views.StatusMsg{}
			return m.afresh(keylist.New(m.vc, m.keyRows(), m.short.configPath))
		},
	},
	{
		// A second pane below, focused (split.go, panes.go): what the rest
		// of the line opens (`:split pods`, `:split deploy shop`, any `:`
		// line), else this pane's kind and namespace. While split, it
		// replaces the other pane (vim's :split).
		words:        splitWords,
		maxArgs:      anyArgs,
		keepsScreens: true,
		complete:     splitArgs,
		help:         []string{":split [cmd]"},
		run:          func(m *Model, l commandLine) tea.Cmd { return m.askSplit(strings.Join(l.args, " ")) },
	},
	{
		// Closes the other pane (vim's :only).
		words:        onlyWords,
		keepsScreens: true,
		help:         []string{":only"},
		run:          func(m *Model, _ commandLine) tea.Cmd { return m.askOnly() },
	},
	{
		words:        []string{"quit", "q", "exit"},
		maxArgs:      anyArgs,
		keepsScreens: true,
		help:         []string{":q"},
		run:          func(m *Model, _ commandLine) tea.Cmd { return m.quit() },
	},
	{
		// Quits without asking about unsaved work.
		words:        []string{"q!"},
		hidden:       true,
		maxArgs:      anyArgs,
		keepsScreens: true,
		run:          func(m *Model, _ commandLine) tea.Cmd { return m.exit() },
	},
}

// commandExamples end the help overlay's Commands line.
const commandExamples = "e.g. :pods, :deploy demo"

// commandFor returns the command whose words hold word, nil when none
// does (a kind's name, or nothing kyyard knows).
func commandFor(word string) *command {
	for i := range commands {
		if slices.Contains(commands[i].words, word) {
			return &commands[i]
		}
	}
	return nil
}

// kindCommand returns the table's command for kinds (the one without
// words).
func kindCommand() *command {
	for i := range commands {
		if len(commands[i].words) == 0 {
			return &commands[i]
		}
	}
	panic("ui: the command table has no kind command")
}

// parseCommand returns the command that runs a line of words (at least
// one): the one its first word names when it takes that many arguments,
// else the kind command.
func parseCommand(fields []string) *command {
	if c := commandFor(fields[0]); c != nil && (c.maxArgs == anyArgs || len(fields)-1 <= c.maxArgs) {
		return c
	}
	return kindCommand()
}

// isCommandWord reports whether a prompt word is one of the table's own
// words (quit, ctx, pf, ...), which are never completed into a kind's name.
func isCommandWord(w string) bool { return commandFor(w) != nil }

// offeredWords are the command words the prompt completes, after the
// kinds', in the table's order.
func offeredWords() []string {
	var out []string
	for _, c := range commands {
		if len(c.words) > 0 && !c.hidden {
			out = append(out, c.words[0])
		}
	}
	return out
}

// argsFor returns what the prompt completes after word and a space: what
// its command completes, nothing for a command that completes nothing.
func (m *Model) argsFor(word string) []string {
	c := commandFor(word)
	if c == nil {
		c = kindCommand()
	}
	if c.complete == nil {
		return nil
	}
	return c.complete(m, word)
}

// commandHelp is the help overlay's Commands line: each command's items,
// in the table's order, and examples.
func commandHelp() []string {
	out := []string{"Commands:"}
	for _, c := range commands {
		out = append(out, c.help...)
	}
	return append(out, commandExamples)
}

// run executes a `:` command line (the table, commands): every command but
// quit's first asks closesWork, since it replaces the screens.
func (m *Model) run(line string, rediscovered bool) tea.Cmd {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return nil
	}
	if a, ok := m.alias(fields); ok { // the configuration file's aliases
		if m.closesWork(":" + line) {
			return nil
		}
		return m.openAlias(fields[0], a)
	}
	c := parseCommand(fields)
	if !c.keepsScreens && m.closesWork(":"+line) {
		return nil
	}
	return c.run(m, commandLine{text: line, word: fields[0], args: fields[1:], rediscovered: rediscovered})
}

// rediscoveredMsg says discovery was read again for a command naming an
// unknown kind (line), through connection epoch: the command runs once more.
type rediscoveredMsg struct {
	epoch int
	line  string
}

// rediscovered runs a `:` line again once discovery was read for it (a
// kind kyyard did not know), unless the context changed meanwhile.
func (m *Model) rediscovered(msg rediscoveredMsg) tea.Cmd {
	if msg.epoch != m.epoch {
		return nil
	}
	return m.run(msg.line, true)
}

// rediscoverTimeout bounds the discovery read an unknown name starts.
const rediscoverTimeout = 10 * time.Second

// runKind runs `<kind> [namespace|all|-A]` and `ns <namespace>|all|-A`
// (the top screen's kind in that namespace; `:ns` alone is the namespaces
// inventory, as in k9s). A kind kyyard does not know makes it read
// discovery again and run the line once more, unless it was read again
// for the line already.
func (m *Model) runKind(l commandLine) tea.Cmd {
	info, ok := m.vc.Client.Kind(l.word)
	if !ok && len(l.args) <= 1 && !l.rediscovered {
		// The kind may be new (a CRD installed since kyyard started):
		// read the API server's discovery again, then run the line again.
		client, epoch, line := m.vc.Client, m.epoch, l.text
		m.status = views.StatusMsg{Text: "looking for " + views.Echo(l.word, m.width) + " in the API server's discovery…"}
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), rediscoverTimeout)
			defer cancel()
			client.Rediscover(ctx)
			return rediscoveredMsg{epoch: epoch, line: line}
		}
	}
	if !ok || len(l.args) > 1 {
		m.status = views.StatusMsg{Error: true,
			Text: "unknown command \"" + views.Echo(l.text, m.width) + "\": try :pods, :deploy, :nodes, :ns, :pods <namespace>, :pods all, :ns <namespace>, :ctx"}
		return nil
	}
	if len(l.args) == 0 {
		return m.open(views.OpenKindMsg{Kind: info.ID, Namespace: m.namespace, Replace: true}, false)
	}
	ns, ok := m.commandNamespace(l.args[0])
	if !ok {
		return nil
	}
	if info.ID == "namespaces" {
		return m.open(views.OpenKindMsg{Kind: m.topKind(), Namespace: ns, Replace: true}, true)
	}
	cmd := m.open(views.OpenKindMsg{Kind: info.ID, Namespace: ns, Replace: true}, false)
	if !info.Namespaced && ns != "" && cmd != nil {
		m.status = views.StatusMsg{Text: fmt.Sprintf("%s are cluster-scoped: %s does not apply to them", info.ID, namespacePhrase(ns))}
	}
	return cmd
}

// namespaceArgs are what the prompt completes after a kind's name: "all"
// and the namespaces, for a namespaced kind and for `ns`; nothing when the
// namespaces cannot be listed.
func (m *Model) namespaceArgs(word string) []string {
	info, ok := m.vc.Client.Kind(word)
	if !ok || len(m.nsNames) == 0 || !info.Namespaced && info.ID != "namespaces" {
		return nil
	}
	return append([]string{"all"}, m.nsNames...)
}

// commandNamespace reads a command's namespace argument: "all" or "-A"
// is every namespace (""), another one DNS-1123 label or several joined
// by commas (views.ParseNamespaces: `:pods shop,web`); a malformed one is
// said on the status line and ok is false.
func (m *Model) commandNamespace(arg string) (ns string, ok bool) {
	if arg == "all" || arg == "-A" {
		return "", true
	}
	ns, err := views.ParseNamespaces(arg)
	if err != nil {
		m.status = views.StatusMsg{Error: true, Text: err.Error()}
		return "", false
	}
	return ns, true
}

// oneNamespace is commandNamespace for a command that reads one
// namespace or all (:apps, :helm): several are refused on the status line.
func (m *Model) oneNamespace(arg, command string) (ns string, ok bool) {
	if ns, ok = m.commandNamespace(arg); ok && kube.SeveralNamespaces(ns) {
		m.status = views.StatusMsg{Error: true, Text: ":" + command + " reads one namespace or all: :" + command + " <namespace>, :" + command + " all"}
		return "", false
	}
	return ns, ok
}

// namespacePhrase names a namespace in messages: "namespace demo",
// "namespaces shop, web" for several, or "all namespaces" for "".
func namespacePhrase(ns string) string {
	switch {
	case ns == "":
		return "all namespaces"
	case kube.SeveralNamespaces(ns):
		return "namespaces " + strings.Join(kube.SplitNamespaces(ns), ", ")
	}
	return "namespace " + ns
}

// StartScreen reports whether word (`-c`/--command) names a screen of its
// own rather than a kind: a command of the table that `-c` may start on
// (`apps`, `pf`, with their prompt aliases).
func StartScreen(word string) bool {
	c := commandFor(word)
	return c != nil && c.start != ""
}

// StartScreenHelp lists the words `-c` starts on a screen of its own with,
// in alphabetical order, for --help: "apps (the :apps list) or pf (the :pf
// port-forwards)".
func StartScreenHelp() string {
	var items []string
	for _, c := range commands {
		if len(c.words) > 0 && c.start != "" {
			items = append(items, c.words[0]+" ("+c.start+")")
		}
	}
	slices.Sort(items)
	return strings.Join(items, " or ")
}

// WithStartScreen opens the screen word names (StartScreen) at start,
// alone, as its `:` command does (the first kind's list is closed before
// it starts). Another word does nothing. A client that cannot list apps
// or forwards gets the status line the prompt command shows.
func WithStartScreen(word string) Option {
	return func(m *Model) {
		if !StartScreen(word) {
			return
		}
		// The screen's Init runs with the root's (Top().Init()); the
		// command the run returns is not needed.
		_ = commandFor(word).run(m, commandLine{text: word, word: word})
	}
}
