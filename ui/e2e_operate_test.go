package ui_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/ui"
	"github.com/kyyard/kyyard/views/rollout"
)

// drive runs cmd and every command that follows from it, sending each
// message to the root, until nothing is left or the deadline passes.
// Inventory refresh ticks (an hour in tests), the form's and describe
// view's usage re-reads and the form's re-reads of its object are not run;
// the rollout screen's one-second poll ticks are.
func (h *harness) drive(cmd tea.Cmd, deadline time.Time) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 && time.Now().Before(deadline) {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		if batch, ok := msg.(tea.BatchMsg); ok {
			queue = append(queue, batch...)
			continue
		}
		next := h.send(msg)
		switch msg.(type) {
		case rollout.PollMsg, rollout.StatusMsg:
			queue = append(queue, next)
			continue
		}
		switch fmt.Sprintf("%T", msg) {
		case "inventory.snapshotMsg", "inventory.tickMsg", "ui.factsMsg", "ui.factsTickMsg", "ui.namesMsg",
			"workload.usageMsg", "workload.usageTickMsg", "workload.watchArmMsg", "detail.usageMsg", "detail.usageTickMsg":
			continue // they arm ticks that would sleep
		}
		queue = append(queue, next)
	}
}

// createDeployment creates a Deployment of 2 replicas on the fake nodes.
func createDeployment(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	labels := map[string]string{"app": name}
	replicas, grace := int32(2), int64(0)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: appsv1.DeploymentSpec{
		Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
			Containers:   []corev1.Container{{Name: "app", Image: "registry.local/" + name + ":1"}},
			NodeSelector: map[string]string{"type": "kwok"},
			Tolerations: []corev1.Toleration{{Key: "kwok.x-k8s.io/node", Operator: corev1.TolerationOpEqual, Value: "fake",
				Effect: corev1.TaintEffectNoSchedule}},
			TerminationGracePeriodSeconds: &grace,
		}}}}
	if _, err := cs.AppsV1().Deployments(ns).Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// showDeployments opens :deploy until every name is listed.
func (h *harness) showDeployments(deadline time.Time, names ...string) {
	h.t.Helper()
	listed := func() bool {
		for _, n := range names {
			if lineOf(h.m.View(), n) == "" {
				return false
			}
		}
		return true
	}
	for !listed() && time.Now().Before(deadline) {
		h.command("deploy")
		if !listed() {
			time.Sleep(200 * time.Millisecond)
		}
	}
	if !listed() {
		h.t.Fatalf("the Deployments are not listed:\n%s", h.m.View())
	}
}

// TestE2EBulkRestartOfThreeMarkedDeployments marks three Deployments,
// restarts them with one confirmation, and sees one outcome line each.
func TestE2EBulkRestartOfThreeMarkedDeployments(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := kubetest.TempNamespace(t, cs, "kyyard-ui-bulk")
	names := []string{"api", "web", "worker"}
	for _, n := range names {
		createDeployment(t, cs, ns, n)
	}
	h := startWith(t, kubetest.Client(t, cfg), ns, 160, 40)
	deadline := time.Now().Add(90 * time.Second)
	h.showDeployments(deadline, names...)
	h.keys(" ", " ", " ")
	h.drive(h.keys("r"), deadline)
	if v := h.m.View(); !strings.Contains(v, "restart 3 objects? y/n") {
		t.Fatalf("no bulk confirmation:\n%s", v)
	}
	h.drive(h.keys("y"), deadline)
	view := h.m.View()
	for _, n := range names {
		if !strings.Contains(view, "✓ restarted "+ns+"/deployments/"+n) {
			t.Errorf("no outcome line for %s", n)
		}
		d, err := cs.AppsV1().Deployments(ns).Get(context.Background(), n, metav1.GetOptions{})
		if err != nil || d.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] == "" {
			t.Errorf("%s not restarted: %v", n, err)
		}
	}
	if !strings.Contains(view, "3 of 3 done") {
		t.Fatalf("result page:\n%s", view)
	}
}

// TestE2ERestartThroughTheKeys restarts a Deployment of the test's own
// namespace through the keys (r, then y on the confirmation listing the
// guards' verdicts), follows its rollout to completion on the rollout
// screen, and finds the outcome in :history and in the history file.
func TestE2ERestartThroughTheKeys(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := kubetest.TempNamespace(t, cs, "kyyard-ui-operate")
	createDeployment(t, cs, ns, "web")
	historyFile := filepath.Join(t.TempDir(), "kyyard", "history.log")
	client := kubetest.Client(t, cfg)
	h := startWith(t, client, ns, 160, 40, ui.WithHistoryFile(historyFile))
	deadline := time.Now().Add(90 * time.Second)
	h.showDeployments(deadline, "web")
	h.drive(h.keys("r"), deadline)
	view := h.m.View()
	if !strings.Contains(view, "restart deployments/web ("+ns+")? y/n") || !strings.Contains(view, "may patch deployments") {
		t.Fatalf("no confirmation with the verdicts:\n%s", view)
	}
	if got, _ := cs.AppsV1().Deployments(ns).Get(context.Background(), "web", metav1.GetOptions{}); got.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] != "" {
		t.Fatal("restarted before y")
	}
	h.drive(h.keys("y"), deadline)
	got, err := cs.AppsV1().Deployments(ns).Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil || got.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] == "" {
		t.Fatalf("not restarted: %v", err)
	}
	view = h.m.View()
	if !strings.HasPrefix(h.title(), "rollout deployments/web("+ns+")") {
		t.Fatalf("the rollout screen is not shown: title %q\n%s", h.title(), view)
	}
	if !strings.Contains(view, "rollout complete") {
		t.Fatalf("the rollout was not followed to completion:\n%s", view)
	}
	h.drive(h.keys("esc"), deadline)
	if !strings.Contains(h.m.View(), "rollout complete") {
		t.Fatalf("esc: the status line does not say how the rollout ended:\n%s", h.m.View())
	}
	h.command("history")
	view = h.m.View()
	if !strings.Contains(view, ns+"/deployments/web") || !strings.Contains(view, "restart") || !strings.Contains(view, " ok ") {
		t.Fatalf(":history lacks the restart:\n%s", view)
	}
	b, err := os.ReadFile(historyFile)
	if err != nil || !strings.Contains(string(b), "\t"+ns+"/deployments/web\trestart\tok\t") {
		t.Fatalf("history file: %q, %v", b, err)
	}
}
