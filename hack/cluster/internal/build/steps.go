// Package build compiles the control-plane binaries into .cache/bin: etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler and kubectl from this
// module's pinned dependencies (tools.go), and kwok and metrics-server from
// their own modules with `go install ...@version`. A stamp file next to the binaries records what they
// were built from, so an unchanged pin is a no-op.
package build

import "strings"

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
)

// Binaries lists the files the build produces in .cache/bin, in build order.
var Binaries = []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl", "etcd", "kwok", "metrics-server"}

// Step is one `go` invocation.
type Step struct {
	// Binary is the output file name in the bin folder.
	Binary string
	// Args are the arguments after "go".
	Args []string
	// OutsideModule runs the step in an empty temporary folder (for
	// `go install pkg@version`, which builds with the package's own go.mod);
	// otherwise it runs in the hack/cluster module folder.
	OutsideModule bool
	// SetGOBIN points GOBIN at the bin folder (for go install).
	SetGOBIN bool
}

// Steps returns the build steps. Output paths are relative to the module
// folder (".cache/bin/NAME"), exactly as the one-off cold build used them, so
// Go's build cache entries are shared.
func Steps() []Step {
	ld := kubeLDFlags()
	var steps []Step
	for _, c := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl"} {
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
