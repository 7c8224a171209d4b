package app

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kyyard/kyyard/config"
	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
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

// TestContextSwitchCarriesTheContextsPolicy: the first context and every
// context `:ctx` connects to get their own read-only and strict settings
// from the configuration file, the flags turning them on everywhere.
func TestContextSwitchCarriesTheContextsPolicy(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	cfg, err := config.Parse("config.yaml", []byte("readonlyContexts: [\"prod*\"]\ncontexts:\n  staging-ctx: {strict: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	type mode struct {
		readOnly bool
		policy   kube.Policy
	}
	tests := []struct {
		name          string
		flag          config.Mode
		prod, staging mode
	}{
		{"file only", config.Mode{}, mode{true, kube.PolicyInteractive}, mode{false, kube.PolicyStrict}},
		{"--readonly", config.Mode{ReadOnly: true}, mode{true, kube.PolicyInteractive}, mode{true, kube.PolicyStrict}},
		{"--strict", config.Mode{Strict: true}, mode{true, kube.PolicyStrict}, mode{false, kube.PolicyStrict}},
	}
	for _, tt := range tests {
		k := kubeconfigContexts{flags: testFlags(t), opts: kube.Options{Registry: kinds.Builtin()}, cfg: cfg, flag: tt.flag}
		_, first, err := k.Contexts()
		if err != nil || first != "prod-ctx" {
			t.Fatalf("%s: first context %q, %v", tt.name, first, err)
		}
		if o := k.optionsFor(first); (mode{o.ReadOnly, o.Policy}) != tt.prod {
			t.Errorf("%s: the first context's options %+v, want %+v", tt.name, o, tt.prod)
		}
		for _, c := range []struct {
			name string
			want mode
		}{{"staging-ctx", tt.staging}, {"prod-ctx", tt.prod}} {
			src, err := k.Connect(c.name)
			if err != nil {
				t.Fatal(err)
			}
			client := src.(*kube.Client)
			client.Close()
			if got := (mode{client.ReadOnly(), client.Policy()}); got != c.want {
				t.Errorf("%s: :ctx %s gives %+v, want %+v", tt.name, c.name, got, c.want)
			}
		}
	}
	// No file: only the flags.
	k := kubeconfigContexts{flags: testFlags(t), opts: kube.Options{Registry: kinds.Builtin()}}
	if o := k.optionsFor("prod-ctx"); o.ReadOnly || o.Policy != kube.PolicyInteractive {
		t.Errorf("no file, no flags: %+v", o)
	}
}

// TestFirstContextFromContextFlag: --context picks the context whose
// settings the first client gets.
func TestFirstContextFromContextFlag(t *testing.T) {
	cfg, err := config.Parse("config.yaml", []byte("contexts:\n  staging-ctx: {readonly: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := testFlags(t)
	staging := "staging-ctx"
	f.Context = &staging
	k := kubeconfigContexts{flags: f, opts: kube.Options{Registry: kinds.Builtin()}, cfg: cfg}
	_, first, err := k.Contexts()
	if err != nil || first != "staging-ctx" || !k.optionsFor(first).ReadOnly {
		t.Fatalf("--context staging-ctx: first %q (%v), read-only %v", first, err, k.optionsFor(first).ReadOnly)
	}
}

// TestServiceAccountRunIsStrictByDefault: in a pod, with no kubeconfig
// naming a cluster and no --server, kyyard uses the pod's ServiceAccount,
// and the design makes strict the default; a kubeconfig, --server or no
// in-pod environment is not such a run.
func TestServiceAccountRunIsStrictByDefault(t *testing.T) {
	inPod := func(k string) string {
		return map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}[k]
	}
	outside := func(string) string { return "" }
	empty := t.TempDir() + "/empty.kubeconfig"
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	noConfig := genericclioptions.NewConfigFlags(true)
	noConfig.KubeConfig = &empty
	if !serviceAccountRun(noConfig, inPod) {
		t.Error("in a pod without a kubeconfig: not a ServiceAccount run")
	}
	if serviceAccountRun(noConfig, outside) {
		t.Error("outside a pod: a ServiceAccount run")
	}
	if serviceAccountRun(testFlags(t), inPod) {
		t.Error("in a pod with a kubeconfig naming clusters: a ServiceAccount run")
	}
	server := genericclioptions.NewConfigFlags(true)
	server.KubeConfig = &empty
	addr := "https://127.0.0.1:6443"
	server.APIServer = &addr
	if serviceAccountRun(server, inPod) {
		t.Error("with --server: a ServiceAccount run")
	}
}

// TestContextShellOption: a context's configured shell reaches its
// client's options.
func TestContextShellOption(t *testing.T) {
	cfg, err := config.Parse("config.yaml", []byte("contexts:\n  dev-ctx: {shell: zsh}\n"))
	if err != nil {
		t.Fatal(err)
	}
	k := kubeconfigContexts{flags: testFlags(t), opts: kube.Options{Registry: kinds.Builtin()}, cfg: cfg}
	if o := k.optionsFor("dev-ctx"); len(o.Shell) != 1 || o.Shell[0] != "zsh" {
		t.Fatalf("options %+v: want shell zsh", o)
	}
	if o := k.optionsFor("other"); len(o.Shell) != 0 {
		t.Fatalf("options %+v: want no shell", o)
	}
}

// TestContextMetricsIntervalOption: --metrics-interval, else a context's
// metricsInterval, reaches the client's options; neither leaves kube's
// default (0).
func TestContextMetricsIntervalOption(t *testing.T) {
	cfg, err := config.Parse("config.yaml", []byte("contexts:\n  big-ctx: {metricsInterval: 1m}\n"))
	if err != nil {
		t.Fatal(err)
	}
	k := kubeconfigContexts{flags: testFlags(t), opts: kube.Options{Registry: kinds.Builtin()}, cfg: cfg}
	if o := k.optionsFor("big-ctx"); o.MetricsInterval != time.Minute {
		t.Fatalf("context setting: %s", o.MetricsInterval)
	}
	if o := k.optionsFor("other"); o.MetricsInterval != 0 {
		t.Fatalf("no setting: %s", o.MetricsInterval)
	}
	k.flag.MetricsInterval = config.Duration{Duration: 5 * time.Second}
	if o := k.optionsFor("big-ctx"); o.MetricsInterval != 5*time.Second {
		t.Fatalf("the flag must win: %s", o.MetricsInterval)
	}
}

// A fleet of the configuration file is chosen among the kubeconfig's
// contexts as --fleet chooses it; an unknown fleet names the file's, a
// member naming no context is refused.
func TestKubeconfigFleet(t *testing.T) {
	cfg, err := config.Parse("c.yaml", []byte("fleets:\n  all: [\"*-ctx\"]\n  prod: [prod-ctx]\n  broken: [qa-ctx]\n"))
	if err != nil {
		t.Fatal(err)
	}
	k := kubeconfigContexts{flags: testFlags(t), opts: kube.Options{Registry: kinds.Builtin()}, cfg: cfg}
	if got := k.Fleets(); !reflect.DeepEqual(got, []string{"all", "broken", "prod"}) {
		t.Fatalf("fleets %v", got)
	}
	if got, err := k.Fleet("all"); err != nil || !reflect.DeepEqual(got, []string{"prod-ctx", "staging-ctx"}) {
		t.Fatalf("all: %v %v", got, err)
	}
	if _, err := k.Fleet("staging"); err == nil || err.Error() != `unknown fleet "staging" (the configuration file has fleets all, broken, prod)` {
		t.Fatalf("staging: %v", err)
	}
	if _, err := k.Fleet("broken"); err == nil || !strings.Contains(err.Error(), `unknown context "qa-ctx"`) {
		t.Fatalf("broken: %v", err)
	}
	none := kubeconfigContexts{flags: testFlags(t)}
	if _, err := none.Fleet("prod"); err == nil || !strings.Contains(err.Error(), "no fleets") {
		t.Fatalf("no file: %v", err)
	}
}
