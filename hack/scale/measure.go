package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// kyyardAgent is the user agent kyyard's client sends (kube.NewFromConfig).
const kyyardAgent = "kyyard"

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat times.
const clockTicks = 100

// titleCount reads the inventory's title count; while the first list is
// still arriving it ends in "…" and does not match.
var titleCount = regexp.MustCompile(`pods\(all\)\[(\d+)\]`)

// runOptions are measure's optional parts.
type runOptions struct {
	kubectl   string        // the kubectl for the baseline; "" skips it
	churn     time.Duration // the churn run's length; 0 skips it
	churnRate int           // pod changes per second in the churn run
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
	var kubectlWall time.Duration
	var kubectlRSS int64
	if opts.kubectl != "" {
		// Before kyyard starts, so that the two do not compete.
		if kubectlWall, kubectlRSS, err = baseline(opts.kubectl, kubeconfig); err != nil {
			return err
		}
	}
	session := fmt.Sprintf("kyyard-scale-%d", os.Getpid())
	start := time.Now()
	cmd := exec.Command("tmux", "new-session", "-d", "-s", session, "-x", "200", "-y", "50",
		binary, "-A", "--kubeconfig", kubeconfig)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("tmux: %v: %s", err, out)
	}
	defer func() { _ = exec.Command("tmux", "kill-session", "-t", session).Run() }()
	pidText, err := exec.Command("tmux", "display-message", "-p", "-t", session, "#{pane_pid}").Output()
	if err != nil {
		return fmt.Errorf("pane pid: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(pidText)))
	if err != nil {
		return fmt.Errorf("pane pid %q: %w", pidText, err)
	}

	var firstRows, synced time.Duration
	deadline := start.Add(3 * time.Minute)
	for synced == 0 {
		if time.Now().After(deadline) {
			return fmt.Errorf("kyyard did not show all %d pods within 3 minutes", total)
		}
		screen, err := exec.Command("tmux", "capture-pane", "-p", "-t", session).Output()
		if err != nil {
			return fmt.Errorf("capture-pane: %w", err)
		}
		text := string(screen)
		if firstRows == 0 && strings.Contains(text, "Running") {
			firstRows = time.Since(start)
		}
		if m := titleCount.FindStringSubmatch(text); m != nil {
			if n, _ := strconv.Atoi(m[1]); n >= total {
				synced = time.Since(start)
			}
		}
		time.Sleep(10 * time.Millisecond)
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
	var churned *churnResult
	if opts.churn > 0 && len(scalePods) > 0 {
		r, err := churn(ctx, cs, session, pid, total, scalePods, opts.churnRate, opts.churn)
		if err != nil {
			return err
		}
		churned = &r
	}
	_ = exec.Command("tmux", "send-keys", "-t", session, "q").Run()
	time.Sleep(200 * time.Millisecond) // the audit backend writes synchronously; be safe
	counts, err := auditCounts(auditLog, idleStart, idleEnd)
	if err != nil {
		return err
	}
	fmt.Printf("scale run: %d pods in the cluster, kyyard -A at 200x50\n", total)
	fmt.Printf("  first rows drawn:       %s after start\n", firstRows.Round(time.Millisecond))
	fmt.Printf("  all rows shown (synced): %s after start\n", synced.Round(time.Millisecond))
	fmt.Printf("  RSS after sync:         %.1f MiB (after the idle window: %.1f MiB)\n", float64(rss)/1024, float64(rssIdle)/1024)
	fmt.Printf("  CPU over %s idle:       %.2f CPU-seconds (%.2f%% of one core)\n", idle,
		float64(cpu1-cpu0)/clockTicks, 100*float64(cpu1-cpu0)/clockTicks/idle.Seconds())
	fmt.Printf("  requests by kyyard in the idle window (audit log): list %d, watch %d, metrics reads %d, other %d\n",
		counts["list"], counts["watch"], counts["metrics"], counts["other"])
	if opts.kubectl != "" {
		fmt.Printf("  kubectl get pods -A (same run, before kyyard): %s, peak RSS %.1f MiB\n",
			kubectlWall.Round(time.Millisecond), float64(kubectlRSS)/1024)
	}
	if churned != nil {
		churned.print(opts.churnRate)
	}
	return nil
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
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		if !strings.Contains(sc.Text(), `"userAgent":"`+kyyardAgent+`"`) {
			continue
		}
		var e struct {
			Verb      string    `json:"verb"`
			Stage     string    `json:"stage"`
			Received  time.Time `json:"requestReceivedTimestamp"`
			ObjectRef *struct {
				APIGroup string `json:"apiGroup"`
			} `json:"objectRef"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, err
		}
		if e.Received.Before(from) || !e.Received.Before(to) {
			continue
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
	}
	return counts, sc.Err()
}
