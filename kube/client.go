package kube

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kyyard/kyyard/kube/internal/forwarding"
	"github.com/kyyard/kyyard/kube/internal/guards"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
)

// Options tune a Client. The zero value is usable only with a Registry set.
type Options struct {
	// Registry holds the kind plugins the client serves (kinds.Builtin()).
	Registry *Registry
	// TablePlugin makes the default plugin of a kind Discover found that no
	// Registry plugin serves (CRDs, aggregated APIs, built-in resources
	// without a plugin of their own): kinds.NewTable, which renders the API
	// server's own Table answer. It is a field because package kube never
	// imports kube/kinds. Nil makes Discover fail.
	TablePlugin func(info KindInfo) Plugin
	// ListTimeout bounds each list call of a Snapshot; 0 means 15 seconds.
	ListTimeout time.Duration
	// NoCache turns informers off: every Snapshot lists directly. A
	// one-shot reader (`kyyard get`) sets it, since a list is cheaper than
	// a list plus a watch.
	NoCache bool
	// SyncBudget is how long after a new informer started Snapshots wait
	// for it to sync; past it they show what has arrived (Table.Reading)
	// rather than list the kind a second time beside the informer's list.
	// A failing list or watch is listed directly at once. 0 means 10
	// seconds.
	SyncBudget time.Duration
	// FirstRows is how long after a new informer whose list streams (a
	// watch-list) started Snapshots wait before they show the rows
	// delivered so far (Table.Reading); 0 means 50 milliseconds: a start
	// takes 50–100 ms to reach the informer, so that with one frame the
	// first screen is drawn within issue 14's 300 ms even on a busy
	// machine (at 100 ms, one run in three of 100,000 pods on two cores
	// missed it). A list that is in by then is shown whole.
	FirstRows time.Duration
	// CacheIdle is how long an informer no Snapshot needs keeps running;
	// 0 means 2 minutes.
	CacheIdle time.Duration
	// NoWatchRetry is how long a kind the user may not watch is listed
	// directly before kyyard asks again; 0 means 5 minutes.
	NoWatchRetry time.Duration
	// Policy is how the guards' warnings are treated before a write:
	// PolicyInteractive (the zero value) or PolicyStrict (design: "Guards,
	// and two policies").
	Policy Policy
	// ReadOnly refuses every write before any request is sent (--readonly).
	ReadOnly bool
	// Shell is the context's configured shell argv (config: a context's
	// shell), tried before bash and sh when an exec names no command and
	// its ExecRequest.Shell is empty; empty means none configured.
	Shell []string
	// MetricsInterval is the longest time between two reads of the
	// metrics API for one request asked for (reads are aligned to the
	// server's samples within it; a multiple of the server's resolution
	// reads every second, third... sample only: see Metrics); 0 means
	// DefaultMetricsInterval. A pod's or node's history is kept
	// MetricsHistory × MetricsInterval after a reading last reported it.
	MetricsInterval time.Duration
	// MetricsHistory is how many samples a pod's or node's Trend keeps;
	// 0 means DefaultMetricsHistory.
	MetricsHistory int
}

