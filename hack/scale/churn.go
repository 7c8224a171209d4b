package main

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// baseline runs `kubectl get pods -A` once against the same cluster, output
// discarded, and returns its wall time and peak RSS (KiB): the figure the
// scale run sets kyyard's beside.
func baseline(kubectl, kubeconfig string) (time.Duration, int64, error) {
	cmd := exec.Command(kubectl, "--kubeconfig", kubeconfig, "get", "pods", "-A")
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("kubectl get pods -A: %w", err)
	}
	wall := time.Since(start)
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss // KiB on Linux
	}
	return wall, rss, nil
}

// churnLabel marks the pods one churn run creates (value: the run's id),
// so that they are deleted together when it ends.
const churnLabel = "kyyard.dev/scale-churn"

// Churn modes: what one pod change is.
const (
	// churnReplace creates pods and deletes them again about five seconds
	// later (a create and a delete are one change each): rows are added
	// and removed, as in a cluster whose pods come and go.
	churnReplace = "replace"
	// churnPatch changes an annotation of the seeded pods, round robin:
	// each change is one MODIFIED event for the informer.
	churnPatch = "patch"
)

// churnOptions say what a churn run does.
type churnOptions struct {
	rate   int           // pod changes asked per second
	length time.Duration // how long the changes go on
	mode   string        // churnReplace or churnPatch
	settle time.Duration // how long after the run (its pods deleted) RSS is read again
}

// churnResult is what a churn run measured.
type churnResult struct {
	mode                     string
	creates, deletes, writes int64         // changes the API server accepted, by kind (writes: patches)
	failed                   int64         // changes it refused
	elapsed                  time.Duration // the churn's length
	cpuSeconds               float64       // kyyard's CPU time over it
	rssBefore                int           // kyyard's RSS before, right after, and settle after the run, KiB
	rssAfter                 int
	rssSettled               int
	// rssReleased is the lowest RSS read (every second) over the settle
	// window: right after kyyard returned the churn's memory (a quiet
	// janitor period after a burst), as RSS after sync is read right after
	// it returned the first list's. Between such releases RSS follows the
	// Go heap's goal (twice what is live) and the runtime's slow scavenger.
	rssReleased int
	settle      time.Duration
	rssSamples  []int           // kyyard's RSS every 10 s over the churn, KiB
	lags        []time.Duration // per probe pod: from its creation to kyyard's screen showing it
	missed      int             // probes kyyard had not shown when the run ended
}

// probeCount reads how many rows the inventory shows under its filter
// (the probes): "pods(all)[3/100014] /scale-probe-…".
var probeCount = regexp.MustCompile(`pods\(all\)\[(\d+)/\d+…?\]`)

