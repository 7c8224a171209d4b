// Package pki creates the local cluster's certificates and keys with
// crypto/x509: ECDSA P-256 keys, certificates valid for ten years, one identity
// per component so RBAC for the controller-manager and scheduler is real.
package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// Validity is how long every generated certificate is valid.
const Validity = 10 * 365 * 24 * time.Hour

// KeyPair is a certificate with its private key.
type KeyPair struct {
	// Cert is the parsed certificate.
	Cert *x509.Certificate
	// Key is the ECDSA P-256 private key.
	Key *ecdsa.PrivateKey
}

// CertPEM returns the certificate as a PEM "CERTIFICATE" block.
func (kp KeyPair) CertPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: kp.Cert.Raw})
}

// KeyPEM returns the private key as a PEM "EC PRIVATE KEY" block (SEC 1).
func (kp KeyPair) KeyPEM() ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(kp.Key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

// Usage says what a leaf certificate is for (its extended key usage).
type Usage int

const (
	// ClientAuth certificates authenticate a client to a TLS server.
	ClientAuth Usage = iota
	// ServerAuth certificates identify a TLS server; they need DNSNames or IPs.
	ServerAuth
)

// LeafSpec describes a certificate to issue.
type LeafSpec struct {
	// CommonName is the subject CN; the API server reads it as the user name.
	CommonName string
	// Organizations are the subject O values; the API server reads them as groups.
	Organizations []string
	// Usage selects the extended key usage.
	Usage Usage
	// DNSNames and IPs are the subject alternative names of a serving certificate.
	DNSNames []string
	// IPs are the IP subject alternative names.
	IPs []net.IP
}

// newKeyAndSerial makes what every certificate needs: a fresh ECDSA P-256
// key and a random serial number.
func newKeyAndSerial() (*ecdsa.PrivateKey, *big.Int, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := newSerial()
	if err != nil {
		return nil, nil, err
	}
	return key, serial, nil
}

// NewCA creates a self-signed certificate authority named commonName, valid
// from now (minus one hour for clock skew) for Validity. crypto/x509 derives
// its subject key ID from the public key, and the authority key ID of every
// certificate it issues.
func NewCA(commonName string, now time.Time) (KeyPair, error) {
	key, serial, err := newKeyAndSerial()
	if err != nil {
		return KeyPair{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(Validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	return sign(tmpl, tmpl, &key.PublicKey, key, key)
}

// Issue creates a leaf certificate signed by ca.
func (ca KeyPair) Issue(spec LeafSpec, now time.Time) (KeyPair, error) {
	key, serial, err := newKeyAndSerial()
	if err != nil {
		return KeyPair{}, err
	}
	eku := x509.ExtKeyUsageClientAuth
	if spec.Usage == ServerAuth {
		eku = x509.ExtKeyUsageServerAuth
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: spec.CommonName, Organization: spec.Organizations},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(Validity),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:           []x509.ExtKeyUsage{eku},
		BasicConstraintsValid: true,
		DNSNames:              spec.DNSNames,
		IPAddresses:           spec.IPs,
	}
	return sign(tmpl, ca.Cert, &key.PublicKey, key, ca.Key)
}

// NewServiceAccountKey creates the key pair the API server signs ServiceAccount
// tokens with; it returns the private key (PKCS#8 PEM) and public key (PKIX PEM).
func NewServiceAccountKey() (private, public []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	priv, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: priv}),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), nil
}

// ParseCertPEM parses the first CERTIFICATE block of data.
func ParseCertPEM(data []byte) (*x509.Certificate, error) {
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return nil, fmt.Errorf("no CERTIFICATE block")
		}
		if b.Type == "CERTIFICATE" {
			return x509.ParseCertificate(b.Bytes)
		}
	}
}

func sign(tmpl, parent *x509.Certificate, pub *ecdsa.PublicKey, key *ecdsa.PrivateKey, signer crypto.Signer) (KeyPair, error) {
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
	if err != nil {
		return KeyPair{}, fmt.Errorf("sign %q: %w", tmpl.Subject.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return KeyPair{}, err
	}
	return KeyPair{Cert: cert, Key: key}, nil
}

func newSerial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
}
