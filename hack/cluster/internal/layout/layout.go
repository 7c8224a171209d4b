// Package layout names every file and folder the local cluster uses. All state
// lives under one git-ignored folder, hack/cluster/.cache, so deleting it resets
// the cluster completely.
package layout

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ModulePath is the module path of hack/cluster; FindModuleDir looks for a
// go.mod that declares it.
const ModulePath = "github.com/kyyard/kyyard/hack/cluster"

// Layout holds absolute paths of the cluster's state folders. Build it with New
// or Find; the zero value is not usable.
type Layout struct {
	// ModuleDir is the hack/cluster module folder (where go.mod is).
	ModuleDir string
	// Cache is ModuleDir/.cache, the root of all state.
	Cache string
	// Bin holds the built binaries and the build stamp.
	Bin string
	// PKI holds certificates and keys (PEM).
	PKI string
	// Kubeconfig holds one kubeconfig per identity.
	Kubeconfig string
	// Data holds etcd's data directory (fresh on every up).
	Data string
	// Logs holds one log file per component plus the API server's audit log.
	Logs string
	// Run holds PID files.
	Run string
	// Etc holds generated configuration: kwok config, audit policy.
	Etc string
	// PodLogs holds CRI-format log files that kwok serves as container logs.
	PodLogs string
	// ExecRoot is the working directory of commands run by pods/exec.
	ExecRoot string
	// Home is the HOME of every started process, so nothing reads ~/.kube or ~/.kwok.
	Home string
	// Node holds the real node's state: containerd's root, state and
	// socket, the kubelet's root folder, pod logs, CNI configuration.
	Node string
	// Images holds the real node's image archives, built by `build`.
	Images string
}

// New returns the layout for the module folder moduleDir (made absolute).
func New(moduleDir string) (Layout, error) {
	abs, err := filepath.Abs(moduleDir)
	if err != nil {
		return Layout{}, err
	}
	c := filepath.Join(abs, ".cache")
	return Layout{
		ModuleDir:  abs,
		Cache:      c,
		Bin:        filepath.Join(c, "bin"),
		PKI:        filepath.Join(c, "pki"),
		Kubeconfig: filepath.Join(c, "kubeconfig"),
		Data:       filepath.Join(c, "data"),
		Logs:       filepath.Join(c, "logs"),
		Run:        filepath.Join(c, "run"),
		Etc:        filepath.Join(c, "etc"),
		PodLogs:    filepath.Join(c, "podlogs"),
		ExecRoot:   filepath.Join(c, "exec-root"),
		Home:       filepath.Join(c, "home"),
		Node:       filepath.Join(c, "node"),
		Images:     filepath.Join(c, "images"),
	}, nil
}

// FleetDir is the folder of the local fleet's state (Cache/fleet): one
// folder per part (FleetPart), the fleet's kubeconfig and its size.
func (l Layout) FleetDir() string { return filepath.Join(l.Cache, "fleet") }

// FleetKubeconfig is the path of the fleet's one kubeconfig, with a context
// per member cluster for its admin and one for its read-only user.
func (l Layout) FleetKubeconfig() string { return filepath.Join(l.FleetDir(), "kubeconfig") }

// FleetPart returns the layout of one part of the local fleet (a member
// cluster, or the etcd the members share) named name: every state folder
// under FleetDir()/name, so that its PKI, kubeconfigs, logs, PID files and
// configuration never mix with the single cluster's or another part's; the
// binaries (Bin) and image archives (Images) are l's, shared.
func (l Layout) FleetPart(name string) Layout {
	c := filepath.Join(l.FleetDir(), name)
	return Layout{
		ModuleDir:  l.ModuleDir,
		Cache:      c,
		Bin:        l.Bin,
		PKI:        filepath.Join(c, "pki"),
		Kubeconfig: filepath.Join(c, "kubeconfig"),
		Data:       filepath.Join(c, "data"),
		Logs:       filepath.Join(c, "logs"),
		Run:        filepath.Join(c, "run"),
		Etc:        filepath.Join(c, "etc"),
		PodLogs:    filepath.Join(c, "podlogs"),
		ExecRoot:   filepath.Join(c, "exec-root"),
		Home:       filepath.Join(c, "home"),
		Node:       filepath.Join(c, "node"),
		Images:     l.Images,
	}
}

// Find locates the hack/cluster module starting at dir: dir itself or one of
// its parents when it declares ModulePath, or dir/hack/cluster (running from the
// repository root). It fails when neither is found.
func Find(dir string) (Layout, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Layout{}, err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if declaresModule(filepath.Join(d, "go.mod")) {
			return New(d)
		}
		if sub := filepath.Join(d, "hack", "cluster"); declaresModule(filepath.Join(sub, "go.mod")) {
			return New(sub)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return Layout{}, fmt.Errorf("no go.mod declaring %s at or above %s", ModulePath, abs)
}

// Ensure creates every state folder (mode 0755; PKI 0700).
func (l Layout) Ensure() error {
	for _, d := range []string{l.Bin, l.Kubeconfig, l.Data, l.Logs, l.Run, l.Etc, l.PodLogs, l.ExecRoot, l.Home, l.Node, l.Images} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return os.MkdirAll(l.PKI, 0o700)
}

// BinaryPath is the path of the built binary name (e.g. "kube-apiserver").
func (l Layout) BinaryPath(name string) string { return filepath.Join(l.Bin, name) }

// KubeconfigPath is the path of the kubeconfig for identity name (e.g. "admin").
func (l Layout) KubeconfigPath(name string) string {
	return filepath.Join(l.Kubeconfig, name+".kubeconfig")
}

// AdminKubeconfig is the path of the cluster-admin kubeconfig (group system:masters).
func (l Layout) AdminKubeconfig() string { return l.KubeconfigPath("admin") }

// ReadonlyKubeconfig is the path of the kubeconfig for ServiceAccount demo/viewer,
// written by seed.
func (l Layout) ReadonlyKubeconfig() string { return l.KubeconfigPath("readonly") }

// AuditLog is the path of the API server's audit log (JSON lines, blocking backend).
func (l Layout) AuditLog() string { return filepath.Join(l.Logs, "audit.log") }

// LogPath is the path of component name's log file (stdout and stderr, appended).
func (l Layout) LogPath(name string) string { return filepath.Join(l.Logs, name+".log") }

// PIDPath is the path of component name's PID file.
func (l Layout) PIDPath(name string) string { return filepath.Join(l.Run, name+".pid") }

// NodePath is the path of file (or folder) name in the real node's state folder.
func (l Layout) NodePath(name string) string { return filepath.Join(l.Node, name) }

// PKIPath is the path of a PKI file, e.g. PKIPath("ca.crt").
func (l Layout) PKIPath(file string) string { return filepath.Join(l.PKI, file) }

// EtcPath is the path of a generated configuration file.
func (l Layout) EtcPath(file string) string { return filepath.Join(l.Etc, file) }

func declaresModule(goMod string) bool {
	f, err := os.Open(goMod)
	if err != nil {
		return false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if rest, ok := strings.CutPrefix(line, "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`) == ModulePath
		}
	}
	return false
}
