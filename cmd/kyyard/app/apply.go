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
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kyyard/kyyard/config"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// applyTimeout bounds a whole `kyyard apply`: the plan's reads, access
// reviews and dry runs, then the writes.
const applyTimeout = 2 * time.Minute

type applyOptions struct {
	files     []string
	recursive bool
	dryRun    bool
	force     bool
	yes       bool
}

// writeConnectFunc makes the Client a one-shot write is sent with: the
// guard policy of its context (--readonly and --strict or-ed with the
// configuration file's settings for the context), the context's name for
// the history, and what to call when the command ends.
type writeConnectFunc func() (client *kube.Client, context string, done func(), err error)

// errNotApplied is returned when the plan refused to send anything: the
// reasons were printed already, the exit code is 1.
var errNotApplied = errors.New("nothing written")

// newApplyCommand returns `kyyard apply`: a server-side apply of YAML or
// JSON manifests, planned and previewed first, all or nothing.
func newApplyCommand(connect writeConnectFunc, historyPath func() (string, error)) *cobra.Command {
	opts := applyOptions{}
	cmd := &cobra.Command{
		Use:   "apply -f FILE|FOLDER|- [-f ...]",
		Short: "Create or change objects of any kind from YAML with server-side apply, after a dry run",
		Long: `Apply manifests with server-side apply (field manager kyyard), as
kubectl apply --server-side does, but planned first and all or nothing.

The files are read as kubectl apply -f reads them: multi-document YAML,
JSON, Lists; a folder's .yaml, .yml and .json files in name order
(sub-folders with -R); "-" reads standard input. One malformed document
refuses the whole input.

For each object kyyard first runs the guards of every write (read-only
and strict policies, a SelfSubjectAccessReview of patch, and of create for
a new object, a fresh read of the live object, a warning when another tool
such as Helm manages it) and a server dry run, and prints what would be
created or changed. If any object is refused, meets fields another field
manager owns, or has a warning, nothing is written and the exit code is 1:
--force-conflicts takes the fields over (as kubectl's flag does), --yes
accepts the warnings. An object that changed since the dry run read it is
refused, never overwritten (resourceVersion precondition).

--dry-run prints the diff of each object's dry-run result against the live
one (status and bookkeeping left out, Secret values masked) and writes
nothing. Every write is appended to the history file (:history).`,
		Example: `  kyyard apply -f web.yaml
  kyyard apply -f manifests/ -R --dry-run
  kyyard apply -f - < web.yaml
  kyyard apply -f web.yaml --force-conflicts`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := runApply(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), connect, historyPath, opts)
			if errors.Is(err, errNotApplied) {
				cmd.SilenceErrors = true
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&opts.files, "filename", "f", nil, `a file, a folder or "-" (standard input) of manifests; repeat for more`)
	f.BoolVarP(&opts.recursive, "recursive", "R", false, "read the folders of -f recursively")
	f.BoolVar(&opts.dryRun, "dry-run", false, "plan and print the diff of each object against the live one; write nothing")
	f.BoolVar(&opts.force, "force-conflicts", false, "take over the fields other field managers own (server-side apply's force)")
	f.BoolVar(&opts.yes, "yes", false, "accept the guards' warnings (an object another tool manages)")
	return cmd
}

func runApply(ctx context.Context, in io.Reader, out, errOut io.Writer, connect writeConnectFunc, historyPath func() (string, error), opts applyOptions) error {
	if len(opts.files) == 0 {
		return errors.New(`no manifests: pass -f FILE, -f FOLDER or -f - (standard input)`)
	}
	return withWriteClient(ctx, applyTimeout, connect, func(ctx context.Context, client *kube.Client, kctx string) error {
		return applyWith(ctx, client, kctx, in, out, errOut, historyPath, opts)
	})
}

// withWriteClient connects (connect), bounds ctx (nil: a background one)
// by timeout and runs f with the client and its context's name; the
// client is closed and the connection's done called after f.
func withWriteClient(ctx context.Context, timeout time.Duration, connect writeConnectFunc, f func(context.Context, *kube.Client, string) error) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client, kctx, done, err := connect()
	if err != nil {
		return err
	}
	defer done()
	defer client.Close()
	return f(ctx, client, kctx)
}

