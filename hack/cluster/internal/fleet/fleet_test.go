package fleet_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/kyyard/kyyard/hack/cluster/internal/components"
	"github.com/kyyard/kyyard/hack/cluster/internal/fleet"
	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
	"github.com/kyyard/kyyard/hack/cluster/internal/node"
)

// singlePorts are every port of the single cluster, its real node's
// kubelet included: the fleet may run beside it.
func singlePorts() []int {
	return append(components.DefaultPorts.All(), node.KubeletHealthzPort)
}

// TestPortsNeverCollide: across the largest fleet, no two members, the
// shared etcd and the single cluster share a port, and every fleet port is
// above the single cluster's and below Linux's ephemeral range.
func TestPortsNeverCollide(t *testing.T) {
	l, err := layout.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	maxSingle := 0
	seen := map[int]string{}
	for _, p := range singlePorts() {
		seen[p] = "single cluster"
		maxSingle = max(maxSingle, p)
	}
	use := func(p int, who string) {
		if prev, ok := seen[p]; ok {
			t.Errorf("port %d of %s is also %s's", p, who, prev)
		}
		seen[p] = who
		if p <= maxSingle || p >= 32768 {
			t.Errorf("port %d of %s is not between the single cluster's (%d) and 32768", p, who, maxSingle)
		}
	}
	use(fleet.EtcdPorts.Etcd, "etcd")
	use(fleet.EtcdPorts.EtcdPeer, "etcd peer")
	members, err := fleet.Members(l, fleet.MaxClusters)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range members {
		for _, p := range m.ListenPorts() {
			use(p, m.Name)
		}
		if m.Ports.Etcd != fleet.EtcdPorts.Etcd {
			t.Errorf("%s talks to etcd on %d", m.Name, m.Ports.Etcd)
		}
	}
	if got := fleet.NewMember(l, 1).ServerURL(); got != "https://127.0.0.1:21443" {
		t.Errorf("kyyard-fleet-1's API server %s", got)
	}
	if fleet.NewMember(l, 2).ServerURL() != "https://127.0.0.1:22443" {
		t.Errorf("kyyard-fleet-2's API server %s", fleet.NewMember(l, 2).ServerURL())
	}
	if p := fleet.NewMember(l, 2).Ports.MetricsServer; p != 22444 {
		t.Errorf("kyyard-fleet-2's metrics-server on %d", p)
	}
}

func TestMembers(t *testing.T) {
	l, _ := layout.New(t.TempDir())
	for _, n := range []int{0, -1, fleet.MaxClusters + 1} {
		if _, err := fleet.Members(l, n); err == nil {
			t.Errorf("Members(%d) succeeded", n)
		}
	}
	ms, err := fleet.Members(l, fleet.DefaultClusters)
	if err != nil {
		t.Fatal(err)
	}
	prefixes := map[string]bool{}
	for i, m := range ms {
		want := []string{"kyyard-fleet-1", "kyyard-fleet-2", "kyyard-fleet-3"}[i]
		if m.Index != i+1 || m.Name != want || fleet.ViewerContext(m.Index) != want+"-viewer" {
			t.Errorf("member %d: %d %s %s", i, m.Index, m.Name, fleet.ViewerContext(m.Index))
		}
		if m.L.Cache != filepath.Join(l.Cache, "fleet", want) || m.L.Bin != l.Bin {
			t.Errorf("%s: state in %s, binaries in %s", m.Name, m.L.Cache, m.L.Bin)
		}
		if !strings.HasPrefix(m.TokenPath(), m.L.Cache+"/") {
			t.Errorf("%s: token at %s", m.Name, m.TokenPath())
		}
		if m.EtcdPrefix == "" || m.EtcdPrefix == "/registry" || prefixes[m.EtcdPrefix] {
			t.Errorf("%s: etcd prefix %q", m.Name, m.EtcdPrefix)
		}
		prefixes[m.EtcdPrefix] = true
	}
}

// TestMemberComponents: a member runs the single cluster's command lines
// on its own ports and files, on 127.0.0.1, its API server on the shared
// etcd under its prefix, its metrics-server with its own certificates and
// kubeconfig last; the shared etcd's files are its own too.
func TestMemberComponents(t *testing.T) {
	l, _ := layout.New(t.TempDir())
	m := fleet.NewMember(l, 2)
	comps := m.Components()
	var names []string
	for i, c := range comps {
		names = append(names, c.Name)
		if !strings.Contains(c.ReadyURL, "127.0.0.1:"+strconv.Itoa(m.ListenPorts()[i])) {
			t.Errorf("%s ready at %s", c.Name, c.ReadyURL)
		}
		checkArgs(t, c, m.L.Cache)
	}
	if strings.Join(names, ",") != strings.Join(fleet.MemberComponents, ",") {
		t.Errorf("components %v", names)
	}
	if len(m.ListenPorts()) != len(fleet.MemberComponents) {
		t.Errorf("%d ports for %d components", len(m.ListenPorts()), len(fleet.MemberComponents))
	}
	single := map[string]bool{}
	for _, n := range components.Names {
		single[n] = true
	}
	for _, n := range fleet.MemberComponents {
		if !single[n] || n == "etcd" {
			t.Errorf("member component %s is not one of the single cluster's own", n)
		}
	}
	ms := comps[len(comps)-1]
	if ms.Name != "metrics-server" {
		t.Fatalf("last component %s, want metrics-server", ms.Name)
	}
	msArgs := strings.Join(ms.Args, " ")
	for _, want := range []string{"--secure-port=22444", "--kubeconfig=" + m.L.KubeconfigPath("metrics-server"),
		"--tls-cert-file=" + m.L.PKIPath("metrics-server-serving.crt"), "--kubelet-client-certificate=" + m.L.PKIPath("metrics-server.crt"),
		"--kubelet-certificate-authority=" + m.L.PKIPath("ca.crt"), "--requestheader-client-ca-file=" + m.L.PKIPath("front-proxy-ca.crt")} {
		if !strings.Contains(msArgs, want) {
			t.Errorf("metrics-server lacks %s", want)
		}
	}
	args := strings.Join(comps[0].Args, " ")
	for _, want := range []string{"--etcd-servers=http://127.0.0.1:20379", "--etcd-prefix=/kyyard-fleet-2", "--secure-port=22443",
		"--audit-log-path=" + m.L.AuditLog()} {
		if !strings.Contains(args, want) {
			t.Errorf("kube-apiserver lacks %s", want)
		}
	}
	etcd := fleet.Etcd(l)
	checkArgs(t, etcd, fleet.EtcdLayout(l).Cache)
	if !strings.Contains(strings.Join(etcd.Args, " "), "--listen-client-urls=http://127.0.0.1:20379") {
		t.Errorf("etcd args %v", etcd.Args)
	}
}

