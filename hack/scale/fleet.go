package main

// The fleet run (make bench-fleet): the same pods seeded in each cluster of
// the local fleet (seed --contexts), then kyyard on each cluster alone and
// across all of them (--contexts), each in a 200x50 tmux pane, in rounds
// (one start alone on each cluster, then one across the fleet), and the
// figures the issue budgets: the fleet's first rows, all rows against the
// slowest cluster alone, RSS against the sum of the clusters alone, CPU
// over an idle minute, each cluster's LIST and WATCH requests in it; then
// one member's API server stopped while the fleet's kyyard runs (hack/cluster
// fleet restart-apiserver): how long until kyyard shows it stale, whether
// the other clusters keep their counts, how long until its count is back
// after the restart, and kyyard's reads of its pods after the restart from
// its audit log.
//
// kyyard runs with --as kyyard-fleet-run-PID --as-group system:masters:
// the fleet is shared (other kyyards, the e2e tests), and the impersonated
// user in each audit log tells this run's requests from theirs (same user
// agent, same admin user). Impersonation adds headers only.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Targets of the fleet run (the budgets).
const (
	fleetFirstRowsTarget = 300 * time.Millisecond // first rows across the fleet
	fleetAllRowsFactor   = 1.2                    // all rows: at most this times the slowest cluster alone
	fleetRSSPerCluster   = 20 << 10               // KiB beside the sum of the clusters alone, per cluster
	fleetIdleCPUPerCent  = 1.0                    // % of one core per cluster, idle
	fleetStaleTarget     = 5 * time.Second        // from the API server's stop to "stale" on the states line
)

// fleetOptions are fleet-measure's inputs.
type fleetOptions struct {
	kyyard, kubeconfig string
	contexts           []string                // the fleet's contexts, the first the one kyyard starts in
	clients            []*kubernetes.Clientset // one per context
	hosts              []string                // each context's API server URL
	auditLog           string                  // each member's audit log, {context} standing for its name
	starts             int                     // rounds of starts
	idle               time.Duration
	clusterTool        string // hack/cluster's binary; "" skips the outage
	restart            string // the member whose API server is stopped
	down               time.Duration
	session            string  // the tmux session
	as                 string  // the user kyyard impersonates
	serverCPU          float64 // each API server's share of one core (limitServers); 0: no limit
}

// audit is context name's audit log.
func (o fleetOptions) audit(name string) string {
	return strings.ReplaceAll(o.auditLog, "{context}", name)
}

// kyyardArgs is kyyard's command line: on context i alone, or (i < 0)
// across the fleet, starting in its first context.
func (o fleetOptions) kyyardArgs(i int) []string {
	args := []string{o.kyyard, "--kubeconfig", o.kubeconfig, "--as", o.as, "--as-group", "system:masters"}
	if i < 0 {
		args = append(args, "--context", o.contexts[0], "--contexts", strings.Join(o.contexts, ","))
	} else {
		args = append(args, "--context", o.contexts[i])
	}
	return append(args, "-c", "pods", "-A")
}

// startFigures are one timed start of kyyard.
type startFigures struct {
	first, all time.Duration
	rss        int     // KiB, 2 s after all rows
	shown      int     // the title's count then
	cpu        float64 // kyyard's CPU-seconds from its start to all rows
	serverCPU  float64 // the fleet's API servers' CPU-seconds over the same time
}

// clusterState is one cluster's entry on the fleet's states line.
type clusterState struct {
	class string // "count", "reading", "stale", or the reason shown ("unavailable", ...)
	rows  int    // the count, for "count"
	text  string // as shown after the name
}

// statesLine is the line of the clusters' states under the title:
// "clusters: kyyard-fleet-1 30000 · kyyard-fleet-2 reading… 3s · ...".
var statesLine = regexp.MustCompile(`(?m)^clusters: (.*)$`)