// Client is kyyard's connection to one cluster. It is safe for concurrent use.
type Client struct {
	cs       kubernetes.Interface
	registry *Registry
	opts     Options

	contextName string
	clusterName string
	userName    string
	namespace   string
	host        string

	mu             sync.Mutex
	generations    map[string]generation
	lastGeneration uint64 // the sequence all generations are drawn from
	caches         map[cacheKey]*kindCache
	// judged is judgeByPods' last answer per kind and namespace.
	judged map[cacheKey]judgedRows
	// merged are readNamespaces' last rows per request of several
	// namespaces (at most maxMerged).
	merged       map[string]mergedRows
	memory       memoryPolicy           // when the caches return memory; set before the first Snapshot
	lastObject   objectMemo             // the last object read by Client.object
	noWatch      map[cacheKey]time.Time // listed directly until then
	janitorStop  chan struct{}
	closed       atomic.Bool
	discovered   atomic.Pointer[Registry]
	rediscoverMu sync.Mutex    // serialises Rediscover
	rediscovered time.Time     // when Rediscover last read discovery
	reach        *reachability // nil for a clientset handed in (tests)
	revisions    atomic.Uint64 // shared by every cache, so versions never repeat

	// restConfig is the connection NewFromConfig was given, speaking JSON;
	// nil for NewFromClientset. Describe and YAML build their clients from it.
	restConfig *rest.Config
	objects    objectClients
	// guards runs every write's guards (kube/internal/guards): access
	// reviews and their cache, the policy, read-only.
	guards *guards.Checker
	// execDialer, when set (tests), builds exec streams instead of
	// client-go's executors (kube/internal/shells/execsession.go).
	execDialer execDialer
	// debugExec, when set (tests), streams debug sessions instead of
	// client-go's attach executors (kube/internal/shells/debugattach.go).
	debugExec debugStreamer
	// forwards are the port-forwards this client runs
	// (kube/internal/forwarding; forwarding.go).
	forwards forwarding.Registry
	// metrics is the polled metrics API (kube/usage.go, kube/internal/usage), read with
	// metricsCS: built from the REST config, nil for a clientset handed in
	// (tests hand in a fake); metricsClock, when set (tests), is the clock
	// of polling and pruning.
	metrics      metricsState
	metricsCS    metricsclient.Interface
	metricsClock func() time.Time
	// metadataCS, when set (NewFromClientsets), is the metadata client of
	// actions on any kind; otherwise it is built from restConfig
	// (objectClients).
	metadataCS metadata.Interface
}

type generation struct {
	hash uint64
	n    uint64
}

// protobuf is the content type the client speaks to built-in APIs; JSON stays
// accepted for the rare built-in answer that has no protobuf form.
const (
	protobuf        = "application/vnd.kubernetes.protobuf"
	protobufAndJSON = protobuf + ",application/json"
)

// New connects with a kubeconfig loader such as cli-runtime's ConfigFlags,
// which carries kubectl's flags (--kubeconfig, --context, -n, --as, --token,
// ...). The namespace is the one the flags or the kubeconfig context name,
// else "default" (kubectl's rule). Errors come from loading the kubeconfig.
func New(getter genericclioptions.RESTClientGetter, opts Options) (*Client, error) {
	cfg, err := getter.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig: %w", err)
	}
	loader := getter.ToRawKubeConfigLoader()
	ns, _, err := loader.Namespace()
	if err != nil {
		return nil, fmt.Errorf("read namespace from kubeconfig: %w", err)
	}
	c, err := NewFromConfig(cfg, opts)
	if err != nil {
		return nil, err
	}
	c.namespace = ns
	if raw, err := loader.RawConfig(); err == nil {
		c.contextName = raw.CurrentContext
		if flags, ok := getter.(*genericclioptions.ConfigFlags); ok && flags.Context != nil && *flags.Context != "" {
			c.contextName = *flags.Context
		}
		if kctx, ok := raw.Contexts[c.contextName]; ok && kctx != nil {
			c.clusterName = kctx.Cluster
			c.userName = kctx.AuthInfo
		}
		if flags, ok := getter.(*genericclioptions.ConfigFlags); ok {
			if flags.ClusterName != nil && *flags.ClusterName != "" {
				c.clusterName = *flags.ClusterName
			}
			if flags.AuthInfoName != nil && *flags.AuthInfoName != "" {
				c.userName = *flags.AuthInfoName
			}
		}
	}
	return c, nil
}

// NewFromConfig connects with a REST config, speaking protobuf to built-in
// APIs. The namespace is "default". Errors come from building the clientset.
func NewFromConfig(cfg *rest.Config, opts Options) (*Client, error) {
	if cfg == nil {
		return nil, errors.New("no REST config")
	}
	cfg = rest.CopyConfig(cfg)
	cfg.ContentType = protobuf
	cfg.AcceptContentTypes = protobufAndJSON
	if cfg.UserAgent == "" {
		cfg.UserAgent = "kyyard"
	}
	cfg.WarningHandlerWithContext = warningRouter{}
	if cfg.QPS == 0 && cfg.Burst == 0 {
		// client-go's default (5 per second, bursts of 10) makes a write's
		// guards queue behind the screen's own reads; kubectl's users get
		// far more.
		cfg.QPS, cfg.Burst = 50, 100
	}
	reach := &reachability{}
	cfg.Wrap(reach.transport)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("build clientset: %w", err)
	}
	c := NewFromClientset(cs, opts)
	c.reach = reach
	c.host = cfg.Host
	c.restConfig = rest.CopyConfig(cfg)
	c.restConfig.ContentType, c.restConfig.AcceptContentTypes = "", ""
	// The metrics API is read in protobuf too when the server offers it
	// (metrics-server does; JSON otherwise): at 100,000 pods a reading
	// every 15 s in JSON was most of an idle screen's CPU and garbage. It
	// goes through the same transport (and reachability) as every other
	// request.
	metricsConfig := rest.CopyConfig(c.restConfig)
	metricsConfig.ContentType, metricsConfig.AcceptContentTypes = protobuf, protobufAndJSON
	if c.metricsCS, err = metricsclient.NewForConfig(metricsConfig); err != nil {
		return nil, fmt.Errorf("build metrics clientset: %w", err)
	}
	return c, nil
}

