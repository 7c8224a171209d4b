// Package components holds the command lines of the control-plane processes:
// which binary, every flag, and how to tell that it is ready. Everything binds
// to 127.0.0.1.
package components

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kyyard/kyyard/hack/cluster/internal/kwokconf"
	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
)

// Ports are the TCP ports the components listen on, all on 127.0.0.1.
type Ports struct {
	// Etcd is etcd's client port, EtcdPeer its peer port.
	Etcd, EtcdPeer int
	// APIServer is kube-apiserver's secure port.
	APIServer int
	// ControllerManager and Scheduler are the secure (health) ports.
	ControllerManager, Scheduler int
	// Kwok serves kwok's kubelet-like API (logs, exec) and /healthz.
	Kwok int
	// MetricsServer is metrics-server's secure port, the backend of the
	// metrics.k8s.io APIService.
	MetricsServer int
}

// DefaultPorts are the fixed ports of the local cluster.
var DefaultPorts = Ports{Etcd: 12379, EtcdPeer: 12380, APIServer: 16443, ControllerManager: 17257, Scheduler: 17259, Kwok: 17247, MetricsServer: 17443}

// All returns every port, for the "already running" check.
func (p Ports) All() []int {
	return []int{p.Etcd, p.EtcdPeer, p.APIServer, p.ControllerManager, p.Scheduler, p.Kwok, p.MetricsServer}
}

// ServerURL is the API server's URL.
func (p Ports) ServerURL() string { return "https://127.0.0.1:" + strconv.Itoa(p.APIServer) }

// Probe says how to ask a component whether it is ready.
type Probe int

const (
	// ProbeHTTP is a plain HTTP GET.
	ProbeHTTP Probe = iota
	// ProbeHTTPSAdmin is an HTTPS GET verifying the cluster CA, authenticated
	// with the admin client certificate.
	ProbeHTTPSAdmin
	// ProbeHTTPSInsecure is an HTTPS GET without verification (the component
	// serves a self-signed certificate; the path is always allowed).
	ProbeHTTPSInsecure
)

// Component is one process of the control plane.
type Component struct {
	// Name is the binary's and the log/PID file's name.
	Name string
	// Args are the complete command-line flags.
	Args []string
	// ReadyURL answers 200 once the component is ready.
	ReadyURL string
	// Probe says how to request ReadyURL.
	Probe Probe
}

// Names lists the components in start order; stop in reverse.
var Names = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok", "metrics-server"}

// Etcd is a single-member etcd with its data in l.Data/etcd. fsync is off:
// the cluster is for tests and demos, and every up starts from empty data.
func Etcd(l layout.Layout, p Ports) Component {
	client := fmt.Sprintf("http://127.0.0.1:%d", p.Etcd)
	peer := fmt.Sprintf("http://127.0.0.1:%d", p.EtcdPeer)
	return Component{
		Name: "etcd",
		Args: []string{
			"--name=node0",
			"--data-dir=" + EtcdDataDir(l),
			"--listen-client-urls=" + client,
			"--advertise-client-urls=" + client,
			"--listen-peer-urls=" + peer,
			"--initial-advertise-peer-urls=" + peer,
			"--initial-cluster=node0=" + peer,
			"--initial-cluster-state=new",
			"--auto-compaction-retention=1",
			"--quota-backend-bytes=8589934592",
			"--log-level=warn",
			"--unsafe-no-fsync",
		},
		ReadyURL: client + "/readyz",
		Probe:    ProbeHTTP,
	}
}

// EtcdDataDir is etcd's data directory.
func EtcdDataDir(l layout.Layout) string { return l.Data + "/etcd" }

// APIServer is kube-apiserver with per-component certificates, Node and RBAC
// authorization, kwok as the kubelet (reached on the node's InternalIP with the
// apiserver-kubelet-client certificate, its serving certificate verified by the
// cluster CA), front-proxy request headers, and an audit log in blocking mode.
// The endpoint reconciler is off because 127.0.0.1 may not be advertised with it.
// Its keys in etcd are under kube-apiserver's default prefix, /registry.
func APIServer(l layout.Layout, p Ports) Component {
	return APIServerWithEtcdPrefix(l, p, "")
}

