package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
)

// editorScript is $KUBE_EDITOR for the test: each run (counted in
// $STATE/count) keeps a copy of the file it was given and its mode, then
// does what $STATE/step-<n>.sh says to the file ("$1"); a step that
// touches $STATE/race waits until the test has raced it and removed it.
const editorScript = `#!/bin/sh
set -e
n=$(cat "$STATE/count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$STATE/count"
cp "$1" "$STATE/seen-$n.yaml"
stat -c %a "$1" > "$STATE/mode-$n"
echo "$1" > "$STATE/path-$n"
. "$STATE/step-$n.sh"
`

// TestE2EYAMLEditInTheEditor runs kyyard under a pseudo-terminal with
// $KUBE_EDITOR set to a script the test drives: E on a ConfigMap hands the
// terminal to it on a 0600 file (removed after); while it edits, another
// writer changes the ConfigMap, so the save meets a conflict and the
// editor reopens on the fresh object with the person's change re-applied
// and the colliding key named; saved, previewed and applied with y. On a
// Service an invalid port is reopened with the API server's error on
// top, corrected and applied; a custom resource is edited by merge patch;
// :history shows the three writes.
func TestE2EYAMLEditInTheEditor(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	ctx := context.Background()
	ns := kubetest.TempNamespace(t, cs, "kyyard-yamledit")
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"},
		Data: map[string]string{"color": "blue", "size": "m"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	gvr := kubetest.WidgetCRD(t, dyn)
	kind := "Widget" + strings.TrimPrefix(gvr.Resource, "widgets")
	if _, err := dyn.Resource(gvr).Namespace(ns).Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gvr.GroupVersion().String(), "kind": kind, "metadata": map[string]any{"name": "gizmo"},
		"spec": map[string]any{"color": "red"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	state := t.TempDir()
	script := filepath.Join(state, "editor.sh")
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(state, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("editor.sh", editorScript)
	// 1: the ConfigMap, raced; 2: the conflict's reopen, saved as it is;
	// 3: the Service's bad port; 4: the error's reopen, corrected; 5: the
	// custom resource.
	write("step-1.sh", `touch "$STATE/race"; while [ -e "$STATE/race" ]; do sleep 0.1; done
sed -i 's/color: blue/color: teal/; s/size: m/size: xl/' "$1"
`)
	write("step-2.sh", "true\n")
	write("step-3.sh", `sed -i 's/port: 80$/port: 99999/' "$1"`+"\n")
	write("step-4.sh", `sed -i 's/port: 99999$/port: 81/' "$1"`+"\n")
	write("step-5.sh", `sed -i 's/color: red/color: green/' "$1"`+"\n")
	t.Setenv("KUBE_EDITOR", script)
	t.Setenv("EDITOR", "")
	t.Setenv("STATE", state)
	seen := func(n int) string {
		b, err := os.ReadFile(filepath.Join(state, fmt.Sprintf("seen-%d.yaml", n)))
		if err != nil {
			t.Fatalf("editor run %d: %v", n, err)
		}
		return string(b)
	}

	p := startUnderPty(t, 200, 50, "--kubeconfig", os.Getenv(kubetest.KubeconfigEnv), "-n", ns, "-c", "configmaps")
	at := p.waitFor(0, "the configmaps table", regexp.MustCompile(`settings`))
	time.Sleep(300 * time.Millisecond)
	p.send("/settings\r")
	time.Sleep(300 * time.Millisecond)
	p.send("E")

	// The editor runs; another writer changes size (which the person
	// changes too) and adds a key meanwhile.
	race := filepath.Join(state, "race")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(race); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the editor never ran:\n%s", ansiSeq.ReplaceAllString(p.output(at), ""))
		}
	}
	if first := seen(1); !strings.HasPrefix(first, "# Editing "+ns+"/configmaps/settings") || strings.Contains(first, "managedFields:") ||
		!strings.Contains(first, "color: blue") {
		t.Fatalf("the editor's file:\n%s", first)
	}
	if mode, _ := os.ReadFile(filepath.Join(state, "mode-1")); strings.TrimSpace(string(mode)) != "600" {
		t.Fatalf("the editor's file has mode %s, want 600", mode)
	}
	cm, _ := cs.CoreV1().ConfigMaps(ns).Get(ctx, "settings", metav1.GetOptions{})
	cm.Data["size"], cm.Data["owner"] = "s", "ops"
	if _, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{FieldManager: "ops-script"}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(race); err != nil {
		t.Fatal(err)
	}

	// The conflict: the editor reopens on the fresh object.
	at = p.waitFor(at, "the preview after the conflict's reopen", regexp.MustCompile(`apply this edit to `+regexp.QuoteMeta(ns)+`/configmaps/settings\? y/enter`))
	second := seen(2)
	for _, want := range []string{"# CONFLICT: " + ns + "/configmaps/settings changed since it was read", `#   .data.size: yours "xl", the other writer's "s"`,
		"color: teal", "owner: ops", "size: s"} {
		if !strings.Contains(second, want) {
			t.Errorf("the reopened file lacks %q:\n%s", want, second)
		}
	}
	for _, n := range []int{1, 2} {
		path, _ := os.ReadFile(filepath.Join(state, fmt.Sprintf("path-%d", n)))
		if _, err := os.Stat(strings.TrimSpace(string(path))); !os.IsNotExist(err) {
			t.Errorf("the file of editor run %d is still there: %v", n, err)
		}
	}
	p.send("y")
	at = p.waitFor(at, "the apply's status", regexp.MustCompile(`changed `+regexp.QuoteMeta(ns)+`/configmaps/settings by a strategic merge patch`))
	cm, _ = cs.CoreV1().ConfigMaps(ns).Get(ctx, "settings", metav1.GetOptions{})
	if cm.Data["color"] != "teal" || cm.Data["size"] != "s" || cm.Data["owner"] != "ops" {
		t.Fatalf("the ConfigMap after the edit: %v", cm.Data)
	}

	// The Service: an invalid port reopens with the server's error.
	p.send(":svc\r")
	at = p.waitFor(at, "the services table", regexp.MustCompile(`services\(`+regexp.QuoteMeta(ns)+`\)`))
	time.Sleep(500 * time.Millisecond)
	p.send("E")
	at = p.waitFor(at, "the Service's preview", regexp.MustCompile(`apply this edit to `+regexp.QuoteMeta(ns)+`/services/web\? y/enter`))
	if fourth := seen(4); !strings.HasPrefix(fourth, "# ERROR: ") || !strings.Contains(fourth, "99999") || !strings.Contains(fourth, "port: 99999") {
		t.Fatalf("the reopened file after the invalid port:\n%s", fourth)
	}
	p.send("y")
	at = p.waitFor(at, "the Service's apply", regexp.MustCompile(`changed `+regexp.QuoteMeta(ns)+`/services/web`))
	svc, _ := cs.CoreV1().Services(ns).Get(ctx, "web", metav1.GetOptions{})
	if svc.Spec.Ports[0].Port != 81 {
		t.Fatalf("the Service's port %d", svc.Spec.Ports[0].Port)
	}

	// The custom resource: a merge patch.
	p.send(":" + gvr.Resource + "\r")
	at = p.waitFor(at, "the widgets table", regexp.MustCompile(`gizmo`))
	time.Sleep(500 * time.Millisecond)
	p.send("E")
	at = p.waitFor(at, "the widget's preview", regexp.MustCompile(`merge patch · resourceVersion`))
	p.send("y")
	at = p.waitFor(at, "the widget's apply", regexp.MustCompile(`changed `+regexp.QuoteMeta(ns)+`/`+gvr.Resource+`/gizmo by a merge patch`))
	// Each write is a line of :history.
	p.send(":history\r")
	p.waitFor(at, "the edits in :history", regexp.MustCompile(`(?s)edit yaml.*edit yaml.*edit yaml`))
	w, _ := dyn.Resource(gvr).Namespace(ns).Get(ctx, "gizmo", metav1.GetOptions{})
	if color, _, _ := unstructured.NestedString(w.Object, "spec", "color"); color != "green" {
		t.Fatalf("the widget's color %q", color)
	}
}
