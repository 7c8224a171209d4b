package build

import (
	"context"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// HostPackage is a Debian package the real node needs from the machine,
// known by a file it installs.
type HostPackage struct {
	// Name is the Debian package.
	Name string
	// File is the file that shows it is installed.
	File string
	// Static requires File to be a statically linked executable (busybox
	// goes into an image without a libc).
	Static bool
	// Why says what the node uses it for.
	Why string
}

// HostPackages are what a Go build cannot give the real node: Debian's
// runc (the OCI runtime containerd's shim runs), iptables (the CNI portmap
// plugin's hostPort rules) and the static busybox (the shell image).
var HostPackages = []HostPackage{
	{Name: "runc", File: "/usr/sbin/runc", Why: "the container runtime containerd's runc shim runs"},
	{Name: "iptables", File: "/usr/sbin/iptables", Why: "the CNI portmap plugin's hostPort rules"},
	{Name: "busybox-static", File: "/bin/busybox", Static: true, Why: "the static busybox of the node's shell image"},
}

// MissingHostPackages returns the HostPackages whose file is absent (or,
// for Static ones, dynamically linked).
func MissingHostPackages() []HostPackage {
	var missing []HostPackage
	for _, p := range HostPackages {
		if !installed(p) {
			missing = append(missing, p)
		}
	}
	return missing
}

func installed(p HostPackage) bool {
	if _, err := os.Stat(p.File); err != nil {
		return false
	}
	if !p.Static {
		return true
	}
	f, err := elf.Open(p.File)
	if err != nil {
		return false
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return false
		}
	}
	return true
}

// EnsureHostPackages installs the missing HostPackages with apt-get (after
// `apt-get update` when the first attempt fails), as CI runs: as root and
// non-interactively. Not root, it fails naming the packages to install.
func EnsureHostPackages(ctx context.Context, out io.Writer) error {
	missing := MissingHostPackages()
	if len(missing) == 0 {
		return nil
	}
	var names, why []string
	for _, p := range missing {
		names = append(names, p.Name)
		why = append(why, p.Name+" ("+p.Why+")")
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("the real node needs Debian packages %s; install them as root: apt-get install -y %s", strings.Join(why, ", "), strings.Join(names, " "))
	}
	fmt.Fprintf(out, "build: installing Debian packages for the real node: %s\n", strings.Join(why, ", "))
	apt := func(args ...string) error {
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		output, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("apt-get %s: %w\n%s", strings.Join(args, " "), err, lastLines(string(output), 15))
		}
		return nil
	}
	install := append([]string{"install", "-y", "--no-install-recommends"}, names...)
	if err := apt(install...); err != nil {
		fmt.Fprintf(out, "build: apt-get install failed; running apt-get update first\n")
		if err := apt("update"); err != nil {
			return err
		}
		if err := apt(install...); err != nil {
			return err
		}
	}
	if still := MissingHostPackages(); len(still) > 0 {
		return fmt.Errorf("apt-get installed %s, but %s is still missing", strings.Join(names, " "), still[0].File)
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
