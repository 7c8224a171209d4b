package app_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/cmd/kyyard/app"
	"github.com/kyyard/kyyard/internal/kubetest"
)

// TestE2ELocalFleetGet: on the local fleet (three control planes),
// `kyyard get deploy -n demo --contexts 'kyyard-fleet-*'` lists each
// cluster's own Deployments under its context (web in 1 and 2, api in
// 3); the image column tells fleet-1's web from fleet-2's; fleet-3's
// read-only user may not list pods there, and only there.
func TestE2ELocalFleetGet(t *testing.T) {
	path := kubetest.LocalFleet(t)
	run := func(args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		cmd := app.NewCommand(&out, &errOut)
		cmd.SetArgs(append([]string{"get", "--kubeconfig", path}, args...))
		err := cmd.Execute()
		return out.String(), errOut.String(), err
	}
	out, errOut, err := run("deploy", "-n", kubetest.DemoNamespace, "--contexts", "kyyard-fleet-1,kyyard-fleet-2,kyyard-fleet-3", "-o", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var doc struct {
		Columns []struct{ Name string } `json:"columns"`
		Rows    []struct {
			Context string   `json:"context"`
			Name    string   `json:"name"`
			Cells   []string `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	images := -1
	for i, c := range doc.Columns {
		if c.Name == "IMAGES" {
			images = i
		}
	}
	got := map[string]string{}
	for _, r := range doc.Rows {
		got[r.Context+"/"+r.Name] = r.Cells[images]
	}
	if images < 0 || got["kyyard-fleet-1/web"] != "nginx:1.27.3" || got["kyyard-fleet-2/web"] != "nginx:1.27.4" ||
		got["kyyard-fleet-3/api"] == "" || got["kyyard-fleet-3/web"] != "" {
		t.Fatalf("deployments by context: %v (columns %v)", got, doc.Columns)
	}
	_, errOut, err = run("pods", "--contexts", "kyyard-fleet-*-viewer")
	if err == nil || !strings.Contains(errOut, "context kyyard-fleet-3-viewer: forbidden") ||
		strings.Contains(errOut, "kyyard-fleet-1-viewer") || strings.Contains(errOut, "kyyard-fleet-2-viewer") {
		t.Fatalf("viewers: %v\n%s", err, errOut)
	}
}
