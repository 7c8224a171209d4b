package shells

// File copies between the local machine and a container, as kubectl cp
// makes them (k8s.io/kubectl/pkg/cmd/cp): a tar stream over pods/exec,
// tar running in the container. What comes out of a container is checked
// entry by entry before anything lands (kube/internal/filecopy: the path
// traversal shapes of CVE-2018-1002100, CVE-2019-1002101, CVE-2019-11246
// and CVE-2019-11249 are refused whole), and lands only once all of it
// was read and the container's tar said it succeeded.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/kyyard/kyyard/kube/internal/filecopy"
	"github.com/kyyard/kyyard/kube/vocab"
)

// copyStderrLimit bounds what is kept of the container tar's stderr.
const copyStderrLimit = 4096

// errLocalEnded ends the container side when the local side failed.
var errLocalEnded = errors.New("the local side of the copy ended")

// Copy copies req's file or folder, to or from the container, through
// the exec guards first (PlanExec: read-only, the SelfSubjectAccessReview
// of create pods/exec, the pod by UID, the container running, Pod
// Security; a warning not in req.Confirmed refuses), reporting progress
// (may be nil) at most every 100 ms. Paths follow kubectl cp: a
// destination that is an existing folder receives the copy under its own
// name, any other destination names it (its folder must exist). To the
// container: `test -d` on the destination, then `tar -xmf - -C <folder>`
// fed from the local tar; symbolic links are copied as links, devices and
// pipes refused. From it: `tar cf - -C <folder> <name>` read into a
// staging folder next to the destination, committed only when the stream
// ended, whole and safe, and tar exited 0 (an existing folder is never
// merged into: ErrExists). Errors: vocab.ErrInvalid (an empty path, "/",
// a remote path with "..", a local destination whose folder is missing);
// vocab.ErrCopyNotFound (the source missing, locally or in the container,
// with tar's words); vocab.ErrCopyNoTar; vocab.ErrCopyFailed (tar exited
// non-zero: its words); filecopy's refusals (ErrUnsafeArchive, ErrExists,
// ErrNotCopyable); OpenExec's refusals and a session's errors.
func (c *Shells) Copy(ctx context.Context, req vocab.CopyRequest, progress func(vocab.CopyProgress)) (vocab.CopyResult, error) {
	var res vocab.CopyResult
	remote, err := cleanRemote(req.Remote)
	if err != nil {
		return res, err
	}
	if req.Local == "" {
		return res, fmt.Errorf("%w: name the local file or folder", vocab.ErrInvalid)
	}
	if req.Direction != vocab.CopyToContainer && req.Direction != vocab.CopyFromContainer {
		return res, fmt.Errorf("%w: a copy goes to or from the container", vocab.ErrInvalid)
	}
	var local localPlan
	if req.Direction == vocab.CopyToContainer {
		if _, err := os.Lstat(req.Local); err != nil {
			return res, localMissing(req.Local, err)
		}
	} else if local, err = planLocalDest(req.Local); err != nil {
		return res, err
	}
	if c.Config == nil && c.Dial == nil {
		return res, vocab.ErrExecUnavailable
	}
	plan, err := c.PlanExec(ctx, vocab.ExecRequest{Namespace: req.Namespace, Pod: req.Pod, UID: req.UID, Container: req.Container})
	if err != nil {
		return res, err
	}
	if r := plan.Verdicts.Unconfirmed(req.Confirmed); r != nil {
		return res, execRefused(plan.Verdicts, r)
	}
	res.Container = plan.Container
	call := Call{namespace: req.Namespace, pod: req.Pod, container: plan.Container}
	report := func(p filecopy.Progress) {
		if progress != nil {
			progress(vocab.CopyProgress{Done: p.Done, Total: p.Total, Final: p.Final})
		}
	}
	if req.Direction == vocab.CopyToContainer {
		return c.copyTo(ctx, call, req.Local, remote, report, res)
	}
	return c.copyFrom(ctx, call, remote, local, report, res)
}