// parseStates reads the states line of screen by context name; nil when
// there is none.
func parseStates(screen string) map[string]clusterState {
	m := statesLine.FindStringSubmatch(screen)
	if m == nil {
		return nil
	}
	out := map[string]clusterState{}
	for _, part := range strings.Split(strings.TrimSpace(m[1]), " · ") {
		name, rest, ok := strings.Cut(strings.TrimSpace(part), " ")
		if !ok {
			continue
		}
		st := clusterState{text: rest}
		switch {
		case isCount(rest):
			st.class = "count"
			st.rows, _ = strconv.Atoi(rest)
		case strings.HasPrefix(rest, "reading"):
			st.class = "reading"
		case strings.HasPrefix(rest, "stale"):
			st.class = "stale"
		default:
			st.class = rest
		}
		out[name] = st
	}
	return out
}

func isCount(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// interrupts holds what to undo when the run is interrupted (ctrl-c): the
// tmux session; the restart of an API server is left to finish (it runs
// in its own process group, and clean waits for the member to answer).
var interrupts struct {
	sync.Mutex
	undo []func()
}

func onInterrupt(f func()) {
	interrupts.Lock()
	defer interrupts.Unlock()
	interrupts.undo = append(interrupts.undo, f)
}

func watchInterrupts() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-c
		interrupts.Lock()
		for _, f := range interrupts.undo {
			f()
		}
		os.Exit(130)
	}()
}

// stopPane ends the session and waits (at most 10 s) until kyyard, pid,
// is gone, so that it spends nothing during the next start.
func stopPane(session string, pid int) {
	_ = exec.Command("tmux", "kill-session", "-t", session).Run()
	for end := time.Now().Add(10 * time.Second); pid > 0 && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			return
		}
	}
}

// timedStart waits settleBeforeStart, starts argv in the session and
// reads its figures; kyyard is left running. A start during which an API
// server of the fleet was restarted (by someone else: the fleet is
// shared) is dropped and made again, at most 5 times.
func (o fleetOptions) timedStart(ctx context.Context, argv []string, synced func(string) bool, what string) (int, startFigures, error) {
	for attempt := 1; ; attempt++ {
		if err := o.waitReady(ctx); err != nil {
			return 0, startFigures{}, err
		}
		before := o.apiServers()
		time.Sleep(settleBeforeStart)
		pid, f, err := o.start(argv, synced, what)
		restarted := o.restarted(before)
		if len(restarted) == 0 || attempt == 5 {
			if err == nil && len(restarted) > 0 {
				err = fmt.Errorf("the API server of %s restarted during each of 5 starts", strings.Join(restarted, ", "))
			}
			return pid, f, err
		}
		stopPane(o.session, pid)
		fmt.Printf("  %s: %s's API server restarted during the start (not by this run); starting again\n",
			time.Now().Format("15:04:05"), strings.Join(restarted, ", "))
	}
}

// start is one timed start.
func (o fleetOptions) start(argv []string, synced func(string) bool, what string) (int, startFigures, error) {
	var f startFigures
	servers := o.apiServers()
	server0 := processTicks(servers)
	pid, first, all, err := startPane(o.session, argv, synced, what)
	if err != nil {
		return 0, f, err
	}
	ticks, err := cpuTicks(pid)
	if err != nil {
		return 0, f, err
	}
	f.first, f.all, f.cpu = first, all, float64(ticks)/clockTicks
	f.serverCPU = float64(processTicks(servers)-server0) / clockTicks
	if screen, err := capture(o.session); err == nil {
		f.shown = titleTotal(screen)
	}
	time.Sleep(2 * time.Second) // let the first frames settle, as measure does
	if f.rss, err = rssKiB(pid); err != nil {
		return 0, f, err
	}
	return pid, f, nil
}

// countPods counts the pods of a cluster and its scale run's pods.
func countPods(ctx context.Context, cs kubernetes.Interface) (all, scale int, err error) {
	list, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return 0, 0, err
	}
	for i := range list.Items {
		if list.Items[i].Labels[scaleLabel] == "true" {
			scale++
		}
	}
	return len(list.Items), scale, nil
}

