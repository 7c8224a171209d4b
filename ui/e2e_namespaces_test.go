package ui_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
)

// configMapsIn returns "namespace/name" of every ConfigMap the API server
// lists in each of nss.
func configMapsIn(t *testing.T, cs kubernetes.Interface, nss ...string) []string {
	t.Helper()
	var out []string
	for _, ns := range nss {
		list, err := cs.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, cm := range list.Items {
			out = append(out, ns+"/"+cm.Name)
		}
	}
	sort.Strings(out)
	return out
}

// shownRows returns "namespace/name" of the rows of a screen with the
// NAMESPACE column (the namespace and the name after it) whose namespace
// is one of nss, below the header line.
func shownRows(view string, nss ...string) []string {
	var out []string
	header := false
	for _, l := range strings.Split(view, "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "NAMESPACE" {
			header = true
			continue
		}
		if !header {
			continue
		}
		// The cursor's and the marks' columns come first (">", "x").
		for i := 0; i+1 < len(f) && i < 3; i++ {
			if slices.Contains(nss, f[i]) {
				out = append(out, f[i]+"/"+f[i+1])
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestE2ESeveralNamespaces is issue 27's "-n a,b shows exactly the two
// namespaces' rows" on the local cluster: ConfigMaps of two namespaces
// (and not of a third) are exactly what the API server lists in each; the
// read-only ServiceAccount, allowed into demo only, sees demo's rows and a
// line naming the other namespace as forbidden with the server's message.
func TestE2ESeveralNamespaces(t *testing.T) {
	cfg := kubetest.Local(t)
	admin, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := kubetest.TempNamespace(t, admin, "several-a")
	b := kubetest.TempNamespace(t, admin, "several-b")
	c := kubetest.TempNamespace(t, admin, "several-c")
	for i, ns := range []string{a, a, b, c} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}, Data: map[string]string{"k": "v"}}
		if _, err := admin.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	want := configMapsIn(t, admin, a, b)
	h := startWith(t, kubetest.Client(t, cfg), a, 200, 40)
	h.command(fmt.Sprintf("cm %s,%s", b, a))
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := shownRows(h.m.View(), a, b, c)
		if strings.Join(got, " ") == strings.Join(want, " ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ConfigMaps of %s and %s: kyyard shows %q, the API server lists %q\n%s", a, b, got, want, h.m.View())
		}
		time.Sleep(200 * time.Millisecond)
		h.run(h.keys("ctrl+r"))
	}
	if title := h.title(); !strings.HasPrefix(title, fmt.Sprintf("configmaps(%s,%s)[%d]", a, b, len(want))) {
		t.Fatalf("title %q", title)
	}

	ro := startWith(t, kubetest.Client(t, kubetest.LocalReadOnly(t)), kubetest.DemoNamespace, 200, 40)
	ro.command(fmt.Sprintf("cm %s,%s", kubetest.DemoNamespace, a))
	deadline = time.Now().Add(20 * time.Second)
	for {
		view := ro.m.View()
		line := lineWith(view, "namespace "+a+" not read: forbidden")
		demo, other := shownRows(view, kubetest.DemoNamespace), shownRows(view, a)
		if line != "" && strings.Contains(line, "cannot list") && len(demo) > 0 {
			if len(other) > 0 {
				t.Fatalf("rows of %s, which the read-only user may not list: %q", a, other)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the read-only user on %s,%s:\n%s", kubetest.DemoNamespace, a, view)
		}
		time.Sleep(200 * time.Millisecond)
		ro.run(ro.keys("ctrl+r"))
	}
}

// lineWith returns the first view line containing text, "" when none.
func lineWith(view, text string) string {
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, text) {
			return l
		}
	}
	return ""
}
