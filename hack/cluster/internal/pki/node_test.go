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

func TestNodeLeavesAreSignedByTheClusterCA(t *testing.T) {
	caDir, out := t.TempDir(), t.TempDir()
	now := time.Now()
	if err := pki.Generate(caDir, now); err != nil {
		t.Fatal(err)
	}
	ip := net.ParseIP("10.89.0.1")
	wrote, err := pki.EnsureLeaves(caDir, out, pki.NodeLeaves("n1", ip), now)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(wrote, []string{"kubelet-client", "kubelet-serving"}) {
		t.Fatalf("wrote %v", wrote)
	}
	ca := load(t, caDir, "ca")
	client := load(t, out, "kubelet-client")
	if _, err := client.Verify(x509.VerifyOptions{Roots: pool(ca), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("kubelet-client: %v", err)
	}
	if client.Subject.CommonName != "system:node:n1" || !slices.Equal(client.Subject.Organization, []string{pki.NodeGroup}) {
		t.Errorf("kubelet-client subject %v", client.Subject)
	}
	serving := load(t, out, "kubelet-serving")
	for _, host := range []string{"10.89.0.1", "127.0.0.1", "n1"} {
		if _, err := serving.Verify(x509.VerifyOptions{Roots: pool(ca), DNSName: host}); err != nil {
			t.Errorf("kubelet-serving for %s: %v", host, err)
		}
	}

	// A second call keeps what the same CA signed.
	if wrote, err := pki.EnsureLeaves(caDir, out, pki.NodeLeaves("n1", ip), now); err != nil || len(wrote) != 0 {
		t.Errorf("second call wrote %v, %v", wrote, err)
	}
	// A new CA gets new leaves.
	if err := pki.Generate(caDir, now); err != nil {
		t.Fatal(err)
	}
	if wrote, err := pki.EnsureLeaves(caDir, out, pki.NodeLeaves("n1", ip), now); err != nil || len(wrote) != 2 {
		t.Errorf("after a new CA wrote %v, %v", wrote, err)
	}
	if _, err := load(t, out, "kubelet-serving").Verify(x509.VerifyOptions{Roots: pool(load(t, caDir, "ca")), DNSName: "n1"}); err != nil {
		t.Errorf("re-issued kubelet-serving: %v", err)
	}
}

func TestLoadCARefusesAMismatchedKey(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if err := pki.Generate(d, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	key, err := os.ReadFile(filepath.Join(b, "ca.key"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a, "ca.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := pki.LoadCA(a); err == nil {
		t.Error("LoadCA accepted another CA's key")
	}
}
