package fleet

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/kyyard/kyyard/hack/cluster/internal/kubeconfig"
	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
)

// ViewerNamespace is the default namespace of the read-only contexts: the
// demo namespace, the only one the read-only user may read.
const ViewerNamespace = "demo"

// Contexts are the fleet kubeconfig's contexts, member by member: Name
// (the admin, client certificate admin.crt of the member's own CA, group
// system:masters), then, when tokens has the member's read-only
// ServiceAccount token, ViewerContext (that token, namespace demo). Each
// member is one cluster entry (its server and CA); its users are
// <name>-admin and <name>-viewer.
func Contexts(members []Member, tokens map[string]string) []kubeconfig.Context {
	var out []kubeconfig.Context
	for _, m := range members {
		ca := m.L.PKIPath("ca.crt")
		out = append(out, kubeconfig.Context{Name: m.Name, Cluster: m.Name, Config: kubeconfig.Config{
			Server: m.ServerURL(), CAFile: ca, User: m.Name + "-admin",
			ClientCert: m.L.PKIPath("admin.crt"), ClientKey: m.L.PKIPath("admin.key"),
		}})
		if t := tokens[m.Name]; t != "" {
			out = append(out, kubeconfig.Context{Name: ViewerContext(m.Index), Cluster: m.Name, Config: kubeconfig.Config{
				Server: m.ServerURL(), CAFile: ca, User: ViewerContext(m.Index), Token: t, Namespace: ViewerNamespace,
			}})
		}
	}
	return out
}

// RenderKubeconfig returns the fleet kubeconfig for members and the
// read-only tokens by member name; the current context is the first
// member's admin.
func RenderKubeconfig(members []Member, tokens map[string]string) ([]byte, error) {
	if len(members) == 0 {
		return nil, errors.New("a fleet kubeconfig needs at least one member")
	}
	return kubeconfig.RenderContexts(members[0].Name, Contexts(members, tokens))
}

// Tokens reads the members' read-only tokens (TokenPath); a member without
// one (not seeded since its etcd started) is left out.
func Tokens(members []Member) (map[string]string, error) {
	tokens := map[string]string{}
	for _, m := range members {
		data, err := os.ReadFile(m.TokenPath())
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if t := strings.TrimSpace(string(data)); t != "" {
			tokens[m.Name] = t
		}
	}
	return tokens, nil
}

// WriteKubeconfig writes the fleet kubeconfig (l.FleetKubeconfig(), mode
// 0600) for members with the tokens found beside them.
func WriteKubeconfig(l layout.Layout, members []Member) error {
	tokens, err := Tokens(members)
	if err != nil {
		return err
	}
	data, err := RenderKubeconfig(members, tokens)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(l.FleetDir(), 0o755); err != nil {
		return err
	}
	return os.WriteFile(l.FleetKubeconfig(), data, 0o600)
}
