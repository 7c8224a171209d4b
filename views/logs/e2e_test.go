package logs_test

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views/logs"
	"github.com/kyyard/kyyard/views/viewtest"
)

// program runs a viewer the way Bubble Tea does: every command in its own
// goroutine, every message fed back to Update on the test's goroutine.
type program struct {
	t    *testing.T
	m    *logs.Model
	msgs chan tea.Msg
}

func runViewer(t *testing.T, s logs.Streamer, req kube.LogRequest, w, h int) *program {
	t.Helper()
	vc := viewtest.Context(nil, w, h)
	p := &program{t: t, m: logs.New(vc, s, req, logs.WithSaveDir(t.TempDir()), logs.WithClipboard(func(string) error { return nil })),
		msgs: make(chan tea.Msg, 64)}
	t.Cleanup(p.m.Close)
	p.spawn(p.m.Init())
	return p
}

func (p *program) spawn(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		switch msg := cmd().(type) {
		case nil:
		case tea.BatchMsg:
			for _, c := range msg {
				p.spawn(c)
			}
		default:
			p.msgs <- msg
		}
	}()
}

func (p *program) key(name string) {
	_, cmd := p.m.Update(viewtest.Key(name))
	p.spawn(cmd)
}

// until feeds messages to the viewer until its view satisfies cond, and
// fails after 20 s with the last view.
func (p *program) until(what string, cond func(view string) bool) string {
	p.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		if v := p.m.View(); cond(v) {
			return v
		}
		select {
		case msg := <-p.msgs:
			_, cmd := p.m.Update(msg)
			p.spawn(cmd)
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			p.t.Fatalf("%s: not seen in 20 s:\n%s", what, p.m.View())
		}
	}
}

func contains(subs ...string) func(string) bool {
	return func(v string) bool {
		for _, s := range subs {
			if !strings.Contains(v, s) {
				return false
			}
		}
		return true
	}
}

// demoPod returns the name and UID of the first pod in demo with label
// app=<app>.
func demoPod(t *testing.T, cs kubernetes.Interface, app string) (string, string) {
	t.Helper()
	pods, err := cs.CoreV1().Pods(kubetest.DemoNamespace).List(context.Background(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=" + app})
	if err != nil || len(pods.Items) == 0 {
		pods, err = cs.CoreV1().Pods(kubetest.DemoNamespace).List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + app})
	}
	if err != nil || len(pods.Items) == 0 {
		t.Fatalf("no demo pod of %s: %v", app, err)
	}
	return pods.Items[0].Name, string(pods.Items[0].UID)
}

// TestE2ELogViewer opens the viewer with the real client on the local
// cluster's demo pods (kwok serves pods/log from files): a pod's log, its
// previous container's, the container picker of a pod with several, and a
// Deployment's pods merged with their names as prefixes.
func TestE2ELogViewer(t *testing.T) {
	cfg := kubetest.Local(t)
	client := kubetest.Client(t, cfg)
	cs := kubernetes.NewForConfigOrDie(cfg)

	web, webUID := demoPod(t, cs, "web")
	follow := kube.LogOptions{Follow: true, TailLines: -1}
	p := runViewer(t, client, kube.LogRequest{Kind: kube.KindPods, Namespace: "demo", Name: web, UID: webUID, Options: follow}, 200, 50)
	p.until("the web pod's log", contains("nginx/1.27.3", "following", "0 dropped"))
	p.key("t")
	p.until("timestamps shown", func(v string) bool {
		return strings.Contains(v, "Z ") || strings.Contains(v, "UTC") || strings.Contains(v, time.Now().UTC().Format("2006-01-02"))
	})

	crashy, crashyUID := demoPod(t, cs, "crashy")
	prev := runViewer(t, client, kube.LogRequest{Kind: kube.KindPods, Namespace: "demo", Name: crashy, UID: crashyUID,
		Options: kube.LogOptions{Previous: true, TailLines: -1}}, 200, 50)
	prev.until("the crashy pod's previous container's log", contains("crashy 0.3.1 starting", "previous"))

	side, sideUID := demoPod(t, cs, "sidecar-demo")
	pick := runViewer(t, client, kube.LogRequest{Kind: kube.KindPods, Namespace: "demo", Name: side, UID: sideUID, Options: follow}, 200, 50)
	// No annotation: the default is the first of spec.containers, not the
	// native sidecar listed before it.
	pick.until("the container picker", contains("choose one", "app  (default)", "all containers"))
	pick.key("enter")
	pick.until("the chosen container's log", func(v string) bool { return strings.Contains(v, "lines") && !strings.Contains(v, " 0 lines") })

	work := runViewer(t, client, kube.LogRequest{Kind: kube.KindDeployments, Namespace: "demo", Name: "web", Options: follow}, 200, 50)
	v := work.until("the web Deployment's pods merged", func(v string) bool {
		pods := 0
		pl, _ := cs.CoreV1().Pods("demo").List(context.Background(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=web"})
		for _, pod := range pl.Items {
			if strings.Contains(v, pod.Name) {
				pods++
			}
		}
		return pods >= 2 && strings.Contains(v, "pods")
	})
	if !strings.Contains(v, " │ ") {
		t.Fatalf("workload lines lack their pod prefix:\n%s", v)
	}

	// p where nothing restarted: said plainly, for a pod and a workload.
	noPrev := kube.LogOptions{Previous: true, TailLines: -1}
	runViewer(t, client, kube.LogRequest{Kind: kube.KindPods, Namespace: "demo", Name: web, UID: webUID, Options: noPrev}, 200, 50).
		until("no previous instance", contains("! no previous instance of container web (it has not restarted)"))
	runViewer(t, client, kube.LogRequest{Kind: kube.KindDeployments, Namespace: "demo", Name: "web", Options: noPrev}, 200, 50).
		until("no previous instance in the Deployment", contains("no previous container instance in any of the 3 pods"))

	// A container that cannot start: one waiting state, from its status.
	bad, badUID := demoPod(t, cs, "badimage")
	runViewer(t, client, kube.LogRequest{Kind: kube.KindPods, Namespace: "demo", Name: bad, UID: badUID, Options: follow}, 200, 50).
		until("the waiting state", func(v string) bool {
			return strings.Contains(v, "waiting: container badimage: ImagePullBackOff (Back-off pulling image") &&
				!strings.Contains(v, "──") && !strings.Contains(v, "resumed")
		})
}
