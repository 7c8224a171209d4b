package app

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// manifestPrefix is this test file's namespace prefix.
const manifestPrefix = "kman"

// kyyardOut runs kyyard's root command with args against the local
// cluster's admin kubeconfig and returns its stdout.
func kyyardOut(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := NewCommand(&out, &errOut)
	cmd.SetArgs(append(args, "--kubeconfig", os.Getenv(kubetest.KubeconfigEnv)))
	err := cmd.Execute()
	return out.String(), err
}

// applyManifest creates every object of a multi-document manifest with the
// admin clientset (the API server decides, as kubectl apply's create
// would), and deletes the cluster-scoped ones when the test ends (the
// namespaced ones go with their temporary namespace).
func applyManifest(t *testing.T, cs kubernetes.Interface, doc string) {
	t.Helper()
	ctx := context.Background()
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(doc)))
	n := 0
	for {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(bytes.TrimSpace(stripComments(raw))) == 0 {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(raw, nil, nil)
		if err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
		n++
		switch o := obj.(type) {
		case *corev1.ServiceAccount:
			_, err = cs.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *corev1.Secret:
			_, err = cs.CoreV1().Secrets(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.Role:
			_, err = cs.RbacV1().Roles(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.RoleBinding:
			_, err = cs.RbacV1().RoleBindings(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.ClusterRole:
			_, err = cs.RbacV1().ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
			t.Cleanup(func() { _ = cs.RbacV1().ClusterRoles().Delete(context.Background(), o.Name, metav1.DeleteOptions{}) })
		case *rbacv1.ClusterRoleBinding:
			_, err = cs.RbacV1().ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
			t.Cleanup(func() {
				_ = cs.RbacV1().ClusterRoleBindings().Delete(context.Background(), o.Name, metav1.DeleteOptions{})
			})
		default:
			t.Fatalf("unexpected object %T in the manifest", obj)
		}
		if err != nil {
			t.Fatalf("create %T: %v", obj, err)
		}
	}
	if n < 4 {
		t.Fatalf("the manifest held %d objects", n)
	}
}

// stripComments drops the YAML comment lines of a document.
func stripComments(doc []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(append(out, line...), '\n')
		}
	}
	return out
}

// tokenConfig waits for the token controller to fill the ServiceAccount's
// token Secret, then returns the REST config of `kyyard manifest
// --kubeconfig-for name -n ns`'s kubeconfig.
func tokenConfig(t *testing.T, ns, name string) *rest.Config {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := kyyardOut(t, "manifest", "--kubeconfig-for", name, "-n", ns)
		if err == nil {
			cfg, err := clientcmd.RESTConfigFromKubeConfig([]byte(out))
			if err != nil {
				t.Fatalf("the printed kubeconfig: %v\n%s", err, out)
			}
			return cfg
		}
		if !errors.Is(err, kube.ErrNoToken) || time.Now().After(deadline) {
			t.Fatalf("--kubeconfig-for: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// impersonated is the admin's config acting as ServiceAccount ns/name.
func impersonated(admin *rest.Config, ns, name string) *rest.Config {
	cfg := rest.CopyConfig(admin)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":" + name}
	return cfg
}

// reviewer asks SelfSubjectAccessReviews as one user.
type reviewer struct {
	t  *testing.T
	cs kubernetes.Interface
}

// newReviewer asks as cfg's user, without client-go's default 5 requests
// a second (a few hundred reviews).
func newReviewer(t *testing.T, cfg *rest.Config) reviewer {
	t.Helper()
	fast := rest.CopyConfig(cfg)
	fast.QPS, fast.Burst = 500, 1000
	cs, err := kubernetes.NewForConfig(fast)
	if err != nil {
		t.Fatal(err)
	}
	return reviewer{t, cs}
}

// allowed asks whether the user may do verb on group/resource(/sub) named
// name in ns ("" for cluster-wide).
func (r reviewer) allowed(verb, group, resource, ns, name string) bool {
	r.t.Helper()
	res, sub, _ := strings.Cut(resource, "/")
	got, err := r.cs.AuthorizationV1().SelfSubjectAccessReviews().Create(context.Background(), &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: verb, Group: group, Resource: res, Subresource: sub, Namespace: ns, Name: name}}}, metav1.CreateOptions{})
	if err != nil {
		r.t.Fatalf("access review %s %s/%s in %q: %v", verb, group, resource, ns, err)
	}
	return got.Status.Allowed
}

