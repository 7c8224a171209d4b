package helm

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// getter is the connection Helm's action.Configuration is built from
// (genericclioptions.RESTClientGetter): kyyard's own REST config, so
// Helm acts as the same user with the same flags (--as, --token, ...),
// and the release's namespace as the default namespace of the objects a
// manifest leaves unqualified, as `helm --namespace` sets it.
type getter struct {
	cfg       *rest.Config
	namespace string
	disco     discovery.CachedDiscoveryInterface
	mapper    meta.RESTMapper
}

// newGetter returns the getter of cfg for the release namespace. Errors:
// a config the discovery client cannot be built from.
func newGetter(cfg *rest.Config, namespace string) (*getter, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	disco := memory.NewMemCacheClient(dc)
	return &getter{cfg: cfg, namespace: namespace, disco: disco, mapper: restmapper.NewDeferredDiscoveryRESTMapper(disco)}, nil
}

func (g *getter) ToRESTConfig() (*rest.Config, error) { return rest.CopyConfig(g.cfg), nil }

func (g *getter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	return g.disco, nil
}

func (g *getter) ToRESTMapper() (meta.RESTMapper, error) { return g.mapper, nil }

// ToRawKubeConfigLoader answers the namespace only (Helm's kube client
// asks it for the objects a manifest leaves unqualified); its client
// config is the REST config itself.
func (g *getter) ToRawKubeConfigLoader() clientcmd.ClientConfig {
	return namespaced{
		base: clientcmd.NewDefaultClientConfig(*clientcmdapi.NewConfig(), &clientcmd.ConfigOverrides{Context: clientcmdapi.Context{Namespace: g.namespace}}),
		cfg:  g.cfg,
	}
}

// namespaced is a client config whose namespace is the release's.
type namespaced struct {
	base clientcmd.ClientConfig
	cfg  *rest.Config
}

func (n namespaced) RawConfig() (clientcmdapi.Config, error) { return n.base.RawConfig() }

func (n namespaced) ClientConfig() (*rest.Config, error) { return rest.CopyConfig(n.cfg), nil }

func (n namespaced) Namespace() (string, bool, error) { return n.base.Namespace() }

func (n namespaced) ConfigAccess() clientcmd.ConfigAccess { return n.base.ConfigAccess() }
