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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/url"
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
	session            string // the tmux session
	as                 string // the user kyyard impersonates
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

// stamped is one change of the restarted member's state on the screen.
type stamped struct {
	at   time.Time
	text string
}

// outageResult is what the outage measured.
type outageResult struct {
	member string
	// began: the restart command started (it sends SIGTERM at once);
	// refused: the API server's port first refused a connection; exited:
	// its process was gone (the clients' connections with it); stopped: the
	// command said it stopped; accepting: the port accepted again; ready:
	// the command said it is ready (/readyz) again; finished: it exited.
	began, refused, exited, stopped, accepting, ready, finished time.Time
	othersRestarted                                             []string // other members whose API server restarted meanwhile (not by this run)
	cmdErr                                                      error
	cmdOut                                                      string
	left                                                        time.Time // the member first showed no count
	leftText                                                    string
	staleAt                                                     time.Time
	staleText                                                   string
	othersAtStale                                               string // the other clusters' entries then
	othersBroke                                                 string // the first entry of another cluster that was no count while the member was away; "" none
	backAt                                                      time.Time
	backText                                                    string
	timeline                                                    []stamped
	reads                                                       []auditRequest // kyyard's requests of the member's pods since began
	otherRequests                                               map[string]int // its other requests to the member since began, by verb
	auditErr                                                    error
}

// stop is the outage's origin: the API server's process gone (until then
// it keeps serving the connections it has, kyyard's watches among them,
// though it refuses new ones), else the command's "stopped", else its
// start.
func (r outageResult) stop() time.Time {
	switch {
	case !r.exited.IsZero():
		return r.exited
	case !r.stopped.IsZero():
		return r.stopped
	}
	return r.began
}

