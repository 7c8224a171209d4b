package build_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/hack/cluster/internal/build"
)

func inputs() build.StampInputs {
	return build.StampInputs{GoMod: []byte("module x\n"), GoSum: []byte("sum\n"), GoVersion: "go1.26.8", Steps: build.Steps()}
}

func TestStampIsDeterministic(t *testing.T) {
	if a, b := build.Stamp(inputs()), build.Stamp(inputs()); a != b || len(a) != 64 {
		t.Fatalf("stamps %q and %q; want equal 64-hex", a, b)
	}
}

func TestStampChangesWithInputs(t *testing.T) {
	base := build.Stamp(inputs())
	changes := map[string]func(*build.StampInputs){
		"go.mod":     func(in *build.StampInputs) { in.GoMod = []byte("module y\n") },
		"go.sum":     func(in *build.StampInputs) { in.GoSum = nil },
		"go version": func(in *build.StampInputs) { in.GoVersion = "go1.27.0" },
		"flags": func(in *build.StampInputs) {
			in.Steps = slices.Clone(in.Steps)
			in.Steps[0].Args = append(slices.Clone(in.Steps[0].Args), "-race")
		},
		"field boundary": func(in *build.StampInputs) { in.GoMod, in.GoSum = []byte("module x\nsum\n"), nil },
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			in := inputs()
			change(&in)
			if build.Stamp(in) == base {
				t.Error("stamp did not change")
			}
		})
	}
}

func TestStepsMatchTheColdBuild(t *testing.T) {
	steps := build.Steps()
	var names []string
	for _, s := range steps {
		names = append(names, s.Binary)
		if !slices.Contains(s.Args, "-trimpath") {
			t.Errorf("%s: no -trimpath", s.Binary)
		}
	}
	if !slices.Equal(names, build.Binaries) {
		t.Errorf("steps build %v, want %v", names, build.Binaries)
	}
	api := strings.Join(steps[0].Args, " ")
	for _, want := range []string{
		"-X k8s.io/component-base/version.gitVersion=v1.37.2",
		"-X k8s.io/client-go/pkg/version.buildDate=2026-10-27T12:01:04Z",
		"-o .cache/bin/kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver",
	} {
		if !strings.Contains(api, want) {
			t.Errorf("kube-apiserver args %q lack %q", api, want)
		}
	}
	byName := map[string]build.Step{}
	for _, s := range steps {
		byName[s.Binary] = s
	}
	ms := byName["metrics-server"]
	if !ms.OutsideModule || !ms.SetGOBIN || ms.Args[len(ms.Args)-1] != "sigs.k8s.io/metrics-server/cmd/metrics-server@v0.8.0" {
		t.Errorf("metrics-server step = %+v", ms)
	}
	kwok := byName["kwok"]
	if !kwok.OutsideModule || !kwok.SetGOBIN || kwok.Args[0] != "install" || kwok.Args[len(kwok.Args)-1] != "sigs.k8s.io/kwok/cmd/kwok@v0.8.0" {
		t.Errorf("kwok step = %+v", kwok)
	}
	if kubelet := strings.Join(byName["kubelet"].Args, " "); byName["kubelet"].OutsideModule ||
		!strings.Contains(kubelet, "-X k8s.io/component-base/version.gitVersion=v1.37.2") ||
		!strings.HasSuffix(kubelet, "-o .cache/bin/kubelet k8s.io/kubernetes/cmd/kubelet") {
		t.Errorf("kubelet is not built from the control plane's k8s.io/kubernetes: %q", kubelet)
	}
}

func TestRealNodeSteps(t *testing.T) {
	byName := map[string]build.Step{}
	for _, s := range build.Steps() {
		byName[s.Binary] = s
	}
	for bin, pkg := range map[string]string{
		"containerd":              "github.com/containerd/containerd/v2/cmd/containerd@v2.4.2",
		"ctr":                     "github.com/containerd/containerd/v2/cmd/ctr@v2.4.2",
		"containerd-shim-runc-v2": "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@v2.4.2",
		"cni/bridge":              "github.com/containernetworking/plugins/plugins/main/bridge@v1.10.0",
		"cni/host-local":          "github.com/containernetworking/plugins/plugins/ipam/host-local@v1.10.0",
		"cni/loopback":            "github.com/containernetworking/plugins/plugins/main/loopback@v1.10.0",
		"cni/portmap":             "github.com/containernetworking/plugins/plugins/meta/portmap@v1.10.0",
	} {
		s, ok := byName[bin]
		if !ok {
			t.Errorf("no step builds %s", bin)
			continue
		}
		if !s.OutsideModule || !s.SetGOBIN || s.Args[0] != "install" || s.Args[len(s.Args)-1] != pkg {
			t.Errorf("%s step = %+v, want go install %s", bin, s, pkg)
		}
		if strings.HasPrefix(bin, "containerd") && !strings.Contains(strings.Join(s.Args, " "), "-X github.com/containerd/containerd/v2/version.Version=v2.4.2") {
			t.Errorf("%s is not version-stamped: %q", bin, s.Args)
		}
	}
	if args := strings.Join(byName["containerd"].Args, " "); !strings.Contains(args, "-tags no_btrfs") {
		t.Errorf("containerd builds the btrfs snapshotter (needs cgo headers): %q", args)
	}
	if !slices.Contains(byName["containerd-shim-runc-v2"].Env, "CGO_ENABLED=0") {
		t.Error("the shim is not static")
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	stamp := build.Stamp(inputs())
	if ok, reason := build.Check(dir, stamp); ok || !strings.Contains(reason, "missing") {
		t.Errorf("empty dir: %t %q", ok, reason)
	}
	for _, b := range build.Binaries {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, b)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, b), []byte("#!/bin/true\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if ok, reason := build.Check(dir, stamp); ok || reason != "no build stamp" {
		t.Errorf("no stamp: %t %q", ok, reason)
	}
	if err := build.WriteStamp(dir, "something-else"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := build.Check(dir, stamp); ok {
		t.Error("mismatched stamp counts as up to date")
	}
	if err := build.WriteStamp(dir, stamp); err != nil {
		t.Fatal(err)
	}
	if ok, reason := build.Check(dir, stamp); !ok {
		t.Errorf("matching stamp: not up to date: %q", reason)
	}
	if err := os.Chmod(filepath.Join(dir, "kwok"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, _ := build.Check(dir, stamp); ok {
		t.Error("non-executable binary counts as up to date")
	}
}