// cleanRemote returns the container path cleaned, or why it is refused.
func cleanRemote(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", fmt.Errorf("%w: name the container's path", vocab.ErrInvalid)
	}
	for _, el := range strings.Split(p, "/") {
		if el == ".." {
			return "", fmt.Errorf("%w: the container path %q has ..: name the path itself", vocab.ErrInvalid, p)
		}
	}
	clean := path.Clean(p)
	if clean == "/" || clean == "." {
		return "", fmt.Errorf("%w: the container path %q names no file or folder", vocab.ErrInvalid, p)
	}
	return clean, nil
}

// localMissing is the error of a local source that cannot be read.
func localMissing(p string, err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: %w", p, vocab.ErrCopyNotFound)
	}
	return err
}

// localPlan is where a copy from the container lands: in folder, under
// the container's name (as "") or as another name.
type localPlan struct {
	folder, as string
}

// planLocalDest applies kubectl cp's rule to a local destination.
func planLocalDest(p string) (localPlan, error) {
	clean := filepath.Clean(p)
	if fi, err := os.Stat(clean); err == nil && fi.IsDir() {
		return localPlan{folder: clean}, nil
	}
	folder, name := filepath.Dir(clean), filepath.Base(clean)
	if name == "." || name == ".." || name == string(filepath.Separator) {
		return localPlan{}, fmt.Errorf("%w: %q names no file or folder to copy to", vocab.ErrInvalid, p)
	}
	if fi, err := os.Stat(folder); err != nil || !fi.IsDir() {
		return localPlan{}, fmt.Errorf("%w: %s: no such local folder to copy into", vocab.ErrInvalid, folder)
	}
	return localPlan{folder: folder, as: name}, nil
}

// run runs argv in call's container with streams, returning its exit code
// and the first copyStderrLimit bytes of its stderr. A container without
// tar is ErrCopyNoTar.
func (c *Shells) run(ctx context.Context, call Call, argv []string, stdin io.Reader, stdout io.Writer) (int, string, error) {
	call.argv = argv
	s := &execSession{client: c, call: call}
	errOut := &limitedBuffer{limit: copyStderrLimit}
	if stdout == nil {
		stdout = io.Discard
	}
	r, err := s.Run(ctx, vocab.ExecStreams{Stdin: stdin, Stdout: stdout, Stderr: errOut}, vocab.ExecLimits{})
	text := strings.TrimSpace(errOut.String())
	switch {
	case err != nil && noTarText(err.Error()):
		return 0, text, fmt.Errorf("%w (%v)", vocab.ErrCopyNoTar, err)
	case err != nil:
		return 0, text, err
	case (r.ExitCode == 126 || r.ExitCode == 127) && (text == "" || noTarText(text)):
		return 0, text, fmt.Errorf("%w (exit status %d)", vocab.ErrCopyNoTar, r.ExitCode)
	}
	return r.ExitCode, text, nil
}