// expect checks one review's answer. A grant is asked again for up to
// 10 s: the API server's RBAC authorizer learns of new Roles and bindings
// through its informers, a moment after they were created (a denial is
// not: nothing the test does removes a grant).
func (r reviewer) expect(want bool, verb, group, resource, ns, name string) {
	r.t.Helper()
	got := r.allowed(verb, group, resource, ns, name)
	for deadline := time.Now().Add(10 * time.Second); want && !got && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		got = r.allowed(verb, group, resource, ns, name)
	}
	if got != want {
		r.t.Errorf("%s %s/%s in %q (name %q): allowed %v, want %v", verb, group, resource, ns, name, got, want)
	}
}

// expectRules checks every rule of rules: namespaced ones granted in each
// of nss (allNS: in other too), cluster-scoped ones granted only with
// allNS, the namespace objects by name, the reviews cluster-wide.
func (r reviewer) expectRules(rules []kube.AccessRule, nss []string, other string, allNS bool) {
	r.t.Helper()
	for _, rule := range rules {
		for _, res := range rule.Resources {
			for _, v := range rule.Verbs {
				switch rule.Scope {
				case kube.ScopeNamespace:
					for _, ns := range nss {
						r.expect(true, v, rule.Group, res, ns, "")
					}
					r.expect(allNS, v, rule.Group, res, other, "")
				case kube.ScopeCluster:
					r.expect(allNS, v, rule.Group, res, "", "")
				case kube.ScopeNamespaceObject:
					for _, ns := range nss {
						r.expect(true, v, rule.Group, res, "", ns)
					}
					r.expect(allNS, v, rule.Group, res, "", other)
				case kube.ScopeAlways:
					r.expect(true, v, rule.Group, res, "", "")
				}
			}
		}
	}
}

// outsideTable are requests no manifest grants: writes of cluster objects,
// RBAC, pods created directly, whole collections deleted, status written
// (delete of any browsed kind and create of Jobs are features now: DeleteRules, a CronJob's trigger).
var outsideTable = []struct{ verb, group, resource string }{
	{"delete", "", "namespaces"}, {"create", "", "namespaces"}, {"create", "rbac.authorization.k8s.io", "clusterroles"},
	{"create", "rbac.authorization.k8s.io", "rolebindings"}, {"escalate", "rbac.authorization.k8s.io", "roles"},
	{"bind", "rbac.authorization.k8s.io", "clusterroles"}, {"create", "", "pods"}, {"patch", "", "pods"},
	{"deletecollection", "", "persistentvolumeclaims"}, {"update", "apps", "deployments/status"}, {"create", "", "serviceaccounts/token"},
	{"impersonate", "", "serviceaccounts"}, {"update", "", "nodes"}, {"deletecollection", "", "pods"},
	{"update", "batch", "jobs"}, {"patch", "apps", "replicasets"}, {"*", "*", "*"},
}

// setup makes the namespaces (two granted, one not) and the admin
// clientset.
func manifestSetup(t *testing.T) (*rest.Config, kubernetes.Interface, []string, string) {
	admin := kubetest.Local(t)
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		t.Fatal(err)
	}
	nss := []string{kubetest.TempNamespace(t, cs, manifestPrefix), kubetest.TempNamespace(t, cs, manifestPrefix)}
	return admin, cs, nss, kubetest.TempNamespace(t, cs, manifestPrefix)
}

// kyyardAs is kyyard's own client as the ServiceAccount.
func kyyardAs(t *testing.T, cfg *rest.Config, ns string) *kube.Client {
	c := kubetest.Client(t, cfg)
	c.SetNamespace(ns)
	return c
}

// snapshotReason is how a Snapshot of kind in ns reads: "" when it has its
// table, else the truncation's reason.
func snapshotReason(c *kube.Client, kind kube.Kind, ns string) kube.Reason {
	snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{kind}, Namespace: ns})
	if tr, ok := snap.Truncation(kind); ok {
		return tr.Reason
	}
	if _, ok := snap.Table(kind); !ok {
		return "no table"
	}
	return ""
}

