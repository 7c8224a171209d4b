package kube

import (
	"fmt"
	"sort"

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
