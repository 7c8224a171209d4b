package forwarding

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/internal/reviewtest"
	"github.com/kyyard/kyyard/kube/vocab"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
)

// pfConn is a fake port-forward connection to one pod: each data stream
// answers what it reads with "<pod>:<port>:<bytes>".
type pfConn struct {
	pod    string
	once   sync.Once
	closed chan bool
	// refuse, when set and answering a message, makes each new
	// connection fail as a kubelet with no listener does: that message on
	// the error stream, the data stream closed at once.
	refuse func() string
}

func newPFConn(pod string) *pfConn { return &pfConn{pod: pod, closed: make(chan bool)} }

func (c *pfConn) CreateStream(h http.Header) (httpstream.Stream, error) {
	select {
	case <-c.closed:
		return nil, errors.New("connection closed")
	default:
	}
	msg := ""
	if c.refuse != nil {
		msg = c.refuse()
	}
	if h.Get(corev1.StreamType) == corev1.StreamTypeError {
		return &pfStream{Conn: nil, h: h, msg: strings.NewReader(msg)}, nil
	}
	client, server := net.Pipe()
	if msg != "" {
		server.Close()
		return &pfStream{Conn: client, h: h}, nil
	}
	go func() {
		defer server.Close()
		buf := make([]byte, 1024)
		for {
			n, err := server.Read(buf)
			if n > 0 {
				fmt.Fprintf(server, "%s:%s:%s", c.pod, h.Get(corev1.PortHeader), buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	return &pfStream{Conn: client, h: h}, nil
}

func (c *pfConn) Close() error                       { c.once.Do(func() { close(c.closed) }); return nil }
func (c *pfConn) CloseChan() <-chan bool             { return c.closed }
func (c *pfConn) SetIdleTimeout(time.Duration)       {}
func (c *pfConn) RemoveStreams(...httpstream.Stream) {}

// pfStream is a data stream over a pipe, or (Conn nil) an empty error stream.
type pfStream struct {
	net.Conn
	h   http.Header
	msg io.Reader // an error stream's message
}

func (s *pfStream) Read(p []byte) (int, error) {
	if s.Conn == nil {
		return s.msg.Read(p)
	}
	return s.Conn.Read(p)
}
func (s *pfStream) Write(p []byte) (int, error) { return s.Conn.Write(p) }
func (s *pfStream) Close() error {
	if s.Conn == nil {
		return nil
	}
	return s.Conn.Close()
}
func (s *pfStream) Reset() error         { return s.Close() }
func (s *pfStream) Headers() http.Header { return s.h }
func (s *pfStream) Identifier() uint32   { return 0 }

// pfPod is a pod of app=web declaring port 8080 "http"; ready at readyAt
// seconds past an epoch.
func pfPod(name string, ready bool, readyAt int64) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name), Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Ports: []corev1.ContainerPort{
			{Name: "http", ContainerPort: 8080}, {Name: "metrics", ContainerPort: 9090}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status,
			LastTransitionTime: metav1.Unix(readyAt, 0)}}},
	}
}

func pfObjects() []runtime.Object {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	return []runtime.Object{
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "uid-deploy"},
			Spec: appsv1.DeploymentSpec{Selector: sel, Template: corev1.PodTemplateSpec{Spec: pfPod("t", true, 0).Spec}}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "uid-svc"},
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{
				{Name: "web", Port: 80, TargetPort: intstr.FromString("http")},
				{Name: "direct", Port: 81, TargetPort: intstr.FromInt32(9090)},
				{Name: "same", Port: 8080}}}},
		pfPod("web-1", true, 100),
	}
}

// forwardKinds is the kinds' plugins as the tests see them: pods,
// Services and the workloads have CanPortForward, any other kind nothing
// (kube.Client answers an unknown plugin id the same way). What the real
// plugins declare is tested in kube/kinds (TestCapabilities*).
func forwardKinds(kind vocab.Kind) vocab.KindInfo {
	switch kind {
	case vocab.KindPods, kindServices, vocab.KindDeployments, vocab.KindStatefulSets, vocab.KindDaemonSets, vocab.KindReplicaSets:
		return vocab.KindInfo{ID: kind, Resource: string(kind), Namespaced: true, Capabilities: vocab.CanPortForward}
	}
	return vocab.KindInfo{ID: kind}
}

// newForwarder is a Forwarder over cs with an empty registry, the guards
// of an interactive, writable session and no REST config (tests replace
// the dialer).
func newForwarder(cs *fake.Clientset) Forwarder {
	return Forwarder{CS: cs, KindInfo: forwardKinds, Guards: guards.New(cs, vocab.PolicyInteractive, false), Forwards: &Registry{}}
}