// APIServerWithEtcdPrefix is APIServer keeping its keys in etcd under prefix
// (--etcd-prefix, e.g. "/kyyard-fleet-1"), so several API servers share one
// etcd as separate clusters, as the local fleet's members do. An empty
// prefix leaves the flag out: kube-apiserver's default, /registry.
func APIServerWithEtcdPrefix(l layout.Layout, p Ports, prefix string) Component {
	k := l.PKIPath
	args := []string{
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--endpoint-reconciler-type=none",
		"--secure-port=" + strconv.Itoa(p.APIServer),
		fmt.Sprintf("--etcd-servers=http://127.0.0.1:%d", p.Etcd),
	}
	if prefix != "" {
		args = append(args, "--etcd-prefix="+prefix)
	}
	return Component{
		Name: "kube-apiserver",
		Args: append(args,
			"--tls-cert-file="+k("apiserver.crt"),
			"--tls-private-key-file="+k("apiserver.key"),
			"--client-ca-file="+k("ca.crt"),
			"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
			"--service-account-key-file="+k("sa.pub"),
			"--service-account-signing-key-file="+k("sa.key"),
			"--service-cluster-ip-range=10.96.0.0/16",
			"--authorization-mode=Node,RBAC",
			"--allow-privileged=true",
			"--kubelet-client-certificate="+k("apiserver-kubelet-client.crt"),
			"--kubelet-client-key="+k("apiserver-kubelet-client.key"),
			"--kubelet-certificate-authority="+k("ca.crt"),
			"--kubelet-preferred-address-types=InternalIP",
			"--requestheader-client-ca-file="+k("front-proxy-ca.crt"),
			"--requestheader-allowed-names=front-proxy-client",
			"--requestheader-username-headers=X-Remote-User",
			"--requestheader-group-headers=X-Remote-Group",
			"--requestheader-extra-headers-prefix=X-Remote-Extra-",
			"--proxy-client-cert-file="+k("front-proxy-client.crt"),
			"--proxy-client-key-file="+k("front-proxy-client.key"),
			"--audit-policy-file="+l.EtcPath(AuditPolicyFile),
			"--audit-log-path="+l.AuditLog(),
			"--audit-log-format=json",
			"--audit-log-mode=blocking",
			// kwok emits a demo pod's events once, when its stage is
			// reached: kept a day instead of the default hour, so a
			// cluster left running still shows why crashy and badimage fail.
			"--event-ttl=24h",
			"--profiling=true",
			"--v=2",
		),
		ReadyURL: p.ServerURL() + "/readyz",
		Probe:    ProbeHTTPSAdmin,
	}
}

// controlPlaneArgs are the flags kube-controller-manager and kube-scheduler
// share: one kubeconfig for the API and for delegated authn/authz, health
// paths open, a serving port on 127.0.0.1, no leader election, and client
// QPS high enough that mass pod creation is not throttled (kwokctl's
// values; for the scheduler these flags are deprecated but honoured without
// --config).
func controlPlaneArgs(kubeconfig string, port int) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--leader-elect=false",
		"--kube-api-qps=5000",
		"--kube-api-burst=10000",
		"--v=2",
	}
}

// ControllerManager is kube-controller-manager with its own identity
// (system:kube-controller-manager), per-controller ServiceAccount credentials,
// the cluster CA as signer, kwokctl's node-monitor timings and client QPS high
// enough that mass pod creation is not throttled.
func ControllerManager(l layout.Layout, p Ports) Component {
	return Component{
		Name: "kube-controller-manager",
		Args: append(controlPlaneArgs(l.KubeconfigPath("controller-manager"), p.ControllerManager),
			"--use-service-account-credentials=true",
			"--root-ca-file="+l.PKIPath("ca.crt"),
			"--service-account-private-key-file="+l.PKIPath("sa.key"),
			"--cluster-signing-cert-file="+l.PKIPath("ca.crt"),
			"--cluster-signing-key-file="+l.PKIPath("ca.key"),
			"--service-cluster-ip-range=10.96.0.0/16",
			"--node-monitor-period=25s",
			"--node-monitor-grace-period=3m20s",
		),
		ReadyURL: fmt.Sprintf("https://127.0.0.1:%d/healthz", p.ControllerManager),
		Probe:    ProbeHTTPSInsecure,
	}
}

// Scheduler is kube-scheduler with its own identity (system:kube-scheduler).
func Scheduler(l layout.Layout, p Ports) Component {
	return Component{
		Name:     "kube-scheduler",
		Args:     controlPlaneArgs(l.KubeconfigPath("scheduler"), p.Scheduler),
		ReadyURL: fmt.Sprintf("https://127.0.0.1:%d/healthz", p.Scheduler),
		Probe:    ProbeHTTPSInsecure,
	}
}

