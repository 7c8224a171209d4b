package filecopy

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// maxLinkHops bounds how many links one resolution follows (Linux's
// ELOOP limit is 40).
const maxLinkHops = 40

// checkLinks resolves every symbolic link made through the links it
// passes (CVE-2019-11249's class: "a -> ." then "a/b -> a/../.." is inside
// by its text, outside on disk) and refuses one that leaves the staging
// folder or loops.
func (s *stager) checkLinks() error {
	names := make([]string, 0, len(s.links))
	for n := range s.links {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if why := s.resolve(n); why != "" {
			return &UnsafeEntryError{Name: n, Why: why}
		}
	}
	return nil
}

// resolve follows the link name the way the kernel would, inside the
// staging folder, and says why it leaves it ("" when it stays).
func (s *stager) resolve(name string) string {
	target, err := s.root.Readlink(name)
	if err != nil {
		return "its link cannot be read: " + err.Error()
	}
	cur := strings.Split(path.Dir(name), "/")
	if cur[0] == "." {
		cur = nil
	}
	pending := strings.Split(target, "/")
	hops := 0
	for len(pending) > 0 {
		el := pending[0]
		pending = pending[1:]
		switch el {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return fmt.Sprintf("a symbolic link whose target (%s), followed through the archive's other links, leaves the folder", target)
			}
			cur = cur[:len(cur)-1]
			continue
		}
		cur = append(cur, el)
		p := strings.Join(cur, "/")
		fi, err := s.root.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			continue // a file, a folder, or nothing (a dangling link stays dangling inside)
		}
		if hops++; hops > maxLinkHops {
			return "a symbolic link that loops"
		}
		t, err := s.root.Readlink(p)
		if err != nil || strings.HasPrefix(t, "/") {
			return "a symbolic link through " + p + ", which points to an absolute path"
		}
		cur = cur[:len(cur)-1]
		pending = append(strings.Split(t, "/"), pending...)
	}
	return ""
}

// Tops are the names Commit creates in the folder, in the archive's
// order.
func (st *Staged) Tops() []string { return append([]string(nil), st.tops...) }

// Commit moves what was staged into the folder: each top-level name
// renamed from the staging folder, which is then removed. A name there
// already is replaced only when both are regular files; otherwise Commit
// moves nothing and returns ErrExists naming it (the staging folder is
// removed). Errors: ErrExists; a rename failed (what was moved before it
// stays, the error names it).
func (st *Staged) Commit() error { return st.commit(nil) }

// CommitAs is Commit of an archive of one top-level name, moved into the
// folder as name instead (`kubectl cp pod:/var/log/app ./app-logs`).
// Errors: Commit's; the archive holds several names, or name is not one
// plain name (nothing is moved; the staging folder is removed).
func (st *Staged) CommitAs(name string) error {
	if len(st.tops) != 1 {
		st.Discard()
		return fmt.Errorf("the archive holds %d names, not one to copy as %q", len(st.tops), name)
	}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		st.Discard()
		return fmt.Errorf("%q: the name to copy as must be one plain name", name)
	}
	return st.commit(map[string]string{st.tops[0]: name})
}

// commit moves each top-level name to its name in as (itself when absent).
func (st *Staged) commit(as map[string]string) error {
	defer st.Discard()
	target := func(t string) string {
		if n, ok := as[t]; ok {
			return n
		}
		return t
	}
	for _, t := range st.tops {
		old, err := os.Lstat(filepath.Join(st.dest, target(t)))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		staged, err := os.Lstat(filepath.Join(st.dir, t))
		if err != nil {
			return err
		}
		if !old.Mode().IsRegular() || !staged.Mode().IsRegular() {
			return fmt.Errorf("%s: %w (remove it, or copy into another folder)", filepath.Join(st.dest, target(t)), ErrExists)
		}
	}
	for i, t := range st.tops {
		if err := os.Rename(filepath.Join(st.dir, t), filepath.Join(st.dest, target(t))); err != nil {
			if i > 0 {
				return fmt.Errorf("%w (moved before it: %s)", err, strings.Join(st.tops[:i], ", "))
			}
			return err
		}
	}
	return nil
}

// Discard removes the staging folder and what is in it (links are
// removed, never followed). Calling it after Commit, or twice, is a
// no-op.
func (st *Staged) Discard() {
	if st.dir != "" {
		_ = os.RemoveAll(st.dir)
		st.dir = ""
	}
}
