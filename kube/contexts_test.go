package kube_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kyyard/kyyard/kube"
)

func TestContextsListsTheKubeconfigsContexts(t *testing.T) {
	f := flags(t) // a temporary kubeconfig with prod-ctx (current) and staging-ctx
	names, current, err := kube.Contexts(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"prod-ctx", "staging-ctx"}; !reflect.DeepEqual(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
	if current != "prod-ctx" {
		t.Errorf("current %q, want the kubeconfig's current-context prod-ctx", current)
	}

	// --context names the one in use, as it does for kube.New.
	other := "staging-ctx"
	f.Context = &other
	if _, current, err = kube.Contexts(f); err != nil || current != "staging-ctx" {
		t.Errorf("with --context staging-ctx: current %q, err %v", current, err)
	}
}

func TestContextsOfABrokenKubeconfigFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte("apiVersion: v1\nkind: Config\ncontexts: {not: [a, list\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := genericclioptions.NewConfigFlags(false)
	f.KubeConfig = &path
	if names, _, err := kube.Contexts(f); err == nil {
		t.Fatalf("a broken kubeconfig gave %q and no error", names)
	}
}
