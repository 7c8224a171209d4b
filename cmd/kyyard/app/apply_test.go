package app

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// fakeWriteConnect connects to a client over client-go's fake clientset
// and counts the connections.
func fakeWriteConnect(t *testing.T, calls *int) writeConnectFunc {
	return func() (*kube.Client, string, func(), error) {
		*calls++
		c, _ := kubetest.FakeClient(t)
		return c, "fake", func() {}, nil
	}
}

func noHistory() (string, error) { return "", errors.New("no history in this test") }

// No -f is refused before connecting; a malformed manifest is refused
// whole, with its file and document, before any plan.
func TestApplyRefusesBadInput(t *testing.T) {
	calls := 0
	var out, errOut bytes.Buffer
	err := runApply(t.Context(), nil, &out, &errOut, fakeWriteConnect(t, &calls), noHistory, applyOptions{})
	if err == nil || !strings.Contains(err.Error(), "no manifests") || calls != 0 {
		t.Fatalf("no -f: %v, %d connections", err, calls)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "web.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nkind: ConfigMap\nmetadata: {name: b}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = runApply(t.Context(), nil, &out, &errOut, fakeWriteConnect(t, &calls), noHistory, applyOptions{files: []string{bad}})
	if err == nil || !strings.Contains(err.Error(), "web.yaml, document 2") || !strings.Contains(err.Error(), "apiVersion") || out.Len() != 0 {
		t.Fatalf("malformed: %v; out %q", err, out.String())
	}
	err = runApply(t.Context(), strings.NewReader("{"), &out, &errOut, fakeWriteConnect(t, &calls), noHistory, applyOptions{files: []string{"-"}})
	if err == nil || !strings.Contains(err.Error(), "the standard input, document 1") {
		t.Fatalf("malformed stdin: %v", err)
	}
}

// printPlan blocks on a refusal, on conflicts without --force-conflicts
// and on warnings without --yes, and says which flag lets each through.
func TestApplyPrintPlanBlocks(t *testing.T) {
	ref := kube.ObjectRef{Kind: "configmaps", Namespace: "demo", Name: "web"}
	plan := &kube.ApplyPlan{Steps: []kube.ApplyStep{
		{Ref: ref, Source: "a.yaml, document 1", Exists: true, Diff: "-x\n+y\n",
			Conflicts: []kube.FieldConflict{{Field: ".data.color", Manager: "ops", Detail: `conflict with "ops"`}}},
		{Ref: ref, Source: "a.yaml, document 2", Exists: true,
			Verdicts: kube.Verdicts{{Guard: kube.GuardManaged, Outcome: kube.OutcomeWarn, Reason: kube.ReasonApplicationManaged, Sentence: "managed by Helm"}}},
		{Ref: ref, Source: "a.yaml, document 3", Err: &kube.Refusal{Reason: kube.ReasonForbidden, Detail: "no patch"}},
		{Ref: ref, Source: "a.yaml, document 4"},
	}}
	for _, c := range []struct {
		opts    applyOptions
		blocked int
		says    []string
	}{
		{applyOptions{}, 3, []string{"document 1: demo/configmaps/web would be changed", `.data.color is owned by field manager "ops"`,
			"not applied without --force-conflicts", "document 2: demo/configmaps/web unchanged", "warning (application_managed): managed by Helm",
			"not applied without --yes", "document 3: demo/configmaps/web refused: ", "document 4: demo/configmaps/web would be created"}},
		{applyOptions{force: true}, 2, []string{"--force-conflicts: kyyard takes over these 1 field(s)"}},
		{applyOptions{force: true, yes: true}, 1, nil},
	} {
		var out bytes.Buffer
		if got := printPlan(&out, plan, c.opts); got != c.blocked {
			t.Errorf("%+v: %d blocked, want %d:\n%s", c.opts, got, c.blocked, out.String())
		}
		for _, s := range c.says {
			if !strings.Contains(out.String(), s) {
				t.Errorf("%+v: no %q in:\n%s", c.opts, s, out.String())
			}
		}
	}
}
