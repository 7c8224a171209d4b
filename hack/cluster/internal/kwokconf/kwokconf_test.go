package kwokconf_test

import (
	"bytes"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kyyard/kyyard/hack/cluster/internal/kwokconf"
)

func docs(t *testing.T) []map[string]any {
	t.Helper()
	data, err := kwokconf.Render(kwokconf.Options{CIDR: "10.0.0.0/16", NodeIP: "127.0.0.1", NodePort: 17247, ServerAddress: "127.0.0.1:17247"})
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, d := range bytes.Split(data, []byte("\n---\n")) {
		var m map[string]any
		if err := yaml.Unmarshal(d, &m); err != nil {
			t.Fatalf("document does not parse: %v\n%s", err, d)
		}
		out = append(out, m)
	}
	return out
}

func TestEveryDefaultedOptionIsExplicit(t *testing.T) {
	cfg := docs(t)[0]
	if cfg["kind"] != "KwokConfiguration" {
		t.Fatalf("first document kind %v", cfg["kind"])
	}
	opts := cfg["options"].(map[string]any)
	want := map[string]any{
		"cidr":                            "10.0.0.0/16",
		"manageAllNodes":                  false,
		"manageNodesWithLabelSelector":    "type=kwok",
		"enableDebuggingHandlers":         true,
		"enableContentionProfiling":       false,
		"enableProfilingHandler":          true,
		"podPlayStageParallelism":         float64(4),
		"nodePlayStageParallelism":        float64(4),
		"nodeLeaseParallelism":            float64(4),
		"podsOnNodeSyncParallelism":       float64(1),
		"enablePodsOnNodeSyncListPager":   true,
		"enablePodsOnNodeSyncStreamWatch": false,
	}
	for k, v := range want {
		if opts[k] != v {
			t.Errorf("options.%s = %v, want %v", k, opts[k], v)
		}
	}
}

func TestStagesAreDistinctAndExcludeDemoStates(t *testing.T) {
	names := map[string]bool{}
	var podReady map[string]any
	for _, d := range docs(t)[1:] {
		if d["kind"] != "Stage" {
			continue
		}
		name := d["metadata"].(map[string]any)["name"].(string)
		if names[name] {
			t.Errorf("duplicate stage %s", name)
		}
		names[name] = true
		if name == "kyyard-pod-ready" {
			podReady = d
		}
	}
	for _, n := range []string{"kyyard-node-initialize", "kyyard-node-heartbeat", "kyyard-pod-ready", "kyyard-pod-complete",
		"kyyard-pod-delete", "kyyard-pod-crashloop", "kyyard-pod-imagepull"} {
		if !names[n] {
			t.Errorf("stage %s missing", n)
		}
	}
	sel, _ := yaml.Marshal(podReady["spec"].(map[string]any)["selector"])
	if !strings.Contains(string(sel), kwokconf.DemoStateLabel) || !strings.Contains(string(sel), "DoesNotExist") {
		t.Errorf("pod-ready selector does not exclude %s:\n%s", kwokconf.DemoStateLabel, sel)
	}
	if !strings.Contains(string(sel), `startswith("unpullable.invalid/")`) {
		t.Errorf("pod-ready selector does not exclude images of unpullable.invalid:\n%s", sel)
	}
}

// TestResourceMetricsServeWhatMetricsServerReads: the Metric serves, at the
// path nodes are annotated with, the five series metrics-server's decoder
// reads (sigs.k8s.io/metrics-server pkg/scraper/client/resource/decode.go),
// and every container gets a cpu and a memory usage expression.
func TestResourceMetricsServeWhatMetricsServerReads(t *testing.T) {
	kinds := map[string]map[string]any{}
	for _, d := range docs(t)[1:] {
		if k := d["kind"].(string); k != "Stage" {
			kinds[k] = d
		}
	}
	m, ok := kinds["Metric"]
	if !ok {
		t.Fatal("no Metric in kwok's configuration")
	}
	spec := m["spec"].(map[string]any)
	if spec["path"] != kwokconf.ResourceMetricsPath {
		t.Errorf("Metric path %v, want %s", spec["path"], kwokconf.ResourceMetricsPath)
	}
	served := map[string]string{}
	for _, s := range spec["metrics"].([]any) {
		s := s.(map[string]any)
		served[s["name"].(string)] = s["dimension"].(string)
	}
	for name, dim := range map[string]string{"node_cpu_usage_seconds_total": "node", "node_memory_working_set_bytes": "node",
		"container_cpu_usage_seconds_total": "container", "container_memory_working_set_bytes": "container",
		"container_start_time_seconds": "container"} {
		if served[name] != dim {
			t.Errorf("series %s: dimension %q, want %q", name, served[name], dim)
		}
	}
	u, ok := kinds["ClusterResourceUsage"]
	if !ok {
		t.Fatal("no ClusterResourceUsage in kwok's configuration")
	}
	usage := u["spec"].(map[string]any)["usages"].([]any)[0].(map[string]any)["usage"].(map[string]any)
	for _, r := range []string{"cpu", "memory"} {
		expr, _ := usage[r].(map[string]any)["expression"].(string)
		if !strings.Contains(expr, kwokconf.UsageAnnotationPrefix+r) || !strings.Contains(expr, "SinceSecond") {
			t.Errorf("%s usage expression does not read its annotation or move over time:\n%s", r, expr)
		}
	}
}
