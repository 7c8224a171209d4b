package cluster

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/kyyard/kyyard/hack/cluster/internal/components"
	"github.com/kyyard/kyyard/hack/cluster/internal/fleet"
	"github.com/kyyard/kyyard/hack/cluster/internal/kwokconf"
	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
	"github.com/kyyard/kyyard/hack/cluster/internal/pki"
)

// TestPrefixWriter: lines of parts started side by side come out whole,
// each after its part's prefix, even when written in pieces.
func TestPrefixWriter(t *testing.T) {
	var mu sync.Mutex
	var b bytes.Buffer
	one, two := prefixed(&mu, &b, "[1] "), prefixed(&mu, &b, "[2] ")
	fmt.Fprint(one, "up: sta")
	fmt.Fprint(two, "up: started x\nup: ready\n")
	fmt.Fprint(one, "rted y\n")
	want := "[2] up: started x\n[2] up: ready\n[1] up: started y\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// TestMemberAPIServerAsUp: the API server `fleet restart-apiserver` starts
// (the member's Cluster's) is the one `fleet up` starts (the member's first
// component): same binary, flags (PKI, etcd prefix, audit log, ports) and
// readiness probe.
func TestMemberAPIServerAsUp(t *testing.T) {
	l, err := layout.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &Fleet{L: l, Out: io.Discard}
	for i := 1; i <= fleet.MaxClusters; i++ {
		m := fleet.NewMember(l, i)
		got, want := f.Member(m, io.Discard).apiServer(), m.Components()[0]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: restart starts %+v, up starts %+v", m.Name, got, want)
		}
		if want.Name != fleet.MemberComponents[0] {
			t.Errorf("%s: first component %s, want %s", m.Name, want.Name, fleet.MemberComponents[0])
		}
	}
}

// TestMemberMetricsServerAsUp: the metrics-server `fleet up` starts for a
// member (startMetrics, on the member's Cluster) is the member's last
// component, on the member's port, and the APIService's Service points at
// that port.
func TestMemberMetricsServerAsUp(t *testing.T) {
	l, err := layout.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &Fleet{L: l, Out: io.Discard}
	for i := 1; i <= fleet.MaxClusters; i++ {
		m := fleet.NewMember(l, i)
		comps := m.Components()
		got, want := f.Member(m, io.Discard).metricsServer(), comps[len(comps)-1]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: up starts %+v, the member's components say %+v", m.Name, got, want)
		}
		if last := fleet.MemberComponents[len(fleet.MemberComponents)-1]; want.Name != last {
			t.Errorf("%s: last component %s, want %s", m.Name, want.Name, last)
		}
		_, _, _, svc := metricsObjects(m.Ports.MetricsServer)
		if p := svc.Spec.Ports[0].Port; int(p) != m.Ports.MetricsServer || !strings.Contains(want.ReadyURL, fmt.Sprint(p)) {
			t.Errorf("%s: Service on %d, metrics-server ready at %s", m.Name, p, want.ReadyURL)
		}
	}
}

// TestPrepareMemberForMetrics: a member's prepared files hold what its
// metrics-server needs, as the single cluster's do: the metrics-server
// client and serving certificates signed by the member's CA, its
// kubeconfig for the member's API server, and a kwok configuration that
// serves resource metrics on the member's kwok port.
func TestPrepareMemberForMetrics(t *testing.T) {
	l, err := layout.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := fleet.NewMember(l, 2)
	if err := (&Fleet{L: l}).Member(m, io.Discard).prepareMember(true); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"metrics-server.crt", "metrics-server.key", "metrics-server-serving.crt", "metrics-server-serving.key", "front-proxy-ca.crt"} {
		if _, err := os.Stat(m.L.PKIPath(f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if !pki.Complete(m.L.PKI) {
		t.Error("the member's PKI is not complete")
	}
	kc, err := clientcmd.LoadFromFile(m.L.KubeconfigPath("metrics-server"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range kc.Clusters {
		if c.Server != m.ServerURL() || c.CertificateAuthority != m.L.PKIPath("ca.crt") {
			t.Errorf("metrics-server kubeconfig: cluster %+v", c)
		}
	}
	for _, u := range kc.AuthInfos {
		if u.ClientCertificate != m.L.PKIPath("metrics-server.crt") {
			t.Errorf("metrics-server kubeconfig: user %+v", u)
		}
	}
	kw, err := os.ReadFile(m.L.EtcPath(components.KwokConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kind: Metric\n", "kind: ClusterResourceUsage\n", "path: " + kwokconf.ResourceMetricsPath,
		fmt.Sprintf("nodePort: %d", m.Ports.Kwok)} {
		if !strings.Contains(string(kw), want) {
			t.Errorf("the member's kwok configuration lacks %q", want)
		}
	}
}