// pfClient is a Forwarder over a fake clientset whose port-forwards dial
// pfConns, reading pods every 10 ms; its forwards stop when t ends.
func pfClient(t *testing.T, objs ...runtime.Object) (Forwarder, *fake.Clientset, *[]string) {
	t.Helper()
	cs := fake.NewClientset(objs...)
	cs.PrependReactor("create", "selfsubjectaccessreviews", reviewtest.Allow)
	fw := newForwarder(cs)
	var mu sync.Mutex
	dialed := &[]string{}
	fw.Forwards.poll = 10 * time.Millisecond
	fw.Forwards.dial = func(_ context.Context, ns, pod string) (httpstream.Connection, error) {
		mu.Lock()
		*dialed = append(*dialed, pod)
		mu.Unlock()
		return newPFConn(pod), nil
	}
	t.Cleanup(fw.Forwards.StopAll)
	return fw, cs, dialed
}

// roundTrip connects to the local port, writes msg and reads the answer.
func roundTrip(t *testing.T, port int32, msg string) string {
	t.Helper()
	conn, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(int(port)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 256)
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return string(buf[:n])
}

// waitForward polls the forward id until ok holds (at most 10 s).
func waitForward(t *testing.T, fw Forwarder, id int, ok func(vocab.ForwardStatus) bool) vocab.ForwardStatus {
	t.Helper()
	var last vocab.ForwardStatus
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		for _, st := range fw.Forwards.List() {
			if st.ID == id {
				last = st
				if ok(st) {
					return st
				}
			}
		}
	}
	t.Fatalf("forward %d never got there; last %+v", id, last)
	return last
}

func TestPortForwardCarriesAndCounts(t *testing.T) {
	fw, _, _ := pfClient(t, pfObjects()...)
	st, err := fw.Start(context.Background(), vocab.PortForwardRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "web-1",
		UID: "uid-web-1", RemotePort: 8080})
	if err != nil {
		t.Fatal(err)
	}
	if st.State != vocab.ForwardActive || st.Pod != "web-1" || st.LocalPort == 0 {
		t.Fatalf("status %+v", st)
	}
	if got := roundTrip(t, st.LocalPort, "ping"); got != "web-1:8080:ping" {
		t.Fatalf("answer %q", got)
	}
	// The two directions are counted by two copies, each as its bytes pass:
	// the answer may be counted before the request is.
	st = waitForward(t, fw, st.ID, func(s vocab.ForwardStatus) bool {
		return s.BytesIn == int64(len("web-1:8080:ping")) && s.BytesOut == 4
	})
	if st.BytesOut != 4 || st.Connections != 1 {
		t.Fatalf("counters %+v", st)
	}
	roundTrip(t, st.LocalPort, "again")
	st = waitForward(t, fw, st.ID, func(s vocab.ForwardStatus) bool { return s.Connections == 2 && s.BytesOut == 9 })
}

func TestPortForwardServiceTargetPortByName(t *testing.T) {
	fw, _, _ := pfClient(t, pfObjects()...)
	for port, want := range map[int32]string{80: "web-1:8080:x", 81: "web-1:9090:x", 8080: "web-1:8080:x"} {
		st, err := fw.Start(context.Background(), vocab.PortForwardRequest{Kind: kindServices, Namespace: "ns", Name: "web",
			UID: "uid-svc", RemotePort: port})
		if err != nil {
			t.Fatal(err)
		}
		if got := roundTrip(t, st.LocalPort, "x"); got != want {
			t.Fatalf("Service port %d: %q, want %q", port, got, want)
		}
	}
	if _, err := fw.Start(context.Background(), vocab.PortForwardRequest{Kind: kindServices, Namespace: "ns", Name: "web",
		RemotePort: 82}); vocab.ReasonOf(err) != vocab.ReasonInvalid || !strings.Contains(err.Error(), "has no port 82") {
		t.Fatalf("an undeclared Service port: %v", err)
	}
}

