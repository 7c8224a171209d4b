package detail

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// The describe view of a pod or a node draws its CPU and memory over the
// trend the metrics keep (issue 12) above the describe text, read again
// at the refresh interval (the reading is cached inside kube, polled at
// its own interval) and drawn again only when its Generation changes.

// metricsTimeout bounds one metrics read; a slow one gives the previous
// reading (see kube.Client.Metrics).
const metricsTimeout = 10 * time.Second

// chartRows is the height of each chart, in lines, when the screen has
// room (chartMinHeight lines or more); below it only the numbers show.
const (
	chartRows      = 3
	chartMinHeight = 14
)

// usage is what the chart shows of one reading.
type usage struct {
	gen     uint64
	problem string // why there are no metrics, in full ("" when read; views.MetricsDetail)
	found   bool   // the object has a sample
	now     kube.Usage
	trend   []kube.Sample
}

// usageMsg carries a metrics reading to the screen that asked for it.
type usageMsg struct {
	owner *Model
	token int
	met   kube.Metrics
}

// usageTickMsg asks for the next metrics reading of a screen's chain.
type usageTickMsg struct {
	owner *Model
	token int
}

// charted reports whether the screen draws a usage chart: the describe
// view of a pod or a node.
func (m *Model) charted() bool {
	return m.view == views.DescribeView && kube.ServesMetrics(m.kind)
}

// readUsage starts (or restarts) the chain of metrics reads; nil when the
// screen has no chart, or the client reads no metrics at all (then no
// chart is drawn: the text keeps the whole screen).
func (m *Model) readUsage() tea.Cmd {
	src, ok := m.vc.Client.(views.MetricsSource)
	if !m.charted() || !ok {
		return nil
	}
	m.utoken++
	return m.fetchUsage(src, false)
}

// refreshUsage restarts the chain with a new metrics reading now
// (kube.MetricsRequest.Fresh: the person pressed ctrl+r); nil when
// readUsage would be.
func (m *Model) refreshUsage() tea.Cmd {
	src, ok := m.vc.Client.(views.MetricsSource)
	if !m.charted() || !ok {
		return nil
	}
	m.utoken++
	return m.fetchUsage(src, true)
}

// fetchUsage reads the metrics once for the current chain; fresh asks for
// a new reading whatever the interval.
func (m *Model) fetchUsage(src views.MetricsSource, fresh bool) tea.Cmd {
	owner, token := m, m.utoken
	req := kube.MetricsRequest{Kind: m.kind, Namespace: m.namespace, Name: m.name, Fresh: fresh}
	if m.kind == kube.KindNodes {
		req.Namespace = ""
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), metricsTimeout)
		defer cancel()
		return usageMsg{owner: owner, token: token, met: src.Metrics(ctx, req)}
	}
}

// takeUsage keeps a reading when its Generation is new and arms the next.
func (m *Model) takeUsage(msg usageMsg) tea.Cmd {
	if msg.owner != m || msg.token != m.utoken {
		return nil
	}
	if m.usage == nil || m.usage.gen != msg.met.Generation || msg.met.Generation == 0 {
		m.usage = usageOf(msg.met, m.kind, m.namespace, m.name)
		m.dirty = true // the chart's height may have changed
	}
	owner, token := m, m.utoken
	interval := m.vc.Config.RefreshInterval
	if interval <= 0 {
		interval = 2 * time.Second
	}
	return tea.Tick(interval, func(time.Time) tea.Msg { return usageTickMsg{owner: owner, token: token} })
}

// tickUsage reads the metrics again for the chain it belongs to.
func (m *Model) tickUsage(msg usageTickMsg) tea.Cmd {
	src, ok := m.vc.Client.(views.MetricsSource)
	if msg.owner != m || msg.token != m.utoken || !ok {
		return nil
	}
	return m.fetchUsage(src, false)
}

// usageOf picks the object's usage out of a reading.
func usageOf(met kube.Metrics, kind kube.Kind, namespace, name string) *usage {
	u := &usage{gen: met.Generation}
	if met.Truncated != nil {
		u.problem = views.MetricsDetail(met.Truncated)
		return u
	}
	if kind == kube.KindNodes {
		if n, ok := met.Nodes[name]; ok {
			u.found, u.now, u.trend = true, n.Usage, n.Trend
		}
		return u
	}
	if p, ok := met.Pods[namespace+"/"+name]; ok {
		u.found, u.now, u.trend = true, p.Total, p.Trend
	}
	return u
}

