package filecopy_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube/internal/filecopy"
)

// FuzzStage: whatever the stream, nothing is written outside dest; a
// refused stream leaves dest empty; a staged one has every link resolve
// inside the staging folder.
func FuzzStage(f *testing.F) {
	seeds := [][]entry{
		{file("app/a", "x"), file("../evil", "x")},
		{symlink("app", "/tmp"), file("app/x", "x")},
		{dir("app/"), symlink("app/d", "."), symlink("app/e", "d/../..")},
		{file("app/a", "x"), hardlink("app/b", "app/a"), symlink("app/c", "a")},
		{dir("app/"), symlink("app/a", "b"), symlink("app/b", "a")},
	}
	for _, s := range seeds {
		f.Add(archive(f, s...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		outer, dest := sandbox(t)
		st, err := filecopy.Stage(bytes.NewReader(data), dest, filecopy.StageOptions{})
		if got := names(t, outer); !slices.Equal(got, []string{"dest"}) {
			t.Fatalf("outside dest: %v", got)
		}
		if err != nil {
			if got := names(t, dest); len(got) != 0 {
				t.Fatalf("refused (%v) but dest holds %v", err, got)
			}
			return
		}
		defer st.Discard()
		staging := filepath.Join(dest, names(t, dest)[0])
		real, _ := filepath.EvalSymlinks(staging)
		_ = filepath.Walk(staging, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.Mode()&os.ModeSymlink == 0 {
				return nil
			}
			if r, err := filepath.EvalSymlinks(p); err == nil && r != real && !strings.HasPrefix(r, real+string(filepath.Separator)) {
				t.Fatalf("link %s resolves to %s, outside %s", p, r, real)
			}
			return nil
		})
	})
}