// TestE2EManifestReadOnly applies `kyyard manifest --readonly` for two
// namespaces, connects with `--kubeconfig-for`'s kubeconfig (the token
// path) and checks, with access reviews as the ServiceAccount, that every
// read-only rule is granted where it should be and that no write verb and
// no Secret read is; kyyard's own client then reads pods and is refused
// Secrets.
func TestE2EManifestReadOnly(t *testing.T) {
	_, cs, nss, other := manifestSetup(t)
	out, err := kyyardOut(t, "manifest", "--readonly", "--name", "kman-ro", "-n", nss[0], "-n", nss[1])
	if err != nil {
		t.Fatal(err)
	}
	applyManifest(t, cs, out)
	sa := tokenConfig(t, nss[0], "kman-ro")
	r := newReviewer(t, sa)
	reg := kinds.Builtin()
	r.expectRules(kube.AccessRules(reg, true), nss, other, false)
	for _, rule := range kube.AccessRules(reg, false) {
		if !rule.Write {
			continue
		}
		for _, res := range rule.Resources {
			for _, v := range rule.Verbs {
				// deploy's reads of what browsing reads too are granted;
				// Secrets are not, whatever the verb.
				if res == "secrets" || (v != "get" && v != "list" && v != "watch") {
					r.expect(false, v, rule.Group, res, nss[0], "")
				}
			}
		}
	}
	for _, v := range []string{"get", "list", "watch", "create", "update", "delete"} {
		r.expect(false, v, "", "secrets", nss[0], "")
		r.expect(false, v, "", "secrets", nss[1], "kman-ro-token")
	}
	for _, o := range outsideTable {
		r.expect(false, o.verb, o.group, o.resource, nss[0], "")
	}
	r.expect(false, "list", "", "namespaces", "", "")
	r.expect(false, "list", "", "nodes", "", "")

	c := kyyardAs(t, sa, nss[0])
	if got := snapshotReason(c, "pods", nss[1]); got != "" {
		t.Errorf("kyyard as the read-only ServiceAccount: pods in %s: %q", nss[1], got)
	}
	if got := snapshotReason(c, "secrets", nss[0]); got != kube.ReasonForbidden {
		t.Errorf("kyyard as the read-only ServiceAccount: secrets: %q, want forbidden", got)
	}
	if got := snapshotReason(c, "pods", other); got != kube.ReasonForbidden {
		t.Errorf("kyyard as the read-only ServiceAccount: pods in %s (not granted): %q, want forbidden", other, got)
	}
	if f := c.Facts(context.Background()); f.User != "system:serviceaccount:"+nss[0]+":kman-ro" {
		t.Errorf("kyyard's header names %q", f.User)
	}
}

// TestE2EManifestFull applies the full manifest and checks, as the
// ServiceAccount (impersonated by the admin: the same authorization as its
// token), that every feature's verbs are granted in the two namespaces and
// nowhere else, and a sample of requests outside the table is denied;
// kyyard's own client reads pods and Secrets, and Operate's permission
// check finds nothing disabled.
func TestE2EManifestFull(t *testing.T) {
	admin, cs, nss, other := manifestSetup(t)
	out, err := kyyardOut(t, "manifest", "--name", "kman-full", "-n", nss[0], "-n", nss[1])
	if err != nil {
		t.Fatal(err)
	}
	applyManifest(t, cs, out)
	sa := impersonated(admin, nss[0], "kman-full")
	r := newReviewer(t, sa)
	r.expectRules(kube.AccessRules(kinds.Builtin(), false), nss, other, false)
	for _, o := range outsideTable {
		for _, ns := range []string{nss[0], other} {
			r.expect(false, o.verb, o.group, o.resource, ns, "")
		}
	}
	for _, v := range []string{"get", "list", "create", "delete"} {
		r.expect(false, v, "", "secrets", other, "")
	}
	r.expect(false, "get", "", "namespaces", "", other)

	c := kyyardAs(t, sa, nss[0])
	for _, kind := range []kube.Kind{"pods", "secrets", "deployments"} {
		if got := snapshotReason(c, kind, nss[0]); got != "" {
			t.Errorf("kyyard as the full ServiceAccount: %s: %q", kind, got)
		}
	}
	for _, kind := range []kube.Kind{kube.KindDeployments, kube.KindStatefulSets, kube.KindPods} {
		if off := c.Permissions(context.Background(), kind, nss[1]); kind != kube.KindPods && len(off) > 0 {
			t.Errorf("%s: actions disabled: %v", kind, off)
		} else if kind == kube.KindPods && off[kube.ActionDelete] != "" {
			t.Errorf("pods: delete disabled: %s", off[kube.ActionDelete])
		}
	}
}

