package vocab

import (
	"errors"
	"fmt"
	"strings"
)

// CopyDirection says which way a file copy goes.
type CopyDirection int

const (
	// CopyToContainer copies a local file or folder into the container
	// (`kubectl cp ./web.conf pod:/etc/nginx/`).
	CopyToContainer CopyDirection = iota + 1
	// CopyFromContainer copies a container's file or folder to the local
	// machine (`kubectl cp pod:/var/log/app ./app-logs`).
	CopyFromContainer
)

// String is "to" or "from".
func (d CopyDirection) String() string {
	switch d {
	case CopyToContainer:
		return "to"
	case CopyFromContainer:
		return "from"
	}
	return "?"
}

// CopyRequest is one copy between a local path and a container's, as
// `kubectl cp` copies: through a tar stream over pods/exec (tar runs in
// the container), so it passes the exec's guards.
type CopyRequest struct {
	// Namespace and Pod name the pod; UID is the metadata.uid the person
	// saw ("" skips the check, for a typed name).
	Namespace, Pod, UID string
	// Container is the container; "" means the pod's only container.
	Container string
	// Direction is the way the copy goes.
	Direction CopyDirection
	// Local is the local path: the file or folder copied (to the
	// container), or where the copy lands (from it): an existing folder
	// receives it under its own name, any other path names it.
	Local string
	// Remote is the container's path, absolute or relative to the
	// container's working folder: the file or folder copied (from the
	// container), or where the copy lands (to it), with Local's rule.
	Remote string
	// Confirmed lists the warning reasons the person accepted (an exec's
	// Pod Security warning); a warning not among them refuses.
	Confirmed []Reason
}

// CopyProgress is how far a copy is: Done bytes of the files' contents of
// Total (-1 when not known: the size of a container's files is not read
// before the copy), Final on the last report. Reports come at most every
// 100 ms.
type CopyProgress struct {
	Done, Total int64
	Final       bool
}

// CopyResult is what a copy carried and where it landed.
type CopyResult struct {
	// Container is the container copied to or from.
	Container string
	// Dest is where the copy landed: the container's path (to it) or the
	// local path (from it).
	Dest string
	// Files, Dirs and Links count the regular files, folders and links
	// (symbolic and hard) carried.
	Files, Dirs, Links int
	// Bytes is the size of the files' contents, in bytes.
	Bytes int64
}

// Summary says what the copy carried: "3 files, 1 folder, 1 link (1.2
// MiB)"; counts of zero are left out ("1 file (12 B)").
func (r CopyResult) Summary() string {
	var parts []string
	for _, c := range []struct {
		n    int
		noun string
	}{{r.Files, "file"}, {r.Dirs, "folder"}, {r.Links, "link"}} {
		if c.n > 0 {
			parts = append(parts, Plural(c.n, c.noun))
		}
	}
	if len(parts) == 0 {
		parts = []string{"nothing"}
	}
	return fmt.Sprintf("%s (%s)", strings.Join(parts, ", "), Bytes(r.Bytes))
}

// Errors of file copies.
var (
	// ErrCopyNoTar: the container has no tar (kubectl cp needs it too).
	ErrCopyNoTar = errors.New("the container has no tar, which a copy runs in it (kubectl cp needs it too)")
	// ErrCopyNotFound: the path to copy does not exist (locally, or in
	// the container: tar's own words follow).
	ErrCopyNotFound = errors.New("no such file or folder")
	// ErrCopyFailed: tar in the container ended with a non-zero exit
	// status; its own words follow.
	ErrCopyFailed = errors.New("the copy failed in the container")
)
