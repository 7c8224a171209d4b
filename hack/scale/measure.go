package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// kyyardAgent is the user agent kyyard's client sends (kube.NewFromConfig).
const kyyardAgent = "kyyard"

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat times.
const clockTicks = 100

// titleCount reads the inventory's title count; while the first list is
// still arriving it ends in "…" and does not match.
var titleCount = regexp.MustCompile(`pods\(all\)\[(\d+)\]`)

// settleBeforeStart is the pause between the baselines and kyyard's start.
const settleBeforeStart = 20 * time.Second

// runOptions are measure's optional parts.
type runOptions struct {
	kubectl string // the kubectl for the baseline; "" skips it
	starts  int    // how many times kyyard is started and timed
	// interleave times one bare LIST right before each start (and counts
	// the pods not Running yet) instead of three LISTs and three streaming
	// lists before the first: a start while the cluster churns, held to
	// the LIST of its own minute.
	interleave bool
	churn      churnOptions // the churn run; length 0 skips it
}

// measure starts kyyard -A in a 200x50 tmux pane and reports the figures.
func measure(ctx context.Context, cs kubernetes.Interface, binary, kubeconfig, auditLog string, idle time.Duration, opts runOptions) error {
	pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return err
	}
	total := len(pods.Items)
	var scalePods []*corev1.Pod
	for i := range pods.Items {
		if pods.Items[i].Labels[scaleLabel] == "true" {
			scalePods = append(scalePods, &pods.Items[i])
		}
	}
	pods = nil // the list is big; keep only the scale pods
	// The bare LIST kyyard's all-rows time is held to (issue 14: ≤ 1.5×),
	// timed three times before kyyard starts.
	var listTimes, streamTimes []time.Duration
	var listed, streamed int
	if !opts.interleave {
		if listTimes, listed, err = bareList(ctx, cs, 3); err != nil {
			return err
		}
		if streamTimes, streamed, err = bareWatchList(ctx, cs, 3); err != nil {
			return err
		}
	}
	var notRunning []int // interleave: pods not Running at each start's LIST
	var reads []podReads // kyyard's reads of pods in each start
	var kubectlWall time.Duration
	var kubectlRSS int64
	if opts.kubectl != "" {
		// Before kyyard starts, so that the two do not compete.
		if kubectlWall, kubectlRSS, err = baseline(opts.kubectl, kubeconfig); err != nil {
			return err
		}
	}
	// kyyard is started opts.starts times, as the LIST is timed three
	// times: at 100,000 pods on two cores the cluster's own periodic work
	// (kwok computing every pod's usage for metrics-server's scrape, the
	// controllers' resyncs) doubles a list it overlaps. The last start
	// stays for the rest of the run.
	session := fmt.Sprintf("kyyard-scale-%d", os.Getpid())
	defer func() { _ = exec.Command("tmux", "kill-session", "-t", session).Run() }()
	var firsts, alls, requests []time.Duration
	var pid int
	for i := range max(opts.starts, 1) {
		if i > 0 {
			_ = exec.Command("tmux", "kill-session", "-t", session).Run()
		}
		if opts.interleave {
			took, items, waiting, err := listOnce(ctx, cs)
			if err != nil {
				return err
			}
			listTimes, notRunning = append(listTimes, took), append(notRunning, waiting)
			listed, total = items, items
		}
		// The LISTs, kubectl and the last start leave the API server
		// gigabytes to collect: kyyard's watch-list beside that
		// collection took twice as long.
		time.Sleep(settleBeforeStart)
		start := time.Now()
		var firstRows, synced time.Duration
		// --interleave may alternate binaries (an A/B in the same minutes).
		binaries := strings.Split(binary, ",")
		if pid, firstRows, synced, err = startKyyard(session, binaries[i%len(binaries)], kubeconfig, total); err != nil {
			return err
		}
		firstRequest, err := auditFirst(auditLog, start)
		if err != nil {
			return err
		}
		firsts, alls, requests = append(firsts, firstRows), append(alls, synced), append(requests, firstRequest)
		read, err := auditPodReads(auditLog, start, time.Now())
		if err != nil {
			return err
		}
		reads = append(reads, read)
	}
	time.Sleep(2 * time.Second) // let the first frames settle
	rss, err := rssKiB(pid)
	if err != nil {
		return err
	}
	cpu0, err := cpuTicks(pid)
	if err != nil {
		return err
	}
	idleStart := time.Now()
	time.Sleep(idle)
	idleEnd := time.Now()
	cpu1, err := cpuTicks(pid)
	if err != nil {
		return err
	}
	rssIdle, _ := rssKiB(pid)
	// The figures so far are printed before the churn, so that a churn
	// that fails (the cluster giving way) loses none of them.
	counts, err := auditCounts(auditLog, idleStart, idleEnd)
	if err != nil {
		return err
	}
	fmt.Printf("scale run: %d pods in the cluster, kyyard -A at 200x50, started %d times\n", total, len(alls))
	fmt.Printf("  first request to the API server: %s after start\n", spread(requests))
	fmt.Printf("  first rows drawn:       %s after start (target ≤ 300ms)\n", spread(firsts))
	fmt.Printf("  all rows shown:         %s after start\n", spread(alls))
	if opts.interleave {
		printInterleaved(strings.Split(binary, ","), listed, listTimes, alls, notRunning)
	} else {
		fmt.Printf("  a bare protobuf LIST of all %d pods: %s\n", listed, spread(listTimes))
		fmt.Printf("    kyyard's all rows / the LIST (target ≤ 1.5): best %.2f, median %.2f\n",
			best(alls).Seconds()/best(listTimes).Seconds(), median(alls).Seconds()/median(listTimes).Seconds())
		fmt.Printf("  a bare streaming list (watch with sendInitialEvents, as kyyard's informer) of %d pods: %s\n", streamed, spread(streamTimes))
		fmt.Printf("    kyyard's all rows / the streaming list: best %.2f, median %.2f\n",
			best(alls).Seconds()/best(streamTimes).Seconds(), median(alls).Seconds()/median(streamTimes).Seconds())
	}
	for i, r := range reads {
		fmt.Printf("  start %d: kyyard read pods with %s\n", i+1, r)
	}
	fmt.Printf("  RSS after sync:         %.1f MiB (after the idle window: %.1f MiB)\n", float64(rss)/1024, float64(rssIdle)/1024)
	fmt.Printf("  CPU over %s idle:       %.2f CPU-seconds (%.2f%% of one core)\n", idle,
		float64(cpu1-cpu0)/clockTicks, 100*float64(cpu1-cpu0)/clockTicks/idle.Seconds())
	fmt.Printf("  requests by kyyard in the idle window (audit log): list %d, watch %d, metrics reads %d, other %d\n",
		counts["list"], counts["watch"], counts["metrics"], counts["other"])
	if opts.kubectl != "" {
		fmt.Printf("  kubectl get pods -A (same run, before kyyard): %s, peak RSS %.1f MiB\n",
			kubectlWall.Round(time.Millisecond), float64(kubectlRSS)/1024)
	}
	if opts.churn.length > 0 && len(scalePods) > 0 {
		churned, err := churn(ctx, cs, session, pid, scalePods, opts.churn)
		churned.print(opts.churn.rate)
		if err != nil {
			return err
		}
		// Both read right after kyyard returned its free memory: after the
		// first list, and after the churn's burst.
		fmt.Printf("    kyyard RSS once it returned the churn's memory: %+.1f%% of its RSS after sync (target within 10%%); %s after the churn: %+.1f%%\n",
			100*(float64(churned.rssReleased)-float64(rss))/float64(rss), churned.settle,
			100*(float64(churned.rssSettled)-float64(rss))/float64(rss))
	}
	_ = exec.Command("tmux", "send-keys", "-t", session, "q").Run()
	return nil
}