// chartHeight is how many lines the chart takes above the text: none
// until a reading came (or for other views); for "n/a" the reason wrapped
// whole (the server's words; at most half the screen) and a blank; one
// line and a blank for no sample; else a title line, the charts when there
// is room, and a blank.
func (m *Model) chartHeight() int {
	switch {
	case !m.charted() || m.usage == nil:
		return 0
	case m.usage.problem != "":
		return len(m.problemLines(m.vc.Width)) + 1
	case !m.usage.found:
		return 2
	case m.vc.Height >= chartMinHeight:
		return chartRows + 2
	}
	return 2
}

// problemLines is why there is no usage, wrapped to w cells: the whole
// server text, so that a reason a notice line cuts off can be read here,
// at most half the screen's lines (the last cut with "…").
func (m *Model) problemLines(w int) []string {
	lines := views.WrapWords("usage n/a: "+strings.TrimPrefix(m.usage.problem, "metrics: "), max(w, 1))
	if most := max(m.vc.Height/2, 1); len(lines) > most {
		lines = lines[:most]
		lines[most-1] = ansi.Truncate(lines[most-1]+" …", max(w, 1), "…")
	}
	return lines
}

// chartView draws the chart's lines, exactly chartHeight of them, each w
// cells at most: CPU on the left, memory on the right, each with the
// latest value, the min and max over the trend and the time it spans,
// its bars under its title from the left (one column a sample, the latest
// the rightmost drawn) until the trend fills its half.
func (m *Model) chartView(w int) []string {
	n := m.chartHeight()
	if n == 0 {
		return nil
	}
	st := m.vc.Styles
	u := m.usage
	switch {
	case u.problem != "":
		lines := m.problemLines(w)
		for i, l := range lines {
			lines[i] = st.Muted.Render(l)
		}
		return append(lines, "")
	case !u.found && m.notRunning:
		return []string{st.Muted.Render(ansi.Truncate("usage: "+views.NotRunningUsage, w, "…")), ""}
	case !u.found:
		return []string{st.Muted.Render(ansi.Truncate("usage: no sample yet (metrics-server reports an object after its first scrape)", w, "…")), ""}
	}
	half := max((w-3)/2, 1)
	trend := u.trend
	if len(trend) == 0 {
		trend = []kube.Sample{{Usage: u.now}}
	}
	cpuHead := header("CPU", kube.FormatCPU(u.now.CPU), trend, func(s kube.Sample) string { return kube.FormatCPU(s.Usage.CPU) },
		func(s kube.Sample) int64 { return s.Usage.CPU })
	memHead := header("MEM", kube.FormatMemory(u.now.Memory), trend, func(s kube.Sample) string { return kube.FormatMemory(s.Usage.Memory) },
		func(s kube.Sample) int64 { return s.Usage.Memory })
	lines := []string{pair(st.Muted.Render(ansi.Truncate(cpuHead, half, "…")), st.Muted.Render(ansi.Truncate(memHead, half, "…")), half)}
	if rows := n - 2; rows > 0 {
		bars := min(len(trend), half) // anchored under the title, not floating mid-half
		cpu := views.Chart(views.TrendCPU(trend), bars, rows)
		mem := views.Chart(views.TrendMemory(trend), bars, rows)
		for i := range rows {
			lines = append(lines, pair(cpu[i], mem[i], half))
		}
	}
	return append(lines, "")
}

// header is a chart's title: "CPU 50m · min 12m max 50m · 14m45s".
func header(name, now string, trend []kube.Sample, format func(kube.Sample) string, amount func(kube.Sample) int64) string {
	lo, hi := trend[0], trend[0]
	for _, s := range trend {
		if amount(s) < amount(lo) {
			lo = s
		}
		if amount(s) > amount(hi) {
			hi = s
		}
	}
	text := fmt.Sprintf("%s %s · min %s max %s", name, now, format(lo), format(hi))
	if span := trend[len(trend)-1].At.Sub(trend[0].At).Round(time.Second); span > 0 {
		text += fmt.Sprintf(" · %s over %s", kube.Plural(len(trend), "sample"), span)
	}
	return text
}

// pair puts two parts of half cells side by side, three cells apart.
func pair(left, right string, half int) string {
	if pad := half - ansi.StringWidth(left); pad > 0 {
		left += strings.Repeat(" ", pad)
	}
	return left + "   " + right
}
