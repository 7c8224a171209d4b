// Package app builds kyyard's command line: kubectl's connection flags from
// k8s.io/cli-runtime, kyyard's own flags, and the subcommands.
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/klog/v2"

	"github.com/kyyard/kyyard/assets"
	"github.com/kyyard/kyyard/config"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/ui"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/yamledit"
)

// Version is kyyard's version, set at link time with
// -ldflags "-X github.com/kyyard/kyyard/cmd/kyyard/app.Version=v1.2.3".
var Version = "dev"

type options struct {
	refresh time.Duration
	// maxLogRequests bounds a workload's log streams (kubectl's
	// --max-log-requests).
	maxLogRequests int
	// deployTimeout bounds each rollout of a deploy (--deploy-timeout).
	deployTimeout time.Duration
	// metricsInterval is how often the metrics API is read
	// (--metrics-interval); metricsSet is whether the flag was given (else
	// a context's metricsInterval setting applies).
	metricsInterval time.Duration
	metricsSet      bool
	command         string
	all             bool
	logFile         string
	// strict and readonly are the guard policy of every write (design:
	// "Guards, and two policies").
	strict   bool
	readonly bool
	// strictSet is whether --strict was given (so --strict=false turns
	// off the in-pod default; see serviceAccountRun).
	strictSet bool
	// config is --config, the configuration file's path ("" is
	// config.DefaultPath).
	config string
	// contexts and fleet (--contexts, --fleet) choose the contexts of
	// the clusters overview; commandSet is whether -c was given.
	contexts, fleet string
	commandSet      bool
	// theme is --theme ("" is the configuration file's, else auto).
	theme string
	// mouse is --mouse (or the configuration file's mouse: true).
	mouse bool
}

// NewCommand returns the root command. Output goes to out, diagnostics to errOut.
func NewCommand(out, errOut io.Writer) *cobra.Command {
	flags := genericclioptions.NewConfigFlags(true)
	opts := options{}
	cmd := &cobra.Command{
		Use:           "kyyard",
		Short:         "A terminal dashboard for Kubernetes",
		Long:          longHelp,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.strictSet = cmd.Flags().Changed("strict")
			opts.metricsSet = cmd.Flags().Changed("metrics-interval")
			opts.commandSet = cmd.Flags().Changed("command")
			return run(flags, opts)
		},
	}
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	flags.AddFlags(cmd.PersistentFlags())
	if f := cmd.PersistentFlags().Lookup("namespace"); f != nil {
		f.Usage = "the namespace to show; several joined by commas (-n shop,web) show their rows together, each namespace read on its own"
	}
	// The dashboard's flags are persistent: `kyyard get` and `manifest`
	// accept (and check) them too, so a shell alias that carries them
	// (alias ky='kyyard --readonly --metrics-interval=30s') works with a
	// subcommand; they have no effect on a one-shot print, and `kyyard
	// apply` keeps --readonly and --strict as the dashboard does. A subcommand's
	// own flag of the same name (manifest --readonly, get -A) shadows it.
	f := cmd.PersistentFlags()
	f.DurationVar(&opts.refresh, "refresh", 2*time.Second, "how often screens read the cluster again (at least 500ms)")
	f.DurationVar(&opts.deployTimeout, "deploy-timeout", kube.DefaultDeployTimeout, "how long a deploy from the :apps form waits for each service's rollout before it restores the previous objects (rollout_timeout)")
	f.DurationVar(&opts.metricsInterval, "metrics-interval", kube.DefaultMetricsInterval, "the longest time between two reads of the metrics API (metrics-server) for the CPU and memory columns, trends and charts; reads follow its samples (its resolution is 15s), and a multiple of it reads every other (third...) sample only (per context: metricsInterval in the configuration file)")
	f.StringVarP(&opts.command, "command", "c", "pods", "the kind to show first (pods, deploy, nodes, ns, or any alias), or "+ui.StartScreenHelp())
	f.BoolVarP(&opts.all, "all-namespaces", "A", false, "start in all namespaces")
	f.BoolVar(&opts.strict, "strict", false, "refuse every write a guard warns about (managed by Helm/Argo CD/Flux, no Pod Security level, claims deleted, new Secret references, an autoscaler) instead of asking to confirm, as a cluster agent must; the default when kyyard runs in a pod with its ServiceAccount (--strict=false turns it off there)")
	f.BoolVar(&opts.readonly, "readonly", false, "refuse every write before any request: browse only")
	f.IntVar(&opts.maxLogRequests, "max-log-requests", kube.DefaultMaxLogStreams, "how many pods' logs a workload's log viewer streams at once (as kubectl logs --max-log-requests); each pod left out takes the place of a stream that ends")
	cmd.Flags().StringVar(&opts.contexts, "contexts", "", "show several kubeconfig contexts at once (names and path.Match patterns, comma-separated: 'prod-*,staging'): every kind opens across them with a CONTEXT column, each context in its own namespace unless -n or -A is given; = on a workload compares it across them (drift), whose e edits it once and applies it cluster by cluster; starts on the :clusters overview unless -c names a kind")
	cmd.Flags().StringVar(&opts.fleet, "fleet", "", "the contexts of a fleet of the configuration file (fleets: {prod: [eu-1, us-1]}), as --contexts")
	f.BoolVar(&opts.mouse, "mouse", false, "take the mouse: a click on a row moves the cursor there, on a column header sorts by it, the wheel scrolls tables, logs, describe and YAML (off by default: the terminal's text selection then works as ever; mouse: true in the configuration file turns it on too)")
	f.StringVar(&opts.theme, "theme", "", "the colour theme: auto (dark or light after the terminal's background; the default), dark, light, or a theme of the configuration file (themes:); NO_COLOR set turns colours off whatever it says")
	f.StringVar(&opts.config, "config", "", "the configuration file (per-context read-only and strict settings); default $XDG_CONFIG_HOME/kyyard/config.yaml, else ~/.config/kyyard/config.yaml")
	cmd.PersistentPreRunE = func(sub *cobra.Command, _ []string) error {
		if sub == cmd {
			return nil // run checks them, among the rest
		}
		opts.strictSet = sub.Flags().Changed("strict")
		if err := checkFlags(opts); err != nil {
			return err
		}
		// A subcommand uses no per-context setting, but a configuration
		// file that would stop the dashboard stops it too: the same
		// --config means the same thing everywhere.
		_, _, _, err := checkedConfig(opts.config)
		return err
	}
	cmd.PersistentFlags().StringVar(&opts.logFile, "log-file", "", "write client-go's diagnostics (watch errors, retries) to this file; by default they are dropped, since they would tear the screen")
	connect := func() (*kube.Client, func(), error) {
		if err := checkConfigured(flags); err != nil {
			return nil, nil, err
		}
		closeLog, err := routeClientLogs(opts.logFile)
		if err != nil {
			return nil, nil, err
		}
		client, err := kube.New(flags, kube.Options{Registry: kinds.Builtin(), NoCache: true, TablePlugin: kinds.NewTable})
		if err != nil {
			closeLog()
			return nil, nil, err
		}
		return client, closeLog, nil
	}
	cmd.AddCommand(newGetCommand(connect, fleetConnectOf(flags, &opts)))
	cmd.AddCommand(newInspectCommand(connect))
	cmd.AddCommand(newManifestCommand(flags, connect))
	cmd.AddCommand(newApplyCommand(writeConnect(flags, &opts), historyFile))
	cmd.AddCommand(newCpCommand(writeConnect(flags, &opts), historyFile))
	cmd.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print kyyard's version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), "kyyard", Version)
		},
	})
	return cmd
}

