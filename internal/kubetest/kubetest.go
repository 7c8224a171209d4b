// Package kubetest helps tests of kyyard: a kube.Client over client-go's fake
// clientset for fast unit tests, and the connection to the local cluster of
// hack/cluster for end-to-end tests. It never reads the machine's default
// kubeconfig: the local cluster's kubeconfig is passed explicitly through
// the environment (make test sets it).
package kubetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// Environment variables that point tests at the local cluster.
const (
	// KubeconfigEnv holds the path of the local cluster's admin kubeconfig.
	KubeconfigEnv = "KYYARD_E2E_KUBECONFIG"
	// ReadOnlyKubeconfigEnv holds the path of the kubeconfig of the demo
	// namespace's ServiceAccount that may only get and list.
	ReadOnlyKubeconfigEnv = "KYYARD_E2E_READONLY_KUBECONFIG"
	// AuditLogEnv holds the path of the API server's audit log.
	AuditLogEnv = "KYYARD_E2E_AUDIT_LOG"
	// KubectlEnv holds the path of the kubectl built from the same
	// Kubernetes release as the local cluster (a test oracle).
	KubectlEnv = "KYYARD_E2E_KUBECTL"
	// RequireEnv, when "1", turns a missing local cluster from a skip into
	// a failure, so that `make test` cannot pass without running them.
	RequireEnv = "KYYARD_E2E"
	// DisruptiveEnv, when "1", lets tests that stop and start the local
	// cluster's API server run (see Disruptive).
	DisruptiveEnv = "KYYARD_E2E_DISRUPTIVE"
	// ClusterToolEnv holds the path of the built hack/cluster tool.
	ClusterToolEnv = "KYYARD_E2E_CLUSTER"
	// FleetKubeconfigEnv holds the path of the local fleet's kubeconfig
	// (hack/cluster `fleet up`): contexts kyyard-fleet-1..3 and their
	// -viewer contexts.
	FleetKubeconfigEnv = "KYYARD_E2E_FLEET_KUBECONFIG"
	// DemoNamespace is where hack/cluster seeds its demo workloads.
	DemoNamespace = "demo"
)

// LocalFleet returns the local fleet's kubeconfig path; without it the
// test is skipped, or fails under KYYARD_E2E=1 (`make test` starts the
// fleet).
func LocalFleet(t testing.TB) string {
	t.Helper()
	path := os.Getenv(FleetKubeconfigEnv)
	if path == "" {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%s is not set: the local fleet is not up", FleetKubeconfigEnv)
		}
		t.Skipf("%s is not set", FleetKubeconfigEnv)
	}
	return path
}

// FakeClient returns a kube.Client with the built-in kinds over a fake
// clientset holding objs, and the clientset (to add reactors or objects).
// The fake answers every SelfSubjectAccessReview with allowed, so kinds are
// cached by informers as on a cluster where the user may watch; prepend a
// reactor to deny. Actions on kinds other than pods and the workloads read
// and delete through a fake metadata client of its own holding objs
// (FakeMetadata). The client is closed when the test ends.
func FakeClient(t testing.TB, objs ...runtime.Object) (*kube.Client, *fake.Clientset) {
	cs := fake.NewClientset(objs...)
	cs.PrependReactor("create", "selfsubjectaccessreviews", AllowAccessReviews)
	c := kube.NewFromClientsets(cs, FakeMetadata(objs...), kube.Options{Registry: kinds.Builtin()})
	t.Cleanup(c.Close)
	return c, cs
}

// AllowAccessReviews is a fake clientset reactor that answers every
// SelfSubjectAccessReview with allowed.
func AllowAccessReviews(action k8stesting.Action) (bool, runtime.Object, error) {
	review := action.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).DeepCopy()
	review.Status.Allowed = true
	return true, review, nil
}

// DenyAccessReviews is a fake clientset reactor that answers every
// SelfSubjectAccessReview with denied (a user who may list but not watch).
func DenyAccessReviews(action k8stesting.Action) (bool, runtime.Object, error) {
	review := action.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).DeepCopy()
	review.Status.Allowed = false
	review.Status.Reason = "RBAC: not allowed"
	return true, review, nil
}

// Local returns the REST config of the local cluster's admin. Without
// $KYYARD_E2E_KUBECONFIG the test is skipped, or fails when KYYARD_E2E=1.
func Local(t testing.TB) *rest.Config { return load(t, KubeconfigEnv) }