// applyWith plans, prints and sends the apply through client.
func applyWith(ctx context.Context, client *kube.Client, kctx string, in io.Reader, out, errOut io.Writer, historyPath func() (string, error), opts applyOptions) error {
	plan, err := client.PlanApplyFiles(ctx, opts.files, opts.recursive, in)
	if err != nil {
		return err
	}
	blocked := printPlan(out, plan, opts)
	if blocked > 0 {
		fmt.Fprintf(errOut, "nothing written: %d of %d object(s) cannot be applied as asked (see above)\n", blocked, len(plan.Steps))
		return errNotApplied
	}
	if opts.dryRun {
		for _, s := range plan.Steps {
			if s.Diff != "" {
				fmt.Fprint(out, s.Diff)
				if !strings.HasSuffix(s.Diff, "\n") {
					fmt.Fprintln(out)
				}
			}
		}
		fmt.Fprintln(out, "dry run: nothing written")
		return nil
	}
	outcomes := client.ApplyManifests(ctx, plan, opts.force)
	failed := 0
	for _, o := range outcomes {
		if o.OK() {
			fmt.Fprintln(out, o.Detail)
		} else {
			failed++
			fmt.Fprintf(errOut, "%s (%s)\n", o.Detail, o.Reason)
		}
	}
	appendHistory(errOut, historyPath, kctx, outcomes...)
	if failed > 0 {
		return fmt.Errorf("%d of %d object(s) not applied", failed, len(outcomes))
	}
	return nil
}

// printPlan prints one line per step (what the apply would do, or why it
// cannot), the conflicts and warnings under it, and returns how many steps
// block the apply as opts ask it: refused, conflicts without force,
// warnings without yes.
func printPlan(out io.Writer, plan *kube.ApplyPlan, opts applyOptions) int {
	blocked := 0
	for _, s := range plan.Steps {
		what := "would be changed"
		switch {
		case s.Err != nil:
			what = "refused: " + s.Err.Error()
		case !s.Exists:
			what = "would be created"
		case s.Diff == "":
			what = "unchanged"
		}
		fmt.Fprintf(out, "%s: %s %s\n", s.Source, s.Ref, what)
		if s.Err != nil {
			blocked++
			continue
		}
		stop := false
		for _, c := range s.Conflicts {
			fmt.Fprintf(out, "  conflict: %s is owned by field manager %q (%s)\n", c.Field, c.Manager, c.Detail)
		}
		if len(s.Conflicts) > 0 {
			if opts.force {
				fmt.Fprintf(out, "  --force-conflicts: kyyard takes over these %d field(s)\n", len(s.Conflicts))
			} else {
				fmt.Fprintln(out, "  not applied without --force-conflicts")
				stop = true
			}
		}
		for _, w := range s.Verdicts.Warnings() {
			fmt.Fprintf(out, "  warning (%s): %s\n", w.Reason, w.Sentence)
			if !opts.yes {
				stop = true
			}
		}
		if len(s.Verdicts.Warnings()) > 0 && !opts.yes {
			fmt.Fprintln(out, "  not applied without --yes")
		}
		if stop {
			blocked++
		}
	}
	return blocked
}

// historyFile is config.HistoryPath, the file :history appends to.
func historyFile() (string, error) { return config.HistoryPath() }

// writeConnect returns the writeConnectFunc of the root command's flags:
// the client of the current (or --context) context, with the guard policy
// the dashboard would have there (--readonly, --strict, the configuration
// file's settings for the context, strict by default in a pod).
func writeConnect(flags *genericclioptions.ConfigFlags, opts *options) writeConnectFunc {
	return func() (*kube.Client, string, func(), error) {
		if err := checkConfigured(flags); err != nil {
			return nil, "", nil, err
		}
		cfg, err := loadConfig(opts.config)
		if err != nil {
			return nil, "", nil, err
		}
		closeLog, err := routeClientLogs(opts.logFile)
		if err != nil {
			return nil, "", nil, err
		}
		k := kubeconfigContexts{
			flags: flags,
			opts:  kube.Options{Registry: kinds.Builtin(), NoCache: true, TablePlugin: kinds.NewTable},
			cfg:   cfg,
			flag:  config.Mode{ReadOnly: opts.readonly, Strict: opts.strict || !opts.strictSet && serviceAccountRun(flags, os.Getenv)},
		}
		_, current, _ := k.Contexts()
		client, err := kube.New(flags, k.optionsFor(current))
		if err != nil {
			closeLog()
			return nil, "", nil, err
		}
		return client, current, closeLog, nil
	}
}