// KwokCRDs are the kwok custom resources that kwok serves logs, exec, attach
// and port-forward from; kwok is started with --enable-crds for all of them.
var KwokCRDs = []string{"Logs", "ClusterLogs", "Exec", "ClusterExec", "Attach", "ClusterAttach", "PortForward", "ClusterPortForward"}

// Kwok is kwok managing the fake nodes (label type=kwok; not the real
// node), with the node InternalIP 127.0.0.1 and its
// kubelet-like server on p.Kwok (HTTPS with the kwok-serving certificate, and
// plain HTTP /healthz on the same port).
func Kwok(l layout.Layout, p Ports) Component {
	return Component{
		Name: "kwok",
		Args: []string{
			"--kubeconfig=" + l.KubeconfigPath("kwok"),
			"--config=" + l.EtcPath(KwokConfigFile),
			"--manage-nodes-with-label-selector=" + kwokconf.FakeNodeSelector,
			"--node-ip=127.0.0.1",
			"--node-port=" + strconv.Itoa(p.Kwok),
			fmt.Sprintf("--server-address=127.0.0.1:%d", p.Kwok),
			"--tls-cert-file=" + l.PKIPath("kwok-serving.crt"),
			"--tls-private-key-file=" + l.PKIPath("kwok-serving.key"),
			"--node-lease-duration-seconds=200",
			"--cidr=" + PodCIDR,
			"--enable-crds=" + strings.Join(KwokCRDs, ","),
		},
		ReadyURL: fmt.Sprintf("http://127.0.0.1:%d/healthz", p.Kwok),
		Probe:    ProbeHTTP,
	}
}

// MetricResolution is how often metrics-server scrapes the nodes: the value
// metrics-server's own manifests deploy it with.
const MetricResolution = "15s"

// MetricsServer is metrics-server scraping kwok's resource metrics of every
// node (the path each node's metrics.k8s.io/resource-metrics-path annotation
// names, on the node's InternalIP and status port, kwok's serving certificate
// verified by the cluster CA), and serving metrics.k8s.io to the API
// server's aggregation layer: its serving certificate is valid for
// metrics-server.kube-system.svc, requests from the API server are
// authenticated by the front-proxy client certificate and its X-Remote-*
// headers, and everything else is delegated to the API server
// (TokenReview/SubjectAccessReview) with its own identity,
// system:metrics-server.
func MetricsServer(l layout.Layout, p Ports) Component {
	k := l.PKIPath
	kc := l.KubeconfigPath("metrics-server")
	return Component{
		Name: "metrics-server",
		Args: []string{
			"--bind-address=127.0.0.1",
			"--secure-port=" + strconv.Itoa(p.MetricsServer),
			"--tls-cert-file=" + k("metrics-server-serving.crt"),
			"--tls-private-key-file=" + k("metrics-server-serving.key"),
			"--kubeconfig=" + kc,
			"--authentication-kubeconfig=" + kc,
			"--authorization-kubeconfig=" + kc,
			"--client-ca-file=" + k("ca.crt"),
			"--requestheader-client-ca-file=" + k("front-proxy-ca.crt"),
			"--requestheader-allowed-names=front-proxy-client",
			"--requestheader-username-headers=X-Remote-User",
			"--requestheader-group-headers=X-Remote-Group",
			"--requestheader-extra-headers-prefix=X-Remote-Extra-",
			"--kubelet-preferred-address-types=InternalIP",
			"--kubelet-use-node-status-port",
			"--kubelet-certificate-authority=" + k("ca.crt"),
			"--kubelet-client-certificate=" + k("metrics-server.crt"),
			"--kubelet-client-key=" + k("metrics-server.key"),
			"--metric-resolution=" + MetricResolution,
			"--v=2",
		},
		ReadyURL: fmt.Sprintf("https://127.0.0.1:%d/livez", p.MetricsServer),
		Probe:    ProbeHTTPSInsecure,
	}
}

// PodCIDR is the range kwok assigns pod IPs from.
const PodCIDR = "10.0.0.0/16"

// KwokConfigFile and AuditPolicyFile are the generated files' names in l.Etc.
const (
	KwokConfigFile  = "kwok.yaml"
	AuditPolicyFile = "audit-policy.yaml"
)

// All returns the components in start order.
func All(l layout.Layout, p Ports) []Component {
	return []Component{Etcd(l, p), APIServer(l, p), ControllerManager(l, p), Scheduler(l, p), Kwok(l, p), MetricsServer(l, p)}
}