// A forward to a Deployment moves when its pod is deleted: moving while
// no pod is ready, active on the new pod once one is; new connections
// reach it.
func TestPortForwardMovesToAnotherPod(t *testing.T) {
	fw, cs, dialed := pfClient(t, pfObjects()...)
	ctx := context.Background()
	st, err := fw.Start(ctx, vocab.PortForwardRequest{Kind: vocab.KindDeployments, Namespace: "ns", Name: "web", UID: "uid-deploy", RemotePort: 8080})
	if err != nil {
		t.Fatal(err)
	}
	if got := roundTrip(t, st.LocalPort, "a"); got != "web-1:8080:a" {
		t.Fatalf("answer %q", got)
	}
	if err := cs.CoreV1().Pods("ns").Delete(ctx, "web-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	moving := waitForward(t, fw, st.ID, func(s vocab.ForwardStatus) bool { return s.State == vocab.ForwardMoving })
	if moving.Pod != "" || !strings.Contains(moving.Err, "web-1 was deleted") {
		t.Fatalf("moving: %+v", moving)
	}
	if _, err := cs.CoreV1().Pods("ns").Create(ctx, pfPod("web-2", false, 0), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Pods("ns").Create(ctx, pfPod("web-3", true, 200), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	active := waitForward(t, fw, st.ID, func(s vocab.ForwardStatus) bool { return s.State == vocab.ForwardActive })
	if active.Pod != "web-3" || active.LocalPort != st.LocalPort {
		t.Fatalf("moved to %+v, want web-3 (the ready one) on the same local port", active)
	}
	if got := roundTrip(t, st.LocalPort, "b"); got != "web-3:8080:b" {
		t.Fatalf("after the move: %q", got)
	}
	if fmt.Sprint(*dialed) != "[web-1 web-3]" {
		t.Fatalf("dialed %v", *dialed)
	}
	// The Deployment deleted: the forward fails, naming why.
	if err := cs.AppsV1().Deployments("ns").Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().Pods("ns").Delete(ctx, "web-3", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	failed := waitForward(t, fw, st.ID, func(s vocab.ForwardStatus) bool { return s.State == vocab.ForwardFailed })
	if !strings.Contains(failed.Err, "deployments/web is gone") {
		t.Fatalf("failed: %+v", failed)
	}
}

// A lost connection is made again to the same pod.
func TestPortForwardRedialsLostConnection(t *testing.T) {
	fw, _, dialed := pfClient(t, pfObjects()...)
	st, err := fw.Start(context.Background(), vocab.PortForwardRequest{Kind: kindServices, Namespace: "ns", Name: "web", RemotePort: 80})
	if err != nil {
		t.Fatal(err)
	}
	f := fw.Forwards.items[st.ID]
	f.mu.Lock()
	first := f.conn
	f.mu.Unlock()
	first.Close()
	waitForward(t, fw, st.ID, func(vocab.ForwardStatus) bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.state == vocab.ForwardActive && f.conn != first
	})
	if got := roundTrip(t, st.LocalPort, "c"); got != "web-1:8080:c" {
		t.Fatalf("after the redial: %q (dialed %v)", got, *dialed)
	}
}

// A forward to a pod fails when the pod goes, and releases its port.
func TestPortForwardPodGoneFails(t *testing.T) {
	fw, cs, _ := pfClient(t, pfObjects()...)
	st, err := fw.Start(context.Background(), vocab.PortForwardRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "web-1", RemotePort: 8080})
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().Pods("ns").Delete(context.Background(), "web-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	failed := waitForward(t, fw, st.ID, func(s vocab.ForwardStatus) bool { return s.State == vocab.ForwardFailed })
	if !strings.Contains(failed.Err, "web-1 was deleted") {
		t.Fatalf("failed: %+v", failed)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(int(st.LocalPort)))
	if err != nil {
		t.Fatalf("the failed forward kept its port: %v", err)
	}
	ln.Close()
	if err := fw.Forwards.Stop(st.ID); err != nil {
		t.Fatal(err)
	}
	if len(fw.Forwards.List()) != 0 {
		t.Fatalf("stopped forward still listed: %+v", fw.Forwards.List())
	}
	if err := fw.Forwards.Stop(st.ID); !errors.Is(err, ErrForwardUnknown) {
		t.Fatalf("second stop: %v", err)
	}
}

func TestPortForwardGuards(t *testing.T) {
	ctx := context.Background()
	req := vocab.PortForwardRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "web-1", RemotePort: 8080}

	fw, cs, dialed := pfClient(t, pfObjects()...)
	cs.PrependReactor("create", "selfsubjectaccessreviews", reviewtest.Deny)
	_, err := fw.Start(ctx, req)
	if vocab.ReasonOf(err) != vocab.ReasonForbidden || !strings.Contains(err.Error(), "create pods/portforward in ns") {
		t.Fatalf("forbidden: %v", err)
	}
	if len(*dialed) != 0 || len(fw.Forwards.List()) != 0 {
		t.Fatal("a forbidden forward dialed")
	}

	fw, _, _ = pfClient(t, pfObjects()...)
	stale := req
	stale.UID = "uid-old"
	if _, err := fw.Start(ctx, stale); vocab.ReasonOf(err) != vocab.ReasonConflict {
		t.Fatalf("replaced pod: %v", err)
	}
	for _, bad := range []vocab.PortForwardRequest{
		{Kind: "configmaps", Namespace: "ns", Name: "x", RemotePort: 1},
		{Kind: vocab.KindPods, Namespace: "ns", Name: "web-1", RemotePort: 0},
		{Kind: vocab.KindPods, Namespace: "ns", Name: "web-1", RemotePort: 70000},
		{Kind: vocab.KindPods, Namespace: "ns", Name: "web-1", RemotePort: 80, LocalPort: -1},
		{Kind: vocab.KindPods, Name: "web-1", RemotePort: 80},
	} {
		if _, err := fw.Start(ctx, bad); vocab.ReasonOf(err) != vocab.ReasonInvalid {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	// Read-only mode allows a forward: it writes nothing.
	fw, cs, _ = pfClient(t, pfObjects()...)
	fw.Guards = guards.New(cs, vocab.PolicyInteractive, true)
	if _, err := fw.Start(ctx, req); err != nil {
		t.Fatalf("read-only: %v", err)
	}
	// The local port taken.
	st := fw.Forwards.List()[0]
	taken := req
	taken.LocalPort = st.LocalPort
	want := fmt.Sprintf("cannot listen on 127.0.0.1:%d: bind: address already in use", st.LocalPort)
	if _, err := fw.Start(ctx, taken); !errors.Is(err, ErrForwardListen) || err.Error() != want || vocab.ReasonOf(err) == vocab.ReasonInvalid {
		t.Fatalf("taken port: %v (%s); want %q, not an invalid request", err, vocab.ReasonOf(err), want)
	}
	// No ready pod.
	fw, cs, _ = pfClient(t, pfObjects()...)
	if err := cs.CoreV1().Pods("ns").Delete(ctx, "web-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Start(ctx, vocab.PortForwardRequest{Kind: vocab.KindDeployments, Namespace: "ns", Name: "web", RemotePort: 8080}); err == nil ||
		!strings.Contains(err.Error(), "has no ready pod") {
		t.Fatalf("no ready pod: %v", err)
	}
}

func TestPortForwardPorts(t *testing.T) {
	fw, _, _ := pfClient(t, pfObjects()...)
	ctx := context.Background()
	got, err := fw.Ports(ctx, kindServices, "ns", "web")
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, p := range got {
		labels = append(labels, p.Label())
	}
	if want := "[80/TCP web → http 81/TCP direct → 9090 8080/TCP same → 8080]"; fmt.Sprint(labels) != want {
		t.Fatalf("Service ports %v, want %s", labels, want)
	}
	got, err = fw.Ports(ctx, vocab.KindDeployments, "ns", "web")
	if err != nil || len(got) != 2 || got[0].Label() != "8080/TCP http (app)" {
		t.Fatalf("Deployment ports %+v %v", got, err)
	}
	if _, err := fw.Ports(ctx, vocab.KindPods, "ns", "nope"); vocab.ReasonOf(err) != vocab.ReasonNotFound {
		t.Fatalf("missing pod: %v", err)
	}
	if _, err := fw.Ports(ctx, "configmaps", "ns", "x"); vocab.ReasonOf(err) != vocab.ReasonInvalid {
		t.Fatalf("configmaps: %v", err)
	}
}

// BenchmarkPortForwardRoundTrip measures one local connection carried
// through a forward to a fake pod and back: accept, the error and data
// streams, 1000 bytes out and their echo in.
func BenchmarkPortForwardRoundTrip(b *testing.B) {
	cs := fake.NewClientset(pfObjects()...)
	cs.PrependReactor("create", "selfsubjectaccessreviews", reviewtest.Allow)
	fw := newForwarder(cs)
	defer fw.Forwards.StopAll()
	fw.Forwards.dial = func(_ context.Context, _, pod string) (httpstream.Connection, error) { return newPFConn(pod), nil }
	st, err := fw.Start(context.Background(), vocab.PortForwardRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "web-1", RemotePort: 8080})
	if err != nil {
		b.Fatal(err)
	}
	msg := strings.Repeat("x", 1000)
	want := len("web-1:8080:") + len(msg)
	b.SetBytes(int64(2 * len(msg)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		conn, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(int(st.LocalPort)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := conn.Write([]byte(msg)); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(conn, make([]byte, want)); err != nil {
			b.Fatal(err)
		}
		conn.Close()
	}
}

// TestPortForwardConnectionErrors: connections the pod's side refuses
// (kubelet: "no forward found for port 8080") are counted as failed with
// the last error, cause first, while the forward stays active on the same
// streaming connection; once the pod listens, the next connection works
// and the count and the last error stay.
func TestPortForwardConnectionErrors(t *testing.T) {
	fw, _, dialed := pfClient(t, pfObjects()...)
	var listening atomic.Bool
	const kubelet = `error forwarding port 8080 to pod web-1/ns, uid : no forward found for port 8080 in pod "ns/web-1"`
	var mu sync.Mutex
	fw.Forwards.dial = func(_ context.Context, ns, pod string) (httpstream.Connection, error) {
		mu.Lock()
		*dialed = append(*dialed, pod)
		mu.Unlock()
		conn := newPFConn(pod)
		conn.refuse = func() string {
			if listening.Load() {
				return ""
			}
			return kubelet
		}
		return conn, nil
	}
	st, err := fw.Start(context.Background(), vocab.PortForwardRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "web-1",
		UID: "uid-web-1", RemotePort: 8080})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		conn, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(int(st.LocalPort)))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = conn.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if n, err := conn.Read(make([]byte, 16)); err == nil {
			t.Fatalf("a refused connection answered %d bytes", n)
		}
		conn.Close()
	}
	st = waitForward(t, fw, st.ID, func(s vocab.ForwardStatus) bool { return s.Failed == 2 })
	if st.State != vocab.ForwardActive || !strings.HasPrefix(st.LastError, `no forward found for port 8080 in pod "ns/web-1"`) ||
		!strings.Contains(st.LastError, "error forwarding port 8080") {
		t.Fatalf("status %+v: want active with the last error, cause first", st)
	}
	mu.Lock()
	n := len(*dialed)
	mu.Unlock()
	if n != 1 {
		t.Fatalf("dialed %d times: a connection the pod refused must not make a new streaming connection", n)
	}
	listening.Store(true)
	if got := roundTrip(t, st.LocalPort, "ok"); got != "web-1:8080:ok" {
		t.Fatalf("answer %q", got)
	}
	st = waitForward(t, fw, st.ID, func(s vocab.ForwardStatus) bool { return s.Connections == 3 })
	if st.Failed != 2 || st.LastError == "" || st.State != vocab.ForwardActive {
		t.Fatalf("status %+v: the failures stay counted", st)
	}
}

// A forward to a Deployment whose pod is deleted on a real kubelet: the
// pod stays, terminating and still Ready, for its grace period. The
// forward leaves it at once, saying it was deleted (not "not ready"),
// and moves to the ReplicaSet's new pod; a forward to the pod itself
// fails, saying the same.
func TestPortForwardLeavesTerminatingPod(t *testing.T) {
	fw, cs, _ := pfClient(t, append(pfObjects(), pfPod("web-2", true, 200))...)
	ctx := context.Background()
	work, err := fw.Start(ctx, vocab.PortForwardRequest{Kind: vocab.KindDeployments, Namespace: "ns", Name: "web", UID: "uid-deploy", RemotePort: 8080})
	if err != nil {
		t.Fatal(err)
	}
	pod, err := fw.Start(ctx, vocab.PortForwardRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "web-1", RemotePort: 8080})
	if err != nil {
		t.Fatal(err)
	}
	if work.Pod != "web-1" {
		t.Fatalf("forwarding to %q, want web-1 (ready longest)", work.Pod)
	}
	p, err := cs.CoreV1().Pods("ns").Get(ctx, "web-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	p.DeletionTimestamp = &now
	if _, err := cs.CoreV1().Pods("ns").Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	var moving vocab.ForwardStatus
	active := waitForward(t, fw, work.ID, func(s vocab.ForwardStatus) bool {
		if s.State == vocab.ForwardMoving {
			moving = s
		}
		return s.State == vocab.ForwardActive && s.Pod == "web-2"
	})
	if moving.State != "" && !strings.Contains(moving.Err, "pod web-1 was deleted (terminating)") {
		t.Errorf("moving: %+v", moving)
	}
	if active.Moves != 1 || active.LastMove != "pod web-1 was deleted (terminating); now pod web-2" {
		t.Errorf("the move is not kept once active: %d, %q", active.Moves, active.LastMove)
	}
	if got := roundTrip(t, active.LocalPort, "d"); got != "web-2:8080:d" {
		t.Fatalf("after the move: %q", got)
	}
	failed := waitForward(t, fw, pod.ID, func(s vocab.ForwardStatus) bool { return s.State == vocab.ForwardFailed })
	if failed.Err != "pod web-1 was deleted (terminating)" {
		t.Errorf("the pod forward failed with %q", failed.Err)
	}
}
