// Package build compiles the cluster's binaries into .cache/bin: etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler, kubectl and the
// real node's kubelet from this module's pinned dependencies (tools.go), and
// kwok, metrics-server, containerd (with its runc shim and ctr) and the CNI
// plugins (into .cache/bin/cni) from their own modules with `go install
// ...@version`. A stamp file next to the binaries records what they were
// built from, so an unchanged pin is a no-op. It also installs the Debian
// packages the real node needs from the machine (HostPackages) and builds
// the node's image archives.
package build

import (
	"path"
	"strings"
)

// Versions pinned by this module. KubernetesVersion must match the
// k8s.io/kubernetes requirement in go.mod; BuildDate is that version's module
// time, so the version-stamping linker flags (and thus Go's build cache key)
// never change between builds.
const (
	KubernetesVersion = "v1.37.2"
	BuildDate         = "2026-10-27T12:01:04Z"
	KwokVersion       = "v0.8.0"
	// MetricsServerVersion is sigs.k8s.io/metrics-server's release, built
	// from the Go module proxy like kwok (metrics.k8s.io for `kubectl top`).
	MetricsServerVersion = "v0.8.0"
	// ContainerdVersion is github.com/containerd/containerd/v2's release:
	// the real node's container runtime (CRI). containerd 1.x lacks the
	// CRI RuntimeConfig call through which recent kubelets learn the
	// cgroup driver.
	ContainerdVersion = "v2.4.2"
	// CNIPluginsVersion is github.com/containernetworking/plugins' release.
	CNIPluginsVersion = "v1.10.0"
)

// containerdTags leave out the snapshotters the node does not use (btrfs
// would need cgo and its headers).
const containerdTags = "no_btrfs,no_devmapper,no_zfs"

// CNIPlugins are the CNI plugins built into .cache/bin/cni, by their
// package in github.com/containernetworking/plugins.
var CNIPlugins = []string{"plugins/main/bridge", "plugins/ipam/host-local", "plugins/main/loopback", "plugins/meta/portmap"}

// Binaries lists the files the build produces in .cache/bin (relative
// paths), in build order.
var Binaries = binaries()

func binaries() []string {
	var names []string
	for _, s := range Steps() {
		names = append(names, s.Binary)
	}
	return names
}

// Step is one `go` invocation.
type Step struct {
	// Binary is the output file's path relative to the bin folder
	// ("kubelet", "cni/bridge").
	Binary string
	// Args are the arguments after "go".
	Args []string
	// OutsideModule runs the step in an empty temporary folder (for
	// `go install pkg@version`, which builds with the package's own go.mod);
	// otherwise it runs in the hack/cluster module folder.
	OutsideModule bool
	// SetGOBIN points GOBIN at the folder of Binary (for go install).
	SetGOBIN bool
	// Env are extra environment variables, e.g. CGO_ENABLED=0.
	Env []string
}

// Steps returns the build steps. Output paths are relative to the module
// folder (".cache/bin/NAME"), exactly as the one-off cold build used them, so
// Go's build cache entries are shared.
func Steps() []Step {
	ld := kubeLDFlags()
	var steps []Step
	for _, c := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl", "kubelet"} {
		steps = append(steps, Step{
			Binary: c,
			Args:   []string{"build", "-trimpath", "-ldflags", ld, "-o", ".cache/bin/" + c, "k8s.io/kubernetes/cmd/" + c},
		})
	}
	steps = append(steps,
		Step{Binary: "etcd", Args: []string{"build", "-trimpath", "-o", ".cache/bin/etcd", "go.etcd.io/etcd/server/v3"}},
		Step{
			Binary:        "kwok",
			Args:          []string{"install", "-trimpath", "-ldflags", "-X sigs.k8s.io/kwok/pkg/consts.Version=" + strings.TrimPrefix(KwokVersion, "v"), "sigs.k8s.io/kwok/cmd/kwok@" + KwokVersion},
			OutsideModule: true,
			SetGOBIN:      true,
		},
		Step{
			Binary:        "metrics-server",
			Args:          []string{"install", "-trimpath", "sigs.k8s.io/metrics-server/cmd/metrics-server@" + MetricsServerVersion},
			OutsideModule: true,
			SetGOBIN:      true,
		},
	)
	const ctrd = "github.com/containerd/containerd/v2"
	ctrdLD := "-X " + ctrd + "/version.Version=" + ContainerdVersion
	for _, c := range []string{"containerd", "ctr"} {
		steps = append(steps, Step{
			Binary:        c,
			Args:          []string{"install", "-trimpath", "-tags", containerdTags, "-ldflags", ctrdLD, ctrd + "/cmd/" + c + "@" + ContainerdVersion},
			OutsideModule: true,
			SetGOBIN:      true,
		})
	}
	// The shim as containerd's Makefile builds it: static, without gRPC.
	steps = append(steps, Step{
		Binary:        "containerd-shim-runc-v2",
		Args:          []string{"install", "-trimpath", "-tags", "no_grpc", "-ldflags", ctrdLD, ctrd + "/cmd/containerd-shim-runc-v2@" + ContainerdVersion},
		OutsideModule: true,
		SetGOBIN:      true,
		Env:           []string{"CGO_ENABLED=0"},
	})
	for _, p := range CNIPlugins {
		steps = append(steps, Step{
			Binary:        "cni/" + path.Base(p),
			Args:          []string{"install", "-trimpath", "github.com/containernetworking/plugins/" + p + "@" + CNIPluginsVersion},
			OutsideModule: true,
			SetGOBIN:      true,
			Env:           []string{"CGO_ENABLED=0"},
		})
	}
	return steps
}

// kubeLDFlags stamps the version packages of component-base and client-go
// (otherwise /version reports v0.0.0-master).
func kubeLDFlags() string {
	minor := strings.Split(KubernetesVersion, ".")[1]
	var b strings.Builder
	for _, p := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		for _, kv := range [][2]string{
			{"gitVersion", KubernetesVersion},
			{"gitMajor", "1"},
			{"gitMinor", minor},
			{"gitTreeState", "clean"},
			{"gitCommit", strings.Repeat("0", 40)},
			{"buildDate", BuildDate},
		} {
			b.WriteString(" -X " + p + "." + kv[0] + "=" + kv[1])
		}
	}
	return b.String()
}
