package main

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

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