// fleetMeasure is the fleet run: see the top of this file.
func fleetMeasure(ctx context.Context, o fleetOptions) error {
	o.as = fmt.Sprintf("kyyard-fleet-run-%d", os.Getpid())
	n := len(o.contexts)
	restartAt := slices.Index(o.contexts, o.restart)
	if o.clusterTool != "" && restartAt < 0 {
		return fmt.Errorf("--restart %s is none of the contexts %s", o.restart, strings.Join(o.contexts, ", "))
	}
	watchInterrupts()
	onInterrupt(func() { _ = exec.Command("tmux", "kill-session", "-t", o.session).Run() })
	defer func() { _ = exec.Command("tmux", "kill-session", "-t", o.session).Run() }()

	all, scale := make([]int, n), make([]int, n)
	for i, cs := range o.clients {
		var err error
		if all[i], scale[i], err = countPods(ctx, cs); err != nil {
			return fmt.Errorf("%s: %w", o.contexts[i], err)
		}
		if scale[i] == 0 {
			return fmt.Errorf("%s has no pods of the scale run: seed it first (seed --contexts)", o.contexts[i])
		}
	}
	if o.serverCPU > 0 {
		release, err := o.limitServers(o.serverCPU)
		if err != nil {
			return err
		}
		defer release()
		onInterrupt(release)
	}
	runtime.GC()
	debug.FreeOSMemory()
	scaleSum := 0
	for _, s := range scale {
		scaleSum += s
	}
	fmt.Printf("fleet run: %d clusters, kyyard at 200x50 impersonating %s (its requests in the audit logs)\n", n, o.as)
	for i, name := range o.contexts {
		fmt.Printf("  %s: %d pods (%d of the scale run)\n", name, all[i], scale[i])
	}
	fmt.Printf("  alone:    %s\n", strings.Join(o.kyyardArgs(0), " "))
	fmt.Printf("  fleet:    %s\n", strings.Join(o.kyyardArgs(-1), " "))
	if o.serverCPU > 0 {
		fmt.Printf("  each API server held to %.2f of one core (a CPU quota of its own, as a remote cluster's takes no CPU from kyyard's machine)\n", o.serverCPU)
	}
	fmt.Printf("  load average before: %s\n", loadAverage())

	// Rounds: each cluster alone, then the fleet; the fleet's last start
	// stays. All rows: the title's count, no longer followed by "…",
	// covers the scale run's pods (the fleet's own demo pods may change
	// under other runs); across the fleet every cluster shows its count.
	alone := make([][]startFigures, n)
	var fleet []startFigures
	var pid int
	fleetSynced := func(screen string) bool {
		if titleTotal(screen) < scaleSum {
			return false
		}
		states := parseStates(screen)
		for i, name := range o.contexts {
			if st, ok := states[name]; !ok || st.class != "count" || st.rows < scale[i] {
				return false
			}
		}
		return true
	}
	for r := range o.starts {
		for i, name := range o.contexts {
			p, f, err := o.timedStart(ctx, o.kyyardArgs(i), func(screen string) bool { return titleTotal(screen) >= scale[i] },
				fmt.Sprintf("the %d pods of %s", scale[i], name))
			if err != nil {
				return fmt.Errorf("%s alone: %w", name, err)
			}
			stopPane(o.session, p)
			alone[i] = append(alone[i], f)
			fmt.Printf("  %s round %d: %s alone: first rows %s, all rows (%d) %s, RSS %.1f MiB; CPU to all rows: kyyard %.2f s, the API servers %.2f s\n",
				time.Now().Format("15:04:05"), r+1, name, f.first.Round(time.Millisecond), f.shown, f.all.Round(time.Millisecond), mib(f.rss), f.cpu, f.serverCPU)
		}
		p, f, err := o.timedStart(ctx, o.kyyardArgs(-1), fleetSynced, fmt.Sprintf("the %d pods of the fleet", scaleSum))
		if err != nil {
			return fmt.Errorf("the fleet: %w", err)
		}
		fleet = append(fleet, f)
		fmt.Printf("  %s round %d: the fleet: first rows %s, all rows (%d) %s, RSS %.1f MiB; CPU to all rows: kyyard %.2f s, the API servers %.2f s\n",
			time.Now().Format("15:04:05"), r+1, f.first.Round(time.Millisecond), f.shown, f.all.Round(time.Millisecond), mib(f.rss), f.cpu, f.serverCPU)
		if r < o.starts-1 {
			stopPane(o.session, p)
		} else {
			pid = p
		}
	}

	cpu0, err := cpuTicks(pid)
	if err != nil {
		return err
	}
	idleServers := o.apiServers()
	idleStart := time.Now()
	time.Sleep(o.idle)
	idleEnd := time.Now()
	cpu1, err := cpuTicks(pid)
	if err != nil {
		return err
	}
	rssIdle, _ := rssKiB(pid)
	loadIdle := loadAverage()
	idleRestarted := o.restarted(idleServers)
	counts := make([]map[string]int, n)
	for i, name := range o.contexts {
		if counts[i], err = auditCountsAs(o.audit(name), o.as, idleStart, idleEnd); err != nil {
			return fmt.Errorf("%s's audit log: %w", name, err)
		}
	}

	// The figures so far, before the outage (which may fail).
	fmt.Printf("\nfleet run: %s, %d pods in all (%d of the scale run), %d start(s) each\n",
		strings.Join(o.contexts, ", "), sum(all), scaleSum, o.starts)
	var slowest, slowestBest time.Duration
	var slowestName string
	aloneRSS := 0
	for i, name := range o.contexts {
		firsts, alls, rss := split(alone[i])
		fmt.Printf("  %s alone (%d pods): first rows %s; all rows %s; RSS after sync %s MiB; %s\n", name, all[i],
			spread(firsts), spread(alls), rssSpread(rss), cpuSpread(alone[i]))
		if m := median(alls); m > slowest {
			slowest, slowestName = m, name
		}
		slowestBest = max(slowestBest, best(alls))
		aloneRSS += medianInt(rss)
	}
	fmt.Printf("  slowest alone: %s (median %s; the slowest best %s)\n", slowestName, slowest.Round(time.Millisecond), slowestBest.Round(time.Millisecond))
	firsts, alls, rss := split(fleet)
	fmt.Printf("  the fleet (%d pods):\n", sum(all))
	fmt.Printf("    first rows drawn: %s after start (target ≤ %s): %s\n", spread(firsts), fleetFirstRowsTarget,
		verdict(median(firsts) <= fleetFirstRowsTarget))
	ratio := median(alls).Seconds() / slowest.Seconds()
	fmt.Printf("    all rows of all clusters: %s after start; median / slowest alone's median %.2f, best / slowest best %.2f (target ≤ %.1f): %s\n",
		spread(alls), ratio, best(alls).Seconds()/slowestBest.Seconds(), fleetAllRowsFactor, verdict(ratio <= fleetAllRowsFactor))
	fmt.Printf("    %s\n", cpuSpread(fleet))
	rssTarget := aloneRSS + n*fleetRSSPerCluster
	fmt.Printf("    RSS after sync: %s MiB, median %.1f (target ≤ the sum alone %.1f + %d × 20 = %.1f MiB): %s; after the idle window %.1f MiB\n",
		rssSpread(rss), mib(medianInt(rss)), mib(aloneRSS), n, mib(rssTarget), verdict(medianInt(rss) <= rssTarget), mib(rssIdle))
	cpuPct := 100 * float64(cpu1-cpu0) / clockTicks / o.idle.Seconds()
	fmt.Printf("    CPU over %s idle: %.2f CPU-seconds, %.2f%% of one core (target ≤ %.0f%%, 1%% per cluster): %s (load average then %s)\n",
		o.idle, float64(cpu1-cpu0)/clockTicks, cpuPct, fleetIdleCPUPerCent*float64(n), verdict(cpuPct <= fleetIdleCPUPerCent*float64(n)), loadIdle)
	for i, name := range o.contexts {
		c := counts[i]
		fmt.Printf("    %s, kyyard's requests in the idle window (audit log): list %d, watch %d, metrics reads %d, other %d\n",
			name, c["list"], c["watch"], c["metrics"], c["other"])
	}
	if len(idleRestarted) > 0 {
		fmt.Printf("    NOTE: the API server of %s restarted during the idle window (not by this run): its CPU and requests include kyyard's catch-up\n",
			strings.Join(idleRestarted, ", "))
	}

	if o.clusterTool == "" {
		fmt.Println("  outage: skipped (no --cluster-tool)")
		return nil
	}
	res, err := o.outage(restartAt, scale)
	res.print(o)
	if err != nil {
		return err
	}
	_ = tmuxKeys(o.session, "q")
	return nil
}
