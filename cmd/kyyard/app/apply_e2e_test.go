package app_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/cmd/kyyard/app"
	"github.com/kyyard/kyyard/internal/kubetest"
)

// TestE2EApplyCommand: `kyyard apply -f` on the local cluster. --dry-run
// prints the plan and the diff and writes nothing; the apply creates the
// ConfigMap and appends the outcome to the history file; a field another
// manager took is a conflict that writes nothing (exit 1) until
// --force-conflicts; --readonly refuses before any write.
func TestE2EApplyCommand(t *testing.T) {
	kubeconfig, _ := localTools(t)
	cs := kubernetes.NewForConfigOrDie(kubetest.Local(t))
	ns := kubetest.TempNamespace(t, cs, "kyyard-apply")
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.yaml")
	if err := os.WriteFile(file, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  color: blue\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		cmd := app.NewCommand(&out, &errOut)
		cmd.SetArgs(append([]string{"apply", "--kubeconfig", kubeconfig, "-n", ns, "-f", dir}, args...))
		err := cmd.Execute()
		return out.String(), errOut.String(), err
	}
	ctx := context.Background()

	out, _, err := run("--dry-run")
	if err != nil || !strings.Contains(out, "settings.yaml, document 1: "+ns+"/configmaps/settings would be created") ||
		!strings.Contains(out, "+  color: blue") || !strings.Contains(out, "dry run: nothing written") {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "settings", metav1.GetOptions{}); err == nil {
		t.Fatal("the dry run created the ConfigMap")
	}

	out, errOut, err := run()
	if err != nil || !strings.Contains(out, "created "+ns+"/configmaps/settings by server-side apply (field manager kyyard)") {
		t.Fatalf("apply: %v\n%s\n%s", err, out, errOut)
	}
	hist, err := os.ReadFile(filepath.Join(xdg, "kyyard", "history.log"))
	if err != nil || !strings.Contains(string(hist), ns+"/configmaps/settings\tserver-side apply\tok") {
		t.Fatalf("history: %v\n%s", err, hist)
	}

	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "settings", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["color"] = "green"
	if _, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{FieldManager: "ops-script"}); err != nil {
		t.Fatal(err)
	}
	out, errOut, err = run()
	if err == nil || !strings.Contains(out, `conflict: .data.color is owned by field manager "ops-script"`) ||
		!strings.Contains(errOut, "nothing written: 1 of 1 object(s)") {
		t.Fatalf("conflict: %v\n%s\n%s", err, out, errOut)
	}
	if cm, _ = cs.CoreV1().ConfigMaps(ns).Get(ctx, "settings", metav1.GetOptions{}); cm.Data["color"] != "green" {
		t.Fatalf("written without force: %v", cm.Data)
	}

	out, errOut, err = run("--readonly", "--force-conflicts")
	if err == nil || !strings.Contains(out, "refused: ") || !strings.Contains(out, "read-only") {
		t.Fatalf("--readonly: %v\n%s\n%s", err, out, errOut)
	}

	out, errOut, err = run("--force-conflicts")
	if err != nil || !strings.Contains(out, `taking over 1 field(s) from "ops-script"`) {
		t.Fatalf("force: %v\n%s\n%s", err, out, errOut)
	}
	if cm, _ = cs.CoreV1().ConfigMaps(ns).Get(ctx, "settings", metav1.GetOptions{}); cm.Data["color"] != "blue" {
		t.Fatalf("after force: %v", cm.Data)
	}
}
