package cluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/kyyard/kyyard/hack/cluster/internal/components"
)

// prober asks components whether they are ready.
type prober struct {
	plain, admin, insecure *http.Client
}

// newPlainProber can only ask components probed over plain HTTP (etcd, kwok).
func newPlainProber() *prober {
	return &prober{plain: &http.Client{Timeout: 2 * time.Second}}
}

func newProber(caFile, certFile, keyFile string) (*prober, error) {
	p := newPlainProber()
	p.insecure = &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // components' self-signed health endpoints on loopback
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("%s: no certificates", caFile)
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	p.admin = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}}}
	return p, nil
}

// check does one GET of c.ReadyURL and returns nil on 200.
func (p *prober) check(ctx context.Context, c components.Component) error {
	client := p.plain
	switch c.Probe {
	case components.ProbeHTTPSAdmin:
		client = p.admin
	case components.ProbeHTTPSInsecure:
		client = p.insecure
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.ReadyURL, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d: %s", c.ReadyURL, resp.StatusCode, body)
	}
	return nil
}

// portInUse reports whether something accepts TCP connections on 127.0.0.1:port.
func portInUse(port int) bool {
	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 300*time.Millisecond)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}
