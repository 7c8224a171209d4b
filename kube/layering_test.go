package kube_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// facade is package kube's import path: the one adapter package the
// screens import.
const facade = "github.com/kyyard/kyyard/kube"

// adapterPackages returns, sorted, the import paths of kube and of every
// package under it (go list kube/...). The test support that builds
// Clients (fakes, the local cluster's fixtures) is internal/kubetest,
// outside kube/, since it must import the facade.
func adapterPackages(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", facade+"/...").Output()
	if err != nil {
		t.Fatalf("go list %s/...: %v", facade, err)
	}
	pkgs := strings.Fields(string(out))
	slices.Sort(pkgs)
	if len(pkgs) < 3 || !slices.Contains(pkgs, facade) {
		t.Fatalf("go list found the adapter packages %q: expected kube and its parts", pkgs)
	}
	return pkgs
}

// adapterDirs returns the directories of adapterPackages, relative to
// kube's ("." for kube itself, "kinds", "vocab", ...).
func adapterDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	for _, p := range adapterPackages(t) {
		if p == facade {
			dirs = append(dirs, ".")
			continue
		}
		dirs = append(dirs, strings.TrimPrefix(p, facade+"/"))
	}
	return dirs
}

// TestAdapterPartsDoNotImportTheFacade enforces the layering of issue 23:
// the adapter's parts under kube/ (the vocabulary, the kind plugins and
// each concern) depend on the leaf vocabulary, never on package kube, the
// facade the screens use; so a part can be read, tested and changed
// without the whole adapter. It reads every part's dependencies, direct
// and indirect (go list -deps).
func TestAdapterPartsDoNotImportTheFacade(t *testing.T) {
	for _, p := range adapterPackages(t) {
		if p == facade {
			continue
		}
		out, err := exec.Command("go", "list", "-deps", p).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", p, err)
		}
		if slices.Contains(strings.Fields(string(out)), facade) {
			t.Errorf("%s imports %s (directly or through another package): a part of the adapter depends on the vocabulary (kube/vocab), not on the facade", p, facade)
		}
	}
}

// TestVocabularyIsALeaf: kube/vocab imports no other kyyard package.
func TestVocabularyIsALeaf(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", facade+"/vocab").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/kyyard/kyyard/") && p != facade+"/vocab" {
			t.Errorf("kube/vocab depends on %s: the vocabulary is a leaf", p)
		}
	}
}
