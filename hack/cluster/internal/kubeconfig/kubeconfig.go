// Package kubeconfig renders the local cluster's kubeconfig files: one cluster,
// one user and one context named ContextName, with certificate paths (never
// embedded data) so a regenerated PKI is picked up without rewriting them.
package kubeconfig

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ContextName is the name of the cluster, user-independent context and
// current-context of every kubeconfig written here.
const ContextName = "kyyard-local"

// Config describes one kubeconfig. Exactly one of (ClientCert, ClientKey) or
// Token authenticates the user.
type Config struct {
	// Server is the API server URL, e.g. https://127.0.0.1:16443.
	Server string
	// CAFile is the absolute path of the CA that signed the API server's certificate.
	CAFile string
	// User is the user entry's name (not the authenticated user name, which
	// comes from the certificate or token).
	User string
	// ClientCert and ClientKey are absolute paths of a client certificate and key.
	ClientCert, ClientKey string
	// Token is a bearer token (e.g. a ServiceAccount token).
	Token string
	// Namespace is the context's default namespace; empty means "default".
	Namespace string
}

// Render returns the kubeconfig YAML for c. Paths must be absolute so the file
// works from any working directory.
func Render(c Config) ([]byte, error) {
	for _, p := range []string{c.CAFile, c.ClientCert, c.ClientKey} {
		if p != "" && !filepath.IsAbs(p) {
			return nil, fmt.Errorf("path %q is not absolute", p)
		}
	}
	hasCert := c.ClientCert != "" || c.ClientKey != ""
	if hasCert == (c.Token != "") {
		return nil, fmt.Errorf("kubeconfig for %q needs either a client certificate and key or a token", c.User)
	}
	if hasCert && (c.ClientCert == "" || c.ClientKey == "") {
		return nil, fmt.Errorf("kubeconfig for %q needs both a client certificate and key", c.User)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[ContextName] = &clientcmdapi.Cluster{Server: c.Server, CertificateAuthority: c.CAFile}
	cfg.AuthInfos[c.User] = &clientcmdapi.AuthInfo{ClientCertificate: c.ClientCert, ClientKey: c.ClientKey, Token: c.Token}
	cfg.Contexts[ContextName] = &clientcmdapi.Context{Cluster: ContextName, AuthInfo: c.User, Namespace: c.Namespace}
	cfg.CurrentContext = ContextName
	return clientcmd.Write(*cfg)
}

// WriteFile renders c and writes it to path with mode 0600.
func WriteFile(path string, c Config) error {
	data, err := Render(c)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}