// minRefresh is the shortest --refresh: below it a refresh would start
// before the last one's reads and drawing are done, and kyyard would keep a
// core busy (at --refresh 1ns it took 112% of one).
const minRefresh = 500 * time.Millisecond

// checkFlags refuses the dashboard's flags that make no sense, whichever
// command is given them.
func checkFlags(opts options) error {
	if opts.refresh < minRefresh {
		return fmt.Errorf("--refresh must be at least %s (got %s): each refresh reads every kind on the screen", minRefresh, opts.refresh)
	}
	if opts.maxLogRequests <= 0 {
		return errors.New("--max-log-requests must be positive")
	}
	if opts.deployTimeout <= 0 {
		return errors.New("--deploy-timeout must be positive")
	}
	if opts.metricsInterval <= 0 {
		return errors.New("--metrics-interval must be positive")
	}
	return nil
}

func run(flags *genericclioptions.ConfigFlags, opts options) error {
	if err := checkFlags(opts); err != nil {
		return err
	}
	// -n shop,web: the screens read both; the client's own namespace (what
	// an action without a row's namespace uses) is the first. Before
	// anything reads the flags: their loader keeps the namespace it saw.
	several, err := severalNamespaces(flags)
	if err != nil {
		return err
	}
	var uiOpts []ui.Option
	if opts.contexts != "" || opts.fleet != "" {
		names, err := fleetContexts(fleetConnectOf(flags, &opts), getOptions{contexts: opts.contexts, fleet: opts.fleet})
		if err != nil {
			return err
		}
		uiOpts = append(uiOpts, ui.WithFleet(names), ui.WithFleetName(opts.fleet))
		if opts.all || flags.Namespace != nil && *flags.Namespace != "" {
			uiOpts = append(uiOpts, ui.WithNamespaceChosen()) // else each context's own
		}
		if !opts.commandSet {
			opts.command = "clusters"
		}
	}
	if ui.StartScreen(opts.command) {
		// -c apps, -c pf: that screen over the pods list.
		uiOpts = append(uiOpts, ui.WithStartScreen(opts.command))
		opts.command = "pods"
	}
	registry := kinds.Builtin()
	_, builtin := registry.Lookup(opts.command)
	unknown := func(cause error) error {
		return fmt.Errorf("unknown kind %q for --command (known: %s; the cluster's own kinds could not be read: %v)",
			opts.command, strings.Join(registry.Names(), ", "), cause)
	}
	if err := checkConfigured(flags); err != nil {
		if !builtin {
			return unknown(err)
		}
		return err
	}
	cfg, km, short, err := checkedConfig(opts.config)
	if err != nil {
		return err
	}
	theme, err := chooseTheme(opts.theme, cfg, os.Getenv, lipgloss.HasDarkBackground)
	if err != nil {
		return err
	}
	if theme.Name == assets.NoColorTheme().Name {
		// termenv reads NO_COLOR as "no escapes at all"; the theme has no
		// colours, and reverse video and underline still mark the cursor
		// row and the matches.
		lipgloss.SetColorProfile(termenv.ANSI)
	}
	closeLog, err := routeClientLogs(opts.logFile)
	if err != nil {
		return err
	}
	defer closeLog()
	contexts := kubeconfigContexts{
		flags: flags,
		opts:  kube.Options{Registry: registry, TablePlugin: kinds.NewTable},
		cfg:   cfg,
		flag:  config.Mode{ReadOnly: opts.readonly, Strict: opts.strict || !opts.strictSet && serviceAccountRun(flags, os.Getenv)},
	}
	if opts.metricsSet {
		contexts.flag.MetricsInterval = config.Duration{Duration: opts.metricsInterval}
	}
	_, first, _ := contexts.Contexts() // "" when none is named: the flags alone apply
	client, err := kube.New(flags, contexts.optionsFor(first))
	if err != nil {
		if !builtin {
			return unknown(err)
		}
		return err
	}
	defer client.Close()
	if err := views.ValidateNamespaceName(client.Namespace()); err != nil && !opts.all {
		// kubectl would send it and get an empty answer; say so instead.
		return fmt.Errorf("--namespace: %w", err)
	}
	if err := discoverAtStart(client, opts.command, builtin); err != nil {
		return err
	}
	vc := &views.Context{
		Client: client,
		Styles: views.NewStyles(theme),
		KeyMap: km,
		Config: views.Config{RefreshInterval: opts.refresh, MaxLogStreams: opts.maxLogRequests, DeployTimeout: opts.deployTimeout},
	}
	vc.Keys = views.BoundKeys(vc, ui.GlobalKeyTable, views.DefaultGlobalKeys)
	ns := client.Namespace()
	if several != "" {
		ns = several
	}
	if opts.all {
		ns = ""
	}
	start := uiOpts
	uiOpts = []ui.Option{ui.WithKubeconfig(contexts)}
	if path, err := config.HistoryPath(); err == nil {
		uiOpts = append(uiOpts, ui.WithHistoryFile(path))
	}
	yamledit.SweepStale(os.TempDir(), time.Now()) // a killed kyyard's edit files (a Secret's decoded values)
	if editor := yamledit.EditorCommand(os.Getenv); editor != "" {
		uiOpts = append(uiOpts, ui.WithYAMLEditor(yamledit.ExecEditor(editor)))
	}
	uiOpts = append(uiOpts, start...)
	uiOpts = append(uiOpts, ui.WithConfigFile(cfg.Path))
	if len(cfg.Aliases) > 0 {
		uiOpts = append(uiOpts, ui.WithAliases(short.aliases, short.hotkeys))
	}
	root, err := ui.New(vc, kube.Kind(opts.command), ns, uiOpts...)
	if err != nil {
		return err
	}
	progOpts := []tea.ProgramOption{tea.WithAltScreen()}
	if opts.mouse || cfg.Mouse {
		progOpts = append(progOpts, tea.WithMouseCellMotion())
	}
	// One pane, and a second beside it after :split (ui.Panes).
	_, err = tea.NewProgram(ui.NewPanes(root), progOpts...).Run()
	return err
}

