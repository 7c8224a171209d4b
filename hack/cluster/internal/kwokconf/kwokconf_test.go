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
		"manageAllNodes":                  true,
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
			t.Errorf("kind %v, want Stage", d["kind"])
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