// InCluster connects from inside a pod with its ServiceAccount, in the pod's
// own namespace (OwnNamespace). Errors: not running in a pod.
func InCluster(opts Options) (*Client, error) {
	cfg, err := rest.InClusterConfig()
	if err != nil {
		return nil, fmt.Errorf("in-cluster config: %w", err)
	}
	c, err := NewFromConfig(cfg, opts)
	if err != nil {
		return nil, err
	}
	c.contextName = "in-cluster"
	if ns, err := OwnNamespace(); err == nil {
		c.namespace = ns
	}
	return c, nil
}

// NewFromClientset wraps a clientset, typically client-go's fake one in unit
// tests. The namespace is "default" until SetNamespace. Without a metadata
// client (NewFromClientsets), an action on a kind other than pods and the
// workloads fails: it reads and deletes through one.
func NewFromClientset(cs kubernetes.Interface, opts Options) *Client {
	return NewFromClientsets(cs, nil, opts)
}

// NewFromClientsets wraps a clientset and a metadata-only client
// (k8s.io/client-go/metadata; client-go's fake ones in unit tests): md is
// what an action on an object of any kind but pods and the workloads reads
// it and deletes it through; nil is none. The namespace is "default" until
// SetNamespace.
func NewFromClientsets(cs kubernetes.Interface, md metadata.Interface, opts Options) *Client {
	if opts.ListTimeout <= 0 {
		opts.ListTimeout = 15 * time.Second
	}
	if opts.FirstRows <= 0 {
		opts.FirstRows = defaultFirstRows
	}
	if opts.SyncBudget <= 0 {
		opts.SyncBudget = defaultSyncBudget
	}
	if opts.CacheIdle <= 0 {
		opts.CacheIdle = defaultCacheIdle
	}
	if opts.NoWatchRetry <= 0 {
		opts.NoWatchRetry = defaultNoWatchRetry
	}
	return &Client{
		cs:          cs,
		registry:    opts.Registry,
		opts:        opts,
		namespace:   "default",
		generations: map[string]generation{},
		caches:      map[cacheKey]*kindCache{},
		noWatch:     map[cacheKey]time.Time{},
		memory:      defaultMemoryPolicy,
		guards:      guards.New(cs, opts.Policy, opts.ReadOnly),
		metadataCS:  md,
	}
}

// serviceAccountNamespaceFile is where the kubelet mounts the pod's namespace.
const serviceAccountNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// OwnNamespace returns the namespace of the pod kyyard runs in: $POD_NAMESPACE
// when set (the downward API convention), else the ServiceAccount mount's
// namespace file. Errors when neither is there (not running in a pod).
func OwnNamespace() (string, error) {
	if ns := strings.TrimSpace(os.Getenv("POD_NAMESPACE")); ns != "" {
		return ns, nil
	}
	b, err := os.ReadFile(serviceAccountNamespaceFile)
	if err != nil {
		return "", fmt.Errorf("own namespace: %w", err)
	}
	if ns := strings.TrimSpace(string(b)); ns != "" {
		return ns, nil
	}
	return "", errors.New("own namespace: empty namespace file")
}

// Namespace returns the namespace the client starts in.
func (c *Client) Namespace() string { return c.namespace }

// SetNamespace changes the namespace the client starts in (a test or a flag
// that overrides the kubeconfig).
func (c *Client) SetNamespace(ns string) { c.namespace = ns }

// Registry returns the kind plugins the client serves.
func (c *Client) Registry() *Registry { return c.registry }
