package app

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kyyard/kyyard/config"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/views"
)

// kubeconfigContexts is views.Kubeconfig over kubectl's connection flags:
// the root switches contexts (`:ctx`) through it. Each context's client
// gets that context's guard policy (optionsFor).
type kubeconfigContexts struct {
	flags *genericclioptions.ConfigFlags
	// opts are the options of every client; Policy and ReadOnly are
	// replaced by optionsFor.
	opts kube.Options
	// cfg is the configuration file (nil: none).
	cfg *config.File
	// flag is what --readonly and --strict turn on, in every context.
	flag config.Mode
}

// FavouriteNamespaces returns the namespaces the configuration file pins
// to the favourites keys of context name (contexts.NAME.namespaces; the
// ui's FavouriteNamespaces).
func (k kubeconfigContexts) FavouriteNamespaces(name string) []string {
	return k.cfg.For(name).Namespaces
}

// optionsFor returns the client options of context name: read-only when
// --readonly, the file's entry or a readonlyContexts pattern says so;
// strict when --strict or the entry says so. Nothing turns a setting off.
// The entry's shell is the context's shell (`s` tries it first).
func (k kubeconfigContexts) optionsFor(name string) kube.Options {
	mode := k.flag
	if name != "" {
		mode = mode.Or(k.cfg.For(name))
	}
	o := k.opts
	o.ReadOnly = mode.ReadOnly
	o.Shell = strings.Fields(mode.Shell)
	o.MetricsInterval = mode.MetricsInterval.Duration // 0: kube.DefaultMetricsInterval
	o.Policy = kube.PolicyInteractive
	if mode.Strict {
		o.Policy = kube.PolicyStrict
	}
	return o
}

// Contexts lists the kubeconfig's contexts and the one in use (kube.Contexts).
func (k kubeconfigContexts) Contexts() ([]string, string, error) {
	return kube.Contexts(k.flags)
}

// Connect builds a client for context name as `kubectl --context name`
// with the other flags kyyard was started with would (see withContext).
// Errors: the context does not exist or its entries are unusable.
func (k kubeconfigContexts) Connect(name string) (views.Source, error) {
	c, err := kube.New(withContext(k.flags, name), k.optionsFor(name))
	if err != nil {
		return nil, err
	}
	// The root connects off the UI goroutine: find the new cluster's own
	// kinds (CRDs) now. A failed discovery leaves the built-in kinds, as at
	// start-up.
	ctx, cancel := context.WithTimeout(context.Background(), discoverTimeout)
	defer cancel()
	_ = c.Discover(ctx)
	return c, nil
}

// ContextNamespace returns context name's own namespace, as `kubectl
// --context name` without -n reads it: the kubeconfig context's, else
// "default" (a fleet reads it in each context when no namespace is chosen).
func (k kubeconfigContexts) ContextNamespace(name string) (string, error) {
	ns, _, err := withContext(k.flags, name).ToRawKubeConfigLoader().Namespace()
	return ns, err
}

// withContext returns new flags that select context name and keep every
// other connection flag of f (--kubeconfig, --server, --token, --as, TLS,
// --request-timeout, ...), except the three a context itself chooses:
// --namespace, --cluster and --user are dropped, so that the new context's
// namespace (else "default") and entries apply. f is not changed: its
// loader caches the kubeconfig of the context it was made for.
func withContext(f *genericclioptions.ConfigFlags, name string) *genericclioptions.ConfigFlags {
	empty := func() *string { s := ""; return &s }
	c := genericclioptions.NewConfigFlags(true)
	c.Context = &name
	c.Namespace, c.ClusterName, c.AuthInfoName = empty(), empty(), empty()
	c.CacheDir, c.KubeConfig = f.CacheDir, f.KubeConfig
	c.APIServer, c.TLSServerName, c.Insecure = f.APIServer, f.TLSServerName, f.Insecure
	c.CertFile, c.KeyFile, c.CAFile, c.BearerToken = f.CertFile, f.KeyFile, f.CAFile, f.BearerToken
	c.Impersonate, c.ImpersonateUID, c.ImpersonateGroup, c.ImpersonateUserExtra = f.Impersonate, f.ImpersonateUID, f.ImpersonateGroup, f.ImpersonateUserExtra
	c.Username, c.Password, c.Timeout = f.Username, f.Password, f.Timeout
	c.DisableCompression, c.ProxyURL, c.WrapConfigFn = f.DisableCompression, f.ProxyURL, f.WrapConfigFn
	return c
}

// Fleets names the configuration file's fleets, sorted (`:fleet`
// completes them).
func (k kubeconfigContexts) Fleets() []string {
	var out []string
	if k.cfg != nil {
		for name := range k.cfg.Fleets {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Fleet returns the contexts of the configuration file's fleet name, as
// --fleet chooses them (kube.SelectContexts over the kubeconfig's
// contexts). Errors: an unknown fleet (naming the file's), a member
// naming no context, the kubeconfig unreadable.
func (k kubeconfigContexts) Fleet(name string) ([]string, error) {
	var list []string
	found := false
	if k.cfg != nil {
		list, found = k.cfg.Fleets[name]
	}
	if !found {
		have := "no fleets"
		if f := k.Fleets(); len(f) > 0 {
			have = "fleets " + strings.Join(f, ", ")
		}
		return nil, fmt.Errorf("unknown fleet %q (the configuration file has %s)", name, have)
	}
	known, _, err := k.Contexts()
	if err != nil {
		return nil, err
	}
	return kube.SelectContexts(known, list)
}

// fleetConnectOf reaches the kubeconfig's contexts for a fleet get: each
// context's client is built as the dashboard's context switch builds it
// (withContext: the other connection flags kept), with the context's
// settings of the configuration file (read-only stays read-only), and
// without caches (one read). --namespace, when given, applies to every
// context.
func fleetConnectOf(flags *genericclioptions.ConfigFlags, opts *options) fleetConnect {
	contexts := func() (kubeconfigContexts, error) {
		cfg, err := loadConfig(opts.config)
		if err != nil {
			return kubeconfigContexts{}, err
		}
		return kubeconfigContexts{flags: flags, cfg: cfg, flag: config.Mode{ReadOnly: opts.readonly, Strict: opts.strict},
			opts: kube.Options{Registry: kinds.Builtin(), NoCache: true, TablePlugin: kinds.NewTable}}, nil
	}
	fc := fleetConnect{
		known: func() ([]string, error) {
			names, _, err := kube.Contexts(flags)
			return names, err
		},
		connect: func(name string) (*kube.Client, error) {
			k, err := contexts()
			if err != nil {
				return nil, err
			}
			return kube.New(withContext(flags, name), k.optionsFor(name))
		},
		fleet: func(name string) ([]string, error) {
			k, err := contexts()
			if err != nil {
				return nil, err
			}
			if _, err := k.Fleet(name); err != nil {
				return nil, err
			}
			return k.cfg.Fleets[name], nil
		},
	}
	// Read when a context is read: the flags are parsed after this is made.
	fc.namespace = func() string {
		if flags.Namespace == nil {
			return ""
		}
		return *flags.Namespace
	}
	return fc
}
