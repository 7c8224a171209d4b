package pki_test

import (
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kyyard/kyyard/hack/cluster/internal/pki"
)

func load(t *testing.T, dir, name string) *x509.Certificate {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name+".crt"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := pki.ParseCertPEM(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c
}

func pool(certs ...*x509.Certificate) *x509.CertPool {
	p := x509.NewCertPool()
	for _, c := range certs {
		p.AddCert(c)
	}
	return p
}

func TestGenerateChainsAndIdentities(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	if err := pki.Generate(dir, now); err != nil {
		t.Fatal(err)
	}
	if !pki.Complete(dir) {
		t.Fatal("Complete = false right after Generate")
	}
	ca := load(t, dir, "ca")
	if !ca.IsCA || ca.KeyUsage&x509.KeyUsageCertSign == 0 {
		t.Fatalf("ca.crt is not a signing CA: IsCA=%t usage=%v", ca.IsCA, ca.KeyUsage)
	}
	tests := []struct {
		name string
		cn   string
		orgs []string
		eku  x509.ExtKeyUsage
	}{
		{"apiserver", "kube-apiserver", nil, x509.ExtKeyUsageServerAuth},
		{"admin", "kyyard-admin", []string{"system:masters"}, x509.ExtKeyUsageClientAuth},
		{"apiserver-kubelet-client", "kube-apiserver-kubelet-client", []string{"system:masters"}, x509.ExtKeyUsageClientAuth},
		{"controller-manager", "system:kube-controller-manager", nil, x509.ExtKeyUsageClientAuth},
		{"scheduler", "system:kube-scheduler", nil, x509.ExtKeyUsageClientAuth},
		{"kwok", "kwok-controller", []string{"system:masters"}, x509.ExtKeyUsageClientAuth},
		{"kwok-serving", "kwok-serving", nil, x509.ExtKeyUsageServerAuth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := load(t, dir, tt.name)
			if c.Subject.CommonName != tt.cn || !slices.Equal(c.Subject.Organization, tt.orgs) {
				t.Errorf("subject = %q %v, want %q %v", c.Subject.CommonName, c.Subject.Organization, tt.cn, tt.orgs)
			}
			if _, err := c.Verify(x509.VerifyOptions{Roots: pool(ca), KeyUsages: []x509.ExtKeyUsage{tt.eku}, CurrentTime: now}); err != nil {
				t.Errorf("verify against ca.crt: %v", err)
			}
			if c.NotAfter.Before(now.Add(9 * 365 * 24 * time.Hour)) {
				t.Errorf("expires %s, want about ten years", c.NotAfter)
			}
			fi, err := os.Stat(filepath.Join(dir, tt.name+".key"))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("key mode %v, want 0600", fi.Mode().Perm())
			}
		})
	}
}

func TestServingSANs(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	if err := pki.Generate(dir, now); err != nil {
		t.Fatal(err)
	}
	ca := load(t, dir, "ca")
	api := load(t, dir, "apiserver")
	for _, host := range []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local", "127.0.0.1", "10.96.0.1"} {
		if _, err := api.Verify(x509.VerifyOptions{DNSName: host, Roots: pool(ca), CurrentTime: now}); err != nil {
			t.Errorf("apiserver certificate not valid for %s: %v", host, err)
		}
	}
	if !slices.ContainsFunc(api.IPAddresses, func(ip net.IP) bool { return ip.Equal(net.ParseIP("10.96.0.1")) }) {
		t.Errorf("apiserver IP SANs %v lack 10.96.0.1", api.IPAddresses)
	}
	kw := load(t, dir, "kwok-serving")
	if _, err := kw.Verify(x509.VerifyOptions{DNSName: "127.0.0.1", Roots: pool(ca), CurrentTime: now}); err != nil {
		t.Errorf("kwok serving certificate not valid for 127.0.0.1: %v", err)
	}
}

func TestFrontProxyIsSeparate(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	if err := pki.Generate(dir, now); err != nil {
		t.Fatal(err)
	}
	fp := load(t, dir, "front-proxy-client")
	opts := x509.VerifyOptions{KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, CurrentTime: now}
	opts.Roots = pool(load(t, dir, "front-proxy-ca"))
	if _, err := fp.Verify(opts); err != nil {
		t.Errorf("front-proxy-client vs front-proxy-ca: %v", err)
	}
	opts.Roots = pool(load(t, dir, "ca"))
	if _, err := fp.Verify(opts); err == nil {
		t.Error("front-proxy-client verifies against the cluster CA; want a separate CA")
	}
	if fp.Subject.CommonName != "front-proxy-client" {
		t.Errorf("CN = %q", fp.Subject.CommonName)
	}
}

func TestServiceAccountKeyPair(t *testing.T) {
	dir := t.TempDir()
	if err := pki.Generate(dir, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"sa.key", "sa.pub"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || len(data) == 0 {
			t.Fatalf("%s: %v", f, err)
		}
	}
}

func TestEnsureKeepsCompletePKI(t *testing.T) {
	dir := t.TempDir()
	made, err := pki.Ensure(dir, time.Now())
	if err != nil || !made {
		t.Fatalf("first Ensure = %t, %v; want true, nil", made, err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "ca.crt"))
	made, err = pki.Ensure(dir, time.Now())
	if err != nil || made {
		t.Fatalf("second Ensure = %t, %v; want false, nil", made, err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if string(before) != string(after) {
		t.Error("second Ensure replaced ca.crt")
	}
	if err := os.Remove(filepath.Join(dir, "scheduler.key")); err != nil {
		t.Fatal(err)
	}
	if made, err := pki.Ensure(dir, time.Now()); err != nil || !made {
		t.Fatalf("Ensure after losing a file = %t, %v; want true, nil", made, err)
	}
}

// TestGenerateNamed: a fleet member's CAs carry its name; the single
// cluster's keep kyyard-local.
func TestGenerateNamed(t *testing.T) {
	now := time.Now()
	for name, want := range map[string]string{"": "kyyard-local", "kyyard-fleet-2": "kyyard-fleet-2"} {
		dir := t.TempDir()
		var err error
		if name == "" {
			_, err = pki.Ensure(dir, now)
		} else {
			_, err = pki.EnsureNamed(dir, name, now)
		}
		if err != nil {
			t.Fatal(err)
		}
		for file, cn := range map[string]string{"ca.crt": want + "-ca", "front-proxy-ca.crt": want + "-front-proxy-ca"} {
			data, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			c, err := pki.ParseCertPEM(data)
			if err != nil {
				t.Fatal(err)
			}
			if c.Subject.CommonName != cn {
				t.Errorf("%q: %s CN %q, want %q", name, file, c.Subject.CommonName, cn)
			}
		}
	}
}
