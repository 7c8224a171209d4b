package drain

import (
	"fmt"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// View draws the phase.
func (m *Model) View() string {
	st, k := m.vc.Styles, m.keys
	w, h := m.vc.Width, m.vc.Height
	if m.phase == phasePlanning {
		return views.Page(st, w, h, []string{"planning the drain of nodes/" + m.node.Name + " (its pods, the guards) …"}, views.Hint("back", k.Back), &m.offset)
	}
	if m.plan == nil {
		return views.Page(st, w, h, []string{st.Error.Render(fmt.Sprintf("cannot drain nodes/%s: %s", m.node.Name, views.ErrText(m.err)))}, views.Hint("back", k.Back), &m.offset)
	}
	p := m.plan
	var body []string
	gone, blocked, failed := m.counts()
	switch m.phase {
	case phaseConfirm:
		cordon := "cordon it, then evict"
		if p.Cordoned {
			cordon = "it is cordoned already; evict"
		}
		body = append(body, fmt.Sprintf("drain nodes/%s: %s %s through the Eviction API (PodDisruptionBudgets honoured; timeout %s)",
			p.Node.Name, cordon, kube.Plural(p.ToEvict(), "pod"), durationText(m.timeout)))
		for _, v := range p.Verdicts {
			body = append(body, "  "+views.VerdictLine(st, v))
		}
	case phaseRunning:
		line := fmt.Sprintf("draining nodes/%s: %d of %d gone", p.Node.Name, gone, p.ToEvict())
		if blocked > 0 {
			line += fmt.Sprintf(" · %d blocked", blocked)
		}
		if failed > 0 {
			line += fmt.Sprintf(" · %d failed", failed)
		}
		if m.cancelling {
			line += " · cancelling…"
		}
		body = append(body, line)
	case phaseDone:
		style := st.Muted
		if !m.outcome.OK() {
			style = st.Error
		}
		body = append(body, style.Render(views.Sanitize(m.outcome.Detail)))
	}
	body = append(body, "", fmt.Sprintf("will evict (%d):", p.ToEvict()))
	var left []kube.DrainPod
	for _, pod := range p.Pods {
		if !pod.Evict {
			left = append(left, pod)
			continue
		}
		name := views.Sanitize(pod.Ref.Namespace + "/" + pod.Ref.Name)
		if m.phase == phaseConfirm {
			body = append(body, "  "+name)
			continue
		}
		ev, ok := m.states[kube.ObjectRef{Kind: kube.KindPods, Namespace: pod.Ref.Namespace, Name: pod.Ref.Name}.String()]
		line := "  " + name + "  " + views.Sanitize(status(ev, ok))
		if ok && (ev.State == "failed" || ev.State == "blocked") {
			line = st.Error.Render(line)
		}
		body = append(body, line)
	}
	if len(left) > 0 {
		body = append(body, "", fmt.Sprintf("will not evict (%d), as kubectl drain leaves them:", len(left)))
		for _, pod := range left {
			body = append(body, "  "+views.Sanitize(pod.Ref.Namespace+"/"+pod.Ref.Name)+"  "+st.Muted.Render(views.Sanitize(pod.Why)))
		}
	}
	scroll := views.Hint("scroll", k.Up, k.Down)
	help := views.Hints(scroll, views.Hint("back", k.Back))
	switch m.phase {
	case phaseConfirm:
		body = append(body, "")
		switch i, text := m.confirm.Pending(); {
		case p.Verdicts.Refusal() != nil:
			body = append(body, st.Error.Render("refused: nothing sent"))
		case i >= 0:
			body = append(body, fmt.Sprintf("type %q to confirm: [%s]", text, m.confirm.Input(i)))
			if n := m.confirm.Note(); n != "" {
				body = append(body, st.Error.Render(n))
			}
			help = "enter take the text · esc stop typing"
		default:
			ask := fmt.Sprintf("drain nodes/%s?", p.Node.Name)
			if yn := views.YesNo(k.Drain, k.Cancel, k.Back); yn != "" {
				ask += " " + yn
			}
			body = append(body, st.Error.Render(ask))
			help = views.Hints(views.Hint("drain", k.Drain), views.Hint("cancel", k.Cancel, k.Back), scroll)
		}
	case phaseRunning:
		help = views.Hints(views.Hint("cancel the drain (the node stays cordoned)", k.Back), scroll)
	}
	return views.Page(st, w, h, body, help, &m.offset)
}
