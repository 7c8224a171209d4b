package app_test

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kyyard/kyyard/cmd/kyyard/app"
	"github.com/kyyard/kyyard/internal/kubetest"
)

// fleetKubeconfig writes a kubeconfig of four contexts over the local
// cluster: admin and viewer (its admin and read-only users), dead (a
// server nobody listens on) and hang (a server that accepts connections
// and never answers).
func fleetKubeconfig(t *testing.T) string {
	t.Helper()
	admin, err := clientcmd.LoadFromFile(os.Getenv(kubetest.KubeconfigEnv))
	if err != nil {
		t.Fatal(err)
	}
	viewer, err := clientcmd.LoadFromFile(os.Getenv(kubetest.ReadOnlyKubeconfigEnv))
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() }) // held open, never answered
		}
	}()
	ac, vc := admin.Contexts[admin.CurrentContext], viewer.Contexts[viewer.CurrentContext]
	cluster := admin.Clusters[ac.Cluster]
	out := clientcmdapi.NewConfig()
	out.Clusters["local"] = cluster
	dead, hang := cluster.DeepCopy(), cluster.DeepCopy()
	dead.Server, hang.Server = "https://127.0.0.1:1", "https://"+l.Addr().String()
	out.Clusters["dead"], out.Clusters["hang"] = dead, hang
	out.AuthInfos["admin"], out.AuthInfos["viewer"] = admin.AuthInfos[ac.AuthInfo], viewer.AuthInfos[vc.AuthInfo]
	for name, c := range map[string]*clientcmdapi.Context{
		"admin":  {Cluster: "local", AuthInfo: "admin", Namespace: kubetest.DemoNamespace},
		"viewer": {Cluster: "local", AuthInfo: "viewer", Namespace: kubetest.DemoNamespace},
		"dead":   {Cluster: "dead", AuthInfo: "admin"},
		"nons":   {Cluster: "local", AuthInfo: "admin"}, // no namespace of its own: default
		"hang":   {Cluster: "hang", AuthInfo: "admin"},
	} {
		out.Contexts[name] = c
	}
	out.CurrentContext = "admin"
	path := filepath.Join(t.TempDir(), "fleet.kubeconfig")
	if err := clientcmd.WriteToFile(*out, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestE2EFleetGet: `kyyard get --contexts` over four contexts of the
// local cluster: the admin's Secrets of demo listed under CONTEXT admin,
// as many as kubectl lists; the read-only user's list forbidden, the dead
// server unavailable, the hanging one timed out after --cluster-timeout,
// each named on stderr, none holding the admin's rows back; pods are
// listed in both admin and viewer, the same names.
func TestE2EFleetGet(t *testing.T) {
	_, kubectl := localTools(t)
	path := fleetKubeconfig(t)
	run := func(args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		cmd := app.NewCommand(&out, &errOut)
		cmd.SetArgs(append([]string{"get", "--kubeconfig", path}, args...))
		err := cmd.Execute()
		return out.String(), errOut.String(), err
	}
	start := time.Now()
	out, errOut, err := run("secrets", "--contexts", "admin,viewer,dead,hang", "--cluster-timeout", "4s")
	took := time.Since(start)
	if err == nil || err.Error() != "3 contexts of 4 could not be read" {
		t.Fatalf("err %v\n%s", err, errOut)
	}
	for _, want := range []string{"context viewer: forbidden: ", "context dead: unavailable: ", "context hang: timeout: no answer within 4s"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if took > 20*time.Second {
		t.Errorf("the fleet get took %s: a context held the others", took)
	}
	kc := exec.Command(kubectl, "--kubeconfig", os.Getenv(kubetest.KubeconfigEnv), "get", "secrets", "-n", kubetest.DemoNamespace, "--no-headers", "-o", "name")
	kc.Env = append(os.Environ(), "KUBECONFIG=/dev/null")
	want, err := kc.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "CONTEXT   NAME") || len(lines)-1 != len(strings.Fields(string(want))) {
		t.Fatalf("%d rows, kubectl lists %d:\n%s", len(lines)-1, len(strings.Fields(string(want))), out)
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "admin ") {
			t.Fatalf("a row of another context: %q", l)
		}
	}

	out, errOut, err = run("pods", "--contexts", "admin,viewer")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	byContext := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		f := strings.Fields(l)
		byContext[f[0]] = append(byContext[f[0]], f[1])
	}
	if len(byContext["admin"]) < 3 || strings.Join(byContext["admin"], " ") != strings.Join(byContext["viewer"], " ") {
		t.Fatalf("pods by context: %v", byContext)
	}
	// -n applies to every context, one without a namespace of its own too.
	out, errOut, err = run("pods", "-n", kubetest.DemoNamespace, "--contexts", "nons,admin")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if n := strings.Count(out, "\nnons "); n != len(byContext["admin"]) {
		t.Fatalf("-n demo in a context without a namespace: %d rows, admin has %d:\n%s", n, len(byContext["admin"]), out)
	}
}
