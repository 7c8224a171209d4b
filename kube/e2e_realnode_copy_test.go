package kube_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// copyWith copies as req asks, the pod's Pod Security warning confirmed
// (a temporary namespace enforces no level).
func copyWith(t *testing.T, c *kube.Client, p *corev1.Pod, req kube.CopyRequest) (kube.CopyResult, []kube.CopyProgress, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req.Namespace, req.Pod, req.UID = p.Namespace, p.Name, string(p.UID)
	if plan, err := c.PlanExec(ctx, kube.ExecRequest{Namespace: p.Namespace, Pod: p.Name}); err == nil {
		for _, w := range plan.Verdicts.Warnings() {
			req.Confirmed = append(req.Confirmed, w.Reason)
		}
	}
	var reports []kube.CopyProgress
	res, err := c.CopyFile(ctx, req, func(p kube.CopyProgress) { reports = append(reports, p) })
	return res, reports, err
}

// TestE2ERealNodeCopy: on the real node's busybox container, a folder
// (a 24 MiB file, a nested file, a symbolic link) goes in as kubectl cp
// puts it (into an existing folder under its name; to a new name), reads
// back identical, sha256 checked inside the container; a file comes out
// to a new name; progress ends on the whole size, at a bounded rate. A
// missing path says tar's words and writes nothing; a read-only root
// file system is tar's failure; a container without tar says so; the
// read-only user is forbidden and --readonly sends nothing.
func TestE2ERealNodeCopy(t *testing.T) {
	cfg, cs, ns := realNode(t, "kyyard-realcp")
	p := kubetest.RunRealNodePod(t, cs, ns, shellPod("box"))
	c := kubetest.Client(t, cfg)

	src := filepath.Join(t.TempDir(), "bundle")
	big := make([]byte, 24<<20)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(big)
	for name, body := range map[string][]byte{"big.bin": big, "conf/app.yaml": []byte("port: 8080\n")} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("conf/app.yaml", filepath.Join(src, "current")); err != nil {
		t.Fatal(err)
	}

	// In, into an existing folder: /tmp/bundle.
	res, reports, err := copyWith(t, c, p, kube.CopyRequest{Direction: kube.CopyToContainer, Local: src, Remote: "/tmp"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dest != "/tmp/bundle" || res.Files != 2 || res.Links != 1 || res.Bytes != int64(len(big))+11 {
		t.Fatalf("result %+v", res)
	}
	last := reports[len(reports)-1]
	if !last.Final || last.Done != res.Bytes || last.Total != res.Bytes || len(reports) > 200 {
		t.Errorf("%d progress reports, the last %+v", len(reports), last)
	}
	_, out, _, err := realExec(t, c, p, []string{"sh", "-c", "sha256sum /tmp/bundle/big.bin; cat /tmp/bundle/current; readlink /tmp/bundle/current"}, nil)
	if want := hex.EncodeToString(sum[:]) + "  /tmp/bundle/big.bin\nport: 8080\nconf/app.yaml\n"; err != nil || out != want {
		t.Fatalf("in the container: %q, %v; want %q", out, err, want)
	}

	// In, to a new name.
	if res, _, err = copyWith(t, c, p, kube.CopyRequest{Direction: kube.CopyToContainer, Local: filepath.Join(src, "conf", "app.yaml"), Remote: "/tmp/renamed.yaml"}); err != nil || res.Dest != "/tmp/renamed.yaml" {
		t.Fatalf("to a new name: %+v, %v", res, err)
	}

	// Out: the folder back, and a file to a new name.
	back := t.TempDir()
	if res, _, err = copyWith(t, c, p, kube.CopyRequest{Direction: kube.CopyFromContainer, Local: back, Remote: "/tmp/bundle"}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(back, "bundle", "big.bin"))
	if err != nil || !bytes.Equal(got, big) || res.Dest != filepath.Join(back, "bundle") {
		t.Fatalf("the folder back: %d bytes, %v, %+v", len(got), err, res)
	}
	if l, err := os.Readlink(filepath.Join(back, "bundle", "current")); err != nil || l != "conf/app.yaml" {
		t.Errorf("the link back: %q, %v", l, err)
	}
	if _, _, err = copyWith(t, c, p, kube.CopyRequest{Direction: kube.CopyFromContainer, Local: filepath.Join(back, "copy.yaml"), Remote: "/tmp/renamed.yaml"}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(back, "copy.yaml")); err != nil || string(b) != "port: 8080\n" {
		t.Fatalf("the file back as copy.yaml: %q, %v", b, err)
	}

	// Failures: nothing written locally.
	empty := t.TempDir()
	_, _, err = copyWith(t, c, p, kube.CopyRequest{Direction: kube.CopyFromContainer, Local: empty, Remote: "/tmp/nope"})
	if !errors.Is(err, kube.ErrCopyNotFound) || !strings.Contains(err.Error(), "/tmp/nope") || kube.ReasonOf(err) != kube.ReasonNotFound {
		t.Errorf("a missing path: %v", err)
	}
	_, _, err = copyWith(t, c, p, kube.CopyRequest{Direction: kube.CopyToContainer, Local: src, Remote: "/nope/deeper/x"})
	if !errors.Is(err, kube.ErrCopyNotFound) {
		t.Errorf("into a missing folder: %v", err)
	}
	if names, _ := os.ReadDir(empty); len(names) != 0 {
		t.Errorf("after the failures the local folder holds %v", names)
	}

	ro := shellPod("readonly")
	yes := true
	ro.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{ReadOnlyRootFilesystem: &yes}
	rop := kubetest.RunRealNodePod(t, cs, ns, ro)
	_, _, err = copyWith(t, c, rop, kube.CopyRequest{Direction: kube.CopyToContainer, Local: filepath.Join(src, "conf"), Remote: "/etc"})
	if !errors.Is(err, kube.ErrCopyFailed) || !strings.Contains(strings.ToLower(err.Error()), "read-only file system") {
		t.Errorf("a read-only root file system: %v", err)
	}

	noTar := kubetest.RunRealNodePod(t, cs, ns, kubetest.RealNodePod("notar", kubetest.DemoAppImage, "/demoapp", "idle"))
	_, _, err = copyWith(t, c, noTar, kube.CopyRequest{Direction: kube.CopyFromContainer, Local: empty, Remote: "/demoapp"})
	if !errors.Is(err, kube.ErrCopyNoTar) {
		t.Errorf("a container without tar: %v", err)
	}

	viewer := kubetest.Client(t, kubetest.LocalReadOnly(t))
	if _, _, err = copyWith(t, viewer, p, kube.CopyRequest{Direction: kube.CopyFromContainer, Local: empty, Remote: "/tmp/bundle"}); !errors.Is(err, kube.ErrExecForbidden) {
		t.Errorf("the read-only user: %v", err)
	}
	readOnly, err := kube.NewFromConfig(cfg, kube.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer readOnly.Close()
	if _, _, err = copyWith(t, readOnly, p, kube.CopyRequest{Direction: kube.CopyFromContainer, Local: empty, Remote: "/tmp/bundle"}); kube.ReasonOf(err) != kube.ReasonReadOnly {
		t.Errorf("--readonly: %v", err)
	}
}