// outage stops member i's API server for o.down (fleet restart-apiserver,
// in the background in its own process group) while the fleet's kyyard
// runs, and follows the states line every 20 ms until the member shows
// its count again; then reads kyyard's requests of its pods from its audit
// log.
func (o fleetOptions) outage(i int, scale []int) (outageResult, error) {
	res := outageResult{member: o.restart, otherRequests: map[string]int{}}
	u, err := url.Parse(o.hosts[i])
	if err != nil {
		return res, err
	}
	screen, err := capture(o.session)
	if err != nil {
		return res, err
	}
	for j, name := range o.contexts {
		if st := parseStates(screen)[name]; st.class != "count" || st.rows < scale[j] {
			return res, fmt.Errorf("before the outage %s shows %q, not its count", name, st.text)
		}
	}
	servers := o.apiServers()
	if servers[i] == 0 {
		return res, fmt.Errorf("no API server of %s runs", o.restart)
	}
	out, err := os.CreateTemp("", "kyyard-fleet-restart-*.log")
	if err != nil {
		return res, err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	cmd := exec.Command(o.clusterTool, "fleet", "restart-apiserver", "--cluster", o.restart, "--down", o.down.String())
	cmd.Stdout, cmd.Stderr = out, out // a file: the command outlives an interrupted run unharmed
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	res.began = time.Now()
	if err := cmd.Start(); err != nil {
		return res, fmt.Errorf("%s fleet restart-apiserver: %w", o.clusterTool, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	// The port: when it first refuses, and accepts again after that; the
	// process: when it is gone.
	var pmu sync.Mutex
	var refused, accepting, exited time.Time
	stopWatch := make(chan struct{})
	defer close(stopWatch)
	go func() {
		for {
			select {
			case <-stopWatch:
				return
			default:
			}
			if !alive(servers[i]) {
				pmu.Lock()
				exited = time.Now()
				pmu.Unlock()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	go func() {
		for {
			select {
			case <-stopWatch:
				return
			default:
			}
			c, err := net.DialTimeout("tcp", u.Host, 500*time.Millisecond)
			now := time.Now()
			if c != nil {
				c.Close()
			}
			pmu.Lock()
			if err != nil && refused.IsZero() {
				refused = now
			} else if err == nil && !refused.IsZero() {
				accepting = now
				pmu.Unlock()
				return
			}
			pmu.Unlock()
			time.Sleep(20 * time.Millisecond)
		}
	}()

	deadline := res.began.Add(o.down + 3*time.Minute)
	finished := false
	lastClass := ""
	for {
		now := time.Now()
		screen, err := capture(o.session)
		if err != nil {
			return res, err
		}
		states := parseStates(screen)
		st, ok := states[o.restart]
		if !ok {
			st = clusterState{class: "(no entry)", text: "(no entry)"}
		}
		if st.class != lastClass {
			res.timeline = append(res.timeline, stamped{now, st.text})
			lastClass = st.class
		}
		switch {
		case res.left.IsZero() && st.class != "count":
			res.left, res.leftText = now, st.text
		case !res.left.IsZero() && res.backAt.IsZero() && st.class == "count":
			res.backAt, res.backText = now, st.text
		}
		if res.staleAt.IsZero() && st.class == "stale" {
			res.staleAt, res.staleText = now, st.text
			var others []string
			for _, name := range o.contexts {
				if name != o.restart {
					others = append(others, name+" "+states[name].text)
				}
			}
			res.othersAtStale = strings.Join(others, " · ")
		}
		if !res.left.IsZero() && res.backAt.IsZero() && res.othersBroke == "" {
			for j, name := range o.contexts {
				if other := states[name]; name != o.restart && (other.class != "count" || other.rows < scale[j]) {
					res.othersBroke = fmt.Sprintf("%s %q at %s after the stop", name, other.text, now.Sub(res.stop()).Round(time.Millisecond))
				}
			}
		}
		if text, err := os.ReadFile(out.Name()); err == nil {
			if res.stopped.IsZero() && bytes.Contains(text, []byte("restart-apiserver: stopped")) {
				res.stopped = now
			}
			if res.ready.IsZero() && bytes.Contains(text, []byte("ready again")) {
				res.ready = now
			}
		}
		pmu.Lock()
		res.refused, res.accepting, res.exited = refused, accepting, exited
		pmu.Unlock()
		if !finished {
			select {
			case res.cmdErr = <-done:
				finished, res.finished = true, now
			default:
			}
		}
		if finished && (!res.backAt.IsZero() || res.cmdErr != nil) {
			break
		}
		if now.After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	text, _ := os.ReadFile(out.Name())
	res.cmdOut = strings.TrimSpace(string(text))
	if res.cmdErr != nil {
		return res, fmt.Errorf("fleet restart-apiserver: %w", res.cmdErr)
	}
	if !finished {
		return res, fmt.Errorf("fleet restart-apiserver had not finished %s after it began", time.Since(res.began).Round(time.Second))
	}
	if res.backAt.IsZero() {
		return res, fmt.Errorf("%s did not show its count again within %s of the restart", o.restart, o.down+3*time.Minute)
	}
	// What kyyard asks after it is back, for a while more.
	time.Sleep(10 * time.Second)
	for j, name := range o.contexts {
		if j != i && apiServerPID(o.hosts[j]) != servers[j] {
			res.othersRestarted = append(res.othersRestarted, name)
		}
	}
	reqs, err := auditRequestsAs(o.audit(o.restart), o.as, res.began.Add(-time.Second))
	if err != nil {
		res.auditErr = err
		return res, nil
	}
	for _, r := range reqs {
		if r.received.Before(res.began) {
			continue
		}
		if r.resource == "pods" && r.namespace == "" && r.subresource == "" && (r.verb == "list" || r.verb == "watch") {
			res.reads = append(res.reads, r)
		} else {
			res.otherRequests[r.verb]++
		}
	}
	return res, nil
}

// print reports the outage.
func (r outageResult) print(o fleetOptions) {
	if r.began.IsZero() {
		return
	}
	stop := r.stop()
	after := func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return t.Sub(stop).Round(time.Millisecond).String()
	}
	fmt.Printf("  one API server stopped mid-run: %s fleet restart-apiserver --cluster %s --down %s (in the background)\n",
		o.clusterTool, r.member, o.down)
	fmt.Printf("    %s's API server: SIGTERM at the command's start; its port refused new connections %s after, its process gone %s after (it served the connections it had until then); the stop below: the process gone\n",
		r.member, durOrNever(r.began, r.refused), durOrNever(r.began, r.exited))
	stale := r.staleAt.Sub(stop)
	if r.staleAt.IsZero() {
		fmt.Printf("    %s stale: never shown (first left its count %s after the stop: %q) (target ≤ %s): NOT met\n", r.member, after(r.left), r.leftText, fleetStaleTarget)
	} else {
		fmt.Printf("    %s stale: %s after the stop (%q; target ≤ %s): %s; %s after SIGTERM; first left its count %s after the stop (%q)\n",
			r.member, stale.Round(time.Millisecond), r.staleText, fleetStaleTarget, verdict(stale <= fleetStaleTarget),
			durOrNever(r.began, r.staleAt), after(r.left), r.leftText)
		fmt.Printf("      the other clusters then: %s\n", r.othersAtStale)
	}
	if r.othersBroke == "" {
		fmt.Printf("      the other clusters showed their counts throughout, until %s was back: yes\n", r.member)
	} else {
		fmt.Printf("      the other clusters showed their counts throughout: NO, first %s\n", r.othersBroke)
	}
	fmt.Printf("    back: the port accepted again %s after the stop, the API server ready (/readyz) %s after the stop; the command finished %s after it\n",
		after(r.accepting), after(r.ready), after(r.finished))
	if !r.backAt.IsZero() {
		fmt.Printf("    %s's count again (%s): %s after the API server was ready, %s after its port accepted (%s after the stop)\n",
			r.member, r.backText, durOrNever(r.ready, r.backAt), durOrNever(r.accepting, r.backAt), after(r.backAt))
	}
	if len(r.othersRestarted) > 0 {
		fmt.Printf("    NOTE: the API server of %s restarted meanwhile (not by this run)\n", strings.Join(r.othersRestarted, ", "))
	}
	var tl []string
	for _, s := range r.timeline {
		tl = append(tl, fmt.Sprintf("%s %q", after(s.at), s.text))
	}
	fmt.Printf("    %s on the states line (time after the stop): %s\n", r.member, strings.Join(tl, " → "))
	if r.auditErr != nil {
		fmt.Printf("    %s's audit log: %v\n", r.member, r.auditErr)
		return
	}
	if len(r.reads) == 0 && len(r.otherRequests) == 0 {
		return
	}
	fmt.Printf("    kyyard's reads of all pods of %s from the outage on (audit log; time after the stop; the API server ready at %s, the count back at %s):\n",
		r.member, after(r.ready), after(r.backAt))
	var full []auditRequest
	for _, q := range r.reads {
		end := ""
		if !q.completed.IsZero() {
			end = fmt.Sprintf(", answered in %s", q.completed.Sub(q.received).Round(time.Millisecond))
		}
		fmt.Printf("      %9s %-5s %-36s HTTP %d%s  %s\n", after(q.received), q.verb, q.kind(), q.code, end, q.uri)
		// A refused request (429 while the API server starts) read nothing.
		if q.full() && !q.received.Before(stop) && q.code < 400 {
			full = append(full, q)
		}
	}
	if len(r.otherRequests) > 0 {
		var parts []string
		for _, v := range slices.Sorted(maps.Keys(r.otherRequests)) {
			parts = append(parts, fmt.Sprintf("%s %d", v, r.otherRequests[v]))
		}
		fmt.Printf("      its other requests to %s over the same time: %s\n", r.member, strings.Join(parts, ", "))
	}
	// A full read runs from its request until its answer (a LIST's
	// completion; a streaming list's end of initial events, taken as the
	// member's count shown again on the screen after it began).
	var beside, reads []string
	for a := range full {
		endA := r.readEnd(full[a])
		reads = append(reads, fmt.Sprintf("%s %s–%s", full[a].kind(), after(full[a].received), after(endA)))
		for b := a + 1; b < len(full); b++ {
			if full[b].received.Before(endA) {
				beside = append(beside, fmt.Sprintf("%s at %s beside %s at %s", full[b].kind(), after(full[b].received), full[a].kind(), after(full[a].received)))
			}
		}
	}
	fmt.Printf("    full reads of all pods after the stop (answered, LISTs without continue and streaming lists): %d: %s\n", len(full), strings.Join(reads, "; "))
	if len(beside) == 0 {
		fmt.Printf("    catch-up with no second full list beside a running one: yes (none overlapped)\n")
	} else {
		fmt.Printf("    catch-up with no second full list beside a running one: NO: %s\n", strings.Join(beside, "; "))
	}
}

// readEnd is when full read q had answered: a LIST's completion; a
// streaming list's, the first moment after it began that the member
// showed its count on the screen (its completion if earlier).
func (r outageResult) readEnd(q auditRequest) time.Time {
	end := q.completed
	if q.verb == "list" && !end.IsZero() {
		return end
	}
	for _, s := range r.timeline {
		if s.at.After(q.received) && isCount(s.text) {
			if end.IsZero() || s.at.Before(end) {
				end = s.at
			}
			break
		}
	}
	if end.IsZero() {
		end = time.Now()
	}
	return end
}

// auditRequest is one request of an audit log, its stages merged.
type auditRequest struct {
	id, verb, uri                    string
	resource, namespace, subresource string
	received, completed              time.Time // completed: zero until its ResponseComplete
	code                             int
}

// query is the request's URL query.
func (q auditRequest) query() url.Values {
	u, err := url.Parse(q.uri)
	if err != nil {
		return url.Values{}
	}
	return u.Query()
}

// full says whether q reads every pod from the start: a LIST with no
// continue (a first page or an unpaged list), or a watch with
// sendInitialEvents (a streaming list); a watch from a resourceVersion
// resumes and is no full read.
func (q auditRequest) full() bool {
	v := q.query()
	switch q.verb {
	case "list":
		return v.Get("continue") == ""
	case "watch":
		return v.Get("sendInitialEvents") == "true"
	}
	return false
}

// kind names what q is: "full LIST (rv \"\")", "watch from rv 123", ...
func (q auditRequest) kind() string {
	v := q.query()
	rv := "no rv"
	if vs, ok := v["resourceVersion"]; ok {
		rv = fmt.Sprintf("rv %q", vs[0])
	}
	switch {
	case q.verb == "list" && v.Get("continue") != "":
		return "LIST page (continue)"
	case q.verb == "list":
		return "full LIST (" + rv + ")"
	case q.full():
		return "streaming list (sendInitialEvents)"
	}
	return "watch from " + rv
}

// auditRequestsAs reads the requests of the kyyard impersonating as
// received since from in the audit log at path, in the order received.
func auditRequestsAs(path, as string, from time.Time) ([]auditRequest, error) {
	byID := map[string]*auditRequest{}
	var order []string
	err := auditScanAs(path, as, from, func(line []byte) error {
		var e struct {
			AuditID   string    `json:"auditID"`
			Stage     string    `json:"stage"`
			Verb      string    `json:"verb"`
			URI       string    `json:"requestURI"`
			Received  time.Time `json:"requestReceivedTimestamp"`
			StageTime time.Time `json:"stageTimestamp"`
			ObjectRef *struct {
				Resource    string `json:"resource"`
				Namespace   string `json:"namespace"`
				Subresource string `json:"subresource"`
			} `json:"objectRef"`
			ResponseStatus *struct {
				Code int `json:"code"`
			} `json:"responseStatus"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			return err
		}
		if e.Received.Before(from) {
			return nil
		}
		q, ok := byID[e.AuditID]
		if !ok {
			q = &auditRequest{id: e.AuditID, verb: e.Verb, uri: e.URI, received: e.Received}
			if e.ObjectRef != nil {
				q.resource, q.namespace, q.subresource = e.ObjectRef.Resource, e.ObjectRef.Namespace, e.ObjectRef.Subresource
			}
			byID[e.AuditID] = q
			order = append(order, e.AuditID)
		}
		if e.ResponseStatus != nil && e.ResponseStatus.Code != 0 {
			q.code = e.ResponseStatus.Code
		}
		if e.Stage == "ResponseComplete" || e.Stage == "Panic" {
			q.completed = e.StageTime
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]auditRequest, 0, len(order))
	for _, id := range order {
		out = append(out, *byID[id])
	}
	slices.SortStableFunc(out, func(a, b auditRequest) int { return a.received.Compare(b.received) })
	return out, nil
}

func split(fs []startFigures) (firsts, alls []time.Duration, rss []int) {
	for _, f := range fs {
		firsts, alls, rss = append(firsts, f.first), append(alls, f.all), append(rss, f.rss)
	}
	return firsts, alls, rss
}

// cpuSpread says the CPU time kyyard and the API servers spent until all
// rows (the medians) and how many of the machine's cores that kept busy.
func cpuSpread(fs []startFigures) string {
	var ky, sv, busy []float64
	for _, f := range fs {
		ky, sv = append(ky, f.cpu), append(sv, f.serverCPU)
		busy = append(busy, (f.cpu+f.serverCPU)/f.all.Seconds())
	}
	mid := func(v []float64) float64 { return slices.Sorted(slices.Values(v))[(len(v)-1)/2] }
	return fmt.Sprintf("CPU to all rows (median): kyyard %.2f s, the API servers %.2f s; together %.2f of the machine's %d cores busy",
		mid(ky), mid(sv), mid(busy), runtime.NumCPU())
}

// medianInt is the lower middle of v (at least one).
func medianInt(v []int) int {
	s := slices.Sorted(slices.Values(v))
	return s[(len(s)-1)/2]
}

func rssSpread(v []int) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.1f", mib(x))
	}
	if len(v) == 1 {
		return parts[0]
	}
	return fmt.Sprintf("%s (median %.1f)", strings.Join(parts, ", "), mib(medianInt(v)))
}

func mib(kib int) float64 { return float64(kib) / 1024 }

func sum(v []int) int {
	t := 0
	for _, x := range v {
		t += x
	}
	return t
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func durOrNever(from, to time.Time) string {
	if from.IsZero() || to.IsZero() {
		return "never"
	}
	return to.Sub(from).Round(time.Millisecond).String()
}

// loadAverage is the machine's 1-, 5- and 15-minute load average: other
// work on the machine (the fleet is shared) shows in it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// apiServerPID finds the kube-apiserver serving host (an API server URL on
// this machine) by its command line (--secure-port); 0 when none runs.
func apiServerPID(host string) int {
	u, err := url.Parse(host)
	if err != nil {
		return 0
	}
	flag := []byte("--secure-port=" + u.Port())
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + d.Name() + "/cmdline")
		if err != nil {
			continue
		}
		args := bytes.Split(cmdline, []byte{0})
		if len(args) == 0 || !bytes.HasSuffix(args[0], []byte("kube-apiserver")) {
			continue
		}
		for _, a := range args[1:] {
			if bytes.Equal(a, flag) && alive(pid) {
				return pid
			}
		}
	}
	return 0
}

// processTicks is the CPU time (utime+stime, clock ticks) the running
// processes of pids spent.
func processTicks(pids []int) int {
	t := 0
	for _, pid := range pids {
		if n, err := cpuTicks(pid); err == nil {
			t += n
		}
	}
	return t
}

// alive says whether pid runs (exists and is no zombie).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z'
}

// apiServers is the PID of each context's API server (0: none runs).
func (o fleetOptions) apiServers() []int {
	pids := make([]int, len(o.hosts))
	for i, h := range o.hosts {
		pids[i] = apiServerPID(h)
	}
	return pids
}

// restarted names the contexts whose API server is not the one of before
// (someone restarted it: the fleet is shared).
func (o fleetOptions) restarted(before []int) []string {
	var out []string
	for i, pid := range o.apiServers() {
		if pid == 0 || pid != before[i] {
			out = append(out, o.contexts[i])
		}
	}
	return out
}

// waitReady waits (at most 3 minutes) until every context's API server
// runs and answers /readyz.
func (o fleetOptions) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(3 * time.Minute)
	for i, cs := range o.clients {
		for {
			err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
			if err == nil && apiServerPID(o.hosts[i]) != 0 {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s's API server not ready after 3 minutes: %v", o.contexts[i], err)
			}
			time.Sleep(time.Second)
		}
	}
	return nil
}
