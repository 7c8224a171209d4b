package filecopy

// Stage: a tar stream read into a staging folder made inside the chosen
// local folder (".kyyard-cp-*"), every entry checked before it is
// written, every link checked again once all are written; Commit renames
// what was staged into the folder, Discard removes it. A refused archive
// thus writes nothing in the folder (the staging folder is removed), and
// nothing at all outside it: every write goes through an os.Root of the
// staging folder, which the operating system keeps it inside even if a
// check were wrong.

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrUnsafeArchive: an entry of the archive could write outside the
// chosen folder, or is of a kind never written (a device, a named pipe):
// the whole copy is refused and nothing is written. errors.As finds the
// *UnsafeEntryError naming the entry.
var ErrUnsafeArchive = errors.New("the archive was refused and nothing was written")

// UnsafeEntryError names the entry an archive was refused for, and why.
type UnsafeEntryError struct {
	// Name is the entry's name as the archive gives it (sanitised by the
	// screens before it is shown).
	Name string
	// Why says what is wrong with it: "its name has ..", "a symbolic link
	// whose target leaves the folder", ...
	Why string
}

// Error returns "the archive was refused and nothing was written: entry
// "../x": its name has ..".
func (e *UnsafeEntryError) Error() string {
	return fmt.Sprintf("%s: entry %q: %s", ErrUnsafeArchive.Error(), e.Name, e.Why)
}

// Unwrap returns ErrUnsafeArchive.
func (e *UnsafeEntryError) Unwrap() error { return ErrUnsafeArchive }

// ErrExists: what a copy would create in the chosen folder is there
// already (and is not a regular file replaced by a regular file).
var ErrExists = errors.New("already exists")

// ErrEmptyArchive: the stream held no entry.
var ErrEmptyArchive = errors.New("the archive is empty")

// StageOptions are a Stage's choices.
type StageOptions struct {
	// Top, when set, is the one name every entry must be or be under (the
	// last element of the container path asked for): an archive that
	// brings anything else is refused.
	Top string
	// Meter counts the bytes of the files written; nil: none.
	Meter *Meter
}

// Staged is a tar stream read into a staging folder: Commit moves it into
// the folder, Discard removes it. One of them must be called.
type Staged struct {
	dest, dir string
	tops      []string
	// Stats counts what was staged.
	Stats Stats
}

// stager holds what Stage has written so far.
type stager struct {
	root  *os.Root
	opts  StageOptions
	links map[string]bool // symbolic links made
	files map[string]bool // regular files and hard links made
	dirs  map[string]bool
	tops  []string
	st    Stats
}

// Stage reads the tar stream r into a new staging folder inside dest
// (which must be an existing folder), checking each entry first: its
// name cleaned (no absolute name, no ".." element, no empty name), under
// opts.Top when set, not under a symbolic link an earlier entry made, not
// twice; a symbolic link's target relative and inside the folder (from
// the link's own folder), a hard link's target a regular file of the
// archive; no device, named pipe or other kind; modes limited to
// rwxr-xr-x (no setuid, setgid, sticky bits; the owner may always read
// and write). Once all are written, every symbolic link is resolved
// through the others and must stay inside. Errors (the staging folder is
// removed): an *UnsafeEntryError (ErrUnsafeArchive); ErrEmptyArchive; the
// stream broken or not tar; dest not a folder; a write failed.
func Stage(r io.Reader, dest string, opts StageOptions) (*Staged, error) {
	fi, err := os.Stat(dest)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", dest)
	}
	dir, err := os.MkdirTemp(dest, ".kyyard-cp-")
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	s := &stager{root: root, opts: opts, links: map[string]bool{}, files: map[string]bool{}, dirs: map[string]bool{}}
	err = s.read(r)
	if err == nil {
		err = s.checkLinks()
	}
	_ = root.Close()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return &Staged{dest: dest, dir: dir, tops: s.tops, Stats: s.st}, nil
}

// read writes every entry of r.
func (s *stager) read(r io.Reader) error {
	tr := tar.NewReader(r)
	entries := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("reading the archive: %w", err)
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		entries++
		if err := s.entry(h, tr); err != nil {
			return err
		}
	}
	if entries == 0 {
		return ErrEmptyArchive
	}
	return nil
}

// unsafe returns the refusal of entry h.
func unsafe(h *tar.Header, why string) error { return &UnsafeEntryError{Name: h.Name, Why: why} }

// cleanName returns an entry's name made relative and clean, or why it
// is refused.
func cleanName(name string) (string, string) {
	trimmed := strings.TrimSuffix(name, "/")
	switch {
	case trimmed == "" && name == "":
		return "", "it has no name"
	case strings.HasPrefix(name, "/"):
		return "", "its name is absolute"
	case strings.ContainsRune(name, 0):
		return "", "its name holds a NUL byte"
	}
	for _, el := range strings.Split(trimmed, "/") {
		if el == ".." {
			return "", "its name has .."
		}
	}
	clean := path.Clean(trimmed)
	if clean == "" {
		clean = "."
	}
	if !filepath.IsLocal(clean) && clean != "." {
		return "", "its name is not a local path"
	}
	return clean, ""
}

