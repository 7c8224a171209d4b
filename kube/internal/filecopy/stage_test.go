package filecopy_test

import (
	"archive/tar"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube/internal/filecopy"
)

// refused stages data into a fresh folder and checks that it is refused
// as unsafe, naming entry and saying why (a part of), and that nothing
// was written: dest is empty and outer holds dest alone.
func refused(t *testing.T, data []byte, top, entry, why string) {
	t.Helper()
	outer, dest := sandbox(t)
	st, err := filecopy.Stage(bytes.NewReader(data), dest, filecopy.StageOptions{Top: top})
	if err == nil {
		st.Discard()
		t.Fatalf("staged; want the archive refused for %q", entry)
	}
	var ue *filecopy.UnsafeEntryError
	if !errors.As(err, &ue) || !errors.Is(err, filecopy.ErrUnsafeArchive) {
		t.Fatalf("error %v (%T); want an *UnsafeEntryError", err, err)
	}
	if ue.Name != entry || !strings.Contains(ue.Why, why) {
		t.Errorf("refused entry %q because %q; want %q because ...%q...", ue.Name, ue.Why, entry, why)
	}
	if got := names(t, dest); len(got) != 0 {
		t.Errorf("dest holds %v after a refusal; want nothing", got)
	}
	if got := names(t, outer); !slices.Equal(got, []string{"dest"}) {
		t.Errorf("outside dest: %v; want only dest", got)
	}
}

// CVE-2018-1002100: kubectl cp wrote an entry named "../x" outside the
// destination.
func TestCVE2018_1002100DotDotName(t *testing.T) {
	refused(t, archive(t, file("app/ok.txt", "ok"), file("../evil.txt", "x")), "", "../evil.txt", "..")
	refused(t, archive(t, file("app/../../evil.txt", "x")), "", "app/../../evil.txt", "..")
	refused(t, archive(t, file("/tmp/evil.txt", "x")), "", "/tmp/evil.txt", "absolute")
	// Even a ".." that cleans to inside is refused: kubectl's later fix
	// refused such names too, and no tar of a path writes one.
	refused(t, archive(t, file("app/x/../ok.txt", "x")), "", "app/x/../ok.txt", "..")
}

// CVE-2019-1002101: a symbolic link to a folder outside, then a file
// written through it.
func TestCVE2019_1002101LinkThenWriteThrough(t *testing.T) {
	refused(t, archive(t, symlink("app", "/tmp"), file("app/evil.txt", "x")), "", "app", "absolute")
	refused(t, archive(t, dir("app/"), symlink("app/up", "../.."), file("app/up/evil.txt", "x")), "", "app/up", "leaves the folder")
	// A link inside, written through: refused too (the write would land
	// where the link says, not where the name says).
	refused(t, archive(t, dir("app/"), dir("app/b/"), symlink("app/l", "b"), file("app/l/x", "x")), "", "app/l/x", "written through app/l")
	// A file replaced by a link after, or a link by a file: never both.
	refused(t, archive(t, symlink("app", "."), file("app", "x")), "", "app", "twice")
}

// CVE-2019-11246: the fix of CVE-2019-1002101 still let a link whose
// relative target climbs out from a nested folder through.
func TestCVE2019_11246NestedRelativeLink(t *testing.T) {
	refused(t, archive(t, dir("app/"), dir("app/a/"), dir("app/a/b/"), symlink("app/a/b/l", "../../../../etc")), "", "app/a/b/l", "leaves the folder")
	refused(t, archive(t, hardlink("app", "../../etc/passwd")), "", "app", "hard link")
	refused(t, archive(t, file("app/a", "x"), hardlink("app/b", "app/c")), "", "app/b", "not a file the archive wrote")
}

// CVE-2019-11249: a link whose target is inside by its text but leaves
// once the archive's other links are followed ("d -> .", then
// "e -> d/../.." from the same folder).
func TestCVE2019_11249LinkThroughLinks(t *testing.T) {
	refused(t, archive(t, dir("app/"), symlink("app/d", "."), symlink("app/e", "d/../..")), "", "app/e", "followed through")
	refused(t, archive(t, dir("app/"), symlink("app/a", "b"), symlink("app/b", "a")), "", "app/a", "loops")
}

