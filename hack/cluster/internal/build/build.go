package build

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/kyyard/kyyard/hack/cluster/internal/images"
	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
)

// Options tune Run.
type Options struct {
	// Force builds even when the stamp matches (Go's cache still makes it cheap).
	Force bool
	// Out receives progress lines.
	Out io.Writer
}

// CurrentStamp computes the stamp for the module in l with the `go` on PATH.
func CurrentStamp(ctx context.Context, l layout.Layout) (string, error) {
	goMod, err := os.ReadFile(filepath.Join(l.ModuleDir, "go.mod"))
	if err != nil {
		return "", err
	}
	goSum, err := os.ReadFile(filepath.Join(l.ModuleDir, "go.sum"))
	if err != nil {
		return "", err
	}
	v, err := exec.CommandContext(ctx, "go", "env", "GOVERSION").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOVERSION: %w", err)
	}
	return Stamp(StampInputs{GoMod: goMod, GoSum: goSum, GoVersion: strings.TrimSpace(string(v)), Steps: Steps()}), nil
}

// Run makes the cluster buildable and built: it installs the missing
// HostPackages (apt-get, as root), builds every binary into l.Bin unless
// they are up to date (see Check), printing each step and its duration,
// writes the stamp, and builds the real node's image archives into l.Images
// (always: Go's cache makes that a second or two when nothing changed). A
// failing step stops the build and its error carries the step's output.
func Run(ctx context.Context, l layout.Layout, opt Options) error {
	out := opt.Out
	if out == nil {
		out = io.Discard
	}
	if err := EnsureHostPackages(ctx, out); err != nil {
		return err
	}
	if err := buildBinaries(ctx, l, opt, out); err != nil {
		return err
	}
	_, err := images.Build(ctx, l.ModuleDir, l.Images, images.BusyboxBinary, out)
	return err
}

func buildBinaries(ctx context.Context, l layout.Layout, opt Options, out io.Writer) error {
	if err := os.MkdirAll(l.Bin, 0o755); err != nil {
		return err
	}
	stamp, err := CurrentStamp(ctx, l)
	if err != nil {
		return err
	}
	ok, reason := Check(l.Bin, stamp)
	if ok && !opt.Force {
		fmt.Fprintf(out, "build: binaries in %s are up to date (stamp %s), nothing to do\n", l.Bin, stamp[:12])
		return nil
	}
	if reason == "" {
		reason = "forced"
	}
	fmt.Fprintf(out, "build: %s; building %s into %s\n", reason, strings.Join(Binaries, ", "), l.Bin)
	fmt.Fprintln(out, "build: a first build with an empty Go cache takes about 30 minutes on 2 cores; later builds reuse the cache")
	total := time.Now()
	for _, s := range Steps() {
		start := time.Now()
		fmt.Fprintf(out, "build: %-24s go %s\n", s.Binary, strings.Join(quoteArgs(s.Args), " "))
		if err := runStep(ctx, l, s); err != nil {
			return fmt.Errorf("build %s: %w", s.Binary, err)
		}
		fmt.Fprintf(out, "build: %-24s done in %s\n", s.Binary, time.Since(start).Round(100*time.Millisecond))
	}
	for _, b := range Binaries {
		if _, err := os.Stat(l.BinaryPath(b)); err != nil {
			return fmt.Errorf("build finished but %s is missing: %w", b, err)
		}
	}
	if err := WriteStamp(l.Bin, stamp); err != nil {
		return err
	}
	fmt.Fprintf(out, "build: all binaries built in %s (stamp %s)\n", time.Since(total).Round(100*time.Millisecond), stamp[:12])
	return nil
}

func runStep(ctx context.Context, l layout.Layout, s Step) error {
	cmd := exec.CommandContext(ctx, "go", s.Args...)
	cmd.Dir = l.ModuleDir
	cmd.Env = goEnv(os.Environ())
	if s.OutsideModule {
		tmp, err := os.MkdirTemp("", "kyyard-build-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		cmd.Dir = tmp
	}
	if s.SetGOBIN {
		dir := filepath.Dir(l.BinaryPath(s.Binary))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		cmd.Env = append(cmd.Env, "GOBIN="+dir)
	}
	cmd.Env = append(cmd.Env, s.Env...)
	output, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w\n%s", err, strings.TrimSpace(string(output)))
	}
	return nil
}

// goEnv drops variables that would change what `go` builds from the
// environment (GOBIN is set per step) and makes sure VCS stamping is off, as in
// the cold build: the module lives in a git work tree whose state must not
// leak into the binaries or their cache keys.
func goEnv(env []string) []string {
	var res []string
	flags := ""
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, "GOBIN="):
		case strings.HasPrefix(kv, "GOFLAGS="):
			flags = strings.TrimPrefix(kv, "GOFLAGS=")
		default:
			res = append(res, kv)
		}
	}
	if !strings.Contains(flags, "-buildvcs=") {
		flags = strings.TrimSpace(flags + " -buildvcs=false")
	}
	return append(res, "GOFLAGS="+flags)
}

// quoteArgs renders args for display; the long version-stamping -ldflags
// value is shortened to its version and build date.
func quoteArgs(args []string) []string {
	q := make([]string, len(args))
	for i, a := range args {
		if i > 0 && args[i-1] == "-ldflags" && len(a) > 100 {
			a = fmt.Sprintf("<%d -X version flags: gitVersion=%s buildDate=%s>", strings.Count(a, "-X "), KubernetesVersion, BuildDate)
		}
		if strings.ContainsAny(a, " \t") {
			a = "'" + a + "'"
		}
		q[i] = a
	}
	return q
}