// severalNamespaces reads -n when it names several namespaces joined by
// commas (views.ParseNamespaces; issue 27): it returns them as one
// screen namespace ("shop,web") and leaves the first in the flags, the
// client's own; "" when -n names one namespace or none. Errors: a
// malformed name among several.
func severalNamespaces(flags *genericclioptions.ConfigFlags) (string, error) {
	if flags.Namespace == nil || !strings.Contains(*flags.Namespace, ",") {
		return "", nil
	}
	ns, err := views.ParseNamespaces(*flags.Namespace)
	if err != nil {
		return "", fmt.Errorf("--namespace: %w", err)
	}
	*flags.Namespace = kube.SplitNamespaces(ns)[0]
	if !kube.SeveralNamespaces(ns) {
		return "", nil // "a,a": one
	}
	return ns, nil
}

// loadConfig reads the configuration file at path, else at
// config.DefaultPath (none found: no file, nothing turned on). A file
// --config names must exist: a mistyped path would silently turn nothing on.
func loadConfig(path string) (*config.File, error) {
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("--config: %w", err)
		}
	}
	if path == "" {
		def, err := config.DefaultPath()
		if err != nil {
			return &config.File{}, nil
		}
		path = def
	}
	return config.Load(path)
}

// checkConfigured refuses to start without any cluster to talk to: no
// cluster in the kubeconfig files, no --server, and not inside a pod.
// client-go would otherwise fall back to http://localhost:8080 and every
// screen would say "connection refused" without saying why.
// serviceAccountRun reports whether kyyard connects with the ServiceAccount
// of the pod it runs in: no --server, and a kubeconfig that names no
// cluster, in a pod (KUBERNETES_SERVICE_HOST set), which is when client-go's
// loader falls back to the in-cluster configuration (clientcmd's
// DeferredLoadingClientConfig). The design makes strict the default then,
// as a cluster agent's policy must be; `--strict=false` turns it off.
func serviceAccountRun(flags *genericclioptions.ConfigFlags, getenv func(string) string) bool {
	if getenv("KUBERNETES_SERVICE_HOST") == "" || getenv("KUBERNETES_SERVICE_PORT") == "" {
		return false
	}
	if flags.APIServer != nil && *flags.APIServer != "" {
		return false
	}
	raw, err := flags.ToRawKubeConfigLoader().RawConfig()
	return err == nil && len(raw.Clusters) == 0
}

