package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views/history"
)

// cpTimeout bounds a whole `kyyard cp`: a large copy over a slow link
// may take long; ctrl+c ends it sooner.
const cpTimeout = time.Hour

// fileSpec is one side of `kyyard cp`: a local path, or a pod's path
// ([namespace/]pod:path).
type fileSpec struct {
	namespace, pod, path string
}

// remote reports whether the spec names a pod.
func (s fileSpec) remote() bool { return s.pod != "" }

// parseFileSpec reads a cp argument as kubectl cp reads it
// (k8s.io/kubectl/pkg/cmd/cp, extractFileSpec): no colon, or a path
// starting with "/", "./" or "../", is local; otherwise what comes before
// the first colon is the pod, "namespace/pod" naming its namespace.
// Errors: an empty pod or path, or a pod part with more than one slash.
func parseFileSpec(arg string) (fileSpec, error) {
	i := strings.Index(arg, ":")
	if i < 0 || strings.HasPrefix(arg, "/") || strings.HasPrefix(arg, "./") || strings.HasPrefix(arg, "../") {
		if arg == "" {
			return fileSpec{}, errors.New("an empty path")
		}
		return fileSpec{path: arg}, nil
	}
	pod, file := arg[:i], arg[i+1:]
	if pod == "" || file == "" {
		return fileSpec{}, fmt.Errorf("%q: want [namespace/]pod:path", arg)
	}
	spec := fileSpec{pod: pod, path: file}
	if ns, name, ok := strings.Cut(pod, "/"); ok {
		if ns == "" || name == "" || strings.Contains(name, "/") {
			return fileSpec{}, fmt.Errorf("%q: want [namespace/]pod:path", arg)
		}
		spec.namespace, spec.pod = ns, name
	}
	return spec, nil
}

// newCpCommand returns `kyyard cp`: kubectl cp's copy, with its guards
// and checks.
func newCpCommand(connect writeConnectFunc, historyPath func() (string, error)) *cobra.Command {
	var container string
	var yes bool
	cmd := &cobra.Command{
		Use:   "cp SRC DEST",
		Short: "Copy files and folders to and from a container (kubectl cp), safely",
		Long: `Copy a file or folder between the local machine and a container, as
kubectl cp does: one side is [namespace/]pod:path, the other a local path
(a path with a colon in it is local when it starts with /, ./ or ../).
A destination that is an existing folder receives the copy under its
own name; any other destination names it (its folder must exist).

The copy is a tar stream over pods/exec, tar running in the container,
so it passes the guards of an exec first: --readonly, your permission to
create pods/exec (a SelfSubjectAccessReview), the pod Running, and its
namespace's Pod Security level (a warning refuses unless --yes accepts
it; --strict refuses it whatever --yes says).
What comes out of a container is read into a staging folder beside the
destination and checked entry by entry: an absolute or .. name, a link
leaving the folder, a write through a link, a device refuses the whole
copy with the entry named, and nothing is written (the path traversal
of CVE-2018-1002100, CVE-2019-1002101, CVE-2019-11246, CVE-2019-11249).
It lands only when tar in the container exited 0. An existing folder is
never merged into; an existing file is replaced. Setuid, setgid and
sticky bits, and group and other write permission, are not kept.

Progress is shown on standard error when it is a terminal. The outcome
is appended to the history file (:history).`,
		Example: `  kyyard cp ./web.conf web-7d4b9:/etc/nginx/conf.d/
  kyyard cp demo/web-7d4b9:/var/log/app ./app-logs
  kyyard cp --container sidecar web-7d4b9:/tmp/dump.bin dump.bin`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCp(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), connect, historyPath, container, yes, args[0], args[1])
		},
	}
	cmd.Flags().StringVar(&container, "container", "", "the container (default: the pod's only container; -c is the dashboard's start screen, so kubectl's short flag is not taken)")
	cmd.Flags().BoolVar(&yes, "yes", false, "accept the exec guards' warnings (a namespace that enforces no Pod Security level)")
	return cmd
}

