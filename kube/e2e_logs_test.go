package kube_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// The local cluster's kwok serves pods/log from the files a namespaced
// Logs object (metadata.name = the pod's) names, in CRI format; lines
// appended to a file reach followers (reference/local-cluster.md §4).
// kwok never ends a follow by itself (checked by hand: idle, rotated,
// removed and unreadable files all keep it open), so the tests end streams
// with a transport that cuts the HTTP body, as a kubelet dropping an idle
// stream or a proxy closing it would.

var kwokLogsGVR = schema.GroupVersionResource{Group: "kwok.x-k8s.io", Version: "v1alpha1", Resource: "logs"}

type logFiles struct {
	dir string
	mu  sync.Mutex
}

// criLine is a kubelet CRI log line.
func criLine(t time.Time, text string) string {
	return t.UTC().Format(time.RFC3339Nano) + " stdout F " + text + "\n"
}

func (f *logFiles) path(name string) string { return filepath.Join(f.dir, name) }

func (f *logFiles) write(t *testing.T, name string, lines ...string) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	tmp := f.path(name) + ".tmp"
	if err := os.WriteFile(tmp, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, f.path(name)); err != nil {
		t.Fatal(err)
	}
}

func (f *logFiles) append(t *testing.T, name string, lines ...string) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	fh, err := os.OpenFile(f.path(name), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := fh.WriteString(strings.Join(lines, "")); err != nil {
		t.Fatal(err)
	}
}

// applyLogs makes the Logs object of pod: every container reads current,
// previous containers read previous.
func applyLogs(t *testing.T, dyn dynamic.Interface, ns, pod, current, previous string) {
	t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kwok.x-k8s.io/v1alpha1",
		"kind":       "Logs",
		"metadata":   map[string]any{"name": pod, "namespace": ns},
		"spec": map[string]any{"logs": []any{map[string]any{
			"logsFile": current, "previousLogsFile": previous, "follow": true,
		}}},
	}}
	if _, err := dyn.Resource(kwokLogsGVR).Namespace(ns).Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Logs %s: %v", pod, err)
	}
}

