package kube

import "context"

// CopyFile copies a file or folder between the local machine and a
// container, as `kubectl cp` does (a tar stream over pods/exec, tar
// running in the container), after the exec's guards (PlanExec; a warning
// not in req.Confirmed refuses), reporting progress (may be nil) at most
// every 100 ms. A destination that is an existing folder receives the
// copy under its own name; any other destination names it. What comes out
// of a container is read into a staging folder and checked entry by
// entry (absolute or .. names, links leaving the folder, writes through
// links, devices: the whole copy refused, nothing written) and lands
// only once tar in the container exited 0. Errors: ErrInvalid (a path
// that names nothing, a remote path with "..", a local folder missing),
// ErrCopyNotFound, ErrCopyNoTar, ErrCopyFailed (tar's words), an unsafe
// archive or an existing folder in the way (the error names the entry),
// and OpenExec's refusals and errors. See kube/internal/shells (copy.go).
func (c *Client) CopyFile(ctx context.Context, req CopyRequest, progress func(CopyProgress)) (CopyResult, error) {
	return c.shells().Copy(ctx, req, progress)
}
