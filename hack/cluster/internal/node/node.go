// Package node runs the local cluster's one real node beside kwok's fake
// ones: containerd v2 (CRI, cgroupfs, overlayfs, the CNI bridge) with
// Debian's runc, and the kubelet, both built by the cluster's build step and
// started and stopped by PID file like the control plane. All their state is
// under .cache/node; the node is tainted so that only pods that tolerate it
// land there.
package node

import (
	"net"
	"path/filepath"

	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
)

// The real node's identity and network.
const (
	// Name is the node's name (the kubelet's --hostname-override).
	Name = "kyyard-real-node"
	// TaintKey is the node's taint (value TaintValue, effect NoSchedule)
	// and its label (value TaintValue): pods for it tolerate the taint and
	// select the label.
	TaintKey = "kyyard.dev/real-node"
	// TaintValue is the taint's and the label's value.
	TaintValue = "true"
	// IP is the node's InternalIP: the address of the pod bridge, Bridge.
	// The kubelet refuses a loopback node IP (validateNodeIP in
	// k8s.io/kubernetes/pkg/kubelet/kubelet_node_status.go), and the API
	// server reaches a kubelet at its InternalIP, so the node's IP is a
	// host-only address on a bridge with no uplink; the kubelet serves on
	// it alone.
	IP = "10.89.0.1"
	// PodSubnet is the pods' range on the bridge (host-local IPAM); IP is
	// its gateway.
	PodSubnet = "10.89.0.0/24"
	// Bridge is the Linux bridge the CNI bridge plugin attaches pods to.
	Bridge = "kyyard0"
	// KubeletPort is the kubelet's HTTPS port (logs, exec, port-forward,
	// metrics) on IP.
	KubeletPort = 17250
	// KubeletHealthzPort is the kubelet's plain-HTTP /healthz on 127.0.0.1.
	KubeletHealthzPort = 17248
)

// CNIPlugins are the CNI plugin binaries the node needs, built into
// .cache/bin/cni: bridge and host-local give each pod a veth on Bridge and an
// IP of PodSubnet, loopback brings up the pod's lo, portmap serves hostPort.
var CNIPlugins = []string{"bridge", "host-local", "loopback", "portmap"}

// Binaries are the node's built binaries, relative to the bin folder.
var Binaries = []string{"kubelet", "containerd", "containerd-shim-runc-v2", "ctr"}

// Processes are the node's processes in start order (PID and log file names).
var Processes = []string{"containerd", "kubelet"}

// NodeIP is IP parsed.
func NodeIP() net.IP { return net.ParseIP(IP) }

// Paths are the node's files and folders under a layout.
type Paths struct {
	l layout.Layout
}

// PathsOf returns the node's paths in l.
func PathsOf(l layout.Layout) Paths { return Paths{l: l} }

// Root is the node's state folder.
func (p Paths) Root() string { return p.l.Node }

// ContainerdRoot is containerd's persistent root (content, snapshots, metadata).
func (p Paths) ContainerdRoot() string { return filepath.Join(p.l.Node, "containerd", "root") }

// ContainerdState is containerd's volatile state (task bundles, runc's state, network namespaces).
func (p Paths) ContainerdState() string { return filepath.Join(p.l.Node, "containerd", "state") }

// ContainerdSocket is containerd's gRPC socket, which the CRI plugin serves.
func (p Paths) ContainerdSocket() string {
	return filepath.Join(p.l.Node, "containerd", "containerd.sock")
}

// ContainerdConfig is containerd's configuration file.
func (p Paths) ContainerdConfig() string { return filepath.Join(p.l.Node, "containerd", "config.toml") }

// KubeletRoot is the kubelet's --root-dir (pods' volumes, plugins, checkpoints).
func (p Paths) KubeletRoot() string { return filepath.Join(p.l.Node, "kubelet") }

// KubeletConfig is the kubelet's KubeletConfiguration file.
func (p Paths) KubeletConfig() string { return filepath.Join(p.l.Node, "kubelet-config.yaml") }

// KubeletKubeconfig is the kubelet's kubeconfig (user system:node:Name).
func (p Paths) KubeletKubeconfig() string { return p.l.KubeconfigPath("kubelet") }

// PodLogs is the kubelet's podLogsDir, where containerd writes the
// containers' CRI-format logs.
func (p Paths) PodLogs() string { return filepath.Join(p.l.Node, "pod-logs") }

// CNIBin is the folder of the CNI plugin binaries.
func (p Paths) CNIBin() string { return p.l.BinaryPath("cni") }

// CNIConf is the folder of the CNI network configuration.
func (p Paths) CNIConf() string { return filepath.Join(p.l.Node, "cni", "net.d") }

// CNIIPAM is host-local's data folder (allocated IPs).
func (p Paths) CNIIPAM() string { return filepath.Join(p.l.Node, "cni", "ipam") }