func checkConfigured(flags *genericclioptions.ConfigFlags) error {
	if flags.APIServer != nil && *flags.APIServer != "" {
		return nil
	}
	if os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		return nil // in-cluster configuration
	}
	raw, err := flags.ToRawKubeConfigLoader().RawConfig()
	if err != nil || len(raw.Clusters) > 0 {
		return nil // kube.New reports a broken kubeconfig with its own error
	}
	where := "$KUBECONFIG or ~/.kube/config"
	if flags.KubeConfig != nil && *flags.KubeConfig != "" {
		where = *flags.KubeConfig
	}
	return fmt.Errorf("no cluster configured: %s names no cluster; pass --kubeconfig, or --server with credentials", where)
}

// routeClientLogs sends client-go's klog output (reflector and watch errors,
// which client-go prints on its own) to path, or drops it when path is
// empty: written to stderr it would tear the full-screen UI. The returned
// func closes the file.
func routeClientLogs(path string) (func(), error) {
	klog.LogToStderr(false)
	// klog copies errors to stderr even so (its stderrthreshold, ERROR):
	// on the dashboard's terminal that would corrupt the screen.
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("stderrthreshold", "FATAL")
	if path == "" {
		klog.SetOutput(io.Discard)
		return func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--log-file: %w", err)
	}
	klog.SetOutput(f)
	return func() { klog.Flush(); _ = f.Close() }, nil
}

// startDiscoveryWait is how long the dashboard waits for discovery before it
// opens a built-in first kind: long enough for a healthy API server (a few
// milliseconds on the local cluster), short enough that a slow one does not
// hold the screen.
const startDiscoveryWait = 2 * time.Second

// discoverAtStart finds the cluster's own kinds (CRDs and every resource
// without a built-in plugin) so that the prompt completes them. When the
// first kind is built-in it waits at most startDiscoveryWait and lets a
// slower discovery finish in the background (its kinds then open, but the
// prompt, which takes its names when the screen is made, does not complete
// them). Otherwise the first kind may be a discovered one: it waits for the
// answer and refuses a kind discovery did not find before the terminal is
// taken. Discovery errors go to the client-go log (--log-file).
func discoverAtStart(client *kube.Client, command string, builtin bool) error {
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), discoverTimeout)
		defer cancel()
		err := client.Discover(ctx)
		if err != nil {
			klog.ErrorS(err, "discovery")
		}
		done <- err
	}()
	if builtin {
		select {
		case <-done:
		case <-time.After(startDiscoveryWait):
		}
		return nil
	}
	err := <-done
	if _, ok := client.Kind(command); !ok {
		return unknownKind(command, client.Kinds(), err)
	}
	return nil
}