// Entries of a kind never written, and names outside the path asked for.
func TestStageRefusesDevicesPipesAndStrangers(t *testing.T) {
	refused(t, archive(t, dir("app/"), entry{name: "app/null", typ: tar.TypeChar}), "", "app/null", "device")
	refused(t, archive(t, entry{name: "app/disk", typ: tar.TypeBlock}), "", "app/disk", "device")
	refused(t, archive(t, entry{name: "app/fifo", typ: tar.TypeFifo}), "", "app/fifo", "named pipe")
	refused(t, archive(t, file("app/a", "x"), file("other/b", "y")), "app", "other/b", "not under app")
	refused(t, archive(t, file("app/a", "x"), file("app/a", "y")), "", "app/a", "twice")
	refused(t, archive(t, file("", "x")), "", "", "no name")
}

func TestStageEmptyAndMalformed(t *testing.T) {
	_, dest := sandbox(t)
	if _, err := filecopy.Stage(bytes.NewReader(nil), dest, filecopy.StageOptions{}); !errors.Is(err, filecopy.ErrEmptyArchive) {
		t.Errorf("empty stream: %v; want ErrEmptyArchive", err)
	}
	data := archive(t, file("app/a", strings.Repeat("x", 2000)))
	if _, err := filecopy.Stage(bytes.NewReader(data[:700]), dest, filecopy.StageOptions{}); err == nil {
		t.Error("a cut stream staged; want an error")
	}
	if _, err := filecopy.Stage(strings.NewReader(strings.Repeat("not tar ", 200)), dest, filecopy.StageOptions{}); err == nil {
		t.Error("text staged; want an error")
	}
	if got := names(t, dest); len(got) != 0 {
		t.Errorf("dest holds %v; want nothing", got)
	}
	if _, err := filecopy.Stage(bytes.NewReader(data), filepath.Join(dest, "missing"), filecopy.StageOptions{}); err == nil {
		t.Error("a missing destination staged; want an error")
	}
}

func TestStageLimitsModesAndKeepsInsideLinks(t *testing.T) {
	_, dest := sandbox(t)
	data := archive(t, dir("app/"), entry{name: "app/suid", typ: tar.TypeReg, mode: 0o6777, body: "#!"},
		file("app/sub/deep.txt", "deep"), symlink("app/l", "sub/deep.txt"), symlink("app/sub/up", "../suid"),
		hardlink("app/h", "app/suid"), symlink("app/dangling", "nowhere"))
	st, err := filecopy.Stage(bytes.NewReader(data), dest, filecopy.StageOptions{Top: "app"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (filecopy.Stats{Files: 2, Dirs: 2, Links: 4, Bytes: 6}); st.Stats != want {
		t.Errorf("stats %+v; want %+v", st.Stats, want)
	}
	if got := names(t, dest); len(got) != 1 || !strings.HasPrefix(got[0], ".kyyard-cp-") {
		t.Errorf("before Commit dest holds %v; want the staging folder alone", got)
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dest); !slices.Equal(got, []string{"app"}) {
		t.Errorf("after Commit dest holds %v; want [app]", got)
	}
	fi, err := os.Stat(filepath.Join(dest, "app/suid"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&(os.ModeSetuid|os.ModeSetgid|os.ModeSticky) != 0 || fi.Mode().Perm()&0o022 != 0 {
		t.Errorf("mode %v; want no setuid, setgid, sticky, group or other write", fi.Mode())
	}
	if b, err := os.ReadFile(filepath.Join(dest, "app/l")); err != nil || string(b) != "deep" {
		t.Errorf("through the inside link: %q, %v", b, err)
	}
}

func TestCommitReplacesFilesOnlyAndRefusesFolders(t *testing.T) {
	_, dest := sandbox(t)
	if err := os.WriteFile(filepath.Join(dest, "a.txt"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := filecopy.Stage(bytes.NewReader(archive(t, file("a.txt", "new"))), dest, filecopy.StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "a.txt")); string(b) != "new" {
		t.Errorf("a.txt = %q; want new", b)
	}
	if err := os.Mkdir(filepath.Join(dest, "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	st, err = filecopy.Stage(bytes.NewReader(archive(t, file("app/x", "x"))), dest, filecopy.StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(); !errors.Is(err, filecopy.ErrExists) {
		t.Errorf("Commit over a folder: %v; want ErrExists", err)
	}
	if got := names(t, dest); !slices.Equal(got, []string{"a.txt", "app"}) {
		t.Errorf("dest holds %v; want [a.txt app] (the staging folder removed)", got)
	}
}
