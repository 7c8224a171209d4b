package ui_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/ui"
)

// waitAvailable waits until Deployment ns/name has all its replicas
// available.
func waitAvailable(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		d, err := cs.AppsV1().Deployments(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err == nil && d.Status.ObservedGeneration == d.Generation && d.Status.AvailableReplicas == *d.Spec.Replicas && d.Status.UpdatedReplicas == *d.Spec.Replicas {
			return
		}
	}
	t.Fatalf("deployment %s/%s not available in 60s", ns, name)
}

func imageOf(t *testing.T, cs kubernetes.Interface, ns, name string) string {
	t.Helper()
	d, err := cs.AppsV1().Deployments(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d.Spec.Template.Spec.Containers[0].Image
}

// confirmAsk finds the confirmation a screen asks for: type "X" to confirm.
var confirmAsk = regexp.MustCompile(`type "([^"]+)" to confirm`)

// noWrites fails the test when any fleet cluster's audit log shows a write
// of kyyard's in ns.
func noWrites(t *testing.T, path string, names []string, ns string) {
	t.Helper()
	for _, name := range names {
		if w := auditWritesIn(t, path, name, ns); len(w) > 0 {
			t.Fatalf("%s written: %v", name, w)
		}
	}
}

// applyPlan presses y on a plan across clusters and types each warning's
// answer it asks for, following what it starts until deadline.
func (h *harness) applyPlan(deadline time.Time) {
	h.t.Helper()
	h.drive(h.keys("y"), deadline)
	for m := confirmAsk.FindStringSubmatch(h.m.View()); m != nil; m = confirmAsk.FindStringSubmatch(h.m.View()) {
		h.keys(strings.Split(m[1], "")...)
		h.drive(h.keys("enter"), deadline)
	}
}

// TestE2EFleetChangeClusterByClusterStopsAtTheFailure: on the local
// fleet, Deployment web in a namespace of each cluster; kyyard-fleet-2's
// namespace enforces Pod Security restricted, which web's new pods break
// (a planted failure its plan warns of). From the drift screen, e edits
// web's image once; the plan dry-runs it in all three before anything
// is written (no write in any audit log); y applies it to kyyard-fleet-1,
// whose rollout completes, then kyyard-fleet-2, whose rollout fails (its
// new pods refused): the change stops there, kyyard-fleet-3's API server
// got no write, and :history has one line per cluster. u then undoes the
// first two: their image is back.
func TestE2EFleetChangeClusterByClusterStopsAtTheFailure(t *testing.T) {
	path := kubetest.LocalFleet(t)
	names := []string{"kyyard-fleet-1", "kyyard-fleet-2", "kyyard-fleet-3"}
	k := fleetFile{path: path}
	ns, css := webInEach(t, k, names, "kyyard-ui-change")
	for i := range names {
		waitAvailable(t, css[i], ns, "web")
	}
	restricted := `{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"restricted"}}}`
	if _, err := css[1].CoreV1().Namespaces().Patch(context.Background(), ns, types.MergePatchType, []byte(restricted), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	home, err := k.Connect(names[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(home.(*kube.Client).Close)
	h := startWith(t, home, ns, 160, 60, ui.WithKubeconfig(k), ui.WithFleet(names))
	deadline := time.Now().Add(3 * time.Minute)
	h.command("deploy " + ns)
	h.refreshUntil("clusters: kyyard-fleet-1 1 · kyyard-fleet-2 1 · kyyard-fleet-3 1", deadline)
	h.runKey(h.keys("=")) // web@kyyard-fleet-1
	h.runKey(h.keys("e"))
	h.keys("tab", "tab", "ctrl+u") // replicas, paused, then the image
	for _, r := range "registry.local/web:2" {
		h.keys(string(r))
	}
	h.run(h.keys("ctrl+s"))
	view := h.m.View()
	for _, want := range []string{"1 kyyard-fleet-1 — planned: 1 change(s), dry run accepted", "2 kyyard-fleet-2 — planned", "3 kyyard-fleet-3 — planned"} {
		if !strings.Contains(view, want) {
			t.Fatalf("the plan lacks %q:\n%s", want, view)
		}
	}
	noWrites(t, path, names, ns) // the plan wrote nothing

	// y, then each warning's answer (kyyard-fleet-2's Pod Security).
	h.applyPlan(deadline)
	view = h.m.View()
	if !strings.Contains(view, "1 kyyard-fleet-1 — done") || !strings.Contains(view, "2 kyyard-fleet-2 — failed") || !strings.Contains(view, "3 kyyard-fleet-3 — untouched") {
		t.Fatalf("the change did not stop at kyyard-fleet-2:\n%s", view)
	}
	if got := imageOf(t, css[0], ns, "web"); got != "registry.local/web:2" {
		t.Errorf("kyyard-fleet-1's image %s", got)
	}
	if got := imageOf(t, css[2], ns, "web"); got != "registry.local/web:1" {
		t.Errorf("kyyard-fleet-3's image %s", got)
	}
	time.Sleep(time.Second) // the audit log is written after the response
	if w := auditWritesIn(t, path, names[2], ns); len(w) > 0 {
		t.Errorf("kyyard-fleet-3 got writes: %v", w)
	}
	if w := strings.Join(auditWritesIn(t, path, names[0], ns), ","); !strings.Contains(w, "patch deployments/web") {
		t.Errorf("kyyard-fleet-1's writes: %q", w)
	}

	// u, u (asked first): the first two are written back.
	h.keys("u")
	h.drive(h.keys("u"), deadline)
	for i := range 2 {
		if got := imageOf(t, css[i], ns, "web"); got != "registry.local/web:1" {
			t.Errorf("%s's image after u: %s\n%s", names[i], got, h.m.View())
		}
	}
	if got := h.titleBar(); strings.Contains(got, "· edit") {
		t.Errorf("the form of the applied edits is still on the stack: %q", got)
	}
	h.command("history")
	history := h.m.View()
	for _, name := range names {
		found := false
		for _, line := range strings.Split(history, "\n") {
			f := strings.Fields(line)
			found = found || contains(f, name) && contains(f, ns+"/deployments/web") && contains(f, "apply")
		}
		if !found {
			t.Errorf(":history has no apply line of %s:\n%s", name, history)
		}
	}
}

// TestE2EFleetRestartAcrossReadOnlyRefusesItsStep: on the local fleet,
// web in a namespace of each cluster, kyyard-fleet-3 read-only in kyyard;
// r on web marked in all three plans a restart cluster by cluster, the
// plan saying before anything is written that kyyard-fleet-3 refuses
// (read_only); y restarts kyyard-fleet-1 and kyyard-fleet-2 (each rollout
// followed) and stops at kyyard-fleet-3, which gets no request that writes.
func TestE2EFleetRestartAcrossReadOnlyRefusesItsStep(t *testing.T) {
	path := kubetest.LocalFleet(t)
	names := []string{"kyyard-fleet-1", "kyyard-fleet-2", "kyyard-fleet-3"}
	k := fleetFile{path: path, readOnly: map[string]bool{"kyyard-fleet-3": true}}
	ns, css := webInEach(t, k, names, "kyyard-ui-restart")
	for i := range names {
		waitAvailable(t, css[i], ns, "web")
	}
	home, err := k.Connect(names[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(home.(*kube.Client).Close)
	h := startWith(t, home, ns, 160, 50, ui.WithKubeconfig(k), ui.WithFleet(names))
	deadline := time.Now().Add(3 * time.Minute)
	h.command("deploy " + ns)
	h.refreshUntil("clusters: kyyard-fleet-1 1 · kyyard-fleet-2 1 · kyyard-fleet-3 1", deadline)
	h.keys(" ", " ", " ")
	h.runKey(h.keys("r"))
	view := h.m.View()
	if !strings.Contains(h.titleBar(), "restart deployments/web("+ns+")") || !strings.Contains(view, "3 kyyard-fleet-3 — refused: read_only") ||
		!strings.Contains(view, "the change will stop here") || !strings.Contains(view, "1 kyyard-fleet-1 — planned: restart") {
		t.Fatalf("the plan of r on three marked rows:\n%s", view)
	}
	noWrites(t, path, names, ns) // the plan wrote nothing
	h.applyPlan(deadline)
	view = h.m.View()
	if !strings.Contains(view, "1 kyyard-fleet-1 — done") || !strings.Contains(view, "2 kyyard-fleet-2 — done") || !strings.Contains(view, "3 kyyard-fleet-3 — failed") {
		t.Fatalf("the restart did not run on 1 and 2 and stop at 3:\n%s", view)
	}
	for i, cs := range css {
		d, err := cs.AppsV1().Deployments(ns).Get(context.Background(), "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if restarted := d.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] != ""; restarted != (i < 2) {
			t.Errorf("%s restarted: %v", names[i], restarted)
		}
	}
	time.Sleep(time.Second)
	if w := auditWritesIn(t, path, names[2], ns); len(w) > 0 {
		t.Errorf("kyyard-fleet-3 got writes: %v", w)
	}
}
