// Package images builds the real node's container images without a registry:
// the project's static programs (hack/cluster/images) and Debian's static
// busybox, each written as an OCI image layout archive (one uncompressed
// layer) that containerd imports (`ctr images import`). Archives are
// deterministic: the same files give the same digests.
package images

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"runtime"
	"sort"
	"strings"
	"time"
)

// File is one entry of an image's single layer.
type File struct {
	// Path is the absolute path in the image, e.g. "/bin/busybox".
	Path string
	// Mode holds the permission bits (e.g. 0o755); for a directory too.
	Mode int64
	// Data is a regular file's content.
	Data []byte
	// Link, when set, makes the entry a symbolic link to Link.
	Link string
	// Dir makes the entry a directory.
	Dir bool
}

// Image is an image to write.
type Image struct {
	// Ref is the full image reference, e.g. "kyyard.local/busybox:1"; pods
	// name it in their image field.
	Ref string
	// Files are the layer's entries; parent directories are added (mode 0755).
	Files []File
	// Entrypoint and Cmd are the image's default command (OCI config).
	Entrypoint, Cmd []string
	// Env is the image's environment, "NAME=value".
	Env []string
}

// OCI media types (opencontainers/image-spec).
const (
	mediaTypeIndex    = "application/vnd.oci.image.index.v1+json"
	mediaTypeManifest = "application/vnd.oci.image.manifest.v1+json"
	mediaTypeConfig   = "application/vnd.oci.image.config.v1+json"
	mediaTypeLayer    = "application/vnd.oci.image.layer.v1.tar"
)

// epoch is every entry's modification time, so archives are reproducible.
var epoch = time.Unix(0, 0).UTC()

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Platform    *platform         `json:"platform,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type platform struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
}

type blob struct {
	digest string
	data   []byte
}

func newBlob(data []byte) blob {
	sum := sha256.Sum256(data)
	return blob{digest: "sha256:" + hex.EncodeToString(sum[:]), data: data}
}

// Layer returns img's layer: an uncompressed tar of its files and their
// parent directories, sorted by path, owned by root, dated epoch.
func Layer(img Image) ([]byte, error) {
	entries := map[string]File{}
	for _, f := range img.Files {
		p := strings.TrimPrefix(path.Clean("/"+f.Path), "/")
		if p == "" {
			return nil, fmt.Errorf("image %s: file with empty path", img.Ref)
		}
		if _, dup := entries[p]; dup {
			return nil, fmt.Errorf("image %s: %s given twice", img.Ref, f.Path)
		}
		entries[p] = f
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if _, ok := entries[d]; !ok {
				entries[d] = File{Path: d, Dir: true, Mode: 0o755}
			}
		}
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, n := range names {
		f := entries[n]
		h := &tar.Header{Name: n, Mode: f.Mode, ModTime: epoch, Format: tar.FormatPAX, Uname: "root", Gname: "root"}
		switch {
		case f.Dir:
			h.Typeflag, h.Name = tar.TypeDir, n+"/"
		case f.Link != "":
			h.Typeflag, h.Linkname, h.Mode = tar.TypeSymlink, f.Link, 0o777
		default:
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.Data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(f.Data); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteArchive writes img as an OCI image layout in a tar stream to w (what
// `ctr images import` reads) and returns the manifest's digest. The index
// names the image by the annotations containerd reads
// (io.containerd.image.name, the full reference) and the OCI one
// (org.opencontainers.image.ref.name, the tag).
func WriteArchive(w io.Writer, img Image) (string, error) {
	layer, err := Layer(img)
	if err != nil {
		return "", err
	}
	lb := newBlob(layer)
	env := img.Env
	if len(env) == 0 {
		env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	}
	cfg, err := json.Marshal(map[string]any{
		"created":      epoch.Format(time.RFC3339),
		"architecture": runtime.GOARCH,
		"os":           "linux",
		"config":       map[string]any{"Entrypoint": img.Entrypoint, "Cmd": img.Cmd, "Env": env, "WorkingDir": "/"},
		"rootfs":       map[string]any{"type": "layers", "diff_ids": []string{lb.digest}},
		"history":      []map[string]any{{"created": epoch.Format(time.RFC3339), "created_by": "kyyard hack/cluster images"}},
	})
	if err != nil {
		return "", err
	}
	cb := newBlob(cfg)
	man, err := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     mediaTypeManifest,
		"config":        descriptor{MediaType: mediaTypeConfig, Digest: cb.digest, Size: int64(len(cb.data))},
		"layers":        []descriptor{{MediaType: mediaTypeLayer, Digest: lb.digest, Size: int64(len(lb.data))}},
	})
	if err != nil {
		return "", err
	}
	mb := newBlob(man)
	tag := img.Ref
	if i := strings.LastIndex(img.Ref, ":"); i > strings.LastIndex(img.Ref, "/") {
		tag = img.Ref[i+1:]
	}
	index, err := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     mediaTypeIndex,
		"manifests": []descriptor{{
			MediaType: mediaTypeManifest, Digest: mb.digest, Size: int64(len(mb.data)),
			Platform:    &platform{Architecture: runtime.GOARCH, OS: "linux"},
			Annotations: map[string]string{"io.containerd.image.name": img.Ref, "org.opencontainers.image.ref.name": tag},
		}},
	})
	if err != nil {
		return "", err
	}
	tw := tar.NewWriter(w)
	put := func(name string, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: epoch, Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Name: "blobs/", Mode: 0o755, ModTime: epoch, Typeflag: tar.TypeDir}); err != nil {
		return "", err
	}
	if err := tw.WriteHeader(&tar.Header{Name: "blobs/sha256/", Mode: 0o755, ModTime: epoch, Typeflag: tar.TypeDir}); err != nil {
		return "", err
	}
	for _, b := range []blob{lb, cb, mb} {
		if err := put("blobs/sha256/"+strings.TrimPrefix(b.digest, "sha256:"), b.data); err != nil {
			return "", err
		}
	}
	if err := put("oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)); err != nil {
		return "", err
	}
	if err := put("index.json", index); err != nil {
		return "", err
	}
	return mb.digest, tw.Close()
}
