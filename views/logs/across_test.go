package logs_test

import (
	"testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views/logs"
	"github.com/kyyard/kyyard/views/viewtest"
)

// A merge across clusters (logs.Across): each line's label is
// <context>:<pod>, the same pod name in two contexts is two streams and
// two pods in the header, and the title names what was merged.
func TestAcrossLabelsLinesWithContext(t *testing.T) {
	eu, us := line("web-1", "app", 1, "from eu"), line("web-1", "app", 2, "from us")
	eu.Context, us.Context = "prod-eu", "prod-us"
	f := &fake{batches: []kube.LogBatch{{Lines: []kube.LogLine{eu, us}}}, block: true}
	h := open(t, f, kube.LogRequest{Kind: kube.KindPods, Options: podReq.Options}, 100, 8, logs.Across("2 pods in 2 contexts"))
	view := h.view()
	viewtest.Size(t, view, 100, 8)
	viewtest.Golden(t, "across", view)
	h.has("prod-eu:web-1 │ from eu")
	h.has("prod-us:web-1 │ from us")
	h.has("logs 2 pods in 2 contexts · 2 pods")
	if got := h.m.Title(); got != "logs 2 pods in 2 contexts" {
		t.Fatalf("title %q", got)
	}
}
