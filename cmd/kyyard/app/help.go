package app

// longHelp is kyyard --help: how to start it, its keys and commands, the
// guards of its writes.
const longHelp = `kyyard is a terminal dashboard for Kubernetes.

It connects the way kubectl does (the same flags, the same kubeconfig rules)
and shows the current namespace's pods, refreshed every --refresh interval.

Keys:
  :          command prompt: :pods :deploy :nodes :ns, :<kind> <namespace>, :<kind> all, :q;
             :<kind> a,b (and -n a,b) shows several namespaces at once
             (tab completes kind names; enter takes the completion shown). Any kind
             the API server serves works too, CRDs included: :crd, :cm,
             :clusterlogs.kwok.x-k8s.io, with the columns kubectl get prints.
  ↑/↓ j/k    move; pgup/pgdn page; g/G top/bottom
  enter      open: namespace → pods; workload, service, node → its pods;
             cronjob → its jobs' pods; pod → its containers
  /          filter: text, regex, !inverse, -f fuzzy, -l label selector
  > < S N A  sort by next/previous column, reverse, by name, by age
  space V    mark a row, a range (ctrl+\ clears); u/U next unhealthy / only unhealthy
  ←/→        scroll the columns right of NAME
  ctrl+n     pick this screen's namespace (type to filter; tab marks several,
             enter opens them all at once; when namespaces cannot be listed, type
             the name, or names joined by commas); :ns <name>|all does it at once
  0-9        0 all namespaces, 1-9 the favourites the header names (ns:): the
             context's pinned ones (config namespaces:), then the last used
  mouse      with --mouse: click a row (cursor) or a column header (sort); the
             wheel scrolls tables, logs, describe and YAML
  :ctx       pick a kubeconfig context; :ctx <name> switches to it
  :keys      every key in force on every screen, and where it came from (the
             defaults, or the configuration file's keys:, which rebinds them)
  w          toggle kubectl's -o wide columns (pods, nodes: with CPU and memory trends)
  metrics    pods and containers show CPU MEM %CPU/R %CPU/L %MEM/R %MEM/L, nodes CPU
             %CPU MEM %MEM of allocatable, from metrics-server (each sample read as
             it comes, at least every --metrics-interval): 45%* is a share of the
             containers that set the request or limit (some do not); n/a: none sets
             it, the pod is not running, or metrics cannot be read (the line above
             the table says why); -: no sample yet
  ctrl+r     refresh now
  d          describe the selected object (kubectl describe, with events)
  y          the selected object as YAML (m: managedFields; Secret values shown as sizes)
  x          a Secret's values decoded, each hidden until enter reveals it; e edits them
  e          edit a Deployment's, StatefulSet's or DaemonSet's containers, replicas
             and paused in a form: ctrl+s previews (the changes, the patch, the
             server's dry run, every guard), enter applies only what changed at the
             resourceVersion read, then the rollout is followed (u undoes a failed one);
             on any other kind, e edits it as YAML (E)
  E          edit any object as YAML, CRDs included: the terminal goes to $KUBE_EDITOR
             or $EDITOR (kyyard's own text area when neither is set) on a 0600 temp
             file (removed after; managedFields and status left out, a Secret's values
             decoded); save and quit to preview the server's dry run and its diff, y
             applies only what changed (strategic merge patch, merge patch for custom
             resources) at the resourceVersion read. An invalid edit reopens with the
             server's error on top; a conflict reopens on the fresh object with your
             changes re-applied and the colliding fields named
  r          restart a Deployment, StatefulSet or DaemonSet (the marked rows: each)
  s          scale a Deployment or StatefulSet (a small form with the current replicas);
             on a pod or container: a shell in it (exit or ctrl+d returns)
  ctrl+d     delete the selected (or marked) objects, of any kind (pods: f switches
             graceful / force)
  z / Z      pause / resume a Deployment's rollout
  c / C      cordon / uncordon a Node (spec.unschedulable, as kubectl cordon)
  D          drain a Node (kubectl drain --ignore-daemonsets): the plan (what is
             evicted, what is left and why, every guard), then y cordons it and
             evicts through the Eviction API (PodDisruptionBudgets honoured), each
             pod's progress shown; esc cancels; timeout 5m; the Node stays cordoned
  B          undo: roll a Deployment back to its previous revision
  a          the row's actions, each checked without writing, with the reason
             each disabled one is (read-only, permissions, a paused Deployment)
  R          follow a workload's rollout (also opened after a restart, scale,
             undo or resume): counts, revisions, pods, its end or timeout
             Every action first lists every guard's verdict and asks: y, or the
             object's name typed for another tool's object or deleted claims;
             refusals block. One outcome line per object on the status line.
  l / p      a pod's, container's or workload's logs / the previous container's:
             following (s on/off, G/end bottom), ↑/↓ j/k pgup/pgdn g scroll, w wrap,
             t time off/UTC/local, a colours, 0 tail, 1-5 since 1m..1h, c container,
             / regexp search (n/N, & only matching, ! hide them), J JSON, f fields
             (dotted paths: user.name), ctrl+s save (the log's own bytes), y copy
             shown lines (OSC 52); a workload's pods: --max-log-requests streams
  :history   the session's outcomes (time, context, object, action, outcome,
             detail), also appended to $XDG_CONFIG_HOME/kyyard/history.log
  :create <kind> [ns] / :create -f <file>
             a new object (any kind, CRDs included) from a template or a file,
             edited in $KUBE_EDITOR/$EDITOR (or the text area: ctrl+s), then a
             server dry run and diff; y sends it by server-side apply (field
             manager kyyard); fields of other managers ask "force"
  T          copy files to or from a pod's container (kubectl cp: tar over
             pods/exec; what comes out is checked and lands only whole); also
             kyyard cp [ns/]pod:path local, kyyard cp local [ns/]pod:path
  v          the events of any object and of what it owns, newest first, live;
             / filters them; :timeline [ns|all] is the cluster's events
  o          the owner tree of any object (CRDs too): owners up, what they own
             down, a Service's pods; the worst health below each line marked
  :clusters  one row per context (--contexts 'prod-*,staging' or --fleet NAME
             choose them and start on it; else all the kubeconfig's): state,
             latency, version, nodes ready, pods by phase, warnings in the last
             hour, CPU and memory of allocatable, what you may do; each read
             on its own (one unreachable cluster never holds the others);
             enter switches to that context's pods alone; :fleet NAME shows a
             fleet of the configuration file
  fleet      while contexts are chosen (--contexts, --fleet, :fleet NAME),
             every kind (:pods, :deploy, CRDs) shows the rows of all of them
             with a CONTEXT column (filtered, sorted, marked like any other)
             and a line of each cluster's state (reading, stale since,
             forbidden with the server's text); every key on a row goes to
             that row's cluster, whose screens and confirmations name it
             (@prod-eu); l on rows of several contexts (or a workload in
             several) merges their logs in time order, each line
             <context>:<pod>; tab marks several in the :ctx picker; -c
             KIND starts on that kind; :ctx NAME leaves it. Each context
             reads its own namespace unless -n/-A or :<kind> <ns> chose one
  =          (fleet) drift: a Deployment, StatefulSet or DaemonSet compared
             across the contexts, ≠ on each field that differs (d: only
             those); e there edits it once and plans the change in every
             context (a dry run and every guard each, nothing written),
             then y applies it one cluster at a time, each rollout followed,
             stopping at the first failure; u undoes the clusters changed.
             e, s or r on one workload marked in several contexts does the
             same (r: a restart in each)
  :helm [ns|all]
             Helm releases (read from Helm's release Secrets); enter shows the
             revisions: v/V values (V with the chart's defaults), m manifest
             (Secret values as sizes), space marks one and d diffs it with the
             selected one, r rolls back to the selected revision with Helm's own
             SDK (as helm rollback: planned, guarded and confirmed first)
  shift+f    port-forward a pod, a Service or a workload: pick a declared port
             (or type one) and a local port on 127.0.0.1; a Service's or a
             workload's forward moves to another ready pod when its pod goes
  :pf        the port-forwards (traffic, state); x stops one; all end with kyyard
  :apps [ns] the apps kyyard deployed: n new (the deploy form), e change, enter
             their Deployments, ctrl+d remove (claims kept); the form validates
             as you type, ctrl+s previews (YAML, diff, dry run, guards), enter
             deploys step by step, then the rollout
  :split [cmd]
             split the screen in two panes, one above the other: the new one,
             below and focused (» in its title bar), shows what cmd opens
             (:split pods, :split deploy shop), else this pane's kind and
             namespace; each pane has its own screens, keys, prompt and context
             (:ctx in one leaves the other); ctrl+w moves the keys to the other
             pane (where you type, it deletes a word; with --mouse, a click
             focuses); :only, or esc on a pane's first screen, closes a pane;
             q asks first about the unapplied edits of either pane
  L          the selected pod's (container's, workload's) logs in the other
             pane, splitting the screen first; the keys stay in the list: a
             Deployment's pods above (enter on it), L on a pod, its logs below
  esc        clear marks, then the filter; then back to the row you left
  ?          help
  q          quit (asks first while the form holds unapplied edits; :q! does not)

Rows carry a health marker as well as a colour: x failed, ! warning,
~ progressing, blank ok. When the API server cannot be reached, a banner
says so and kyyard keeps retrying; screens recover by themselves.

Writes run guards first: your permission (an access review), the object
unchanged since read, another tool's markers, the namespace's Pod Security
level, claims a scale-down deletes, new Secret references, an autoscaler.
By default a warning asks you to confirm (typing the object's name for
another tool's objects and deleted claims); --strict refuses instead;
--readonly refuses every write before any request (the action keys then
say why they are disabled). The header shows "mode: read-only" or "strict".

Configuration: $XDG_CONFIG_HOME/kyyard/config.yaml (~/.config/kyyard/config.yaml
without XDG_CONFIG_HOME; --config PATH overrides) sets contexts read-only or
strict, the first context and every one :ctx switches to:
  readonlyContexts: ["prod*", "*-live"]   # path.Match patterns of context names
  contexts:
    kyyard-local: {strict: true}
    prod-eu: {readonly: true, strict: true}
    kind-dev: {shell: "zsh -l"}   # the shell s tries first
    big-prod: {metricsInterval: 60s}   # how often metrics are read (--metrics-interval wins)
  fleets:
    prod: [prod-eu, prod-us, "prod-ap-*"]   # kyyard get --fleet prod
  keys:                                     # :keys lists every table and action
    table: {delete: "ctrl+x d", describe: [d, i], yaml: none}
    global: {quit: ctrl+q}                  # "ctrl+x d": ctrl+x, then d
The flags, an entry and a matching pattern each only turn a setting on.
A missing file is fine; a malformed one stops kyyard naming each fault's
line and what is wrong.

Without the dashboard:
  kyyard get KIND [-n NS | -A] [-o table|wide|json] [-l SELECTOR]
             prints one kind's rows once, as kubectl get does, and exits;
             a kind that cannot be read exits 1 with the reason on stderr;
             --contexts 'prod-*,staging' or --fleet NAME read several
             contexts at once (a CONTEXT column; each bounded by
             --cluster-timeout, one that fails named on stderr);
  kyyard inspect KIND/NAME [-n NS]
             prints a Deployment's, StatefulSet's or DaemonSet's rollout
             state and its pods as JSON (for scripts), and exits;
  kyyard apply -f FILE|FOLDER|- [-R] [--dry-run] [--force-conflicts] [--yes]
             creates or changes objects of any kind from YAML with
             server-side apply (field manager kyyard), after the guards and a
             server dry run; all or nothing: a refusal, a field another
             manager owns or a warning writes nothing and exits 1;
  kyyard manifest [-n NS]... [--readonly | --apply] [--name NAME] [-A]
             prints the RBAC (a ServiceAccount, its token Secret, Roles or a
             ClusterRole, bindings) that gives exactly the verbs kyyard uses;
  kyyard manifest --kubeconfig-for NAME [-n NS]
             prints a kubeconfig with that ServiceAccount's token.`
