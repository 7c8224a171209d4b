package views_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// TestMetricsProblem: the notice's short reason names what the user may
// not do, from the API server's forbidden message; the detail keeps the
// server's words whole.
func TestMetricsProblem(t *testing.T) {
	for _, c := range []struct {
		name           string
		t              *kube.Truncation
		problem, whole string
	}{
		{"nil", nil, "", ""},
		{"forbidden list", &kube.Truncation{Kind: "pods", Reason: kube.ReasonForbidden,
			Message: `pods.metrics.k8s.io is forbidden: User "viewer" cannot list resource "pods" in API group "metrics.k8s.io" in the namespace "demo"`},
			"metrics: forbidden (may not list pods.metrics.k8s.io)",
			`metrics: forbidden — pods.metrics.k8s.io is forbidden: User "viewer" cannot list resource "pods" in API group "metrics.k8s.io" in the namespace "demo"`},
		{"forbidden get node", &kube.Truncation{Kind: "nodes", Reason: kube.ReasonForbidden,
			Message: `nodes.metrics.k8s.io "n1" is forbidden: User "u" cannot get resource "nodes" in API group "metrics.k8s.io" at the cluster scope`},
			"metrics: forbidden (may not get nodes.metrics.k8s.io)", ""},
		{"forbidden without group", &kube.Truncation{Reason: kube.ReasonForbidden, Message: `User "u" cannot list resource "pods"`},
			"metrics: forbidden (may not list pods.metrics.k8s.io)", ""},
		{"forbidden other words", &kube.Truncation{Kind: "pods", Reason: kube.ReasonForbidden, Message: "denied by a webhook"},
			"metrics: forbidden (may not read pods.metrics.k8s.io)", "metrics: forbidden — denied by a webhook"},
		{"forbidden, a workload's kind", &kube.Truncation{Kind: "deployments", Reason: kube.ReasonForbidden},
			"metrics: forbidden (may not read metrics.k8s.io)", "metrics: forbidden — " + kube.ReasonForbidden.Sentence()},
		{"not found", &kube.Truncation{Kind: "pods", Reason: kube.ReasonNotFound, Message: "the server could not find the requested resource"},
			"metrics: not available — no metrics-server", "metrics: not available — no metrics-server"},
		{"unavailable", &kube.Truncation{Kind: "pods", Reason: kube.ReasonUnavailable, Message: "the server is currently unable to handle the request"},
			"metrics: unavailable — the server is currently unable to handle the request", "metrics: unavailable — the server is currently unable to handle the request"},
		{"hostile", &kube.Truncation{Kind: "pods", Reason: kube.ReasonForbidden, Message: "cannot list resource \"po\x1b[2Jds\" in API group \"x\""},
			"metrics: forbidden (may not list po" + views.Sanitize("\x1b") + "[2Jds.x)", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := views.MetricsProblem(c.t); got != c.problem {
				t.Errorf("MetricsProblem = %q, want %q", got, c.problem)
			}
			if got := views.MetricsDetail(c.t); c.whole != "" && got != c.whole {
				t.Errorf("MetricsDetail = %q, want %q", got, c.whole)
			}
		})
	}
}

// FuzzMetricsProblem: any server message gives one line with no control
// characters, short when forbidden.
func FuzzMetricsProblem(f *testing.F) {
	f.Add(`pods.metrics.k8s.io is forbidden: User "viewer" cannot list resource "pods" in API group "metrics.k8s.io"`)
	f.Add("cannot \x00 resource \"\" in API group \"\"")
	f.Add("")
	f.Fuzz(func(t *testing.T, msg string) {
		for _, r := range []kube.Reason{kube.ReasonForbidden, kube.ReasonUnavailable, kube.ReasonNotFound} {
			tr := &kube.Truncation{Kind: "pods", Reason: r, Message: msg}
			for _, s := range []string{views.MetricsProblem(tr), views.MetricsDetail(tr)} {
				if !utf8.ValidString(s) || strings.ContainsAny(s, "\n\r\x1b\x00") || !strings.HasPrefix(s, "metrics: ") {
					t.Fatalf("%v %q gave %q", r, msg, s)
				}
			}
		}
	})
}

// TestMetricsAge: a reading is said old only past twice the interval.
func TestMetricsAge(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		taken    time.Time
		interval time.Duration
		want     string
	}{
		{time.Time{}, 0, ""},
		{now.Add(-30 * time.Second), 0, ""},
		{now.Add(-31 * time.Second), 0, "metrics read 31s ago"},
		{now.Add(-90 * time.Second), time.Minute, ""},
		{now.Add(-150 * time.Second), time.Minute, "metrics read 2m30s ago"},
	} {
		if got := views.MetricsAge(c.taken, now, c.interval); got != c.want {
			t.Errorf("MetricsAge(%v ago, %v) = %q, want %q", now.Sub(c.taken), c.interval, got, c.want)
		}
	}
}

// TestNotRunning: pods by their phase, containers by their state.
func TestNotRunning(t *testing.T) {
	pod := func(phase string) *kube.Row { return &kube.Row{Fields: map[string]string{"status.phase": phase}} }
	for _, c := range []struct {
		kind kube.Kind
		row  *kube.Row
		want bool
	}{
		{kube.KindPods, pod("Running"), false},
		{kube.KindPods, pod("Succeeded"), true},
		{kube.KindPods, pod("Failed"), true},
		{kube.KindPods, pod("Pending"), true},
		{kube.KindPods, &kube.Row{Status: "Completed"}, false}, // no phase: not known
		{kube.KindContainers, &kube.Row{Status: "Running"}, false},
		{kube.KindContainers, &kube.Row{Status: "Terminated:Completed"}, true},
		{kube.KindContainers, &kube.Row{Status: "Waiting:ImagePullBackOff"}, true},
		{kube.KindNodes, &kube.Row{Status: "NotReady"}, false},
	} {
		if got := views.NotRunning(c.kind, c.row); got != c.want {
			t.Errorf("NotRunning(%s, %+v) = %v, want %v", c.kind, c.row, got, c.want)
		}
	}
}

// intervalClient is a Source that says how often it reads metrics.
type intervalClient struct {
	views.Source
	every time.Duration
}

func (c intervalClient) MetricsInterval() time.Duration { return c.every }

// TestMetricsIntervalOf: the client's own interval (the context's
// --metrics-interval) wins over the configured one, so a 60s context is
// not called stale after 31s.
func TestMetricsIntervalOf(t *testing.T) {
	vc := &views.Context{Client: intervalClient{every: time.Minute}, Config: views.Config{MetricsInterval: 15 * time.Second}}
	if got := views.MetricsIntervalOf(vc); got != time.Minute {
		t.Fatalf("MetricsIntervalOf = %v, want the client's 1m", got)
	}
	now := time.Unix(1000, 0)
	if age := views.MetricsAge(now.Add(-90*time.Second), now, views.MetricsIntervalOf(vc)); age != "" {
		t.Fatalf("a 90s-old reading at a 60s interval is called stale: %q", age)
	}
	vc.Client = nil
	if got := views.MetricsIntervalOf(vc); got != 15*time.Second {
		t.Fatalf("without an IntervalSource: %v, want the configured 15s", got)
	}
}
