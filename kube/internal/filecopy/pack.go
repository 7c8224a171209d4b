package filecopy

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

// Stats counts what a copy carried.
type Stats struct {
	// Files, Dirs and Links are the regular files, folders and links
	// (symbolic and hard) written.
	Files, Dirs, Links int
	// Bytes is the size of the files' contents, in bytes.
	Bytes int64
}

// ErrNotCopyable: a local entry is neither a regular file, a folder nor a
// symbolic link (a device, a socket, a named pipe), so it is not packed.
var ErrNotCopyable = errors.New("not a regular file, folder or symbolic link")

// LocalSize returns the bytes of the regular files' contents at src (a
// file, or a folder walked without following links): a copy-in's total.
// Errors: src cannot be read.
func LocalSize(src string) (int64, error) {
	var total int64
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			total += fi.Size()
		}
		return nil
	})
	return total, err
}

// Pack writes src (a local file or folder) to w as a tar stream whose
// entries are named after src's last element ("logs", "logs/a.txt"), as
// `tar cf - -C $(dirname src) $(basename src)` writes them, and counts
// the contents' bytes on m (may be nil). Folders are walked without
// following symbolic links, which are packed as links; owners are not
// carried (uid and gid 0, no names: the container's tar gives the files
// to whoever runs it). Errors: src or an entry cannot be read; an entry
// that is not a regular file, a folder or a link (ErrNotCopyable, with
// its path); a write to w failed (the exec ended).
func Pack(w io.Writer, src string, m *Meter) (Stats, error) {
	return PackAs(w, src, "", m)
}

// PackAs is Pack with the entries named after as instead of src's last
// element ("" keeps it): what a copy to a new name in the container
// writes (`kubectl cp logs pod:/tmp/old-logs`). Errors: Pack's, and as
// not one plain name (empty after cleaning, ".", "..", or with a slash).
func PackAs(w io.Writer, src, as string, m *Meter) (Stats, error) {
	var st Stats
	src = filepath.Clean(src)
	base := filepath.Base(src)
	if base == "." || base == ".." || base == string(filepath.Separator) {
		return st, fmt.Errorf("%s: name a file or folder, not %q", src, base)
	}
	if as != "" {
		if as == "." || as == ".." || strings.ContainsAny(as, "/\x00") {
			return st, fmt.Errorf("%q: the name to copy as must be one plain name", as)
		}
		base = as
	}
	tw := tar.NewWriter(w)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		name := path.Join(base, filepath.ToSlash(rel))
		return packEntry(tw, p, name, d, m, &st)
	})
	if err != nil {
		return st, err
	}
	return st, tw.Close()
}

// packEntry writes one entry of Pack.
func packEntry(tw *tar.Writer, p, name string, d fs.DirEntry, m *Meter, st *Stats) error {
	fi, err := d.Info()
	if err != nil {
		return err
	}
	link := ""
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		if link, err = os.Readlink(p); err != nil {
			return err
		}
	case fi.IsDir(), fi.Mode().IsRegular():
	default:
		return fmt.Errorf("%s: %w (%s)", p, ErrNotCopyable, fi.Mode().Type())
	}
	h, err := tar.FileInfoHeader(fi, link)
	if err != nil {
		return err
	}
	h.Name, h.Uid, h.Gid, h.Uname, h.Gname = name, 0, 0, "", ""
	h.Mode &= 0o777
	h.Format = tar.FormatPAX
	if fi.IsDir() {
		h.Name += "/"
	}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	switch {
	case fi.IsDir():
		st.Dirs++
		return nil
	case link != "":
		st.Links++
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	n, err := io.Copy(tw, &meterReader{r: f, m: m})
	st.Files++
	st.Bytes += n
	if err == nil && n != h.Size {
		err = fmt.Errorf("%s changed size while it was copied (%d bytes, then %d)", p, h.Size, n)
	}
	return err
}

// meterReader counts what it reads on m.
type meterReader struct {
	r io.Reader
	m *Meter
}

// Read reads from r and counts the bytes read.
func (r *meterReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.m.Add(int64(n))
	return n, err
}
