package cluster

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/kyyard/kyyard/hack/cluster/internal/components"
	"github.com/kyyard/kyyard/hack/cluster/internal/kubeconfig"
	"github.com/kyyard/kyyard/hack/cluster/internal/kwokconf"
)

// certIdentities maps each certificate-based kubeconfig to its PKI file name.
var certIdentities = map[string]string{
	"admin":              "admin",
	"controller-manager": "controller-manager",
	"scheduler":          "scheduler",
	"kwok":               "kwok",
	"metrics-server":     "metrics-server",
}

// writeKubeconfigs writes the certificate-based kubeconfigs and removes a
// readonly kubeconfig left from an earlier cluster (its token died with etcd).
func (c *Cluster) writeKubeconfigs() error {
	for name, cert := range certIdentities {
		err := kubeconfig.WriteFile(c.L.KubeconfigPath(name), kubeconfig.Config{
			Server:     c.Ports.ServerURL(),
			CAFile:     c.L.PKIPath("ca.crt"),
			User:       name,
			ClientCert: c.L.PKIPath(cert + ".crt"),
			ClientKey:  c.L.PKIPath(cert + ".key"),
		})
		if err != nil {
			return fmt.Errorf("kubeconfig %s: %w", name, err)
		}
	}
	if err := os.Remove(c.L.ReadonlyKubeconfig()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// writeConfigs writes the audit policy and kwok's configuration into l.Etc.
func (c *Cluster) writeConfigs() error {
	if err := os.WriteFile(c.L.EtcPath(components.AuditPolicyFile), []byte(components.AuditPolicy), 0o644); err != nil {
		return err
	}
	kw := components.Kwok(c.L, c.Ports)
	cfg, err := kwokconf.Render(kwokconf.Options{
		CIDR:                     components.PodCIDR,
		NodeIP:                   "127.0.0.1",
		NodePort:                 c.Ports.Kwok,
		ServerAddress:            flagValue(kw.Args, "--server-address"),
		TLSCertFile:              c.L.PKIPath("kwok-serving.crt"),
		TLSPrivateKeyFile:        c.L.PKIPath("kwok-serving.key"),
		NodeLeaseDurationSeconds: 200,
		EnableCRDs:               components.KwokCRDs,
	})
	if err != nil {
		return err
	}
	return os.WriteFile(c.L.EtcPath(components.KwokConfigFile), cfg, 0o644)
}

// processEnv is the environment of every component: ours without KUBECONFIG
// and with HOME in the cache, so no process reads ~/.kube or ~/.kwok.
func (c *Cluster) processEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "KUBECONFIG=") || strings.HasPrefix(kv, "HOME=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+c.L.Home)
}

func flagValue(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}
