package app

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// runManifestCmd runs `manifest args` with kubectl's flags over the
// temporary two-context kubeconfig (context prod-ctx, namespace payments)
// and a client over a fake clientset holding objs.
func runManifestCmd(t *testing.T, objs []runtime.Object, args ...string) (string, error) {
	t.Helper()
	path := kubetest.TwoContextKubeconfig(t)
	flags := genericclioptions.NewConfigFlags(true)
	flags.KubeConfig = &path
	cs := fake.NewClientset(objs...)
	connect := func() (*kube.Client, func(), error) {
		return kube.NewFromClientset(cs, kube.Options{Registry: kinds.Builtin(), NoCache: true}), func() {}, nil
	}
	var out bytes.Buffer
	cmd := newManifestCommand(flags, connect)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return out.String(), err
}

// TestManifestCommand: the namespaces (repeated -n, else the context's),
// the name and the modes reach the manifest.
func TestManifestCommand(t *testing.T) {
	cases := []struct {
		args []string
		want []string
		not  []string
	}{
		{nil, []string{"full access for ServiceAccount payments/kyyard in namespaces payments", "name: kyyard-token", "pods/exec"}, []string{"- nodes"}},
		{[]string{"-n", "a", "--namespace", "b", "--name", "viewer", "--readonly"},
			[]string{"read-only access for ServiceAccount a/viewer in namespaces a, b", "name: kyyard:a:viewer", "namespace: b", "pods/log"},
			[]string{"pods/exec", "secrets", "- patch", "- delete"}},
		{[]string{"-A", "-n", "kyyard"}, []string{"in all namespaces", "- nodes", "kind: ClusterRoleBinding"}, []string{"kind: Role\n", "kind: RoleBinding"}},
	}
	for _, tc := range cases {
		out, err := runManifestCmd(t, nil, tc.args...)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q", tc.args, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(out, w) {
				t.Errorf("%v: output has %q", tc.args, w)
			}
		}
	}
}

// TestManifestCommandErrors: bad flags are refused with the flag named.
func TestManifestCommandErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-n", "Bad"}, `--namespace "Bad"`},
		{[]string{"--name", "x_y"}, `--name "x_y"`},
		{[]string{"-n", "a", "-n", "a"}, "named twice"},
		{[]string{"--kubeconfig-for", "v", "--readonly"}, "--kubeconfig-for takes only --namespace"},
		{[]string{"--kubeconfig-for", "v", "-n", "a", "-n", "b"}, "one namespace's token Secret; 2 namespaces"},
		{[]string{"extra"}, "unknown command"},
	}
	for _, tc := range cases {
		_, err := runManifestCmd(t, nil, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestKubeconfigFor: the kubeconfig has the token Secret's token, the
// current context's cluster (name and server; the Secret's ca.crt as the
// kubeconfig has none) and the ServiceAccount's namespace; a missing
// Secret or token is a clear error.
func TestKubeconfigFor(t *testing.T) {
	token := func(data map[string][]byte) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "viewer-token", Namespace: "team",
			Annotations: map[string]string{corev1.ServiceAccountNameKey: "viewer"}},
			Type: corev1.SecretTypeServiceAccountToken, Data: data}
	}
	out, err := runManifestCmd(t, []runtime.Object{token(map[string][]byte{"token": []byte("jwt-1"), "ca.crt": []byte("CA-PEM")})},
		"--kubeconfig-for", "viewer", "-n", "team")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.Load([]byte(out))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	ctx := cfg.Contexts[cfg.CurrentContext]
	if ctx == nil || ctx.Namespace != "team" || ctx.Cluster != "prod" || cfg.CurrentContext != "viewer@prod" {
		t.Fatalf("context %q: %+v", cfg.CurrentContext, ctx)
	}
	cl, user := cfg.Clusters["prod"], cfg.AuthInfos[ctx.AuthInfo]
	if cl == nil || cl.Server != "https://127.0.0.1:1" || string(cl.CertificateAuthorityData) != "CA-PEM" {
		t.Errorf("cluster %+v", cl)
	}
	if user == nil || user.Token != "jwt-1" || ctx.AuthInfo != "system:serviceaccount:team:viewer" {
		t.Errorf("user %q %+v", ctx.AuthInfo, user)
	}

	_, err = runManifestCmd(t, nil, "--kubeconfig-for", "viewer", "-n", "team")
	if !errors.Is(err, kube.ErrNoToken) || !strings.Contains(err.Error(), "team/viewer-token does not exist") {
		t.Errorf("missing Secret: %v", err)
	}
	_, err = runManifestCmd(t, []runtime.Object{token(nil)}, "--kubeconfig-for", "viewer", "-n", "team")
	if !errors.Is(err, kube.ErrNoToken) || !strings.Contains(err.Error(), "has no token yet") {
		t.Errorf("no token: %v", err)
	}
}

// TestManifestHelp: the subcommand's help and the root's long help name it.
func TestManifestHelp(t *testing.T) {
	out, err := runManifestCmd(t, nil, "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"least-privilege", "--readonly", "--kubeconfig-for", "--all-namespaces", "typed name", "no write verb", "strict"} {
		if !strings.Contains(out, want) {
			t.Errorf("manifest --help lacks %q", want)
		}
	}
	if !strings.Contains(longHelp, "kyyard manifest") {
		t.Error("the root's help does not mention kyyard manifest")
	}
}
