package images_test

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/hack/cluster/internal/images"
)

func readTar(t *testing.T, data []byte) (map[string]*tar.Header, map[string][]byte, []string) {
	t.Helper()
	hdrs, files := map[string]*tar.Header{}, map[string][]byte{}
	var order []string
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return hdrs, files, order
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		hdrs[h.Name], files[h.Name] = h, b
		order = append(order, h.Name)
	}
}

var sample = images.Image{
	Ref: "kyyard.local/sample:7",
	Files: []images.File{
		{Path: "/usr/bin/tool", Mode: 0o755, Data: []byte("#!tool\n")},
		{Path: "/bin/sh", Link: "/usr/bin/tool"},
		{Path: "/tmp", Dir: true, Mode: 0o1777},
	},
	Entrypoint: []string{"/usr/bin/tool"},
}

func TestLayerAddsParentsAndSortsEntries(t *testing.T) {
	layer, err := images.Layer(sample)
	if err != nil {
		t.Fatal(err)
	}
	hdrs, files, order := readTar(t, layer)
	want := []string{"bin/", "bin/sh", "tmp/", "usr/", "usr/bin/", "usr/bin/tool"}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Fatalf("entries %v, want %v", order, want)
	}
	if h := hdrs["bin/sh"]; h.Typeflag != tar.TypeSymlink || h.Linkname != "/usr/bin/tool" {
		t.Errorf("bin/sh = %+v", h)
	}
	if h := hdrs["tmp/"]; h.Mode != 0o1777 || h.Typeflag != tar.TypeDir {
		t.Errorf("tmp = %+v", h)
	}
	if string(files["usr/bin/tool"]) != "#!tool\n" || hdrs["usr/bin/tool"].Mode != 0o755 {
		t.Errorf("tool = %+v %q", hdrs["usr/bin/tool"], files["usr/bin/tool"])
	}
	if _, err := images.Layer(images.Image{Ref: "x", Files: []images.File{{Path: "/a"}, {Path: "a"}}}); err == nil {
		t.Error("a path given twice was accepted")
	}
}

func digestOf(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

func TestWriteArchiveIsAnOCILayoutNamingTheImage(t *testing.T) {
	var a, b bytes.Buffer
	d1, err := images.WriteArchive(&a, sample)
	if err != nil {
		t.Fatal(err)
	}
	if d2, _ := images.WriteArchive(&b, sample); d1 != d2 || !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two archives of the same image differ")
	}
	_, files, _ := readTar(t, a.Bytes())
	if string(files["oci-layout"]) != `{"imageLayoutVersion":"1.0.0"}` {
		t.Errorf("oci-layout = %q", files["oci-layout"])
	}
	blob := func(d string) []byte {
		t.Helper()
		data, ok := files["blobs/sha256/"+strings.TrimPrefix(d, "sha256:")]
		if !ok {
			t.Fatalf("no blob %s", d)
		}
		if digestOf(data) != d {
			t.Fatalf("blob %s has digest %s", d, digestOf(data))
		}
		return data
	}
	var index struct {
		Manifests []struct {
			Digest      string
			Platform    struct{ OS string }
			Annotations map[string]string
		}
	}
	if err := json.Unmarshal(files["index.json"], &index); err != nil || len(index.Manifests) != 1 {
		t.Fatalf("index.json %s: %v", files["index.json"], err)
	}
	m := index.Manifests[0]
	if m.Digest != d1 || m.Platform.OS != "linux" || m.Annotations["io.containerd.image.name"] != sample.Ref || m.Annotations["org.opencontainers.image.ref.name"] != "7" {
		t.Errorf("index manifest %+v (digest %s)", m, d1)
	}
	var man struct {
		Config struct{ Digest string }
		Layers []struct{ MediaType, Digest string }
	}
	if err := json.Unmarshal(blob(m.Digest), &man); err != nil || len(man.Layers) != 1 {
		t.Fatalf("manifest: %v %+v", err, man)
	}
	var cfg struct {
		OS     string
		Config struct{ Entrypoint []string }
		RootFS struct {
			DiffIDs []string `json:"diff_ids"`
		}
	}
	if err := json.Unmarshal(blob(man.Config.Digest), &cfg); err != nil {
		t.Fatal(err)
	}
	layer := blob(man.Layers[0].Digest)
	if cfg.OS != "linux" || cfg.Config.Entrypoint[0] != "/usr/bin/tool" || cfg.RootFS.DiffIDs[0] != digestOf(layer) {
		t.Errorf("config %+v", cfg)
	}
}

func TestBusyboxImage(t *testing.T) {
	if _, err := os.Stat(images.BusyboxBinary); err != nil {
		t.Skipf("no %s on this machine (Debian's busybox-static; the cluster's build installs it)", images.BusyboxBinary)
	}
	img, err := images.BusyboxImage(context.Background(), images.BusyboxBinary)
	if err != nil {
		t.Fatal(err)
	}
	links := map[string]string{}
	for _, f := range img.Files {
		links[f.Path] = f.Link
	}
	for _, applet := range []string{"/bin/sh", "/bin/cat", "/bin/stty"} {
		if links[applet] != "/bin/busybox" {
			t.Errorf("%s -> %q", applet, links[applet])
		}
	}
	if _, ok := links["/bin/bash"]; ok {
		t.Error("busybox image has bash")
	}
}

func TestArchiveName(t *testing.T) {
	if got := images.ArchiveName(images.BusyboxRef); got != "busybox-1.tar" {
		t.Errorf("ArchiveName = %q", got)
	}
}
