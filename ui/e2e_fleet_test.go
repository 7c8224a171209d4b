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

	tea "github.com/charmbracelet/bubbletea"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/ui"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/logs"
)

// fleetFile is the local fleet's kubeconfig as cmd's kubeconfig is: each
// context its own client (its credentials), read-only where readOnly says
// (as the configuration file's readonlyContexts make it).
type fleetFile struct {
	path     string
	readOnly map[string]bool
}

func (k fleetFile) flags(context string) *genericclioptions.ConfigFlags {
	f := genericclioptions.NewConfigFlags(true)
	f.KubeConfig, f.Context = &k.path, &context
	return f
}

func (k fleetFile) Contexts() ([]string, string, error) { return kube.Contexts(k.flags("")) }

func (k fleetFile) Connect(name string) (views.Source, error) {
	c, err := kube.New(k.flags(name), kube.Options{Registry: kinds.Builtin(), TablePlugin: kinds.NewTable, ReadOnly: k.readOnly[name]})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_ = c.Discover(ctx)
	return c, nil
}

// clientset returns a clientset of one context of the fleet.
func (k fleetFile) clientset(t *testing.T, name string) kubernetes.Interface {
	t.Helper()
	cfg, err := k.flags(name).ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	return kubernetes.NewForConfigOrDie(cfg)
}

