package ui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCreateCommandArguments: :create's mistakes are said on the status
// line and open nothing; a file or a kind opens the :create screen.
func TestCreateCommandArguments(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte(strings.Repeat("#", 1<<20+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "cm.yaml")
	if err := os.WriteFile(good, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ line, want string }{
		{"create", "name a kind or a file"},
		{"create -f", ":create -f takes one file"},
		{"create -f " + filepath.Join(dir, "missing.yaml"), "no such file"},
		{"create -f " + dir, "is not a file"},
		{"create -f " + big, "is over 1 MiB"},
		{"create configmaps all", "a new object goes to one namespace"},
	} {
		h := start(t)
		h.command(c.line)
		if v := h.m.View(); !strings.Contains(v, c.want) || h.title() != "pods(demo)[1]" {
			t.Errorf(":%s: want %q on the status line and the pods still shown:\n%s", c.line, c.want, v)
		}
	}
	h := start(t)
	h.command("create -f " + good)
	if got := h.title(); got != "create "+good {
		t.Errorf(":create -f: title %q", got)
	}
	h = start(t)
	h.command("create cm")
	if got := h.title(); got != "create configmaps" {
		t.Errorf(":create cm (an alias): title %q", got)
	}
}
