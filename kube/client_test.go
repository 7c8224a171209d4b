package kube_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// flags returns kubectl-style flags for a kubeconfig file written to a
// temporary folder: the machine's default kubeconfig is never read.
func flags(t *testing.T) *genericclioptions.ConfigFlags {
	t.Helper()
	path := kubetest.TwoContextKubeconfig(t)
	f := genericclioptions.NewConfigFlags(false)
	f.KubeConfig = &path
	return f
}

func TestNewReadsContextNamespaceAndUser(t *testing.T) {
	c, err := kube.New(flags(t), kube.Options{Registry: kinds.Builtin()})
	if err != nil {
		t.Fatal(err)
	}
	if c.Namespace() != "payments" {
		t.Errorf("namespace %q, want the context's payments", c.Namespace())
	}
	// Nothing listens on 127.0.0.1:1: what needs the server is unknown,
	// what the kubeconfig says is still shown.
	f := c.Facts(context.Background())
	want := kube.Facts{ServerVersion: kube.Unknown, Platform: kube.Unknown, Nodes: kube.Unknown,
		Context: "prod-ctx", Cluster: "prod", User: "alice (kubeconfig)"}
	if f != want {
		t.Errorf("Facts() = %+v, want %+v", f, want)
	}
}

func TestNewHonoursContextAndNamespaceFlags(t *testing.T) {
	f := flags(t)
	ctx, ns := "staging-ctx", "web"
	f.Context, f.Namespace = &ctx, &ns
	c, err := kube.New(f, kube.Options{Registry: kinds.Builtin()})
	if err != nil {
		t.Fatal(err)
	}
	if c.Namespace() != "web" {
		t.Errorf("namespace %q, want web from -n", c.Namespace())
	}
	// A context without a namespace falls back to "default", as kubectl does.
	f = flags(t)
	f.Context = &ctx
	if c, err = kube.New(f, kube.Options{Registry: kinds.Builtin()}); err != nil || c.Namespace() != "default" {
		t.Errorf("namespace %q (err %v), want default", c.Namespace(), err)
	}
}

func TestNewRejectsUnknownContextAndMissingFile(t *testing.T) {
	f := flags(t)
	ctx := "nope"
	f.Context = &ctx
	if _, err := kube.New(f, kube.Options{Registry: kinds.Builtin()}); err == nil {
		t.Error("an unknown context was accepted")
	}
	missing := filepath.Join(t.TempDir(), "absent")
	f = genericclioptions.NewConfigFlags(false)
	f.KubeConfig = &missing
	if _, err := kube.New(f, kube.Options{Registry: kinds.Builtin()}); err == nil {
		t.Error("a missing kubeconfig was accepted")
	}
}

func TestOwnNamespace(t *testing.T) {
	t.Setenv("POD_NAMESPACE", " tools ")
	if ns, err := kube.OwnNamespace(); err != nil || ns != "tools" {
		t.Fatalf("OwnNamespace() = %q, %v; want tools", ns, err)
	}
	t.Setenv("POD_NAMESPACE", "")
	if _, err := os.Stat("/var/run/secrets/kubernetes.io/serviceaccount/namespace"); err == nil {
		t.Skip("running inside a pod")
	}
	if _, err := kube.OwnNamespace(); err == nil {
		t.Fatal("OwnNamespace() outside a pod without POD_NAMESPACE succeeded")
	}
}

func TestInClusterOutsideAPod(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	if _, err := kube.InCluster(kube.Options{Registry: kinds.Builtin()}); err == nil {
		t.Fatal("InCluster() outside a pod succeeded")
	}
}
