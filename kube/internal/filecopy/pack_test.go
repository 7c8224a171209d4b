package filecopy_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube/internal/filecopy"
)

// tree writes a folder with a nested folder, a link and a 1 MiB file.
func tree(t testing.TB) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "data")
	for _, d := range []string{src, filepath.Join(src, "nested", "deeper")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	files := map[string][]byte{"big.bin": big, "nested/a.txt": []byte("a\n"), "nested/deeper/empty": nil}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(src, n), b, 0o640); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("nested/a.txt", filepath.Join(src, "link")); err != nil {
		t.Fatal(err)
	}
	return src
}

func TestPackThenStageRoundTrip(t *testing.T) {
	src := tree(t)
	total, err := filecopy.LocalSize(src)
	if err != nil || total != 1<<20+2 {
		t.Fatalf("LocalSize = %d, %v; want %d", total, err, 1<<20+2)
	}
	var reports []filecopy.Progress
	m := filecopy.NewMeter(total, time.Hour, nil, func(p filecopy.Progress) { reports = append(reports, p) })
	var buf bytes.Buffer
	st, err := filecopy.Pack(&buf, src, m)
	if err != nil {
		t.Fatal(err)
	}
	if want := (filecopy.Stats{Files: 3, Dirs: 3, Links: 1, Bytes: total}); st != want {
		t.Errorf("packed %+v; want %+v", st, want)
	}
	if fin := m.Finish(); fin.Done != total || fin.Total != total || !fin.Final {
		t.Errorf("final progress %+v", fin)
	}
	_, dest := sandbox(t)
	staged, err := filecopy.Stage(&buf, dest, filecopy.StageOptions{Top: "data"})
	if err != nil {
		t.Fatal(err)
	}
	if err := staged.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"big.bin", "nested/a.txt", "nested/deeper/empty", "link"} {
		want, _ := os.ReadFile(filepath.Join(src, n))
		got, err := os.ReadFile(filepath.Join(dest, "data", n))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, %v; want %d bytes", n, len(got), err, len(want))
		}
	}
	if l, err := os.Readlink(filepath.Join(dest, "data", "link")); err != nil || l != "nested/a.txt" {
		t.Errorf("link -> %q, %v", l, err)
	}
}

func TestPackRefusesPipesAndNamesTheFolderItself(t *testing.T) {
	src := filepath.Join(t.TempDir(), "d")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(src, "fifo"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if _, err := filecopy.Pack(&bytes.Buffer{}, src, nil); !errors.Is(err, filecopy.ErrNotCopyable) {
		t.Errorf("a named pipe: %v; want ErrNotCopyable", err)
	}
	if _, err := filecopy.Pack(&bytes.Buffer{}, "/", nil); err == nil {
		t.Error(`Pack("/") packed; want an error`)
	}
	if _, err := filecopy.Pack(&bytes.Buffer{}, filepath.Join(src, "missing"), nil); err == nil {
		t.Error("a missing file packed; want an error")
	}
}

func TestMeterReportsAtABoundedRate(t *testing.T) {
	now := time.Unix(0, 0)
	var reports []filecopy.Progress
	m := filecopy.NewMeter(100, 100*time.Millisecond, func() time.Time { return now },
		func(p filecopy.Progress) { reports = append(reports, p) })
	for i := 0; i < 50; i++ { // 50 adds over 490 ms: 5 reports at most
		m.Add(3)
		now = now.Add(10 * time.Millisecond)
	}
	if len(reports) != 5 {
		t.Errorf("%d reports for 50 adds over 490 ms at 100 ms; want 5", len(reports))
	}
	fin := m.Finish()
	if fin.Done != 150 || fin.Total != 150 || !fin.Final {
		t.Errorf("final %+v; want 150 of 150 (an estimate below the real size reports the real size)", fin)
	}
	var nilMeter *filecopy.Meter
	nilMeter.Add(1)
	if p := nilMeter.Finish(); p.Total != -1 || nilMeter.Done() != 0 {
		t.Errorf("nil meter %+v", p)
	}
}

// TestPackAsAndCommitAs: a copy to a new name, both ways: PackAs names
// the entries after the new name, CommitAs moves the one top-level name
// in as another; several names, or a name that is a path, are refused
// and nothing is moved.
func TestPackAsAndCommitAs(t *testing.T) {
	src := tree(t)
	var buf bytes.Buffer
	if _, err := filecopy.PackAs(&buf, src, "renamed", nil); err != nil {
		t.Fatal(err)
	}
	packed := buf.Bytes()
	_, dest := sandbox(t)
	staged, err := filecopy.Stage(bytes.NewReader(packed), dest, filecopy.StageOptions{Top: "renamed"})
	if err != nil {
		t.Fatal(err)
	}
	if err := staged.CommitAs("again"); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dest); len(got) != 1 || got[0] != "again" {
		t.Fatalf("dest holds %v, want [again]", got)
	}
	if b, err := os.ReadFile(filepath.Join(dest, "again", "nested", "a.txt")); err != nil || len(b) == 0 {
		t.Fatalf("again/nested/a.txt: %v", err)
	}
	for _, bad := range []string{"", ".", "..", "a/b"} {
		if _, err := filecopy.PackAs(io.Discard, src, bad, nil); bad != "" && err == nil {
			t.Errorf("PackAs %q: no error", bad)
		}
		staged, err := filecopy.Stage(bytes.NewReader(packed), dest, filecopy.StageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := staged.CommitAs(bad); err == nil {
			t.Errorf("CommitAs %q: no error", bad)
		}
	}
	two := archive(t, file("a", "1"), file("b", "2"))
	staged, err = filecopy.Stage(bytes.NewReader(two), dest, filecopy.StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := staged.CommitAs("c"); err == nil {
		t.Error("CommitAs of two names: no error")
	}
	if got := names(t, dest); len(got) != 1 {
		t.Errorf("after the refusals dest holds %v (staging folders left?)", got)
	}
}