// entry checks and writes one entry.
func (s *stager) entry(h *tar.Header, body io.Reader) error {
	name, why := cleanName(h.Name)
	if why != "" {
		return unsafe(h, why)
	}
	if name == "." {
		if h.Typeflag == tar.TypeDir {
			return nil // "./": the folder itself
		}
		return unsafe(h, "it names the folder itself")
	}
	top, _, _ := strings.Cut(name, "/")
	if s.opts.Top != "" && top != s.opts.Top {
		return unsafe(h, "it is not under "+s.opts.Top+", the path asked for")
	}
	for p := path.Dir(name); p != "."; p = path.Dir(p) {
		if s.links[p] || s.files[p] {
			return unsafe(h, "it would be written through "+p+", which the archive made a link or a file")
		}
	}
	if s.links[name] || s.files[name] || (s.dirs[name] && h.Typeflag != tar.TypeDir) {
		return unsafe(h, "the archive has it twice")
	}
	if err := s.parents(name); err != nil {
		return err
	}
	s.addTop(top)
	switch h.Typeflag {
	case tar.TypeDir:
		if s.dirs[name] {
			return nil
		}
		s.dirs[name] = true
		s.st.Dirs++
		return s.root.Mkdir(name, dirMode(h.Mode))
	case tar.TypeReg, tar.TypeRegA:
		return s.file(name, h, body)
	case tar.TypeSymlink:
		return s.symlink(name, h)
	case tar.TypeLink:
		return s.hardlink(name, h)
	case tar.TypeChar, tar.TypeBlock:
		return unsafe(h, "it is a device file")
	case tar.TypeFifo:
		return unsafe(h, "it is a named pipe")
	}
	return unsafe(h, fmt.Sprintf("its type %q is not a file, folder or link", string(h.Typeflag)))
}

// addTop records a top-level name once.
func (s *stager) addTop(top string) {
	for _, t := range s.tops {
		if t == top {
			return
		}
	}
	s.tops = append(s.tops, top)
}

// parents makes the folders above name that no entry made.
func (s *stager) parents(name string) error {
	var missing []string
	for p := path.Dir(name); p != "." && !s.dirs[p]; p = path.Dir(p) {
		missing = append(missing, p)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := s.root.Mkdir(missing[i], 0o755); err != nil {
			return err
		}
		s.dirs[missing[i]] = true
		s.st.Dirs++
	}
	return nil
}

// dirMode is a folder's mode: the archive's rwx bits without group and
// others' write, the owner's always.
func dirMode(m int64) fs.FileMode { return fs.FileMode(m)&0o755 | 0o700 }

// fileMode is a file's mode: the archive's rwx bits without group and
// others' write (never setuid, setgid or sticky), the owner's read and
// write always.
func fileMode(m int64) fs.FileMode { return fs.FileMode(m)&0o755 | 0o600 }

// file writes a regular file's contents, creating it (never opening one
// that is there).
func (s *stager) file(name string, h *tar.Header, body io.Reader) error {
	f, err := s.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode(h.Mode))
	if err != nil {
		return err
	}
	n, err := io.Copy(f, &meterReader{r: body, m: s.opts.Meter})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	s.files[name] = true
	s.st.Files++
	s.st.Bytes += n
	return err
}

// symlink makes a symbolic link whose target, taken from the link's own
// folder, stays inside.
func (s *stager) symlink(name string, h *tar.Header) error {
	t := h.Linkname
	switch {
	case t == "":
		return unsafe(h, "a symbolic link without a target")
	case strings.HasPrefix(t, "/"):
		return unsafe(h, "a symbolic link to an absolute path ("+t+")")
	case strings.ContainsRune(t, 0):
		return unsafe(h, "a symbolic link whose target holds a NUL byte")
	}
	if !filepath.IsLocal(path.Join(path.Dir(name), t)) {
		return unsafe(h, "a symbolic link whose target ("+t+") leaves the folder")
	}
	if err := s.root.Symlink(t, name); err != nil {
		return err
	}
	s.links[name] = true
	s.st.Links++
	return nil
}

// hardlink makes a hard link to a regular file the archive wrote before.
func (s *stager) hardlink(name string, h *tar.Header) error {
	t, why := cleanName(h.Linkname)
	if why != "" {
		return unsafe(h, "a hard link whose target is refused: "+why)
	}
	if !s.files[t] {
		return unsafe(h, "a hard link to "+t+", which is not a file the archive wrote before")
	}
	if err := s.root.Link(t, name); err != nil {
		return err
	}
	s.files[name] = true
	s.st.Links++
	return nil
}