func runCp(ctx context.Context, out, errOut io.Writer, connect writeConnectFunc, historyPath func() (string, error), container string, yes bool, src, dst string) error {
	from, err := parseFileSpec(src)
	if err != nil {
		return fmt.Errorf("the source: %w", err)
	}
	to, err := parseFileSpec(dst)
	if err != nil {
		return fmt.Errorf("the destination: %w", err)
	}
	req := kube.CopyRequest{Container: container}
	var pod fileSpec
	switch {
	case from.remote() && to.remote():
		return errors.New("one side must be local: kyyard cp copies between this machine and a container, not between containers")
	case !from.remote() && !to.remote():
		return errors.New("one side must be a pod's path: [namespace/]pod:path")
	case to.remote():
		req.Direction, req.Local, req.Remote, pod = kube.CopyToContainer, from.path, to.path, to
	default:
		req.Direction, req.Local, req.Remote, pod = kube.CopyFromContainer, to.path, from.path, from
	}
	return withWriteClient(ctx, cpTimeout, connect, func(ctx context.Context, client *kube.Client, kctx string) error {
		return cpWith(ctx, client, kctx, out, errOut, historyPath, req, pod, yes, src, dst)
	})
}

// cpWith runs the copy req of pod through client and tells its outcome.
func cpWith(ctx context.Context, client *kube.Client, kctx string, out, errOut io.Writer, historyPath func() (string, error), req kube.CopyRequest, pod fileSpec, yes bool, src, dst string) error {
	req.Namespace, req.Pod = pod.namespace, pod.pod
	if req.Namespace == "" {
		req.Namespace = client.Namespace()
	}
	if yes {
		// The warnings the guards give now are the ones accepted; the
		// copy runs them again, and a refusal still refuses.
		if plan, err := client.PlanExec(ctx, kube.ExecRequest{Namespace: req.Namespace, Pod: req.Pod, Container: req.Container}); err == nil {
			for _, w := range plan.Verdicts.Warnings() {
				req.Confirmed = append(req.Confirmed, w.Reason)
			}
		}
	}
	progress := cpProgress(errOut)
	started := time.Now()
	res, err := client.CopyFile(ctx, req, progress)
	if progress != nil {
		fmt.Fprint(errOut, "\r\x1b[K")
	}
	where := req.Namespace + "/" + req.Pod + ":" + res.Dest
	if req.Direction == kube.CopyFromContainer {
		where = res.Dest
	}
	o := kube.OperateOutcome{Op: kube.Operation{Ref: kube.ObjectRef{Kind: kube.KindPods, Namespace: req.Namespace, Name: req.Pod}, Action: kube.ActionCopy}}
	if err != nil {
		o.Reason, o.Detail = kube.ReasonOf(err), fmt.Sprintf("copy %s %s -> %s: %v", req.Direction, src, dst, err)
	} else {
		o.Detail = fmt.Sprintf("copied %s %s container %s: %s in %s", res.Summary(), req.Direction, res.Container, where, time.Since(started).Round(time.Millisecond))
	}
	appendHistory(errOut, historyPath, kctx, o)
	if err != nil {
		if !yes && kube.ReasonOf(err) == kube.ReasonPodSecurity {
			return fmt.Errorf("%w (--yes accepts this warning)", err)
		}
		return err
	}
	fmt.Fprintln(out, o.Detail)
	return nil
}

// cpProgress returns the progress line's writer when w is a terminal (nil
// otherwise: a log or a pipe gets the outcome line alone).
func cpProgress(w io.Writer) func(kube.CopyProgress) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return func(p kube.CopyProgress) {
		if p.Total >= 0 {
			fmt.Fprintf(w, "\r\x1b[Kcopying: %s of %s", kube.Bytes(p.Done), kube.Bytes(p.Total))
		} else {
			fmt.Fprintf(w, "\r\x1b[Kcopying: %s", kube.Bytes(p.Done))
		}
	}
}

// appendHistory appends outcome o in context kctx to the history file;
// a failure is a warning on errOut.
func appendHistory(errOut io.Writer, historyPath func() (string, error), kctx string, outs ...kube.OperateOutcome) {
	path, err := historyPath()
	if err != nil {
		return
	}
	now := time.Now()
	entries := make([]history.Entry, len(outs))
	for i, o := range outs {
		entries[i] = history.Entry{Time: now, Context: kctx, Outcome: o}
	}
	if err := history.Append(path, entries); err != nil {
		fmt.Fprintf(errOut, "warning: the history file %s: %v\n", path, err)
	}
}
