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
	ms := steps[len(steps)-1]
	if !ms.OutsideModule || !ms.SetGOBIN || ms.Args[len(ms.Args)-1] != "sigs.k8s.io/metrics-server/cmd/metrics-server@v0.8.0" {
		t.Errorf("metrics-server step = %+v", ms)
	}
	kwok := steps[len(steps)-2]
	if !kwok.OutsideModule || !kwok.SetGOBIN || kwok.Args[0] != "install" || kwok.Args[len(kwok.Args)-1] != "sigs.k8s.io/kwok/cmd/kwok@v0.8.0" {
		t.Errorf("kwok step = %+v", kwok)
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	stamp := build.Stamp(inputs())
	if ok, reason := build.Check(dir, stamp); ok || !strings.Contains(reason, "missing") {
		t.Errorf("empty dir: %t %q", ok, reason)
	}
	for _, b := range build.Binaries {
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
