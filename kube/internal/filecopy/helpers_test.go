package filecopy_test

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// entry is one entry of a test archive.
type entry struct {
	name, link string
	typ        byte
	mode       int64
	body       string
}

func file(name, body string) entry {
	return entry{name: name, typ: tar.TypeReg, mode: 0o644, body: body}
}
func dir(name string) entry { return entry{name: name, typ: tar.TypeDir, mode: 0o755} }
func symlink(name, target string) entry {
	return entry{name: name, typ: tar.TypeSymlink, link: target, mode: 0o777}
}
func hardlink(name, target string) entry {
	return entry{name: name, typ: tar.TypeLink, link: target, mode: 0o644}
}

// archive returns the tar stream of es.
func archive(t testing.TB, es ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range es {
		h := &tar.Header{Name: e.name, Linkname: e.link, Typeflag: e.typ, Mode: e.mode, Size: int64(len(e.body))}
		if e.typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sandbox returns outer (a folder holding only dest) and dest.
func sandbox(t testing.TB) (outer, dest string) {
	t.Helper()
	outer = t.TempDir()
	dest = filepath.Join(outer, "dest")
	if err := os.Mkdir(dest, 0o755); err != nil {
		t.Fatal(err)
	}
	return outer, dest
}

// names lists a folder's entries.
func names(t testing.TB, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}
