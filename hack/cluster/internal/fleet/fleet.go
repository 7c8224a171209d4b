// Package fleet describes the local fleet: several control planes side by
// side on 127.0.0.1 (each its own kube-apiserver, kube-controller-manager,
// kube-scheduler, kwok with a few fake nodes and metrics-server behind the
// metrics.k8s.io APIService), sharing one etcd under a
// key prefix each, beside the single local cluster and never on its ports or
// in its folders. Everything here is pure: the members' names, folders and
// ports, and the fleet's one kubeconfig; package cluster starts and stops
// the processes, package seed fills the members.
package fleet

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kyyard/kyyard/hack/cluster/internal/components"
	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
)

// Sizes of the fleet.
const (
	// DefaultClusters is how many members `fleet up` starts by default.
	DefaultClusters = 3
	// MaxClusters is the most members a fleet has: member i's ports are
	// 2i xxx (Ports), so ten would reach 30xxx.
	MaxClusters = 9
	// DefaultNodes is how many fake kwok nodes each member has.
	DefaultNodes = 2
)

// NamePrefix begins every member's name, kubeconfig cluster and context:
// kyyard-fleet-1, kyyard-fleet-2, ...
const NamePrefix = "kyyard-fleet-"

// ViewerSuffix ends the context of a member's read-only user
// (kyyard-fleet-1-viewer).
const ViewerSuffix = "-viewer"

// EtcdPart is the name of the fleet part that holds the shared etcd
// (its folder .cache/fleet/etcd).
const EtcdPart = "etcd"

// EtcdPorts are the shared etcd's client and peer ports: above every port of
// the single cluster (components.DefaultPorts, the real node's kubelet).
var EtcdPorts = components.Ports{Etcd: 20379, EtcdPeer: 20380}

// MemberComponents are a member's processes in start order (stop in
// reverse): the single cluster's (components.Names) without an etcd of its
// own, and no real node. metrics-server comes last: it starts once the
// fake nodes are Ready, as in the single cluster.
var MemberComponents = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok", "metrics-server"}

// Name is member i's name (from 1): kyyard-fleet-i.
func Name(i int) string { return NamePrefix + strconv.Itoa(i) }

// ViewerContext is the kubeconfig context of member i's read-only user.
func ViewerContext(i int) string { return Name(i) + ViewerSuffix }

// Ports are member i's ports (from 1): 20000+1000*i plus the single
// cluster's last three digits (kyyard-fleet-1's API server on 21443,
// kyyard-fleet-2's on 22443, ...), and the shared etcd's client port.
// metrics-server is on base+444 (kyyard-fleet-1's on 21444): the single
// cluster's last three digits for it, 443, are the API server's here.
func Ports(i int) components.Ports {
	base := 20000 + 1000*i
	return components.Ports{
		Etcd:              EtcdPorts.Etcd,
		APIServer:         base + 443,
		ControllerManager: base + 257,
		Scheduler:         base + 259,
		Kwok:              base + 247,
		MetricsServer:     base + 444,
	}
}

// Member is one cluster of the fleet.
type Member struct {
	// Index is the member's number, from 1.
	Index int
	// Name is Name(Index): the kubeconfig cluster, the admin context, the CA's name.
	Name string
	// L names its state, under .cache/fleet/<Name>.
	L layout.Layout
	// Ports are its ports (Ports(Index)).
	Ports components.Ports
	// EtcdPrefix is its API server's key prefix in the shared etcd.
	EtcdPrefix string
}

// NewMember returns member i (from 1) of the fleet of the module l.
func NewMember(l layout.Layout, i int) Member {
	name := Name(i)
	return Member{Index: i, Name: name, L: l.FleetPart(name), Ports: Ports(i), EtcdPrefix: "/" + name}
}

// Members returns members 1..n; n must be between 1 and MaxClusters.
func Members(l layout.Layout, n int) ([]Member, error) {
	if n < 1 || n > MaxClusters {
		return nil, fmt.Errorf("--clusters must be between 1 and %d, got %d", MaxClusters, n)
	}
	ms := make([]Member, n)
	for i := range ms {
		ms[i] = NewMember(l, i+1)
	}
	return ms, nil
}

// ListenPorts are the ports the member's own processes listen on, in
// MemberComponents' order (the shared etcd's are EtcdPorts).
func (m Member) ListenPorts() []int {
	return []int{m.Ports.APIServer, m.Ports.ControllerManager, m.Ports.Scheduler, m.Ports.Kwok, m.Ports.MetricsServer}
}

// ServerURL is the member's API server URL.
func (m Member) ServerURL() string { return m.Ports.ServerURL() }

// Components returns the member's processes in MemberComponents' order: the
// API server on the shared etcd under EtcdPrefix, the controller-manager,
// the scheduler, kwok and metrics-server (scraping kwok's emulated resource
// metrics with the member's PKI and kubeconfig), with the single cluster's
// flags otherwise.
func (m Member) Components() []components.Component {
	return []components.Component{
		components.APIServerWithEtcdPrefix(m.L, m.Ports, m.EtcdPrefix),
		components.ControllerManager(m.L, m.Ports),
		components.Scheduler(m.L, m.Ports),
		components.Kwok(m.L, m.Ports),
		components.MetricsServer(m.L, m.Ports),
	}
}

// TokenPath is the file holding the member's read-only ServiceAccount
// token, written by `fleet seed` and removed when the shared etcd starts
// afresh (the token dies with it).
func (m Member) TokenPath() string { return filepath.Join(m.L.Kubeconfig, "viewer.token") }

// EtcdLayout is the layout of the shared etcd's part (.cache/fleet/etcd).
func EtcdLayout(l layout.Layout) layout.Layout { return l.FleetPart(EtcdPart) }

// Etcd is the shared etcd: the single cluster's etcd command line with its
// data, logs and PID file in EtcdLayout and its ports EtcdPorts.
func Etcd(l layout.Layout) components.Component { return components.Etcd(EtcdLayout(l), EtcdPorts) }

// sizeFile holds the number of members the last `fleet up` started.
func sizeFile(l layout.Layout) string { return filepath.Join(l.FleetDir(), "clusters") }

// WriteSize records that the fleet has n members (for seed and status).
func WriteSize(l layout.Layout, n int) error {
	return os.WriteFile(sizeFile(l), []byte(strconv.Itoa(n)+"\n"), 0o644)
}

// ReadSize returns the number of members the last `fleet up` started; an
// error wrapping fs.ErrNotExist means the fleet was never started.
func ReadSize(l layout.Layout) (int, error) {
	data, err := os.ReadFile(sizeFile(l))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, fmt.Errorf("the fleet was never started (run `fleet up`): %w", err)
		}
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || n < 1 || n > MaxClusters {
		return 0, fmt.Errorf("%s: bad size %q", sizeFile(l), strings.TrimSpace(string(data)))
	}
	return n, nil
}