// churn changes pods at opts.rate per second for opts.length while kyyard
// shows all namespaces in tmux session, and measures kyyard's CPU and
// memory and how far its rows lag the API server: kyyard's filter is set
// to the run's probe pods, once a second a probe pod is created, and its
// lag is the time until the filtered count includes it. The run's pods are
// deleted at the end, and RSS is read again opts.settle later (the Go
// runtime collects at least every two minutes when idle).
func churn(ctx context.Context, cs kubernetes.Interface, session string, pid int, pods []*corev1.Pod, opts churnOptions) (churnResult, error) {
	res := churnResult{mode: opts.mode, settle: opts.settle}
	run := strconv.FormatInt(time.Now().Unix(), 36)
	probePrefix := "scale-probe-" + run + "-"
	if err := tmuxKeys(session, "/", probePrefix, "Enter"); err != nil {
		return res, err
	}
	if _, err := waitScreen(session, probeCount, 30*time.Second); err != nil {
		return res, fmt.Errorf("kyyard's filter: %w", err)
	}
	var err error
	if res.rssBefore, err = rssKiB(pid); err != nil {
		return res, err
	}
	cpu0, err := cpuTicks(pid)
	if err != nil {
		return res, err
	}
	cctx, cancel := context.WithTimeout(ctx, opts.length)
	defer cancel()
	start := time.Now()

	var namespaces, nodes []string
	for _, p := range pods {
		if !slices.Contains(namespaces, p.Namespace) {
			namespaces = append(namespaces, p.Namespace)
		}
		if len(nodes) < 1000 && !slices.Contains(nodes, p.Spec.NodeName) {
			nodes = append(nodes, p.Spec.NodeName)
		}
	}
	// replace: pods live about five seconds (at most 5,000 at once).
	window := min(5*opts.rate, 5000)
	var mu sync.Mutex
	var alive []*corev1.Pod // created, not yet deleted, oldest first
	pending := 0            // creates asked, not yet answered
	var creates, deletes, writes, failed atomic.Int64
	zero := int64(0)
	change := func(i int) {
		if opts.mode == churnPatch {
			p := pods[i%len(pods)]
			patch := []byte(`{"metadata":{"annotations":{"kyyard.dev/churn":"` + strconv.Itoa(i) + `"}}}`)
			if _, err := cs.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
				failed.Add(1)
				return
			}
			writes.Add(1)
			return
		}
		mu.Lock()
		var victim *corev1.Pod
		if len(alive)+pending >= window && len(alive) > 0 {
			victim, alive = alive[0], alive[1:]
		} else {
			pending++
		}
		mu.Unlock()
		if victim != nil {
			if err := cs.CoreV1().Pods(victim.Namespace).Delete(ctx, victim.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
				failed.Add(1)
				return
			}
			deletes.Add(1)
			return
		}
		p := scalePod(namespaces[i%len(namespaces)], fmt.Sprintf("scale-churn-%s-%08d", run, i), nodes[i%len(nodes)])
		p.Labels[churnLabel] = run
		_, err := cs.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
		mu.Lock()
		pending--
		if err == nil {
			alive = append(alive, p)
		}
		mu.Unlock()
		if err != nil {
			failed.Add(1)
			return
		}
		creates.Add(1)
	}

	// The changes: a token per 1/rate second, 64 workers taking them.
	tokens := make(chan int, opts.rate)
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range tokens {
				change(i)
			}
		}()
	}
	go func() {
		defer close(tokens)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		sent := 0
		for {
			select {
			case <-cctx.Done():
				return
			case <-tick.C:
				due := int(time.Since(start).Seconds() * float64(opts.rate))
				for ; sent < due; sent++ {
					select {
					case tokens <- sent:
					case <-cctx.Done():
						return
					}
				}
			}
		}
	}()

	// The probes, and kyyard's filtered count read from its screen every
	// 50 ms.
	var pmu sync.Mutex
	var created []time.Time
	seen := map[int]time.Time{} // probes shown → when first seen
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			screen, err := exec.Command("tmux", "capture-pane", "-p", "-t", session).Output()
			if err == nil {
				if m := probeCount.FindStringSubmatch(string(screen)); m != nil {
					n, _ := strconv.Atoi(m[1])
					now := time.Now()
					pmu.Lock()
					for k := 1; k <= n; k++ {
						if _, ok := seen[k]; !ok {
							seen[k] = now
						}
					}
					pmu.Unlock()
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			pmu.Lock()
			complete := len(created) > 0 && len(seen) >= len(created) && cctx.Err() != nil
			pmu.Unlock()
			if complete || time.Since(start) > opts.length+30*time.Second {
				return
			}
		}
	}()
	var samples []int
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(10 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-cctx.Done():
				return
			case <-tick.C:
				if v, err := rssKiB(pid); err == nil {
					samples = append(samples, v)
				}
			}
		}
	}()
	probeTick := time.NewTicker(time.Second)
	for i := 0; cctx.Err() == nil; i++ {
		p := scalePod(namespaces[0], fmt.Sprintf("%s%05d", probePrefix, i), nodes[0])
		p.Labels[churnLabel] = run
		at := time.Now()
		if _, err := cs.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err == nil {
			pmu.Lock()
			created = append(created, at)
			pmu.Unlock()
		}
		select {
		case <-cctx.Done():
		case <-probeTick.C:
		}
	}
	probeTick.Stop()
	wg.Wait()
	<-sampled
	res.rssSamples = samples
	res.elapsed = time.Since(start)
	cpu1, err := cpuTicks(pid)
	if err != nil {
		return res, err
	}
	res.cpuSeconds = float64(cpu1-cpu0) / clockTicks
	<-done
	res.rssAfter, _ = rssKiB(pid)
	res.creates, res.deletes, res.writes, res.failed = creates.Load(), deletes.Load(), writes.Load(), failed.Load()
	pmu.Lock()
	for k, at := range created {
		if t, ok := seen[k+1]; ok {
			res.lags = append(res.lags, t.Sub(at))
		} else {
			res.missed++
		}
	}
	pmu.Unlock()
	slices.Sort(res.lags)

	// The run's pods go again; then kyyard settles.
	for _, ns := range namespaces {
		if err := cs.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero},
			metav1.ListOptions{LabelSelector: churnLabel + "=" + run}); err != nil {
			return res, fmt.Errorf("delete the churn's pods: %w", err)
		}
	}
	_ = tmuxKeys(session, "Escape")
	for end := time.Now().Add(opts.settle); time.Now().Before(end); {
		time.Sleep(time.Second)
		if rss, err := rssKiB(pid); err == nil && (res.rssReleased == 0 || rss < res.rssReleased) {
			res.rssReleased = rss
		}
	}
	res.rssSettled, _ = rssKiB(pid)
	return res, nil
}