// noTarText reports whether a runtime's message says the command (tar,
// test) was not found in the container.
func noTarText(msg string) bool {
	msg = strings.ToLower(msg)
	for _, s := range []string{"executable file not found", "not found in $path", "exit code 127", "exit status 127"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// tarFailed is tar's non-zero exit as an error: ErrCopyNotFound when its
// words say the path is missing (out: the path copied; in: the folder it
// extracts in, busybox's "can't change directory", GNU tar's "Cannot
// chdir"), ErrCopyFailed otherwise: a read-only file system or a
// permission denied is that, even when tar goes on to say of the next
// entries that they do not exist.
func tarFailed(code int, stderr, what string, in bool) error {
	if stderr == "" {
		stderr = fmt.Sprintf("exit status %d", code)
	}
	low := strings.ToLower(stderr)
	missing := strings.Contains(low, "no such file or directory")
	if in {
		missing = missing && (strings.Contains(low, "change directory") || strings.Contains(low, "chdir"))
	}
	if missing && !strings.Contains(low, "read-only file system") && !strings.Contains(low, "permission denied") {
		return fmt.Errorf("%s: %w in the container (tar: %s)", what, vocab.ErrCopyNotFound, stderr)
	}
	return fmt.Errorf("%w (exit status %d): %s", vocab.ErrCopyFailed, code, stderr)
}

// copyTo sends local into the container at remote.
func (c *Shells) copyTo(ctx context.Context, call Call, local, remote string, report func(filecopy.Progress), res vocab.CopyResult) (vocab.CopyResult, error) {
	code, _, err := c.run(ctx, call, []string{"test", "-d", remote}, nil, nil)
	if err != nil {
		return res, err
	}
	folder, name := remote, filepath.Base(filepath.Clean(local))
	if code != 0 {
		folder, name = path.Dir(remote), path.Base(remote)
		// The folder it goes into must exist: found before any byte is
		// sent, since a tar that fails at once while a large stream is
		// still being written to it can leave the stream stalled.
		code, _, err = c.run(ctx, call, []string{"test", "-d", folder}, nil, nil)
		if err != nil {
			return res, err
		}
		if code != 0 {
			return res, fmt.Errorf("%s: %w in the container (the folder %s is not there)", remote, vocab.ErrCopyNotFound, folder)
		}
	}
	total, err := filecopy.LocalSize(local)
	if err != nil {
		return res, localMissing(local, err)
	}
	meter := filecopy.NewMeter(total, 0, nil, report)
	pr, pw := io.Pipe()
	packed := make(chan error, 1)
	var stats filecopy.Stats
	go func() {
		var err error
		stats, err = filecopy.PackAs(pw, local, name, meter)
		pw.CloseWithError(err)
		packed <- err
	}()
	code, stderr, err := c.run(ctx, call, []string{"tar", "-xmf", "-", "-C", folder}, pr, nil)
	pr.CloseWithError(errLocalEnded)
	packErr := <-packed
	switch {
	case packErr != nil && !errors.Is(packErr, errLocalEnded) && !errors.Is(packErr, io.ErrClosedPipe):
		return res, fmt.Errorf("packing %s: %w", local, packErr)
	case err != nil:
		return res, err
	case code != 0:
		return res, tarFailed(code, stderr, folder, true)
	}
	meter.Finish()
	res.Dest = path.Join(folder, name)
	res.Files, res.Dirs, res.Links, res.Bytes = stats.Files, stats.Dirs, stats.Links, stats.Bytes
	return res, nil
}

// copyFrom reads remote out of the container into local's plan.
func (c *Shells) copyFrom(ctx context.Context, call Call, remote string, local localPlan, report func(filecopy.Progress), res vocab.CopyResult) (vocab.CopyResult, error) {
	folder, name := path.Dir(remote), path.Base(remote)
	meter := filecopy.NewMeter(-1, 0, nil, report)
	pr, pw := io.Pipe()
	type staging struct {
		st  *filecopy.Staged
		err error
	}
	staged := make(chan staging, 1)
	go func() {
		st, err := filecopy.Stage(pr, local.folder, filecopy.StageOptions{Top: name, Meter: meter})
		// Whatever Stage left unread (a refusal stops it) is drained so
		// that the container's tar is not blocked writing.
		_, _ = io.Copy(io.Discard, pr)
		staged <- staging{st, err}
	}()
	code, stderr, err := c.run(ctx, call, []string{"tar", "cf", "-", "-C", folder, name}, nil, pw)
	pw.Close()
	s := <-staged
	discard := func() {
		if s.st != nil {
			s.st.Discard()
		}
	}
	switch {
	case err != nil:
		discard()
		return res, err
	case code != 0:
		discard()
		return res, tarFailed(code, stderr, remote, false)
	case s.err != nil:
		return res, s.err
	}
	if local.as != "" {
		err = s.st.CommitAs(local.as)
		res.Dest = filepath.Join(local.folder, local.as)
	} else {
		err = s.st.Commit()
		res.Dest = filepath.Join(local.folder, name)
	}
	if err != nil {
		return res, err
	}
	meter.Finish()
	res.Files, res.Dirs, res.Links, res.Bytes = s.st.Stats.Files, s.st.Stats.Dirs, s.st.Stats.Links, s.st.Stats.Bytes
	return res, nil
}
