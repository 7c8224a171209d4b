package kube

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// Contexts reads the contexts of the kubeconfig a loader such as
// cli-runtime's ConfigFlags sees (the files of --kubeconfig, else
// $KUBECONFIG, else ~/.kube/config, merged by clientcmd's rules): names
// sorted, and current, the one a Client built from the same getter uses:
// --context when the getter is a ConfigFlags with it set, else the
// kubeconfig's current-context ("" when it names none). It is `kubectl
// config get-contexts`' list. Errors: the kubeconfig cannot be read or
// parsed.
func Contexts(getter genericclioptions.RESTClientGetter) (names []string, current string, err error) {
	raw, err := getter.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil, "", fmt.Errorf("read kubeconfig: %w", err)
	}
	names = make([]string, 0, len(raw.Contexts))
	for name := range raw.Contexts {
		names = append(names, name)
	}
	sort.Strings(names)
	current = raw.CurrentContext
	if flags, ok := getter.(*genericclioptions.ConfigFlags); ok && flags.Context != nil && *flags.Context != "" {
		current = *flags.Context
	}
	return names, current, nil
}

// SelectContexts returns the contexts of known (a kubeconfig's, as
// Contexts lists them) that items choose, each once, in the order items
// choose them: an item is a context name, or a pattern of names in
// path.Match's syntax (`prod-*`, `eu-?`, `[ab]-dev`), whose matches come
// in name order. `--contexts 'prod-*,staging'` and a configuration
// file's fleet are read so (SplitContextList cuts the flag). Errors name
// the item and the kubeconfig's contexts: a name the kubeconfig does not
// have, a pattern that matches none, a pattern path.Match rejects, no
// item at all.
func SelectContexts(known, items []string) ([]string, error) {
	if len(items) == 0 {
		return nil, fmt.Errorf("no context chosen (the kubeconfig has %s)", contextList(known))
	}
	sorted := append([]string(nil), known...)
	sort.Strings(sorted)
	var out []string
	seen := map[string]bool{}
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	for _, item := range items {
		if !strings.ContainsAny(item, `*?[\`) {
			if !slices.Contains(sorted, item) {
				return nil, fmt.Errorf("unknown context %q (the kubeconfig has %s)", item, contextList(sorted))
			}
			add(item)
			continue
		}
		if _, err := path.Match(item, ""); err != nil {
			return nil, fmt.Errorf("context pattern %q is not valid (path.Match: *, ?, [a-z], \\ escapes): %w", item, err)
		}
		n := 0
		for _, name := range sorted {
			if ok, _ := path.Match(item, name); ok {
				add(name)
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("context pattern %q matches no context (the kubeconfig has %s)", item, contextList(sorted))
		}
	}
	return out, nil
}

// SplitContextList cuts a --contexts value at its commas: "prod-*,
// staging" is ["prod-*", "staging"]; blank items are dropped.
func SplitContextList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// contextList names contexts for an error: "a, b, c", "none".
func contextList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