func checkArgs(t *testing.T, c components.Component, root string) {
	t.Helper()
	for _, a := range c.Args {
		name, value, ok := strings.Cut(a, "=")
		if !ok {
			continue
		}
		if strings.HasSuffix(name, "-address") || strings.HasSuffix(name, "-urls") || name == "--node-ip" {
			if !strings.Contains(value, "127.0.0.1") {
				t.Errorf("%s: %s does not bind to 127.0.0.1", c.Name, a)
			}
		}
		isPath := strings.HasSuffix(name, "-file") || strings.HasSuffix(name, "-dir") || strings.HasSuffix(name, "kubeconfig") || name == "--config"
		if isPath && !strings.HasPrefix(value, root+"/") {
			t.Errorf("%s: %s points outside %s", c.Name, a, root)
		}
	}
}

// TestKubeconfig: one kubeconfig, a context per member for its admin and,
// once seeded, one for its read-only user, each with its own server, CA and
// credentials; the current context is kyyard-fleet-1.
func TestKubeconfig(t *testing.T) {
	l, _ := layout.New(t.TempDir())
	ms, _ := fleet.Members(l, 3)
	data, err := fleet.RenderKubeconfig(ms, map[string]string{"kyyard-fleet-1": "t1", "kyyard-fleet-3": "t3"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CurrentContext != "kyyard-fleet-1" {
		t.Errorf("current context %q", cfg.CurrentContext)
	}
	want := map[string]string{
		"kyyard-fleet-1": "", "kyyard-fleet-2": "", "kyyard-fleet-3": "",
		"kyyard-fleet-1-viewer": "t1", "kyyard-fleet-3-viewer": "t3",
	}
	if len(cfg.Contexts) != len(want) || len(cfg.Clusters) != 3 {
		t.Fatalf("%d contexts, %d clusters", len(cfg.Contexts), len(cfg.Clusters))
	}
	for name, token := range want {
		c := cfg.Contexts[name]
		if c == nil {
			t.Errorf("no context %s", name)
			continue
		}
		member := strings.TrimSuffix(name, "-viewer")
		m := ms[member[len(member)-1]-'1']
		cl, u := cfg.Clusters[c.Cluster], cfg.AuthInfos[c.AuthInfo]
		if c.Cluster != member || cl.Server != m.ServerURL() || cl.CertificateAuthority != m.L.PKIPath("ca.crt") {
			t.Errorf("%s: cluster %s %+v", name, c.Cluster, cl)
		}
		if token == "" && (u.ClientCertificate != m.L.PKIPath("admin.crt") || u.Token != "" || c.Namespace != "") {
			t.Errorf("%s: admin user %+v namespace %q", name, u, c.Namespace)
		}
		if token != "" && (u.Token != token || u.ClientCertificate != "" || c.Namespace != "demo") {
			t.Errorf("%s: viewer user %+v namespace %q", name, u, c.Namespace)
		}
	}
	if _, err := fleet.RenderKubeconfig(nil, nil); err == nil {
		t.Error("a kubeconfig of no member rendered")
	}
}

// TestWriteKubeconfigAndSize: the kubeconfig reads the tokens seed left
// beside the members, and lands in .cache/fleet with mode 0600.
func TestWriteKubeconfigAndSize(t *testing.T) {
	l, _ := layout.New(t.TempDir())
	if _, err := fleet.ReadSize(l); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadSize of a fleet never started: %v", err)
	}
	ms, _ := fleet.Members(l, 2)
	if err := os.MkdirAll(filepath.Dir(ms[1].TokenPath()), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ms[1].TokenPath(), []byte("tok2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := fleet.WriteKubeconfig(l, ms); err != nil {
		t.Fatal(err)
	}
	if err := fleet.WriteSize(l, 2); err != nil {
		t.Fatal(err)
	}
	if n, err := fleet.ReadSize(l); n != 2 || err != nil {
		t.Errorf("ReadSize = %d, %v", n, err)
	}
	st, err := os.Stat(l.FleetKubeconfig())
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("kubeconfig %v %v", st, err)
	}
	cfg, err := clientcmd.LoadFromFile(l.FleetKubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Contexts["kyyard-fleet-1-viewer"] != nil || cfg.AuthInfos["kyyard-fleet-2-viewer"].Token != "tok2" {
		t.Errorf("contexts %v", cfg.Contexts)
	}
}