// TestE2EManifestAllNamespaces applies the read-only manifest with
// --all-namespaces: the cluster-scoped kinds and every namespace are read,
// Secrets nowhere, nothing written.
func TestE2EManifestAllNamespaces(t *testing.T) {
	admin, cs, nss, other := manifestSetup(t)
	out, err := kyyardOut(t, "manifest", "--readonly", "-A", "--name", "kman-all", "-n", nss[0])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "kind: Role\n") {
		t.Fatal("an --all-namespaces manifest with a Role")
	}
	applyManifest(t, cs, out)
	sa := impersonated(admin, nss[0], "kman-all")
	r := newReviewer(t, sa)
	r.expectRules(kube.AccessRules(kinds.Builtin(), true), nss, other, true)
	for _, ns := range []string{nss[0], other, ""} {
		for _, v := range []string{"get", "list", "watch"} {
			r.expect(false, v, "", "secrets", ns, "")
		}
		r.expect(false, "patch", "apps", "deployments", ns, "")
		r.expect(false, "create", "", "pods/exec", ns, "")
	}
	c := kyyardAs(t, sa, nss[0])
	for _, kind := range []kube.Kind{"nodes", "namespaces"} {
		if got := snapshotReason(c, kind, ""); got != "" {
			t.Errorf("kyyard with --all-namespaces: %s: %q", kind, got)
		}
	}
	if got := snapshotReason(c, "secrets", ""); got != kube.ReasonForbidden {
		t.Errorf("kyyard with --all-namespaces, read-only: secrets %q, want forbidden", got)
	}
	if t.Failed() {
		t.Logf("the manifest:\n%s", out)
	}
}

// TestE2EManifestApply: the full manifest alone does not let its
// ServiceAccount apply a ConfigMap (the plan says forbidden, nothing is
// sent); with --apply it does, in the granted namespace, and still not in
// another one.
func TestE2EManifestApply(t *testing.T) {
	admin, cs, nss, other := manifestSetup(t)
	doc := func(ns string) []byte {
		return []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: " + ns + "\ndata:\n  k: v\n")
	}
	planOf := func(c *kube.Client, ns string) kube.ApplyStep {
		t.Helper()
		p, err := c.PlanApply(context.Background(), "cm.yaml", doc(ns))
		if err != nil {
			t.Fatal(err)
		}
		return p.Steps[0]
	}
	for _, with := range []bool{false, true} {
		name := "kman-plain"
		args := []string{"manifest", "--name", name, "-n", nss[0]}
		if with {
			name = "kman-apply"
			args = []string{"manifest", "--apply", "--name", name, "-n", nss[0]}
		}
		out, err := kyyardOut(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		applyManifest(t, cs, out)
		c := kyyardAs(t, impersonated(admin, nss[0], name), nss[0])
		s := planOf(c, nss[0])
		if !with {
			if kube.ReasonOf(s.Err) != kube.ReasonForbidden {
				t.Fatalf("without --apply: %+v", s)
			}
			continue
		}
		if s.Err != nil {
			t.Fatalf("with --apply: %v", s.Err)
		}
		p, err := c.PlanApply(context.Background(), "cm.yaml", doc(nss[0]))
		if err != nil {
			t.Fatal(err)
		}
		if o := c.ApplyManifests(context.Background(), p, false)[0]; !o.Written {
			t.Fatalf("with --apply: %+v", o)
		}
		if s := planOf(c, other); kube.ReasonOf(s.Err) != kube.ReasonForbidden {
			t.Fatalf("with --apply, in %s (not granted): %+v", other, s)
		}
	}
}