// startKyyard starts kyyard -A in a 200x50 tmux pane of session and waits
// until it shows all total pods; it returns kyyard's PID and when, after
// the start, the first rows and all rows were drawn. Errors: tmux's, or
// kyyard not showing them all within 3 minutes.
func startKyyard(session, binary, kubeconfig string, total int) (pid int, firstRows, synced time.Duration, err error) {
	return startPane(session, []string{binary, "-A", "--kubeconfig", kubeconfig}, func(screen string) bool {
		return titleTotal(screen) >= total
	}, fmt.Sprintf("all %d pods", total))
}

// titleTotal is the inventory's title count once no rows are arriving
// any more (no "…" after it), -1 before.
func titleTotal(screen string) int {
	m := titleCount.FindStringSubmatch(screen)
	if m == nil {
		return -1
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return -1
	}
	return n
}

// startPane starts argv (kyyard and its flags) in a 200x50 tmux pane of
// session and reads the pane every 10 ms until synced says all rows are
// shown; it returns kyyard's PID and when, after the start, the first rows
// (a "Running" status) and all rows were drawn. Errors: tmux's, or synced
// not true within 3 minutes (what names what was awaited).
func startPane(session string, argv []string, synced func(screen string) bool, what string) (pid int, firstRows, all time.Duration, err error) {
	start := time.Now()
	cmd := exec.Command("tmux", append([]string{"new-session", "-d", "-s", session, "-x", "200", "-y", "50"}, argv...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, 0, 0, fmt.Errorf("tmux: %v: %s", err, out)
	}
	pidText, err := exec.Command("tmux", "display-message", "-p", "-t", session, "#{pane_pid}").Output()
	if err != nil {
		return 0, 0, 0, fmt.Errorf("pane pid: %w", err)
	}
	if pid, err = strconv.Atoi(strings.TrimSpace(string(pidText))); err != nil {
		return 0, 0, 0, fmt.Errorf("pane pid %q: %w", pidText, err)
	}
	deadline := start.Add(3 * time.Minute)
	for all == 0 {
		screen, err := exec.Command("tmux", "capture-pane", "-p", "-t", session).Output()
		if err != nil {
			return 0, 0, 0, fmt.Errorf("capture-pane: %w", err)
		}
		text := string(screen)
		if firstRows == 0 && strings.Contains(text, "Running") {
			firstRows = time.Since(start)
		}
		if synced(text) {
			all = time.Since(start)
			break
		}
		if time.Now().After(deadline) {
			return 0, 0, 0, fmt.Errorf("kyyard did not show %s within 3 minutes; the screen:\n%s", what, text)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return pid, firstRows, all, nil
}

// best is the shortest of ds (at least one).
func best(ds []time.Duration) time.Duration { return slices.Min(ds) }

// median is the middle of ds (at least one), the lower middle of an even
// count.
func median(ds []time.Duration) time.Duration {
	sorted := slices.Sorted(slices.Values(ds))
	return sorted[(len(sorted)-1)/2]
}

// spread writes ds as "a, b, c (best b, median a)", in milliseconds.
func spread(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.Round(time.Millisecond).String()
	}
	if len(ds) == 1 {
		return parts[0]
	}
	return fmt.Sprintf("%s (best %s, median %s)", strings.Join(parts, ", "),
		best(ds).Round(time.Millisecond), median(ds).Round(time.Millisecond))
}

// bareList times one unpaged LIST of every pod in protobuf, decoded, n
// times: the time the issue holds kyyard's all-rows time to.
func bareList(ctx context.Context, cs kubernetes.Interface, n int) ([]time.Duration, int, error) {
	var times []time.Duration
	items := 0
	for range n {
		took, listed, _, err := listOnce(ctx, cs)
		if err != nil {
			return nil, 0, err
		}
		times, items = append(times, took), listed
	}
	debug.FreeOSMemory()
	return times, items, nil
}

// bareWatchList times one streaming list of every pod in protobuf (a watch
// with sendInitialEvents, what kyyard's informer asks for), decoded and
// dropped, until the bookmark that ends the initial events; n times. Set
// beside bareList it shows what the streaming itself costs.
func bareWatchList(ctx context.Context, cs kubernetes.Interface, n int) ([]time.Duration, int, error) {
	var times []time.Duration
	items := 0
	for range n {
		yes := true
		start := time.Now()
		w, err := cs.CoreV1().Pods("").Watch(ctx, metav1.ListOptions{SendInitialEvents: &yes, AllowWatchBookmarks: true,
			ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
		if err != nil {
			return nil, 0, fmt.Errorf("bare watch-list: %w", err)
		}
		items = 0
		for ev := range w.ResultChan() {
			if ev.Type == watch.Bookmark {
				if m, err := meta.Accessor(ev.Object); err == nil && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
					break
				}
				continue
			}
			items++
		}
		w.Stop()
		times = append(times, time.Since(start))
		runtime.GC()
	}
	debug.FreeOSMemory()
	return times, items, nil
}

// auditFirst is how long after start the API server received kyyard's
// first request.
func auditFirst(path string, start time.Time) (time.Duration, error) {
	var first time.Time
	err := auditScan(path, start, func(line []byte) error {
		var e struct {
			Received time.Time `json:"requestReceivedTimestamp"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			return err
		}
		if !e.Received.Before(start) && (first.IsZero() || e.Received.Before(first)) {
			first = e.Received
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if first.IsZero() {
		return 0, fmt.Errorf("no request by kyyard in %s after %s", path, start.Format(time.RFC3339))
	}
	return first.Sub(start), nil
}

func rssKiB(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			return strconv.Atoi(f[1])
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}

// cpuTicks returns utime+stime of a process, in clock ticks.
func cpuTicks(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name (which may hold spaces) start at ')'.
	rest := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	utime, err1 := strconv.Atoi(rest[11])
	stime, err2 := strconv.Atoi(rest[12])
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("parse /proc/%d/stat", pid)
	}
	return utime + stime, nil
}

// auditCounts counts kyyard's requests received in [from, to) by verb
// (list, watch, other; "metrics" for the lists of the metrics API, which
// the metrics columns read periodically); a watch is counted when it
// starts.
func auditCounts(path string, from, to time.Time) (map[string]int, error) {
	return auditCountsAs(path, "", from, to)
}

// auditCountsAs is auditCounts of the requests of the kyyard that
// impersonated user as (auditScanAs); "" counts every kyyard's.
func auditCountsAs(path, as string, from, to time.Time) (map[string]int, error) {
	counts := map[string]int{}
	err := auditScanAs(path, as, from, func(line []byte) error {
		var e struct {
			Verb      string    `json:"verb"`
			Stage     string    `json:"stage"`
			Received  time.Time `json:"requestReceivedTimestamp"`
			ObjectRef *struct {
				APIGroup string `json:"apiGroup"`
			} `json:"objectRef"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			return err
		}
		if e.Received.Before(from) || !e.Received.Before(to) {
			return nil
		}
		switch {
		case e.Verb == "watch" && e.Stage == "ResponseStarted":
			counts["watch"]++
		case e.Verb == "list" && e.Stage == "ResponseComplete" && e.ObjectRef != nil && e.ObjectRef.APIGroup == "metrics.k8s.io":
			counts["metrics"]++ // the metrics columns' reading, not an object list
		case e.Verb == "list" && e.Stage == "ResponseComplete":
			counts["list"]++
		case e.Verb != "watch" && e.Stage == "ResponseComplete":
			counts["other"]++
		}
		return nil
	})
	return counts, err
}

// auditScan calls fn with each line of kyyard's requests in the audit log
// at path and in the backups the API server rotated it into
// (--audit-log-maxsize: "audit-<time>.log" beside it) since from.
func auditScan(path string, from time.Time, fn func(line []byte) error) error {
	return auditScanAs(path, "", from, fn)
}

// auditScanAs is auditScan of the requests of the kyyard that impersonated
// user as (kyyard --as as: the fleet run tells its own kyyard from any
// other on the same clusters by it); "" takes every kyyard's.
func auditScanAs(path, as string, from time.Time, fn func(line []byte) error) error {
	var who []byte
	if as != "" {
		b, err := json.Marshal(as)
		if err != nil {
			return err
		}
		who = append([]byte(`"impersonatedUser":{"username":`), b...)
	}
	mine := func(line []byte) bool {
		if !bytes.Contains(line, []byte(`"userAgent":"`+kyyardAgent+`"`)) {
			return false
		}
		if who == nil {
			return true
		}
		i := bytes.Index(line, who)
		return i >= 0 && i+len(who) < len(line) && (line[i+len(who)] == ',' || line[i+len(who)] == '}')
	}
	ext := filepath.Ext(path)
	backups, err := filepath.Glob(strings.TrimSuffix(path, ext) + "-*" + ext)
	if err != nil {
		return err
	}
	var files []string
	for _, b := range backups {
		if st, err := os.Stat(b); err == nil && !st.ModTime().Before(from) {
			files = append(files, b)
		}
	}
	for _, name := range append(files, path) {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 256<<20)
		for sc.Scan() {
			if !mine(sc.Bytes()) {
				continue
			}
			if err := fn(sc.Bytes()); err != nil {
				f.Close()
				return err
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}
