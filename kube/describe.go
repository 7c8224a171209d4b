package kube

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/kubectl/pkg/describe"
)

// errNoRESTConfig is returned by Describe and YAML on a Client made with
// NewFromClientset: kubectl's describers and the dynamic client need a
// connection, not a clientset.
var errNoRESTConfig = errors.New("this client has no REST config (it was made from a clientset); describe and YAML need a connection made with New or NewFromConfig")

// describeChunkSize is how many objects the describers list per page, the
// default of `kubectl describe --chunk-size`.
const describeChunkSize = 500

// objectClients are the clients Describe and YAML share, built on first use
// from the Client's REST config.
type objectClients struct {
	once sync.Once
	err  error
	dyn  dynamic.Interface
	// md is the metadata-only client an action on any kind reads and
	// deletes through (kube/internal/actions/anykind.go).
	md     metadata.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

// objectClients returns the dynamic and metadata clients and the RESTMapper (the API
// server's discovery, cached in memory). Errors: no REST config, or one the
// dynamic client cannot be built from.
func (c *Client) objectClients() (*objectClients, error) {
	if c.restConfig == nil {
		return nil, errNoRESTConfig
	}
	o := &c.objects
	o.once.Do(func() {
		o.dyn, o.err = dynamic.NewForConfig(c.restConfig)
		if o.err != nil {
			o.err = fmt.Errorf("build dynamic client: %w", o.err)
			return
		}
		o.md, o.err = metadata.NewForConfig(c.restConfig)
		if o.err != nil {
			o.err = fmt.Errorf("build metadata client: %w", o.err)
			return
		}
		o.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(c.cs.Discovery()))
	})
	return o, o.err
}

// target is one object a person asked to see.
type target struct {
	gvk       schema.GroupVersionKind
	mapping   *meta.RESTMapping
	namespace string
	name      string
}

// namespaced reports whether the target's kind lives in namespaces.
func (t target) namespaced() bool {
	return t.mapping.Scope.Name() == meta.RESTScopeNameNamespace
}

// resolve finds the object's resource and kind: kind is a plugin id or
// alias, else any resource the API server serves by its plural, singular
// or group-qualified name ("secrets", "secret", "deployments.apps"). The
// RESTMapper (the API server's discovery, cached) gives the kind and the
// scope; it is read again once when it does not know the resource (a CRD
// installed since). The namespace is dropped for cluster-scoped kinds.
// Errors: an empty name (invalid), a resource the API server does not
// serve (not_found), the discovery's own.
func (c *Client) resolve(o *objectClients, kind Kind, namespace, name string) (target, error) {
	if name == "" {
		return target{}, fmt.Errorf("%w: no object name", errInvalid)
	}
	var gvr schema.GroupVersionResource
	if plugin, ok := c.Lookup(string(kind)); ok {
		info := plugin.Info()
		gvr = schema.GroupVersionResource{Group: info.Group, Version: info.Version, Resource: info.Resource}
	} else {
		gr := schema.ParseGroupResource(strings.ToLower(strings.TrimSpace(string(kind))))
		gvr = gr.WithVersion("")
	}
	gvk, err := o.mapper.KindFor(gvr)
	if meta.IsNoMatchError(err) {
		o.mapper.Reset()
		gvk, err = o.mapper.KindFor(gvr)
	}
	if meta.IsNoMatchError(err) {
		return target{}, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	if err != nil {
		return target{}, fmt.Errorf("map %s to its kind: %w", gvr.GroupResource(), err)
	}
	mapping, err := o.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return target{}, fmt.Errorf("map %s: %w", gvk.GroupKind(), err)
	}
	t := target{gvk: gvk, mapping: mapping, namespace: namespace, name: name}
	if !t.namespaced() {
		t.namespace = ""
	}
	return t, nil
}

// Describe returns `kubectl describe`'s text for one object of kind (a
// plugin id or alias, or any resource name the API server serves) named name in namespace (ignored for cluster-scoped
// kinds), with its Events, as kubectl's own describers
// (k8s.io/kubectl/pkg/describe) print it: the kind's specific describer
// where kubectl has one, else the generic one (CRDs and other kinds), with
// kubectl's defaults (events shown, lists in chunks of 500).
//
// The resource is mapped to its kind through the API server's discovery
// (read once, read again when a kind is not found in it). The describers
// take no context: ctx still cancels their requests, through the transport.
//
// Errors: the client was made from a clientset (no REST config); an empty
// name (ReasonInvalid); the API server's own, which ReasonOf classifies
// (forbidden, not_found for a deleted object or an unserved resource,
// unavailable, timeout).
func (c *Client) Describe(ctx context.Context, kind Kind, namespace, name string) (string, error) {
	o, err := c.objectClients()
	if err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	t, err := c.resolve(o, kind, namespace, name)
	if err != nil {
		return "", err
	}
	cfg := withContext(c.restConfig, ctx)
	d, ok := describe.DescriberFor(t.gvk.GroupKind(), cfg)
	if !ok {
		if d, ok = describe.GenericDescriberFor(t.mapping, cfg); !ok {
			return "", fmt.Errorf("no describer for %s", t.gvk.GroupKind())
		}
	}
	out, err := d.Describe(t.namespace, t.name, describe.DescriberSettings{ShowEvents: true, ChunkSize: describeChunkSize})
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			return "", fmt.Errorf("%w: %w", ctxErr, err)
		}
		return "", err
	}
	return out, nil
}

// withContext returns a copy of cfg whose requests carry ctx, for clients
// whose calls take no context (kubectl's describers use context.TODO).
func withContext(cfg *rest.Config, ctx context.Context) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return contextRoundTripper{rt: rt, ctx: ctx} })
	return cfg
}

// contextRoundTripper sends each request under its own context.
type contextRoundTripper struct {
	rt  http.RoundTripper
	ctx context.Context
}

// RoundTrip sends r with the round tripper's context in place of r's.
func (t contextRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	return t.rt.RoundTrip(r.WithContext(t.ctx))
}
