// Package kwokconf writes kwok's configuration file: a KwokConfiguration with
// every option spelled out, followed by kyyard's own Stage objects.
//
// Every option must be explicit: kwok applies its defaults only when no
// KwokConfiguration is given at all, so a partial one silently turns off the
// debugging handlers (pods/log and pods/exec then answer 405) and sets the
// worker counts to zero.
package kwokconf

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"sort"

	"sigs.k8s.io/yaml"
)

// DemoStateLabel selects a pod's simulated failure: "crashloop" gives
// CrashLoopBackOff, "imagepull" gives ImagePullBackOff. The default pod-ready
// stage ignores pods that carry it, so stage selection is deterministic.
const DemoStateLabel = "kyyard.dev/demo-state"

// Values of DemoStateLabel.
const (
	DemoStateCrashLoop = "crashloop"
	DemoStateImagePull = "imagepull"
)

// ResourceMetricsPath is where kwok serves a node's resource metrics
// ({nodeName} is the node's name); every fake node names it in its
// metrics.k8s.io/resource-metrics-path annotation, which metrics-server
// scrapes instead of /metrics/resource.
const ResourceMetricsPath = "/metrics/nodes/{nodeName}/metrics/resource"

// UsageAnnotationPrefix begins the pod annotations that set a container's
// emulated base usage: kyyard.dev/usage-cpu ("50m") and
// kyyard.dev/usage-memory ("64Mi"), 10m and 16Mi when absent.
const UsageAnnotationPrefix = "kyyard.dev/usage-"

//go:embed stages/*.yaml
var stageFiles embed.FS

//go:embed metrics/*.yaml
var metricsFiles embed.FS

// Options are kwok's settings; they mirror the command-line flags kwok is
// started with.
type Options struct {
	// CIDR is the pod IP range.
	CIDR string
	// NodeIP is the InternalIP kwok reports for its nodes.
	NodeIP string
	// NodePort is the kubelet port kwok reports (its own server port).
	NodePort int
	// ServerAddress is where kwok's kubelet-like server listens.
	ServerAddress string
	// TLSCertFile and TLSPrivateKeyFile are that server's certificate and key.
	TLSCertFile, TLSPrivateKeyFile string
	// NodeLeaseDurationSeconds is the node Lease duration kwok renews.
	NodeLeaseDurationSeconds int
	// EnableCRDs lists the kwok CRDs kwok watches.
	EnableCRDs []string
}

// FakeNodeSelector selects the nodes kwok manages: the fake ones (label
// type=kwok). The real node (a real kubelet) is not kwok's: kwok would play
// its Stages on that node and its pods (node conditions and kubelet port,
// pod phases and IPs, deletion) against the kubelet.
const FakeNodeSelector = "type=kwok"

// options is KwokConfiguration.options with kwok's defaults made explicit.
type options struct {
	EnableCRDs                      []string `json:"enableCRDs"`
	CIDR                            string   `json:"cidr"`
	NodeIP                          string   `json:"nodeIP"`
	NodePort                        int      `json:"nodePort"`
	TLSCertFile                     string   `json:"tlsCertFile"`
	TLSPrivateKeyFile               string   `json:"tlsPrivateKeyFile"`
	ManageAllNodes                  bool     `json:"manageAllNodes"`
	ManageNodesWithLabelSelector    string   `json:"manageNodesWithLabelSelector"`
	ServerAddress                   string   `json:"serverAddress"`
	EnableDebuggingHandlers         bool     `json:"enableDebuggingHandlers"`
	EnableContentionProfiling       bool     `json:"enableContentionProfiling"`
	EnableProfilingHandler          bool     `json:"enableProfilingHandler"`
	PodPlayStageParallelism         int      `json:"podPlayStageParallelism"`
	NodePlayStageParallelism        int      `json:"nodePlayStageParallelism"`
	NodeLeaseDurationSeconds        int      `json:"nodeLeaseDurationSeconds"`
	NodeLeaseParallelism            int      `json:"nodeLeaseParallelism"`
	PodsOnNodeSyncParallelism       int      `json:"podsOnNodeSyncParallelism"`
	EnablePodsOnNodeSyncListPager   bool     `json:"enablePodsOnNodeSyncListPager"`
	EnablePodsOnNodeSyncStreamWatch bool     `json:"enablePodsOnNodeSyncStreamWatch"`
}

type configuration struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   map[string]string `json:"metadata"`
	Options    options           `json:"options"`
}

// Render returns the multi-document YAML for kwok's --config: the
// KwokConfiguration, then every embedded Stage (sorted by file name), then
// the resource metrics kwok serves for metrics-server (a Metric and the
// ClusterResourceUsage it computes from; see MetricsDocs).
func Render(o Options) ([]byte, error) {
	cfg := configuration{
		APIVersion: "config.kwok.x-k8s.io/v1alpha1",
		Kind:       "KwokConfiguration",
		Metadata:   map[string]string{"name": "kyyard-local"},
		Options: options{
			EnableCRDs:                      o.EnableCRDs,
			CIDR:                            o.CIDR,
			NodeIP:                          o.NodeIP,
			NodePort:                        o.NodePort,
			TLSCertFile:                     o.TLSCertFile,
			TLSPrivateKeyFile:               o.TLSPrivateKeyFile,
			ManageAllNodes:                  false,
			ManageNodesWithLabelSelector:    FakeNodeSelector,
			ServerAddress:                   o.ServerAddress,
			EnableDebuggingHandlers:         true,
			EnableContentionProfiling:       false,
			EnableProfilingHandler:          true,
			PodPlayStageParallelism:         4,
			NodePlayStageParallelism:        4,
			NodeLeaseDurationSeconds:        o.NodeLeaseDurationSeconds,
			NodeLeaseParallelism:            4,
			PodsOnNodeSyncParallelism:       1,
			EnablePodsOnNodeSyncListPager:   true,
			EnablePodsOnNodeSyncStreamWatch: false,
		},
	}
	head, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(head)
	names, stages, err := Stages()
	if err != nil {
		return nil, err
	}
	for i, s := range stages {
		fmt.Fprintf(&b, "---\n# stage file %s\n", names[i])
		b.Write(bytes.TrimRight(s, "\n"))
		b.WriteString("\n")
	}
	names, docs, err := MetricsDocs()
	if err != nil {
		return nil, err
	}
	for i, d := range docs {
		fmt.Fprintf(&b, "---\n# metrics file %s\n", names[i])
		b.Write(bytes.TrimRight(d, "\n"))
		b.WriteString("\n")
	}
	return b.Bytes(), nil
}

// MetricsDocs returns the embedded resource-metrics documents (a Metric
// serving the kubelet's /metrics/resource series for each node, and the
// ClusterResourceUsage giving every container a usage that differs by pod
// and container and changes over time) and their file names, sorted.
func MetricsDocs() (names []string, docs [][]byte, err error) {
	return embedded(metricsFiles, "metrics/*.yaml")
}

// Stages returns the embedded Stage documents and their file names, sorted by
// name. Each is a single YAML document of kind Stage.
func Stages() (names []string, docs [][]byte, err error) {
	return embedded(stageFiles, "stages/*.yaml")
}

func embedded(files embed.FS, pattern string) (names []string, docs [][]byte, err error) {
	entries, err := fs.Glob(files, pattern)
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(entries)
	for _, e := range entries {
		data, err := files.ReadFile(e)
		if err != nil {
			return nil, nil, err
		}
		names = append(names, e)
		docs = append(docs, data)
	}
	return names, docs, nil
}
