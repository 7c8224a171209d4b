package app

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/kube/kubetest"
)

// testFlags returns kubectl's flags for a temporary kubeconfig (never the
// machine's), as if started with -n started-ns and --as auditor.
func testFlags(t *testing.T) *genericclioptions.ConfigFlags {
	t.Helper()
	path := kubetest.TwoContextKubeconfig(t)
	f := genericclioptions.NewConfigFlags(true)
	ns, as := "started-ns", "auditor"
	f.KubeConfig, f.Namespace, f.Impersonate = &path, &ns, &as
	return f
}

func TestKubeconfigContextsSwitch(t *testing.T) {
	f := testFlags(t)
	k := kubeconfigContexts{flags: f, opts: kube.Options{Registry: kinds.Builtin()}}
	names, current, err := k.Contexts()
	if err != nil || current != "prod-ctx" || !reflect.DeepEqual(names, []string{"prod-ctx", "staging-ctx"}) {
		t.Fatalf("Contexts: %q, %q, %v", names, current, err)
	}
	src, err := k.Connect("staging-ctx")
	if err != nil {
		t.Fatal(err)
	}
	c := src.(*kube.Client)
	t.Cleanup(c.Close)
	// The context's own namespace (none: "default"), not the -n kyyard was
	// started with; its cluster and user.
	if c.Namespace() != "default" {
		t.Errorf("namespace %q, want default", c.Namespace())
	}
	facts := c.Facts(context.Background())
	if facts.Context != "staging-ctx" || facts.Cluster != "staging" {
		t.Errorf("facts %+v, want context staging-ctx on cluster staging", facts)
	}
	prod, err := k.Connect("prod-ctx")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(prod.(*kube.Client).Close)
	if prod.Namespace() != "payments" {
		t.Errorf("prod-ctx namespace %q, want the context's payments", prod.Namespace())
	}
	// The flags kyyard started with are untouched.
	if f.Context != nil && *f.Context != "" || *f.Namespace != "started-ns" {
		t.Errorf("the original flags changed: context %v, namespace %q", f.Context, *f.Namespace)
	}
	if _, err := k.Connect("nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("an unknown context: %v", err)
	}
}

func TestWithContextKeepsConnectionFlags(t *testing.T) {
	f := testFlags(t)
	c := withContext(f, "staging-ctx")
	if *c.Context != "staging-ctx" || *c.Namespace != "" || *c.ClusterName != "" || *c.AuthInfoName != "" {
		t.Fatalf("context flags: context %q namespace %q cluster %q user %q", *c.Context, *c.Namespace, *c.ClusterName, *c.AuthInfoName)
	}
	if c.KubeConfig != f.KubeConfig || *c.Impersonate != "auditor" {
		t.Fatalf("connection flags lost: kubeconfig %v, as %q", c.KubeConfig, *c.Impersonate)
	}
	cfg, err := c.ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://127.0.0.1:2" || cfg.Impersonate.UserName != "auditor" || cfg.BearerToken != "def" {
		t.Fatalf("REST config: host %q, impersonate %q, token %q", cfg.Host, cfg.Impersonate.UserName, cfg.BearerToken)
	}
}

func TestHelpNamesPickers(t *testing.T) {
	for _, want := range []string{"ctrl+n", ":ns <name>|all", ":ctx <name>"} {
		if !strings.Contains(longHelp, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}
