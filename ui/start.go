package ui

// StartScreen reports whether word (`-c`/--command) names a screen of its
// own rather than a kind: "apps" (the `:apps` list) or "pf" (the `:pf`
// port-forwards), with their prompt aliases.
func StartScreen(word string) bool { return appsCommand(word) || forwardsCommand(word) }

// WithStartScreen opens the screen word names (StartScreen: `:apps` or
// `:pf`) at start, alone, as its `:` command does (the first kind's list
// is closed before it starts). Another word does nothing. A client that cannot list apps or forwards
// gets the status line the prompt command shows.
func WithStartScreen(word string) Option {
	return func(m *Model) {
		// The screen's Init runs with the root's (Top().Init()); the
		// command push returns is not needed.
		switch {
		case appsCommand(word):
			_ = m.openApps(m.namespace, true)
		case forwardsCommand(word):
			_ = m.openForwards(true)
		}
	}
}
