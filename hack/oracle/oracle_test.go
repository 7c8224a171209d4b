package oracle

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube/kinds"
)

// envInt reads a count from the environment (ORACLE_N and friends), or def.
func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(strings.ReplaceAll(v, "_", ""))
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a count", name, v)
	}
	return n
}

// TestOracle compares kyyard's rows with Kubernetes' printers on every
// corner case and on generated objects of every kind: ORACLE_N per kind
// (default 2000), ORACLE_PODS pods (default 4 x ORACLE_N), and ORACLE_FUZZ
// objects per kind filled by Kubernetes' API fuzzer (default 200), seeded
// with ORACLE_SEED (default 1). ORACLE_OUT names a file the report is written to
// (every finding, minimised); without it findings are logged.
func TestOracle(t *testing.T) {
	n := envInt(t, "ORACLE_N", 2000)
	opts := Options{
		Seed:      uint64(envInt(t, "ORACLE_SEED", 1)),
		Count:     n,
		PodCount:  envInt(t, "ORACLE_PODS", 4*n),
		FuzzCount: envInt(t, "ORACLE_FUZZ", 200),
	}
	rep := Run(NewPrinter(), Subjects(), opts)
	total := 0
	for _, c := range rep.Compared {
		total += c
	}
	t.Logf("%d comparisons (%d pods) in %s, %d findings", total, rep.Compared["pods"], rep.Elapsed, len(rep.Findings))
	for class, count := range rep.Classes() {
		t.Logf("difference %s: %d", class, count)
	}
	if out := os.Getenv("ORACLE_OUT"); out != "" {
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := rep.Write(f); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("report written to %s", out)
	}
	if len(rep.Findings) > 0 {
		var b strings.Builder
		shown := rep
		if len(shown.Findings) > 20 {
			shown.Findings = shown.Findings[:20]
		}
		_ = shown.Write(&b)
		t.Errorf("kyyard differs from Kubernetes' printers on %d inputs; the first:\n%s", len(rep.Findings), b.String())
	}
}

// TestEveryBuiltinKind: every built-in plugin is either compared or named in
// Untested with the reason.
func TestEveryBuiltinKind(t *testing.T) {
	tested := map[string]bool{}
	for _, s := range Subjects() {
		tested[string(s.ID)] = true
		if s.Plugin == nil || s.Gen == nil {
			t.Errorf("%s: no plugin or generator", s.ID)
		}
	}
	for _, k := range kinds.Builtin().Kinds() {
		_, skipped := Untested[k.ID]
		if tested[string(k.ID)] == skipped {
			t.Errorf("%s: compared=%v, in Untested=%v: want exactly one", k.ID, tested[string(k.ID)], skipped)
		}
	}
}
