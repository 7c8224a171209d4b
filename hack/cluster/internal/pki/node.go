package pki

import (
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"time"
)

// NodeGroup is the group of every kubelet's client certificate; the API
// server's Node authorizer grants a kubelet what its node needs when its user
// is system:node:<node name> in this group.
const NodeGroup = "system:nodes"

// NodeLeaves are a real node's two certificates, signed by the cluster CA:
// the kubelet's client certificate (user system:node:<name>, group
// system:nodes), file base name "kubelet-client", and its serving
// certificate, "kubelet-serving", valid for the node's name, localhost,
// 127.0.0.1 and nodeIP (the API server and metrics-server dial the node's
// InternalIP and verify the certificate against the cluster CA).
func NodeLeaves(nodeName string, nodeIP net.IP) []Leaf {
	return []Leaf{
		{"kubelet-client", LeafSpec{CommonName: "system:node:" + nodeName, Organizations: []string{NodeGroup}}},
		{"kubelet-serving", LeafSpec{CommonName: nodeName, Usage: ServerAuth,
			DNSNames: []string{nodeName, "localhost"}, IPs: []net.IP{net.ParseIP("127.0.0.1"), nodeIP}}},
	}
}

// LoadCA reads the cluster CA (ca.crt and ca.key) from dir.
func LoadCA(dir string) (KeyPair, error) {
	certPEM, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if err != nil {
		return KeyPair{}, err
	}
	cert, err := ParseCertPEM(certPEM)
	if err != nil {
		return KeyPair{}, fmt.Errorf("ca.crt: %w", err)
	}
	keyPEM, err := os.ReadFile(filepath.Join(dir, "ca.key"))
	if err != nil {
		return KeyPair{}, err
	}
	b, _ := pem.Decode(keyPEM)
	if b == nil || b.Type != "EC PRIVATE KEY" {
		return KeyPair{}, fmt.Errorf("ca.key: no EC PRIVATE KEY block")
	}
	key, err := x509.ParseECPrivateKey(b.Bytes)
	if err != nil {
		return KeyPair{}, fmt.Errorf("ca.key: %w", err)
	}
	if pub, ok := cert.PublicKey.(*ecdsa.PublicKey); !ok || !pub.Equal(&key.PublicKey) {
		return KeyPair{}, fmt.Errorf("ca.key does not belong to ca.crt")
	}
	return KeyPair{Cert: cert, Key: key}, nil
}

// EnsureLeaves writes each leaf into outDir, signed by the CA in caDir,
// unless outDir already holds a certificate of that name signed by this CA
// (a regenerated CA gets new leaves). It reports the names it wrote.
func EnsureLeaves(caDir, outDir string, leaves []Leaf, now time.Time) ([]string, error) {
	ca, err := LoadCA(caDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(outDir, 0o700); err != nil {
		return nil, err
	}
	var wrote []string
	for _, l := range leaves {
		if signedBy(filepath.Join(outDir, l.Name+".crt"), ca.Cert) {
			if _, err := os.Stat(filepath.Join(outDir, l.Name+".key")); err == nil {
				continue
			} else if !errors.Is(err, fs.ErrNotExist) {
				return wrote, err
			}
		}
		kp, err := ca.Issue(l.Spec, now)
		if err != nil {
			return wrote, fmt.Errorf("%s: %w", l.Name, err)
		}
		if err := write(outDir, l.Name, kp); err != nil {
			return wrote, err
		}
		wrote = append(wrote, l.Name)
	}
	return wrote, nil
}

// signedBy reports whether the certificate file exists and ca signed it.
func signedBy(certFile string, ca *x509.Certificate) bool {
	data, err := os.ReadFile(certFile)
	if err != nil {
		return false
	}
	cert, err := ParseCertPEM(data)
	if err != nil {
		return false
	}
	return cert.CheckSignatureFrom(ca) == nil
}
