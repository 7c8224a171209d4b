package main

import (
	"context"
	"fmt"
	"os/exec"
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

// churnResult is what a churn run measured.
type churnResult struct {
	changes    int64         // pod changes the API server accepted
	failed     int64         // changes it refused
	elapsed    time.Duration // the churn's length
	cpuSeconds float64       // kyyard's CPU time over it
	rssBefore  int           // kyyard's RSS before and after, KiB
	rssAfter   int
	lags       []time.Duration // per probe pod: from its creation to kyyard's count showing it
	missed     int             // probes kyyard had not shown when the run ended
}

// churn changes pods at rate per second for d (a merge patch of an
// annotation on the scale pods, round robin: each is a MODIFIED event for
// kyyard's informer) while kyyard shows all namespaces in tmux session,
// and measures kyyard's CPU and memory, and how far its rows lag: once a
// second a probe pod is created, and its lag is the time until the title's
// count includes it (total is the count before).
func churn(ctx context.Context, cs kubernetes.Interface, session string, pid, total int, pods []*corev1.Pod, rate int, d time.Duration) (churnResult, error) {
	var res churnResult
	var err error
	if res.rssBefore, err = rssKiB(pid); err != nil {
		return res, err
	}
	cpu0, err := cpuTicks(pid)
	if err != nil {
		return res, err
	}
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()

	// The changes: a token per 1/rate second, 64 workers taking them.
	tokens := make(chan int, rate)
	var wg sync.WaitGroup
	var changes, failed atomic.Int64
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range tokens {
				p := pods[i%len(pods)]
				patch := []byte(`{"metadata":{"annotations":{"kyyard.dev/churn":"` + strconv.Itoa(i) + `"}}}`)
				if _, err := cs.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
					failed.Add(1)
					continue
				}
				changes.Add(1)
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
				due := int(time.Since(start).Seconds() * float64(rate))
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

	// The probes, and kyyard's count read from its screen every 50 ms.
	var mu sync.Mutex
	var created []time.Time
	seen := map[int]time.Time{} // probes shown → when first seen
	probeNS := pods[0].Namespace
	node := pods[0].Spec.NodeName
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			screen, err := exec.Command("tmux", "capture-pane", "-p", "-t", session).Output()
			if err == nil {
				if m := titleCount.FindStringSubmatch(string(screen)); m != nil {
					if n, _ := strconv.Atoi(m[1]); n > total {
						now := time.Now()
						mu.Lock()
						for k := 1; k <= n-total; k++ {
							if _, ok := seen[k]; !ok {
								seen[k] = now
							}
						}
						mu.Unlock()
					}
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			mu.Lock()
			complete := len(created) > 0 && len(seen) >= len(created) && cctx.Err() != nil
			mu.Unlock()
			if complete || time.Since(start) > d+30*time.Second {
				return
			}
		}
	}()
	probeTick := time.NewTicker(time.Second)
	for i := 0; cctx.Err() == nil; i++ {
		p := scalePod(probeNS, fmt.Sprintf("scale-probe-%04d", i), node)
		at := time.Now()
		if _, err := cs.CoreV1().Pods(probeNS).Create(ctx, p, metav1.CreateOptions{}); err == nil {
			mu.Lock()
			created = append(created, at)
			mu.Unlock()
		}
		select {
		case <-cctx.Done():
		case <-probeTick.C:
		}
	}
	probeTick.Stop()
	wg.Wait()
	res.elapsed = time.Since(start)
	cpu1, err := cpuTicks(pid)
	if err != nil {
		return res, err
	}
	res.cpuSeconds = float64(cpu1-cpu0) / clockTicks
	<-done
	res.rssAfter, _ = rssKiB(pid)
	res.changes, res.failed = changes.Load(), failed.Load()
	mu.Lock()
	defer mu.Unlock()
	for k, at := range created {
		if t, ok := seen[k+1]; ok {
			res.lags = append(res.lags, t.Sub(at))
		} else {
			res.missed++
		}
	}
	slices.Sort(res.lags)
	return res, nil
}

// print reports a churn run.
func (r churnResult) print(rate int) {
	fmt.Printf("  churn: %d pod changes in %s (%.0f/s asked %d/s; %d refused)\n", r.changes, r.elapsed.Round(time.Second),
		float64(r.changes)/r.elapsed.Seconds(), rate, r.failed)
	fmt.Printf("    kyyard CPU: %.2f CPU-seconds (%.1f%% of one core); RSS %.1f MiB before, %.1f MiB after\n",
		r.cpuSeconds, 100*r.cpuSeconds/r.elapsed.Seconds(), float64(r.rssBefore)/1024, float64(r.rssAfter)/1024)
	if len(r.lags) > 0 {
		fmt.Printf("    row lag (probe pod created → counted on screen): median %s, max %s over %d probes; %d never shown\n",
			r.lags[len(r.lags)/2].Round(time.Millisecond), r.lags[len(r.lags)-1].Round(time.Millisecond), len(r.lags), r.missed)
	} else {
		fmt.Printf("    row lag: no probe shown (%d missed)\n", r.missed)
	}
}
