package main

// The fleet's API servers held to a share of a core each (fleet-measure
// --server-cpu): on this two-core machine the three control planes run
// beside kyyard, so a read of all three is bound by their CPU, which
// remote clusters would not take from kyyard's machine. A CPU quota per
// API server (a cgroup of its own) keeps each one's share apart, as if
// each ran on a machine of its own, so that the fleet's all-rows time
// against the slowest alone measures kyyard's reading in parallel.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// limitServers moves each member's API server process into a cgroup of
// its own holding it to share of one core (0.33: a third), and returns
// what moves them back and removes the cgroups. It takes cgroup v1's cpu
// controller (/sys/fs/cgroup/cpu) or cgroup v2's (cpu.max); errors: no
// such controller, an API server not found, a write refused (not root).
func (o fleetOptions) limitServers(share float64) (release func(), err error) {
	root, v2 := cpuCgroupRoot()
	if root == "" {
		return func() {}, errors.New("--server-cpu needs cgroup v1's cpu controller or cgroup v2's")
	}
	var dirs []string
	release = func() {
		for _, d := range dirs {
			if procs, err := os.ReadFile(filepath.Join(d, "cgroup.procs")); err == nil {
				for _, p := range strings.Fields(string(procs)) {
					_ = os.WriteFile(filepath.Join(root, "cgroup.procs"), []byte(p), 0o644)
				}
			}
			_ = os.Remove(d)
		}
	}
	period := 100000 // µs
	quota := int(share * float64(period))
	for i, pid := range o.apiServers() {
		if pid == 0 {
			release()
			return func() {}, fmt.Errorf("%s: no API server process found", o.contexts[i])
		}
		d := filepath.Join(root, fmt.Sprintf("%s-%s", o.session, o.contexts[i]))
		if err := os.Mkdir(d, 0o755); err != nil && !os.IsExist(err) {
			release()
			return func() {}, err
		}
		dirs = append(dirs, d)
		writes := [][2]string{{"cpu.cfs_period_us", strconv.Itoa(period)}, {"cpu.cfs_quota_us", strconv.Itoa(quota)}}
		if v2 {
			writes = [][2]string{{"cpu.max", fmt.Sprintf("%d %d", quota, period)}}
		}
		writes = append(writes, [2]string{"cgroup.procs", strconv.Itoa(pid)})
		for _, w := range writes {
			if err := os.WriteFile(filepath.Join(d, w[0]), []byte(w[1]), 0o644); err != nil {
				release()
				return func() {}, fmt.Errorf("%s: %w", o.contexts[i], err)
			}
		}
	}
	return release, nil
}

// cpuCgroupRoot is where CPU quotas are set: cgroup v1's cpu hierarchy,
// else cgroup v2's root when it offers the cpu controller; "" when
// neither.
func cpuCgroupRoot() (root string, v2 bool) {
	if _, err := os.Stat("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"); err == nil {
		return "/sys/fs/cgroup/cpu", false
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/cgroup.controllers"); err == nil && strings.Contains(string(b), "cpu") {
		return "/sys/fs/cgroup", true
	}
	return "", false
}
