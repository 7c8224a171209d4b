package workload

import (
	"context"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// The form shows each container's current usage beside its cpu and memory
// request and limit inputs (issue 12): "mean 12m, 3 pods: 10m–15m", read
// from the metrics when the form opens and again at the refresh interval
// (kube polls the metrics API at its own interval; the answer in between
// is the cached reading), never blocking a key. When the metrics cannot be
// read the usage is absent and the note line says why, once.

// usageTimeout bounds one usage read; a slow one gives the previous reading.
const usageTimeout = 10 * time.Second

// usageMsg carries a usage reading to the screen that asked for it.
type usageMsg struct {
	owner *Model
	token int
	u     kube.WorkloadUsage
}

// usageTickMsg asks for the next usage reading of a screen's chain.
type usageTickMsg struct {
	owner *Model
	token int
}

// usageSource returns what reads the workload's usage: the editor, else
// the client; ok false when neither does (the form then shows none).
func (m *Model) usageSource() (views.WorkloadUsageSource, bool) {
	if s, ok := m.editor.(views.WorkloadUsageSource); ok {
		return s, true
	}
	s, ok := m.vc.Client.(views.WorkloadUsageSource)
	return s, ok
}

// readUsage starts (or restarts) the chain of usage reads of m.ref; nil
// when nothing reads usage.
func (m *Model) readUsage() tea.Cmd {
	if _, ok := m.usageSource(); !ok {
		return nil
	}
	m.utoken++
	return m.fetchUsage()
}

// fetchUsage reads the usage once for the current chain.
func (m *Model) fetchUsage() tea.Cmd {
	src, ok := m.usageSource()
	if !ok {
		return nil
	}
	owner, token, ref := m, m.utoken, m.ref
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), usageTimeout)
		defer cancel()
		return usageMsg{owner: owner, token: token, u: src.WorkloadUsage(ctx, ref)}
	}
}

// takeUsage keeps a reading, says once why there is none, and arms the
// next read.
func (m *Model) takeUsage(msg usageMsg) tea.Cmd {
	if msg.owner != m || msg.token != m.utoken {
		return nil
	}
	u := msg.u
	m.usage = &u
	if t := u.Truncated; t != nil && !m.usageNoted && m.note == "" {
		m.usageNoted = true
		m.setNote("usage n/a: "+trimMetrics(views.MetricsProblem(t)), false)
	}
	owner, token := m, m.utoken
	interval := m.vc.Config.RefreshInterval
	if interval <= 0 {
		interval = kube.DefaultMetricsInterval
	}
	return tea.Tick(interval, func(time.Time) tea.Msg { return usageTickMsg{owner: owner, token: token} })
}

// tickUsage reads the usage again for the chain it belongs to.
func (m *Model) tickUsage(msg usageTickMsg) tea.Cmd {
	if msg.owner != m || msg.token != m.utoken {
		return nil
	}
	return m.fetchUsage()
}

func trimMetrics(s string) string {
	const p = "metrics: "
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}

// usageText is what the cpu (or memory) line of container name shows
// after its inputs: "now 12m" for one pod, "mean 12m, 3 pods: 10m–15m"
// (the mean, then the range over the pods' latest samples) for more; ""
// when the metrics have none for the container.
func (m *Model) usageText(name string, memory bool) string {
	if m.usage == nil || m.usage.Truncated != nil {
		return ""
	}
	for _, c := range m.usage.Containers {
		if c.Name != name || c.Pods <= 0 {
			continue
		}
		format, amount := kube.FormatCPU, func(u kube.Usage) int64 { return u.CPU }
		if memory {
			format, amount = kube.FormatMemory, func(u kube.Usage) int64 { return u.Memory }
		}
		if c.Pods == 1 {
			return "now " + format(amount(c.Mean))
		}
		return fmt.Sprintf("mean %s, %d pods: %s–%s", format(amount(c.Mean)), c.Pods, format(amount(c.Min)), format(amount(c.Max)))
	}
	return ""
}
