// Package kubeconfig renders the local cluster's kubeconfig files: one cluster,
// one user and one context named ContextName (Render), or several contexts in
// one file (RenderContexts, the local fleet's), with certificate paths (never
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
	return RenderContexts(ContextName, []Context{{Name: ContextName, Cluster: ContextName, Config: c}})
}

// Context is one context of a kubeconfig that holds several
// (RenderContexts): its name, the name of its cluster entry, and Config's
// server, CA, user entry (Config.User) with its credentials, and default
// namespace. Contexts naming the same cluster entry must give the same
// server and CA; contexts naming the same user entry the same credentials.
type Context struct {
	// Name is the context's name (kubectl --context).
	Name string
	// Cluster is the name of the cluster entry.
	Cluster string
	// Config is the server, CA, user and namespace.
	Config
}

// RenderContexts returns the kubeconfig YAML with every context of
// contexts, their cluster and user entries, and current as the
// current-context, which must be one of them. Errors: a Config Render
// rejects, a context name given twice, a cluster or user entry given two
// ways, an unknown current context.
func RenderContexts(current string, contexts []Context) ([]byte, error) {
	cfg := clientcmdapi.NewConfig()
	for _, c := range contexts {
		if err := check(c.Config); err != nil {
			return nil, err
		}
		if c.Name == "" || c.Cluster == "" {
			return nil, fmt.Errorf("context %q needs a name and a cluster entry", c.Name)
		}
		if _, dup := cfg.Contexts[c.Name]; dup {
			return nil, fmt.Errorf("context %q given twice", c.Name)
		}
		cl := &clientcmdapi.Cluster{Server: c.Server, CertificateAuthority: c.CAFile}
		if old, ok := cfg.Clusters[c.Cluster]; ok && (old.Server != cl.Server || old.CertificateAuthority != cl.CertificateAuthority) {
			return nil, fmt.Errorf("cluster %q given with two servers or CAs", c.Cluster)
		}
		u := &clientcmdapi.AuthInfo{ClientCertificate: c.ClientCert, ClientKey: c.ClientKey, Token: c.Token}
		if old, ok := cfg.AuthInfos[c.User]; ok && (old.ClientCertificate != u.ClientCertificate || old.ClientKey != u.ClientKey || old.Token != u.Token) {
			return nil, fmt.Errorf("user %q given with two credentials", c.User)
		}
		cfg.Clusters[c.Cluster] = cl
		cfg.AuthInfos[c.User] = u
		cfg.Contexts[c.Name] = &clientcmdapi.Context{Cluster: c.Cluster, AuthInfo: c.User, Namespace: c.Namespace}
	}
	if _, ok := cfg.Contexts[current]; !ok {
		return nil, fmt.Errorf("current context %q is not among the contexts", current)
	}
	cfg.CurrentContext = current
	return clientcmd.Write(*cfg)
}

// check validates one Config: absolute paths, and exactly one of a client
// certificate with its key, or a token.
func check(c Config) error {
	for _, p := range []string{c.CAFile, c.ClientCert, c.ClientKey} {
		if p != "" && !filepath.IsAbs(p) {
			return fmt.Errorf("path %q is not absolute", p)
		}
	}
	hasCert := c.ClientCert != "" || c.ClientKey != ""
	if hasCert == (c.Token != "") {
		return fmt.Errorf("kubeconfig for %q needs either a client certificate and key or a token", c.User)
	}
	if hasCert && (c.ClientCert == "" || c.ClientKey == "") {
		return fmt.Errorf("kubeconfig for %q needs both a client certificate and key", c.User)
	}
	return nil
}

// WriteFile renders c and writes it to path with mode 0600.
func WriteFile(path string, c Config) error {
	data, err := Render(c)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}
