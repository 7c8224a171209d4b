package app_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/cmd/kyyard/app"
	"github.com/kyyard/kyyard/internal/kubetest"
)

func execute(args ...string) (string, error) {
	var out, errOut bytes.Buffer
	cmd := app.NewCommand(&out, &errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String() + errOut.String(), err
}

func TestHelpNamesKeysAndKubectlFlags(t *testing.T) {
	out, err := execute("--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{":pods", "esc", "--kubeconfig", "--context", "--namespace", "--as", "--token", "--refresh", "--all-namespaces", "x failed", "--max-log-requests", "J JSON", "--deploy-timeout", "--metrics-interval", "%MEM/L"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}

func TestVersion(t *testing.T) {
	out, err := execute("version")
	if err != nil || !strings.HasPrefix(out, "kyyard ") {
		t.Fatalf("version: %q, %v", out, err)
	}
}

// TestBadInputFailsBeforeTheTerminalIsTaken: every bad flag is refused with
// a clear message before the TUI starts.
func TestBadInputFailsBeforeTheTerminalIsTaken(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	missing := filepath.Join(t.TempDir(), "absent")
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// A kubeconfig with a cluster (never contacted: the bad namespace is
	// refused first).
	server := kubetest.TwoContextKubeconfig(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--refresh", "0s", "--kubeconfig", missing}, "--refresh must be at least 500ms"},
		{[]string{"--refresh", "1ns", "--kubeconfig", missing}, "--refresh must be at least 500ms (got 1ns)"},
		{[]string{"--metrics-interval", "0s", "--kubeconfig", missing}, "--metrics-interval must be positive"},
		{[]string{"--max-log-requests", "0", "--kubeconfig", missing}, "--max-log-requests must be positive"},
		{[]string{"--deploy-timeout", "0s", "--kubeconfig", missing}, "--deploy-timeout must be positive"},
		{[]string{"-c", "widgets", "--kubeconfig", missing}, `unknown kind "widgets"`},
		// apps and pf are screens, not kinds: no "unknown kind", the
		// missing kubeconfig is what stops them.
		{[]string{"-c", "apps", "--kubeconfig", missing}, "absent"},
		{[]string{"-c", "pf", "--kubeconfig", missing}, "absent"},
		{[]string{"--kubeconfig", missing}, "absent"},
		{[]string{"stray"}, "unknown command"},
		{[]string{"--kubeconfig", empty}, "no cluster configured"},
		{[]string{"--kubeconfig", server, "-n", "BAD"}, `"BAD" is not a valid namespace name`},
	}
	badConfig := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(badConfig, []byte("contexts:\n  prod: {readonly: maybe}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests = append(tests, struct {
		args []string
		want string
	}{[]string{"--kubeconfig", server, "--config", badConfig}, "configuration file " + badConfig + `, line 2: contexts.prod.readonly: "maybe" is not true or false`})
	tests = append(tests, struct {
		args []string
		want string
	}{[]string{"--kubeconfig", server, "--config", missing}, "--config: stat " + missing})
	for _, tt := range tests {
		_, err := execute(tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("kyyard %v: error %v, want one mentioning %q", tt.args, err, tt.want)
		}
	}
}

// TestMalformedDefaultConfigFailsAtStart: the file at
// $XDG_CONFIG_HOME/kyyard/config.yaml is read without --config, and a
// malformed one stops kyyard with its path, line and cause.
func TestMalformedDefaultConfigFailsAtStart(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	path := filepath.Join(xdg, "kyyard", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("readonlyContexts: [prod*\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := execute("--kubeconfig", kubetest.TwoContextKubeconfig(t))
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "line") {
		t.Fatalf("a malformed %s: %v", path, err)
	}
}

func TestHelpNamesTheConfigFile(t *testing.T) {
	out, err := execute("--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--config", "$XDG_CONFIG_HOME/kyyard/config.yaml", "readonlyContexts"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}

// TestSubcommandsTakeTheGlobalFlags: a shell alias that carries the
// dashboard's flags (alias ky='kyyard --metrics-interval=30s --readonly')
// works with get and manifest: the flags are accepted before or after the
// subcommand and checked as the dashboard checks them, with no effect on
// the print.
func TestSubcommandsTakeTheGlobalFlags(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	missing := filepath.Join(t.TempDir(), "absent")
	global := []string{"--metrics-interval=30s", "--readonly", "--refresh=5s", "--strict", "--deploy-timeout=1m", "--max-log-requests=3", "-c", "deploy"}
	for _, args := range [][]string{
		append(append([]string{}, global...), "get", "pods", "-n", "demo", "--kubeconfig", missing),
		append([]string{"get", "pods", "-n", "demo", "--kubeconfig", missing}, global...),
	} {
		_, err := execute(args...)
		// The flags are taken: what stops get is the missing kubeconfig.
		if err == nil || strings.Contains(err.Error(), "unknown") || !strings.Contains(err.Error(), "absent") {
			t.Errorf("kyyard %v: %v", args, err)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--metrics-interval=0", "get", "pods", "--kubeconfig", missing}, "--metrics-interval must be positive"},
		{[]string{"get", "pods", "--refresh=-1s", "--kubeconfig", missing}, "--refresh must be at least 500ms"},
		{[]string{"--max-log-requests=0", "manifest", "-n", "team-a"}, "--max-log-requests must be positive"},
	} {
		if _, err := execute(tt.args...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("kyyard %v: %v, want %q", tt.args, err, tt.want)
		}
	}
	// A configuration file the dashboard refuses stops the subcommands too
	// (found by a fresh-user trial: get ignored --config).
	bad := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(bad, []byte("contexts:\n  local: {metricsInterval: 0s}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"get", "pods", "--config", bad, "--kubeconfig", missing},
		{"--config", bad, "manifest", "-n", "team-a"},
	} {
		if _, err := execute(args...); err == nil || !strings.Contains(err.Error(), "metricsInterval") {
			t.Errorf("kyyard %v with a malformed config: %v", args, err)
		}
	}
	// So does one whose key map or hotkeys the dashboard refuses (found
	// by a trial: get ran with a key map the dashboard refused).
	for body, want := range map[string]string{
		"keys:\n  table: {describe: y}\n":                          "line 2: keys.table.describe",
		"aliases:\n  web: {kind: pods}\nhotkeys:\n  ctrl+d: web\n": "line 4: hotkeys.ctrl+d",
	} {
		if err := os.WriteFile(bad, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := execute("get", "pods", "--config", bad, "--kubeconfig", missing); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("get with %q: %v, want %q", body, err, want)
		}
	}
	if _, err := execute("get", "pods", "--config", missing, "--kubeconfig", missing); err == nil || !strings.Contains(err.Error(), "--config") {
		t.Errorf("get with a missing --config: %v", err)
	}
	// manifest prints without a cluster: the same RBAC with or without them.
	plain, err := execute("manifest", "-n", "team-a", "--kubeconfig", missing)
	if err != nil {
		t.Fatal(err)
	}
	aliased, err := execute("--metrics-interval=30s", "--refresh=5s", "--strict", "manifest", "-n", "team-a", "--kubeconfig", missing)
	if err != nil || aliased != plain || !strings.Contains(plain, "kind: ServiceAccount") {
		t.Errorf("manifest with the global flags: %v\n%s\nwithout:\n%s", err, aliased, plain)
	}
}
