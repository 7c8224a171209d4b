package images

import (
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The real node's images. Pods name them with imagePullPolicy Never: there
// is no registry behind kyyard.local.
const (
	// PauseRef is the sandbox image: containerd's pinned sandbox image.
	PauseRef = "kyyard.local/pause:1"
	// DemoAppRef holds only /demoapp (hack/cluster/images/demoapp), no
	// shell: the web server, log writers, crash-looper and the container
	// without a shell.
	DemoAppRef = "kyyard.local/demoapp:1"
	// BusyboxRef holds Debian's static busybox with a link per applet
	// (sh, cat, stty, ...), a minimal /etc/passwd and /tmp.
	BusyboxRef = "kyyard.local/busybox:1"
)

// BusyboxBinary is where Debian's busybox-static package installs busybox.
const BusyboxBinary = "/bin/busybox"

// Programs are the project's image programs, by package path relative to
// the hack/cluster module, and the image each goes into.
var Programs = []struct{ Package, Ref string }{
	{"./images/pause", PauseRef},
	{"./images/demoapp", DemoAppRef},
}

// Archive is one built image archive.
type Archive struct {
	// Ref is the image reference.
	Ref string
	// Path is the archive file.
	Path string
	// Digest is the image manifest's digest.
	Digest string
}

// ArchiveName is the archive file name of ref in the images folder, e.g.
// "busybox-1.tar" for kyyard.local/busybox:1.
func ArchiveName(ref string) string {
	return strings.NewReplacer("kyyard.local/", "", "/", "-", ":", "-").Replace(ref) + ".tar"
}

// Build compiles the image programs (static: CGO_ENABLED=0) from moduleDir
// into dir/bin, reads busybox from busybox, and writes one archive per image
// into dir. Go's build cache makes an unchanged program cost about a second.
// Errors: a failed compile (with its output), busybox missing or not static.
func Build(ctx context.Context, moduleDir, dir, busybox string, out io.Writer) ([]Archive, error) {
	start := time.Now()
	binDir := filepath.Join(dir, "bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return nil, err
	}
	var imgs []Image
	for _, p := range Programs {
		name := filepath.Base(p.Package)
		bin := filepath.Join(binDir, name)
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, p.Package)
		cmd.Dir = moduleDir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOFLAGS=-buildvcs=false")
		if output, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("build %s: %w\n%s", p.Package, err, strings.TrimSpace(string(output)))
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			return nil, err
		}
		imgs = append(imgs, Image{Ref: p.Ref, Files: []File{{Path: "/" + name, Mode: 0o755, Data: data}}, Entrypoint: []string{"/" + name}})
	}
	bb, err := BusyboxImage(ctx, busybox)
	if err != nil {
		return nil, err
	}
	imgs = append(imgs, bb)
	var res []Archive
	for _, img := range imgs {
		a, err := writeFile(dir, img)
		if err != nil {
			return nil, err
		}
		res = append(res, a)
	}
	fmt.Fprintf(out, "images: built %d image archives in %s (%s)\n", len(res), dir, time.Since(start).Round(100*time.Millisecond))
	return res, nil
}

// writeFile writes img's archive into dir atomically.
func writeFile(dir string, img Image) (Archive, error) {
	p := filepath.Join(dir, ArchiveName(img.Ref))
	tmp, err := os.CreateTemp(dir, ".archive-*")
	if err != nil {
		return Archive{}, err
	}
	defer os.Remove(tmp.Name())
	digest, err := WriteArchive(tmp, img)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Archive{}, fmt.Errorf("image %s: %w", img.Ref, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return Archive{}, err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return Archive{}, err
	}
	return Archive{Ref: img.Ref, Path: p, Digest: digest}, nil
}

// BusyboxImage is BusyboxRef: the static busybox at path, a symbolic link
// to it for every applet it lists (`busybox --list-full`), /etc/passwd and
// /etc/group with root and nobody, /root and a world-writable /tmp.
func BusyboxImage(ctx context.Context, path string) (Image, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Image{}, fmt.Errorf("busybox: %w (Debian's busybox-static package installs it)", err)
	}
	if err := checkStatic(path); err != nil {
		return Image{}, err
	}
	list, err := exec.CommandContext(ctx, path, "--list-full").Output()
	if err != nil {
		return Image{}, fmt.Errorf("%s --list-full: %w", path, err)
	}
	files := []File{
		{Path: "/bin/busybox", Mode: 0o755, Data: data},
		{Path: "/etc/passwd", Mode: 0o644, Data: []byte("root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n")},
		{Path: "/etc/group", Mode: 0o644, Data: []byte("root:x:0:\nnobody:x:65534:\n")},
		{Path: "/root", Dir: true, Mode: 0o700},
		{Path: "/tmp", Dir: true, Mode: 0o1777},
	}
	for _, applet := range strings.Fields(string(list)) {
		p := "/" + strings.TrimPrefix(applet, "/")
		if p == "/bin/busybox" {
			continue
		}
		files = append(files, File{Path: p, Link: "/bin/busybox"})
	}
	return Image{Ref: BusyboxRef, Files: files, Cmd: []string{"sh"}}, nil
}

// checkStatic fails unless path is an ELF executable without an interpreter
// (a dynamically linked busybox would find no libc in the image).
func checkStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked; the image needs Debian's busybox-static", path)
		}
	}
	return nil
}

// Import loads each archive into containerd's k8s.io namespace (the CRI
// plugin's) with ctr at address, replacing an older image of the same name.
func Import(ctx context.Context, ctr, address string, archives []Archive, out io.Writer) error {
	for _, a := range archives {
		cmd := exec.CommandContext(ctx, ctr, "--address", address, "--namespace", "k8s.io", "images", "import", a.Path)
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("import %s: %w\n%s", a.Path, err, strings.TrimSpace(buf.String()))
		}
		fmt.Fprintf(out, "images: imported %s from %s\n", a.Ref, a.Path)
	}
	return nil
}

// Refs are every image of the node: the programs' images, then busybox.
func Refs() []string {
	var refs []string
	for _, p := range Programs {
		refs = append(refs, p.Ref)
	}
	return append(refs, BusyboxRef)
}

// ArchiveNames are the archive file names of Refs.
func ArchiveNames() []string {
	var names []string
	for _, r := range Refs() {
		names = append(names, ArchiveName(r))
	}
	return names
}