// auditWritesIn returns the writes (verb resource/name) kyyard sent (its
// user agent) that the API server of fleet cluster name logged in
// namespace ns; dry runs (dryRun=All: nothing written) are left out.
func auditWritesIn(t *testing.T, kubeconfig, name, ns string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(filepath.Dir(kubeconfig), name, "logs", "audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if !strings.Contains(sc.Text(), ns) {
			continue
		}
		var e struct {
			Stage     string `json:"stage"`
			Verb      string `json:"verb"`
			UserAgent string `json:"userAgent"`
			URI       string `json:"requestURI"`
			ObjectRef *struct {
				Resource  string `json:"resource"`
				Namespace string `json:"namespace"`
				Name      string `json:"name"`
			} `json:"objectRef"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.ObjectRef == nil || e.ObjectRef.Namespace != ns || e.Stage != "ResponseComplete" ||
			!strings.HasPrefix(e.UserAgent, "kyyard") || strings.Contains(e.URI, "dryRun=") {
			continue
		}
		switch e.Verb {
		case "patch", "update", "delete", "deletecollection":
			out = append(out, e.Verb+" "+e.ObjectRef.Resource+"/"+e.ObjectRef.Name)
		}
	}
	return out
}

// TestE2EFleetActionGoesToRowsCluster: on the local fleet, with the three
// clusters chosen (kyyard-fleet-3 read-only in kyyard), a Deployment of
// the same name in each shows three rows with their contexts; restart on
// kyyard-fleet-2's row patches that cluster's Deployment only (the three
// API servers' audit logs), :history names the context; the same key on
// kyyard-fleet-3's row is refused there, before any request.
func TestE2EFleetActionGoesToRowsCluster(t *testing.T) {
	path := kubetest.LocalFleet(t)
	names := []string{"kyyard-fleet-1", "kyyard-fleet-2", "kyyard-fleet-3"}
	k := fleetFile{path: path, readOnly: map[string]bool{"kyyard-fleet-3": true}}
	ns, _ := webInEach(t, k, names, "kyyard-ui-fleet")
	home, err := k.Connect(names[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(home.(*kube.Client).Close)
	h := startWith(t, home, ns, 160, 30, ui.WithKubeconfig(k), ui.WithFleet(names))
	deadline := time.Now().Add(90 * time.Second)
	h.command("deploy " + ns)
	h.refreshUntil("clusters: kyyard-fleet-1 1 · kyyard-fleet-2 1 · kyyard-fleet-3 1", deadline)
	for _, name := range names {
		found := false
		for _, line := range strings.Split(h.m.View(), "\n") {
			fields := strings.Fields(line)
			found = found || contains(fields, name) && contains(fields, "web")
		}
		if !found {
			t.Fatalf("no row of web in %s:\n%s", name, h.m.View())
		}
	}
	// Rows: web@kyyard-fleet-1, web@kyyard-fleet-2, web@kyyard-fleet-3.
	h.keys("j")
	h.drive(h.keys("r"), deadline)
	if v := h.m.View(); !strings.Contains(v, "restart deployments/web ("+ns+") in context kyyard-fleet-2") || !strings.Contains(v, "? y/n") {
		t.Fatalf("no confirmation naming kyyard-fleet-2:\n%s", v)
	}
	h.drive(h.keys("y"), deadline)
	for i, name := range names {
		d, err := k.clientset(t, name).AppsV1().Deployments(ns).Get(context.Background(), "web", metav1.GetOptions{})
		restarted := err == nil && d.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] != ""
		if restarted != (i == 1) {
			t.Errorf("%s: restarted %v (%v)", name, restarted, err)
		}
	}
	time.Sleep(time.Second) // the audit log is written after the response
	for i, name := range names {
		writes := auditWritesIn(t, path, name, ns)
		if got := strings.Join(writes, ","); (i == 1) != strings.Contains(got, "patch deployments/web") {
			t.Errorf("%s's API server logged %q", name, got)
		}
	}
	h.command("history")
	if line := lineOf(h.m.View(), "restart"); !strings.Contains(line, "kyyard-fleet-2") || !strings.Contains(line, ns+"/deployments/web") {
		t.Fatalf(":history does not name the context:\n%s", h.m.View())
	}

	// kyyard-fleet-3 is read-only in kyyard: refused there, nothing sent.
	h.command("deploy " + ns)
	h.refreshUntil("kyyard-fleet-3 1", deadline)
	h.keys("j", "j")
	h.drive(h.keys("r"), deadline)
	if v := h.m.View(); !strings.Contains(v, "read-only") {
		t.Fatalf("restart in the read-only context was not refused:\n%s", v)
	}
	time.Sleep(time.Second)
	if w := auditWritesIn(t, path, "kyyard-fleet-3", ns); len(w) > 0 {
		t.Fatalf("kyyard-fleet-3 got writes: %v", w)
	}
}

// webInEach creates a namespace of the same name (prefix and a random
// suffix) in each cluster of the fleet, deleted at the test's end, and
// Deployment web of 2 replicas in each (createDeployment); it returns
// the namespace and each cluster's clientset, in names' order.
func webInEach(t *testing.T, k fleetFile, names []string, prefix string) (string, []kubernetes.Interface) {
	t.Helper()
	css := make([]kubernetes.Interface, len(names))
	ns := kubetest.TempNamespace(t, k.clientset(t, names[0]), prefix)
	for i, name := range names {
		css[i] = k.clientset(t, name)
		cs := css[i]
		if i > 0 {
			if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
		}
		waitServiceAccount(t, cs, ns)
		createDeployment(t, cs, ns, "web")
	}
	return ns, css
}

// waitServiceAccount waits until namespace ns has its default
// ServiceAccount (Pods are refused before).
func waitServiceAccount(t *testing.T, cs kubernetes.Interface, ns string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, err := cs.CoreV1().ServiceAccounts(ns).Get(context.Background(), "default", metav1.GetOptions{}); err == nil {
			return
		}
	}
	t.Fatalf("namespace %s has no default ServiceAccount", ns)
}

// runAsync runs cmd (a batch's commands each) in goroutines and sends
// their messages to the root from the test's goroutine, with the
// commands the root answers, until done says so or the deadline passes:
// for screens whose commands block (a followed log stream).
func (h *harness) runAsync(cmd tea.Cmd, deadline time.Time, done func() bool) {
	h.t.Helper()
	msgs := make(chan tea.Msg, 256)
	var start func(tea.Cmd)
	start = func(c tea.Cmd) {
		if c == nil {
			return
		}
		go func() {
			msg := c()
			if batch, ok := msg.(tea.BatchMsg); ok {
				for _, b := range batch {
					start(b)
				}
				return
			}
			if msg != nil {
				msgs <- msg
			}
		}()
	}
	start(cmd)
	for !done() {
		select {
		case msg := <-msgs:
			switch fmt.Sprintf("%T", msg) {
			case "inventory.tickMsg", "ui.factsTickMsg":
				continue // ticks of the screens below
			}
			start(h.send(msg))
		case <-time.After(time.Until(deadline)):
			h.t.Fatalf("not done by the deadline:\n%s", h.m.View())
		}
	}
}

// TestE2EFleetMergedLogs: on the local fleet, l on Deployment web (in
// kyyard-fleet-1 and kyyard-fleet-2, absent from kyyard-fleet-3) merges
// both clusters' pods' logs in timestamp order, each line labelled with
// its context and pod (the fleet seed's lines alternate cluster by
// cluster: line k of kyyard-fleet-1, then of kyyard-fleet-2, then k+1).
func TestE2EFleetMergedLogs(t *testing.T) {
	path := kubetest.LocalFleet(t)
	names := []string{"kyyard-fleet-1", "kyyard-fleet-2", "kyyard-fleet-3"}
	k := fleetFile{path: path}
	home, err := k.Connect(names[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(home.(*kube.Client).Close)
	h := startWith(t, home, kubetest.DemoNamespace, 200, 40, ui.WithKubeconfig(k), ui.WithFleet(names))
	deadline := time.Now().Add(90 * time.Second)
	h.command("deploy " + kubetest.DemoNamespace)
	h.refreshUntil("clusters: kyyard-fleet-1 1 · kyyard-fleet-2 1 · kyyard-fleet-3 1", deadline)
	// Rows: api@kyyard-fleet-3, web@kyyard-fleet-1, web@kyyard-fleet-2.
	h.keys("j")
	msg := h.keys("l")()
	open, ok := msg.(views.OpenLogsMsg)
	if !ok || len(open.Across) != 2 {
		t.Fatalf("l on web sent %+v", msg)
	}
	var lines []string
	h.runAsync(h.send(msg), deadline, func() bool {
		lv, ok := h.m.Top().(*logs.Model)
		if !ok {
			t.Fatalf("no log viewer: %T", h.m.Top())
		}
		lines = lv.Lines()
		return len(lines) >= 80 // 20 lines × 2 pods × 2 clusters
	})
	if got := h.titleBar(); !strings.Contains(got, "logs deployments/web ("+kubetest.DemoNamespace+") in 2 contexts") {
		t.Fatalf("title %q", got)
	}
	view := h.m.View()
	if !strings.Contains(view, "kyyard-fleet-1:web-") || !strings.Contains(view, "kyyard-fleet-2:web-") {
		t.Fatalf("the lines do not name their context and pod:\n%s", view)
	}
	// Each line's (k, cluster) never goes back.
	prev := -1
	for _, l := range lines {
		var cluster, k int
		if _, err := fmt.Sscanf(l[strings.Index(l, "kyyard-fleet-"):], "kyyard-fleet-%d line %d", &cluster, &k); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if at := k*10 + cluster; at < prev {
			t.Fatalf("out of order at %q:\n%s", l, strings.Join(lines, "\n"))
		} else {
			prev = at
		}
	}
	h.keys("esc")
}

// TestE2EDisruptiveFleetOneAPIServerRestarted: on the local fleet, a pods
// screen across the three clusters while kyyard-fleet-2's API server is
// stopped and started again (kyyard-cluster fleet restart-apiserver):
// kyyard-fleet-2 is marked stale with its rows kept, the other clusters
// keep answering (a pod created in kyyard-fleet-1 meanwhile shows), and
// kyyard-fleet-2 answers again once its server is back.
func TestE2EDisruptiveFleetOneAPIServerRestarted(t *testing.T) {
	tool := kubetest.Disruptive(t)
	path := kubetest.LocalFleet(t)
	names := []string{"kyyard-fleet-1", "kyyard-fleet-2", "kyyard-fleet-3"}
	k := fleetFile{path: path}
	home, err := k.Connect(names[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(home.(*kube.Client).Close)
	h := startWith(t, home, kubetest.DemoNamespace, 200, 40, ui.WithKubeconfig(k), ui.WithFleet(names))
	h.command("deploy " + kubetest.DemoNamespace)
	until := func(what string, limit time.Duration, cond func(string) bool) time.Duration {
		t.Helper()
		start := time.Now()
		for {
			h.run(h.keys("ctrl+r"))
			if cond(h.m.View()) {
				return time.Since(start)
			}
			if time.Since(start) > limit {
				t.Fatalf("%s: not seen in %s; last view:\n%s", what, limit, h.m.View())
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	until("the three clusters", time.Minute, func(v string) bool {
		return strings.Contains(v, "clusters: kyyard-fleet-1 1 · kyyard-fleet-2 1 · kyyard-fleet-3 1")
	})
	restart := kubetest.ClusterCommand(tool, "fleet", "restart-apiserver", "--cluster", "kyyard-fleet-2", "--down", "8s")
	pipe, err := restart.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	restart.Stderr = restart.Stdout
	began := time.Now()
	if err := restart.Start(); err != nil {
		t.Fatal(err)
	}
	// The tool says when the API server's process has ended (it drains
	// its connections first, up to its grace period).
	var output strings.Builder
	stopped := make(chan time.Time, 1)
	done := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			output.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "stopped") {
				stopped <- time.Now()
			}
		}
		done <- restart.Wait()
	}()
	until("kyyard-fleet-2 stale, its row kept", time.Minute, func(v string) bool {
		return strings.Contains(v, "kyyard-fleet-2 stale") && strings.Contains(v, "(1 kept)") &&
			strings.Contains(v, "kyyard-fleet-1 1 ·") && strings.Contains(v, "kyyard-fleet-3 1")
	})
	staleAt := time.Now()
	select {
	case at := <-stopped:
		t.Logf("kyyard-fleet-2 marked stale %s after the restart began, %s after its API server's process ended",
			staleAt.Sub(began).Round(100*time.Millisecond), staleAt.Sub(at).Round(100*time.Millisecond))
	default:
		t.Logf("kyyard-fleet-2 marked stale %s after the restart began, before its API server's process ended", staleAt.Sub(began).Round(100*time.Millisecond))
	}
	// The others keep answering: a Deployment made in kyyard-fleet-1 now shows.
	cs := k.clientset(t, names[0])
	createDeployment(t, cs, kubetest.DemoNamespace, "during-outage")
	t.Cleanup(func() {
		_ = cs.AppsV1().Deployments(kubetest.DemoNamespace).Delete(context.Background(), "during-outage", metav1.DeleteOptions{})
	})
	until("kyyard-fleet-1's new Deployment during the outage", time.Minute, func(v string) bool {
		return strings.Contains(v, "during-outage") && strings.Contains(v, "kyyard-fleet-1 2 ·")
	})
	if err := <-done; err != nil {
		t.Fatalf("restart-apiserver: %v\n%s", err, output.String())
	}
	back := until("kyyard-fleet-2 answering again", time.Minute, func(v string) bool {
		return strings.Contains(v, "kyyard-fleet-2 1 ·") && !strings.Contains(v, "stale")
	})
	t.Logf("kyyard-fleet-2 answered again %s after its API server was ready", back.Round(100*time.Millisecond))
}

// TestE2EFleetEachContextsOwnNamespace: on the local fleet, a fleet
// entered without a namespace chosen reads each context's own, as
// `kubectl --context C get` does: kyyard-fleet-1 (no namespace in the
// kubeconfig: default) and kyyard-fleet-2-viewer (demo). Each context's
// rows are exactly its namespace's ConfigMaps, with that namespace shown;
// `:cm demo` then reads demo in both.
func TestE2EFleetEachContextsOwnNamespace(t *testing.T) {
	path := kubetest.LocalFleet(t)
	names := []string{"kyyard-fleet-1", "kyyard-fleet-2-viewer"}
	k := fleetFile{path: path}
	want := map[string][]string{} // context → namespace/name of its ConfigMaps
	total := 0
	for _, name := range names {
		ns, _, err := k.flags(name).ToRawKubeConfigLoader().Namespace()
		if err != nil {
			t.Fatal(err)
		}
		list, err := k.clientset(t, name).CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, cm := range list.Items {
			want[name] = append(want[name], cm.Namespace+"/"+cm.Name)
		}
		total += len(list.Items)
	}
	if len(want[names[0]]) == 0 || !strings.HasPrefix(want[names[0]][0], "default/") || len(want[names[1]]) == 0 || !strings.HasPrefix(want[names[1]][0], "demo/") {
		t.Fatalf("the fleet's contexts do not have the namespaces this test expects: %v", want)
	}
	home, err := k.Connect(names[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(home.(*kube.Client).Close)
	h := startWith(t, home, "default", 200, 40, ui.WithKubeconfig(k), ui.WithFleet(names))
	deadline := time.Now().Add(60 * time.Second)
	h.command("cm")
	h.refreshUntil(fmt.Sprintf("clusters: kyyard-fleet-1 %d · kyyard-fleet-2-viewer %d", len(want[names[0]]), len(want[names[1]])), deadline)
	if got := h.titleBar(); !strings.HasPrefix(got, fmt.Sprintf("configmaps(each context's namespace)[%d]", total)) {
		t.Fatalf("title %q", got)
	}
	got := map[string][]string{}
	for _, line := range strings.Split(h.m.View(), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), ">"))
		if len(f) > 2 && (f[0] == names[0] || f[0] == names[1]) {
			got[f[0]] = append(got[f[0]], f[1]+"/"+f[2]) // CONTEXT NAMESPACE NAME
		}
	}
	for _, name := range names {
		if strings.Join(got[name], ",") != strings.Join(want[name], ",") {
			t.Errorf("%s: rows %v, want its own namespace's %v:\n%s", name, got[name], want[name], h.m.View())
		}
	}
	h.command("cm " + kubetest.DemoNamespace)
	h.refreshUntil("clusters: kyyard-fleet-1 1 · kyyard-fleet-2-viewer 1", deadline)
	if got := h.titleBar(); !strings.HasPrefix(got, "configmaps(demo)[2]") {
		t.Fatalf(":cm demo: title %q", got)
	}
}