// tmuxKeys sends keys to the session's pane, one send-keys each (a key
// name such as Enter, or literal text).
func tmuxKeys(session string, keys ...string) error {
	for _, k := range keys {
		args := []string{"send-keys", "-t", session}
		if k != "Enter" && k != "Escape" {
			args = append(args, "-l")
		}
		if out, err := exec.Command("tmux", append(args, k)...).CombinedOutput(); err != nil {
			return fmt.Errorf("tmux send-keys %q: %v: %s", k, err, out)
		}
	}
	return nil
}

// waitScreen polls the pane until re matches, returning the match.
func waitScreen(session string, re *regexp.Regexp, limit time.Duration) ([]string, error) {
	var m []string
	_, err := pollPane(session, 50*time.Millisecond, limit, func(screen string) (bool, error) {
		m = re.FindStringSubmatch(screen)
		return m != nil, nil
	})
	if err != nil {
		return nil, fmt.Errorf("the screen did not show %s: %w", re, err)
	}
	return m, nil
}

// pollPane reads the pane every interval and hands each reading to step
// until step says done or fails, returning the last reading. Errors:
// tmux's, step's, or limit passing first (with the last reading).
func pollPane(session string, every, limit time.Duration, step func(screen string) (done bool, err error)) (string, error) {
	deadline := time.Now().Add(limit)
	for {
		screen, err := capture(session)
		if err != nil {
			return "", err
		}
		if done, err := step(screen); done || err != nil {
			return screen, err
		}
		if time.Now().After(deadline) {
			return screen, fmt.Errorf("not within %s; the screen:\n%s", limit, screen)
		}
		time.Sleep(every)
	}
}

// print reports a churn run.
func (r churnResult) print(rate int) {
	if r.elapsed == 0 {
		return // it failed before it began
	}
	total := r.creates + r.deletes + r.writes
	fmt.Printf("  churn (%s): %d pod changes in %s (%.0f/s, asked %d/s; %d creates, %d deletes, %d patches; %d refused)\n",
		r.mode, total, r.elapsed.Round(time.Second), float64(total)/r.elapsed.Seconds(), rate, r.creates, r.deletes, r.writes, r.failed)
	fmt.Printf("    kyyard CPU: %.2f CPU-seconds (%.1f%% of one core)\n", r.cpuSeconds, 100*r.cpuSeconds/r.elapsed.Seconds())
	fmt.Printf("    kyyard RSS: %.1f MiB before, %.1f MiB at the end", float64(r.rssBefore)/1024, float64(r.rssAfter)/1024)
	if r.rssSettled > 0 {
		fmt.Printf(", %.1f MiB %s after the run's pods were deleted (%+.1f%% of before; lowest in between, once kyyard returned the churn's memory: %.1f MiB)",
			float64(r.rssSettled)/1024, r.settle, 100*(float64(r.rssSettled)-float64(r.rssBefore))/float64(r.rssBefore), float64(r.rssReleased)/1024)
	}
	fmt.Println()
	if n := len(r.rssSamples); n > 0 {
		per := min(6, n) // a minute of 10 s samples
		fmt.Printf("    kyyard RSS over the churn (every 10 s): min %.1f, max %.1f MiB; mean of the first minute %.1f, of the last %.1f MiB\n",
			float64(slices.Min(r.rssSamples))/1024, float64(slices.Max(r.rssSamples))/1024,
			mean(r.rssSamples[:per])/1024, mean(r.rssSamples[n-per:])/1024)
	}
	if len(r.lags) > 0 {
		fmt.Printf("    row lag (probe pod created → on kyyard's screen): median %s, max %s over %d probes; %d never shown\n",
			r.lags[len(r.lags)/2].Round(time.Millisecond), r.lags[len(r.lags)-1].Round(time.Millisecond), len(r.lags), r.missed)
	} else {
		fmt.Printf("    row lag: no probe shown (%d missed)\n", r.missed)
	}
}

func mean(v []int) float64 {
	sum := 0
	for _, x := range v {
		sum += x
	}
	return float64(sum) / float64(len(v))
}
