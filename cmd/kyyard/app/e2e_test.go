package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// TestE2ESwitchContextOnTheLocalCluster switches from the local cluster's
// admin to the demo namespace's read-only ServiceAccount, two contexts of
// one temporary kubeconfig made from the local cluster's own: the new
// connection starts in the viewer's namespace, reads its pods, and may not
// list namespaces.
func TestE2ESwitchContextOnTheLocalCluster(t *testing.T) {
	kubetest.Local(t)
	kubetest.LocalReadOnly(t) // both skip, or fail under KYYARD_E2E=1, without a cluster
	merged := clientcmdapi.NewConfig()
	for name, env := range map[string]string{"admin": kubetest.KubeconfigEnv, "viewer": kubetest.ReadOnlyKubeconfigEnv} {
		cfg, err := clientcmd.LoadFromFile(os.Getenv(env))
		if err != nil {
			t.Fatal(err)
		}
		kctx := cfg.Contexts[cfg.CurrentContext]
		merged.Clusters[name] = cfg.Clusters[kctx.Cluster]
		merged.AuthInfos[name] = cfg.AuthInfos[kctx.AuthInfo]
		merged.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: kctx.Namespace}
	}
	merged.CurrentContext = "admin"
	path := filepath.Join(t.TempDir(), "config")
	if err := clientcmd.WriteToFile(*merged, path); err != nil {
		t.Fatal(err)
	}
	flags := genericclioptions.NewConfigFlags(true)
	flags.KubeConfig = &path
	k := kubeconfigContexts{flags: flags, opts: kube.Options{Registry: kinds.Builtin()}}
	names, current, err := k.Contexts()
	if err != nil || current != "admin" || len(names) != 2 {
		t.Fatalf("Contexts: %q, %q, %v", names, current, err)
	}
	src, err := k.Connect("viewer")
	if err != nil {
		t.Fatal(err)
	}
	viewer := src.(*kube.Client)
	t.Cleanup(viewer.Close)
	if viewer.Namespace() != kubetest.DemoNamespace {
		t.Fatalf("viewer starts in %q, want demo", viewer.Namespace())
	}
	snap := viewer.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: viewer.Namespace()})
	if pods, ok := snap.Table("pods"); !ok || len(pods.Rows) == 0 {
		t.Fatalf("the viewer reads no pods in demo: %+v", snap.Truncated)
	}
	snap = viewer.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"namespaces"}})
	if tr, ok := snap.Truncation("namespaces"); !ok || tr.Reason != kube.ReasonForbidden {
		t.Fatalf("the viewer's namespaces list: %+v, want forbidden", snap.Truncated)
	}
	if f := viewer.Facts(context.Background()); f.Context != "viewer" || f.User != "system:serviceaccount:demo:viewer" {
		t.Fatalf("facts after the switch: %+v", f)
	}
}
