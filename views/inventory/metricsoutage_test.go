package inventory_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views/viewtest"
)

// TestMetricsOutageThenRefresh: while the metrics API is down every cell
// says n/a and the notice says why; once it answers again, ctrl+r shows
// the new reading at once (found by a fresh-user trial: the notice stayed
// until the next scheduled read).
func TestMetricsOutageThenRefresh(t *testing.T) {
	rows, good := podMetrics()
	down := kube.Metrics{Request: good.Request, Generation: 2, Taken: good.Taken,
		Truncated: &kube.Truncation{Kind: kube.KindPods, Reason: kube.ReasonUnavailable, Message: "the server is currently unable to handle the request"}}
	m, src := metricsScreen(t, "pods", rows, down, 200, 50)
	if notice := strings.Split(m.View(), "\n")[0]; !strings.Contains(notice, "metrics: unavailable") {
		t.Fatalf("outage not said: %q", notice)
	}
	back := good
	back.Generation = 3
	src.set(back)
	m.Update(keys(m, "ctrl+r")())
	view := m.View()
	if strings.Contains(strings.Split(view, "\n")[0], "metrics:") {
		t.Fatalf("after ctrl+r the outage is still said:\n%s", view)
	}
	if line := rowOf(view, "api-0"); strings.Contains(line, "n/a") {
		t.Fatalf("after ctrl+r api-0 still shows n/a:\n%s", view)
	}
}

// TestMetricsTimeoutKeepsLastValues: a metrics API that times out (or is
// unavailable) leaves the last reading's values on screen, and the notice
// says why and how old they are; one that forbids shows n/a.
func TestMetricsTimeoutKeepsLastValues(t *testing.T) {
	rows, met := podMetrics()
	for k, p := range met.Pods {
		p.Timestamp = viewtest.Now.Add(-45 * time.Second)
		met.Pods[k] = p
	}
	met.Truncated = &kube.Truncation{Kind: kube.KindPods, Reason: kube.ReasonTimeout, Message: "the metrics API did not answer in time"}
	m, _ := metricsScreen(t, "pods", rows, met, 200, 50)
	view := m.View()
	notice := strings.Split(view, "\n")[0]
	if !strings.Contains(notice, "metrics: timeout") || !strings.Contains(notice, "showing the sample of 45s ago") {
		t.Fatalf("notice: %q", notice)
	}
	if line := rowOf(view, "api-0"); strings.Contains(line, "n/a") || !strings.Contains(line, "m ") {
		t.Fatalf("api-0 lost its last values:\n%s", view)
	}
	met.Truncated = &kube.Truncation{Kind: kube.KindPods, Reason: kube.ReasonForbidden, Message: "forbidden"}
	m, _ = metricsScreen(t, "pods", rows, met, 200, 50)
	if line := rowOf(m.View(), "api-0"); !strings.Contains(line, "n/a") {
		t.Fatalf("forbidden metrics show values:\n%s", m.View())
	}
}