// LocalReadOnly returns the REST config of the demo namespace's read-only
// ServiceAccount, under the same rules as Local.
func LocalReadOnly(t testing.TB) *rest.Config { return load(t, ReadOnlyKubeconfigEnv) }

func load(t testing.TB, env string) *rest.Config {
	t.Helper()
	path := os.Getenv(env)
	if path == "" {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%s=1 but %s is not set: run the tests with `make test`", RequireEnv, env)
		}
		t.Skipf("no local cluster: %s is not set (make test sets it)", env)
	}
	// An explicit path only: never the default loading rules.
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	if err := checkLoopback(cfg.Host); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// checkLoopback refuses any API server that is not on 127.0.0.1: tests use
// only the project's local cluster.
func checkLoopback(host string) error {
	if len(host) < len("https://127.0.0.1") || host[:len("https://127.0.0.1")] != "https://127.0.0.1" {
		return fmt.Errorf("refusing to test against %q: only the local cluster on 127.0.0.1 is allowed", host)
	}
	return nil
}

// Client returns a kube.Client with the built-in kinds for cfg, closed
// (its informers stopped) when the test ends.
func Client(t testing.TB, cfg *rest.Config) *kube.Client {
	t.Helper()
	c, err := kube.NewFromConfig(cfg, kube.Options{Registry: kinds.Builtin()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// Disruptive returns the path of the hack/cluster tool for a test that
// disrupts the local cluster (stops and starts its API server). Such tests
// run only when $KYYARD_E2E_DISRUPTIVE is "1": `make test` runs them on
// their own, after every other test, so that they break no one's requests.
func Disruptive(t testing.TB) string {
	t.Helper()
	if os.Getenv(DisruptiveEnv) != "1" {
		t.Skipf("disrupts the local cluster: runs only with %s=1 (make test runs it last)", DisruptiveEnv)
	}
	tool := os.Getenv(ClusterToolEnv)
	if tool == "" {
		t.Fatalf("%s=1 but %s is not set", DisruptiveEnv, ClusterToolEnv)
	}
	return tool
}

// ClusterCommand is the command `tool args...` (tool: the path Disruptive
// returns) run from the folder of the tool itself. The tool finds the cluster
// it drives from its working directory, so a test run from another checkout
// (a worktree sharing one cluster) still reaches the cluster that is up.
func ClusterCommand(tool string, args ...string) *exec.Cmd {
	cmd := exec.Command(tool, args...)
	cmd.Dir = filepath.Dir(tool)
	return cmd
}

// twoContexts is a kubeconfig of two clusters nothing listens on
// (127.0.0.1:1 and :2), so connecting never reaches a server.
const twoContexts = `apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster: {server: "https://127.0.0.1:1"}
- name: staging
  cluster: {server: "https://127.0.0.1:2"}
users:
- name: alice
  user: {token: abc}
- name: bob
  user: {token: def}
contexts:
- name: prod-ctx
  context: {cluster: prod, user: alice, namespace: payments}
- name: staging-ctx
  context: {cluster: staging, user: bob}
current-context: prod-ctx
`

// TwoContextKubeconfig writes a kubeconfig to a temporary folder and returns
// its path: contexts prod-ctx (current; cluster prod, user alice, namespace
// payments) and staging-ctx (cluster staging, user bob), on servers nothing
// listens on. Tests of kubeconfig handling use it, never the machine's.
func TwoContextKubeconfig(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(twoContexts), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TempNamespace creates a namespace named prefix plus a random suffix on
// the cluster behind cs and deletes it (with everything in it) when the
// test ends. Tests that need objects of their own, or a namespace where
// nothing else happens, use one.
func TempNamespace(t testing.TB, cs kubernetes.Interface, prefix string) string {
	t.Helper()
	name := fmt.Sprintf("%s-%06x", prefix, rand.Uint32()&0xffffff)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := cs.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
			t.Errorf("delete namespace %s: %v", name, err)
		}
	})
	// Pods are refused until the controller manager has made the
	// namespace's default ServiceAccount, which takes longer right after
	// an API server restart.
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, err := cs.CoreV1().ServiceAccounts(name).Get(context.Background(), "default", metav1.GetOptions{})
		if err == nil {
			return name
		}
		if time.Now().After(deadline) {
			t.Fatalf("namespace %s has no default ServiceAccount after 60 s: %v", name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
