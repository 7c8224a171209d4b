package views

// Kubeconfig is the kubeconfig kyyard was started with, for switching
// between its contexts (`:ctx`). cmd implements it over kubectl's flags;
// the root model holds it, screens never do. A program without one (run
// inside a pod, or a test) cannot switch contexts.
type Kubeconfig interface {
	// Contexts returns the kubeconfig's context names, sorted, and the
	// one in use at start (--context, else current-context; "" when none
	// is named), as `kubectl config get-contexts` lists them. Errors: the
	// kubeconfig cannot be read.
	Contexts() (names []string, current string, err error)
	// Connect returns a Source for the named context, with every other
	// connection flag kyyard was started with, in that context's namespace
	// (else "default", kubectl's rule). It does not contact the API server.
	// Errors: the context does not exist, or its cluster or user entry is
	// unusable.
	Connect(context string) (Source, error)
}

// SwitchContextMsg asks the root to switch to another kubeconfig context:
// connect to it, close the old connection, and show the same kind in the
// new context's namespace. An unknown context changes nothing and is
// reported in the status line.
type SwitchContextMsg struct {
	// Context is the kubeconfig context's name.
	Context string
}

// ChooseContextsMsg asks the root to show several kubeconfig contexts at
// once (the context picker's marks): the top screen's kind opens across
// them, as with --contexts. Contexts are in the picker's order.
type ChooseContextsMsg struct {
	// Contexts are the kubeconfig contexts' names, at least two.
	Contexts []string
}

// CloseSource closes a connection that holds something to stop (a
// *kube.Client's informers: it has a Close method); other Sources, and
// nil, are left as they are.
func CloseSource(s Source) {
	if c, ok := s.(interface{ Close() }); ok {
		c.Close()
	}
}
