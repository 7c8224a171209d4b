package pki

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"time"
)

// APIServerSANs are the DNS subject alternative names of the API server's
// serving certificate: the names a client inside or outside the cluster uses.
var APIServerSANs = []string{
	"localhost",
	"kubernetes",
	"kubernetes.default",
	"kubernetes.default.svc",
	"kubernetes.default.svc.cluster.local",
}

// APIServerIPs are the IP subject alternative names of the API server's serving
// certificate: loopback and the first address of the service range (the
// "kubernetes" Service's ClusterIP).
var APIServerIPs = []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.96.0.1")}

// Leaf names one certificate of the cluster signed by the cluster CA: files
// Name+".crt" and Name+".key".
type Leaf struct {
	// Name is the file base name.
	Name string
	// Spec is what to issue.
	Spec LeafSpec
}

// Leaves are the certificates signed by ca.crt, in the order Generate writes them.
var Leaves = []Leaf{
	{"apiserver", LeafSpec{CommonName: "kube-apiserver", Usage: ServerAuth, DNSNames: APIServerSANs, IPs: APIServerIPs}},
	{"admin", LeafSpec{CommonName: "kyyard-admin", Organizations: []string{"system:masters"}}},
	{"apiserver-kubelet-client", LeafSpec{CommonName: "kube-apiserver-kubelet-client", Organizations: []string{"system:masters"}}},
	{"controller-manager", LeafSpec{CommonName: "system:kube-controller-manager"}},
	{"scheduler", LeafSpec{CommonName: "system:kube-scheduler"}},
	{"kwok", LeafSpec{CommonName: "kwok-controller", Organizations: []string{"system:masters"}}},
	{"kwok-serving", LeafSpec{CommonName: "kwok-serving", Usage: ServerAuth, DNSNames: []string{"localhost"}, IPs: []net.IP{net.ParseIP("127.0.0.1")}}},
	{"metrics-server", LeafSpec{CommonName: MetricsServerUser}},
	{"metrics-server-serving", LeafSpec{CommonName: "metrics-server", Usage: ServerAuth, DNSNames: MetricsServerSANs, IPs: []net.IP{net.ParseIP("127.0.0.1")}}},
}

// MetricsServerUser is metrics-server's identity towards the API server (the
// CN of metrics-server.crt), which the cluster's RBAC binds.
const MetricsServerUser = "system:metrics-server"

// MetricsServerSANs are the DNS names of metrics-server's serving
// certificate. The aggregation layer verifies an APIService's backend as
// <service>.<namespace>.svc against the APIService's caBundle.
var MetricsServerSANs = []string{"metrics-server.kube-system.svc", "localhost"}

// FrontProxyClient is the client certificate the API server uses towards
// aggregated API servers; it is signed by front-proxy-ca.crt, and the API
// server's --requestheader-allowed-names must list its CN.
var FrontProxyClient = Leaf{"front-proxy-client", LeafSpec{CommonName: "front-proxy-client"}}

// Files lists every file Generate writes, relative to its folder.
func Files() []string {
	files := []string{"ca.crt", "ca.key", "front-proxy-ca.crt", "front-proxy-ca.key", "sa.key", "sa.pub"}
	for _, l := range append(append([]Leaf{}, Leaves...), FrontProxyClient) {
		files = append(files, l.Name+".crt", l.Name+".key")
	}
	return files
}

// Complete reports whether dir holds every file of Files.
func Complete(dir string) bool {
	for _, f := range Files() {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return false
		}
	}
	return true
}

// DefaultName is the single local cluster's name in its CAs' subjects
// (kyyard-local-ca, kyyard-local-front-proxy-ca).
const DefaultName = "kyyard-local"

// Generate writes a complete new PKI into dir: the cluster CA and Leaves, the
// front-proxy CA and FrontProxyClient, and the ServiceAccount signing key pair
// sa.key/sa.pub. Keys are written with mode 0600, certificates 0644. Existing
// files are overwritten. The CAs are named after DefaultName.
func Generate(dir string, now time.Time) error {
	return GenerateNamed(dir, DefaultName, now)
}

// GenerateNamed is Generate for the cluster called name: its CAs' common
// names are name+"-ca" and name+"-front-proxy-ca" (each fleet member has a
// PKI of its own, told apart by these names).
func GenerateNamed(dir, name string, now time.Time) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	ca, err := NewCA(name+"-ca", now)
	if err != nil {
		return err
	}
	if err := write(dir, "ca", ca); err != nil {
		return err
	}
	for _, l := range Leaves {
		kp, err := ca.Issue(l.Spec, now)
		if err != nil {
			return fmt.Errorf("%s: %w", l.Name, err)
		}
		if err := write(dir, l.Name, kp); err != nil {
			return err
		}
	}
	fpCA, err := NewCA(name+"-front-proxy-ca", now)
	if err != nil {
		return err
	}
	if err := write(dir, "front-proxy-ca", fpCA); err != nil {
		return err
	}
	fp, err := fpCA.Issue(FrontProxyClient.Spec, now)
	if err != nil {
		return err
	}
	if err := write(dir, FrontProxyClient.Name, fp); err != nil {
		return err
	}
	priv, pub, err := NewServiceAccountKey()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "sa.key"), priv, 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "sa.pub"), pub, 0o644)
}

// Ensure generates the PKI in dir unless it is already complete; it reports
// whether it generated.
func Ensure(dir string, now time.Time) (bool, error) {
	return EnsureNamed(dir, DefaultName, now)
}

// EnsureNamed is Ensure with the CAs named after name (GenerateNamed).
func EnsureNamed(dir, name string, now time.Time) (bool, error) {
	if Complete(dir) {
		return false, nil
	}
	if _, err := os.Stat(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return true, GenerateNamed(dir, name, now)
}

func write(dir, name string, kp KeyPair) error {
	key, err := kp.KeyPEM()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".key"), key, 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".crt"), kp.CertPEM(), 0o644)
}