// waitRunning waits until the pods labelled app=sel (or named) run.
func waitPods(t *testing.T, cs kubernetes.Interface, ns, selector string, n int) []corev1.Pod {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		list, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: selector})
		if err == nil {
			running := 0
			for _, p := range list.Items {
				if p.Status.Phase == corev1.PodRunning {
					running++
				}
			}
			if running == n && len(list.Items) == n {
				slices.SortFunc(list.Items, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
				return list.Items
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("pods %s not running after 60 s: %v", selector, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// logRecorder is a LogSink that keeps everything, in order.
type logRecorder struct {
	mu     sync.Mutex
	events []string // "pod/container: text" or "[kind]"
	lines  []kube.LogLine
	notes  []kube.LogNote
}

func (r *logRecorder) Write(b kube.LogBatch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ni := 0
	for i := 0; i <= len(b.Lines); i++ {
		for ni < len(b.Notes) && b.Notes[ni].At == i {
			n := b.Notes[ni].Note
			tag := "[" + string(n.Kind)
			if n.Restarted {
				tag += " restarted"
			}
			r.events = append(r.events, tag+"]")
			r.notes = append(r.notes, n)
			ni++
		}
		if i < len(b.Lines) {
			l := b.Lines[i]
			r.events = append(r.events, l.Pod+"/"+l.Container+": "+string(l.Raw))
			r.lines = append(r.lines, l)
		}
	}
}

func (r *logRecorder) snapshot() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

func (r *logRecorder) has(event string) bool { return slices.Contains(r.snapshot(), event) }

func (r *logRecorder) waitFor(t *testing.T, event string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !r.has(event) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q after 30 s; got %v", event, r.snapshot())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// streamCutter ends the followed pods/log bodies open when cut is called
// with a clean EOF.
type streamCutter struct {
	mu     sync.Mutex
	bodies []*cutBody
}

type cutBody struct {
	io.ReadCloser
	mu  sync.Mutex
	cut bool
}

func (b *cutBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cut {
		return 0, io.EOF
	}
	return n, err
}

func (c *streamCutter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(r)
		if err == nil && strings.HasSuffix(r.URL.Path, "/log") && r.URL.Query().Get("follow") == "true" {
			b := &cutBody{ReadCloser: resp.Body}
			resp.Body = b
			c.mu.Lock()
			c.bodies = append(c.bodies, b)
			c.mu.Unlock()
		}
		return resp, err
	})
}

func (c *streamCutter) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.bodies {
		b.mu.Lock()
		b.cut = true
		b.mu.Unlock()
		b.ReadCloser.Close()
	}
	c.bodies = nil
}

func TestE2ELogs(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	c := kubetest.Client(t, cfg)
	ns := kubetest.TempNamespace(t, cs, "klogs")
	files := &logFiles{dir: t.TempDir()}
	if err := os.Chmod(files.dir, 0o755); err != nil { // kwok reads the files
		t.Fatal(err)
	}
	ctx := context.Background()

	// One pod whose log the tests append to, and its previous container's.
	base := time.Now().UTC().Truncate(time.Second).Add(-time.Minute)
	ts1 := base.Add(331385 * time.Microsecond)
	files.write(t, "one.log", criLine(ts1, "first line"), criLine(base.Add(time.Second), "second line"))
	files.write(t, "one-previous.log", criLine(base.Add(-time.Hour), "previous instance"))
	one := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "one", Namespace: ns}, Spec: kwokPodSpec("busybox")}
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, one, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	applyLogs(t, dyn, ns, "one", files.path("one.log"), files.path("one-previous.log"))
	one = &waitPods(t, cs, ns, "", 1)[0]

	t.Run("read", func(t *testing.T) {
		rec := &logRecorder{}
		err := c.Logs(ctx, kube.LogRequest{Kind: kube.KindPods, Namespace: ns, Name: "one", UID: string(one.UID),
			Options: kube.LogOptions{TailLines: -1}}, rec)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := rec.snapshot(), []string{"[started]", "one/app: first line", "one/app: second line", "[ended]"}; !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		if !rec.lines[0].Time.Equal(ts1) || !rec.lines[1].Time.Equal(base.Add(time.Second)) {
			t.Errorf("times %v %v, want %v %v", rec.lines[0].Time, rec.lines[1].Time, ts1, base.Add(time.Second))
		}
	})

	t.Run("previous", func(t *testing.T) {
		// "one" never restarted: there is no previous instance to read
		// (kwok would serve the previous file anyway; a kubelet refuses).
		err := c.Logs(ctx, kube.LogRequest{Kind: kube.KindPods, Namespace: ns, Name: "one",
			Options: kube.LogOptions{Previous: true, Follow: true, TailLines: -1}}, &logRecorder{})
		if !errors.Is(err, kube.ErrLogNoPrevious) || err.Error() != "no previous instance of container app (it has not restarted)" {
			t.Fatalf("previous of a container never restarted: %v", err)
		}
		// A pod whose container restarted, as a kubelet reports it.
		files.write(t, "prev.log", criLine(base, "current instance"))
		files.write(t, "prev-previous.log", criLine(base.Add(-time.Hour), "previous instance"))
		prev := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "prev", Namespace: ns, Labels: map[string]string{"klogs": "prev"}},
			Spec: kwokPodSpec("busybox")}
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, prev, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		applyLogs(t, dyn, ns, "prev", files.path("prev.log"), files.path("prev-previous.log"))
		st := waitPods(t, cs, ns, "klogs=prev", 1)[0].Status.ContainerStatuses[0]
		patch := fmt.Sprintf(`{"status":{"containerStatuses":[{"name":"app","image":%q,"imageID":%q,"ready":true,"started":true,`+
			`"containerID":%q,"restartCount":1,"state":{"running":{"startedAt":%q}},`+
			`"lastState":{"terminated":{"exitCode":1,"reason":"Error","containerID":"kwok://klogs-prev-old","finishedAt":%q}}}]}}`,
			st.Image, st.ImageID, st.ContainerID, time.Now().UTC().Format(time.RFC3339), time.Now().UTC().Format(time.RFC3339))
		if _, err := cs.CoreV1().Pods(ns).Patch(ctx, "prev", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil {
			t.Fatal(err)
		}
		rec := &logRecorder{}
		err = c.Logs(ctx, kube.LogRequest{Kind: kube.KindPods, Namespace: ns, Name: "prev",
			Options: kube.LogOptions{Previous: true, Follow: true, TailLines: -1}}, rec)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := rec.snapshot(), []string{"[started]", "prev/app: previous instance", "[ended]"}; !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		if err := cs.CoreV1().Pods(ns).Delete(ctx, "prev", metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("several containers are refused", func(t *testing.T) {
		always := corev1.ContainerRestartPolicyAlways
		spec := kwokPodSpec("busybox")
		spec.Containers = append(spec.Containers, corev1.Container{Name: "metrics", Image: "busybox"})
		spec.InitContainers = []corev1.Container{{Name: "shipper", Image: "busybox", RestartPolicy: &always}}
		multi := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "multi", Namespace: ns,
			Annotations: map[string]string{"kubectl.kubernetes.io/default-container": "metrics"}}, Spec: spec}
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, multi, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		err := c.Logs(ctx, kube.LogRequest{Kind: kube.KindPods, Namespace: ns, Name: "multi"}, &logRecorder{})
		var choice *kube.ContainerChoiceError
		if !errors.As(err, &choice) || !errors.Is(err, kube.ErrLogContainerRequired) {
			t.Fatalf("got %v, want a ContainerChoiceError", err)
		}
		if got := strings.Join(choice.Containers, ","); got != "shipper,app,metrics" || choice.DefaultContainer != "metrics" {
			t.Errorf("got %+v", choice)
		}
	})

	t.Run("a Deployment's pods merged by time", func(t *testing.T) {
		labels := map[string]string{"app": "klogs-web"}
		dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns}, Spec: appsv1.DeploymentSpec{
			Replicas: ptr(int32(2)), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: kwokPodSpec("busybox")}}}
		if _, err := cs.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		pods := waitPods(t, cs, ns, "app=klogs-web", 2)
		a, b := pods[0].Name, pods[1].Name
		t0 := base.Add(10 * time.Second)
		// Pod b writes at t2; pod a at t1 and t3.
		files.write(t, "a.log", criLine(t0.Add(time.Millisecond), "t1"), criLine(t0.Add(3*time.Millisecond), "t3"))
		files.write(t, "b.log", criLine(t0.Add(2*time.Millisecond), "t2"))
		applyLogs(t, dyn, ns, a, files.path("a.log"), files.path("a.log"))
		applyLogs(t, dyn, ns, b, files.path("b.log"), files.path("b.log"))
		rec := &logRecorder{}
		deadline := time.Now().Add(30 * time.Second)
		for {
			// kwok may not have seen the new Logs objects yet.
			rec = &logRecorder{}
			err := c.Logs(ctx, kube.LogRequest{Kind: kube.KindDeployments, Namespace: ns, Name: "web",
				Options: kube.LogOptions{TailLines: -1}}, rec)
			if err == nil && len(rec.lines) == 3 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no merged read after 30 s: %v %v", err, rec.snapshot())
			}
			time.Sleep(200 * time.Millisecond)
		}
		var got []string
		for _, l := range rec.lines {
			got = append(got, l.Pod+"/"+l.Container+": "+string(l.Raw))
		}
		if want := []string{a + "/app: t1", b + "/app: t2", a + "/app: t3"}; !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})

	t.Run("follow survives ended streams and a restart", func(t *testing.T) {
		cut := &streamCutter{}
		fcfg := rest.CopyConfig(cfg)
		fcfg.Wrap(cut.wrap)
		fc := kubetest.Client(t, fcfg)
		rec := &logRecorder{}
		fctx, cancel := context.WithCancel(ctx)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			done <- fc.Logs(fctx, kube.LogRequest{Kind: kube.KindPods, Namespace: ns, Name: "one",
				Options: kube.LogOptions{Follow: true, TailLines: -1}}, rec)
		}()
		rec.waitFor(t, "one/app: second line")

		// Lines appended to the file stream to the follower; all in one second.
		sec := base.Add(20 * time.Second)
		files.append(t, "one.log", criLine(sec.Add(100*time.Millisecond), "appended 1"),
			criLine(sec.Add(200*time.Millisecond), "appended 2"))
		rec.waitFor(t, "one/app: appended 2")

		// The stream ends while the container runs: the reconnection
		// (sinceTime at that second) skips appended 1 and 2.
		cut.cut()
		rec.waitFor(t, "[resumed]")
		files.append(t, "one.log", criLine(sec.Add(300*time.Millisecond), "after the cut"))
		rec.waitFor(t, "one/app: after the cut")

		// The container restarts as a kubelet reports it: a new container
		// ID, one more restart, the old instance terminated. Its last line
		// (written after the follower's last read) is in its previous log.
		files.write(t, "one-previous.log", criLine(ts1, "first line"), criLine(base.Add(time.Second), "second line"),
			criLine(sec.Add(100*time.Millisecond), "appended 1"), criLine(sec.Add(200*time.Millisecond), "appended 2"),
			criLine(sec.Add(300*time.Millisecond), "after the cut"), criLine(sec.Add(400*time.Millisecond), "old instance's last"))
		pod, err := cs.CoreV1().Pods(ns).Get(ctx, "one", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		st := pod.Status.ContainerStatuses[0]
		patch := fmt.Sprintf(`{"status":{"containerStatuses":[{"name":"app","image":%q,"imageID":%q,"ready":true,"started":true,`+
			`"containerID":"kwok://klogs-restarted","restartCount":%d,"state":{"running":{"startedAt":%q}},`+
			`"lastState":{"terminated":{"exitCode":1,"reason":"Error","containerID":%q,"finishedAt":%q}}}]}}`,
			st.Image, st.ImageID, st.RestartCount+1, time.Now().UTC().Format(time.RFC3339), st.ContainerID, time.Now().UTC().Format(time.RFC3339))
		if _, err := cs.CoreV1().Pods(ns).Patch(ctx, "one", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil {
			t.Fatal(err)
		}
		rec.waitFor(t, "[resumed restarted]")
		files.append(t, "one.log", criLine(sec.Add(2*time.Second), "new instance"))
		rec.waitFor(t, "one/app: new instance")

		want := []string{"[started]", "one/app: first line", "one/app: second line", "one/app: appended 1", "one/app: appended 2",
			"[resumed]", "one/app: after the cut", "one/app: old instance's last", "[resumed restarted]", "one/app: new instance"}
		if got := rec.snapshot(); !slices.Equal(got, want) {
			t.Fatalf("got  %v\nwant %v", got, want)
		}

		// The pod is deleted: the follow ends.
		if err := cs.CoreV1().Pods(ns).Delete(ctx, "one", metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("the follow did not end with its pod; got %v", rec.snapshot())
		}
		if ev := rec.snapshot(); ev[len(ev)-1] != "[pod_gone]" {
			t.Errorf("last event %q, want the pod gone", ev[len(ev)-1])
		}
	})

	t.Run("the read-only user is forbidden outside demo", func(t *testing.T) {
		ro := kubetest.Client(t, kubetest.LocalReadOnly(t))
		err := ro.Logs(ctx, kube.LogRequest{Kind: kube.KindPods, Namespace: ns, Name: "multi", Container: "app"}, &logRecorder{})
		if kube.ReasonOf(err) != kube.ReasonForbidden {
			t.Fatalf("got %v (%s), want forbidden", err, kube.ReasonOf(err))
		}
	})
}
