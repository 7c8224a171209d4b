package ui_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/ui"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/viewtest"
)

// kwokNoShell is the local cluster's client, everything real but the
// shell's probe: kwok's fake kubelet runs no exec at all, so the probe is
// answered as a container without a shell (casebook C16) to reach the
// debug container offer, which then is the cluster's own.
type kwokNoShell struct{ *kube.Client }

func (kwokNoShell) OpenExec(context.Context, kube.ExecRequest) (kube.ExecSession, error) {
	return nil, fmt.Errorf("%w: none of bash, sh found", kube.ErrExecNoShell)
}

// TestE2EDebugContainerLeftBeforeItStartedGoesToHistory: on the local
// cluster, a debug container added to a kwok pod (whose fake kubelet never
// starts it) and left with esc while kyyard waits for it is in the history
// file, as written, named as the pod's ephemeral container is; the audit
// log shows the one patch of pods/ephemeralcontainers it records.
func TestE2EDebugContainerLeftBeforeItStartedGoesToHistory(t *testing.T) {
	cfg := kubetest.Local(t)
	logPath := os.Getenv(kubetest.AuditLogEnv)
	if logPath == "" {
		t.Fatalf("%s is not set", kubetest.AuditLogEnv)
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := kubetest.TempNamespace(t, cs, "kyyard-ui-debug")
	ctx := t.Context()
	grace := int64(0)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: ns}, Spec: corev1.PodSpec{
		Containers:   []corev1.Container{{Name: "app", Image: "registry.local/app:1"}},
		NodeSelector: map[string]string{"type": "kwok"},
		Tolerations: []corev1.Toleration{{Key: "kwok.x-k8s.io/node", Operator: corev1.TolerationOpEqual, Value: "fake",
			Effect: corev1.TaintEffectNoSchedule}},
		TerminationGracePeriodSeconds: &grace,
	}}
	pod, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); pod.Status.Phase != corev1.PodRunning; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("pod %s/app is not running: %s", ns, pod.Status.Phase)
		}
		if pod, err = cs.CoreV1().Pods(ns).Get(ctx, "app", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	agent := fmt.Sprintf("kyyard-debug-history-%d", time.Now().UnixNano())
	rcfg := rest.CopyConfig(cfg)
	rcfg.UserAgent = agent
	client, err := kube.NewFromConfig(rcfg, kube.Options{Registry: kinds.Builtin()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	path := filepath.Join(t.TempDir(), "history.log")
	h := startWith(t, kwokNoShell{client}, ns, 160, 40, ui.WithHistoryFile(path))
	h.settle(h.send(views.OpenShellMsg{Namespace: ns, Pod: "app", UID: string(pod.UID)}))
	if strings.Contains(h.m.View(), "y go on") {
		// The shell's own guards first: the test's namespace enforces no Pod
		// Security level, a warning to confirm.
		h.settle(h.send(viewtest.Key("y")))
	}
	if v := h.m.View(); !strings.Contains(v, "has no shell") || !strings.Contains(v, "start an ephemeral debug container") {
		t.Fatalf("no debug offer:\n%s", v)
	}
	waiting := h.send(h.send(viewtest.Key("enter"))()) // the guards' plan, then the start
	if strings.Contains(h.m.View(), "y go on") {
		// The test's namespace enforces no Pod Security level: confirmed.
		waiting = h.send(viewtest.Key("y"))
	}
	if !strings.Contains(h.m.View(), "starting") {
		t.Fatalf("the debug container is not starting:\n%s", h.m.View())
	}
	var name string
	for deadline := time.Now().Add(30 * time.Second); name == ""; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no ephemeral container was added")
		}
		p, err := cs.CoreV1().Pods(ns).Get(ctx, "app", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Spec.EphemeralContainers) > 0 {
			name = p.Spec.EphemeralContainers[0].Name
		}
	}
	h.settle(h.send(viewtest.Key("esc")))
	h.settle(waiting)
	if strings.HasPrefix(h.m.Top().Title(), "shell") {
		t.Fatalf("still on %s", h.m.Top().Title())
	}
	l := historyLines(t, path)
	if len(l) != 2 || !strings.Contains(l[1], ns+"/pods/app\tdebug\tok\t") || !strings.Contains(l[1], name) ||
		!strings.Contains(l[1], "left before it started") {
		t.Fatalf("history (the container added is %s): %q", name, l)
	}

	time.Sleep(time.Second) // the audit log is written after the response
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	patches := 0
	for sc.Scan() {
		if !strings.Contains(sc.Text(), agent) {
			continue
		}
		var e struct {
			Verb      string `json:"verb"`
			Stage     string `json:"stage"`
			ObjectRef *struct {
				Namespace   string `json:"namespace"`
				Subresource string `json:"subresource"`
			} `json:"objectRef"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.ObjectRef == nil {
			continue
		}
		if e.Verb == "patch" && e.ObjectRef.Subresource == "ephemeralcontainers" && e.ObjectRef.Namespace == ns &&
			(e.Stage == "" || e.Stage == "ResponseComplete") {
			patches++
		}
	}
	if patches != 1 {
		t.Fatalf("%d patches of pods/ephemeralcontainers by %s in the audit log; want the one recorded", patches, agent)
	}
}
