package kube_test

import (
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// pfEchoServer listens on 127.0.0.1 and answers every connection with what
// it reads, prefixed "echo:"; kwok's PortForward CRs send the forwarded
// streams to it. It returns the port.
func pfEchoServer(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					if n > 0 {
						c.Write(append([]byte("echo:"), buf[:n]...))
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

var (
	portForwardGVR        = schema.GroupVersionResource{Group: "kwok.x-k8s.io", Version: "v1alpha1", Resource: "portforwards"}
	clusterPortForwardGVR = schema.GroupVersionResource{Group: "kwok.x-k8s.io", Version: "v1alpha1", Resource: "clusterportforwards"}
)

// kwokForward makes kwok forward port of the pods it selects to target on
// 127.0.0.1: a PortForward named after pod, or (pod "") a
// ClusterPortForward matching every pod of ns, deleted after the test.
func kwokForward(t *testing.T, dyn dynamic.Interface, ns, pod string, port, target int) {
	t.Helper()
	spec := map[string]any{"forwards": []any{map[string]any{
		"ports":  []any{int64(port)},
		"target": map[string]any{"address": "127.0.0.1", "port": int64(target)},
	}}}
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kwok.x-k8s.io/v1alpha1", "spec": spec}}
	var res dynamic.ResourceInterface
	if pod != "" {
		obj.SetKind("PortForward")
		obj.SetName(pod)
		obj.SetNamespace(ns)
		res = dyn.Resource(portForwardGVR).Namespace(ns)
	} else {
		obj.SetKind("ClusterPortForward")
		obj.SetName(ns)
		spec["selector"] = map[string]any{"matchNamespaces": []any{ns}}
		res = dyn.Resource(clusterPortForwardGVR)
	}
	if _, err := res.Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = res.Delete(context.Background(), obj.GetName(), metav1.DeleteOptions{}) })
}

// pfExchange connects to the local port, writes msg and reads the answer
// (10 s at most).
func pfExchange(t *testing.T, port int32, msg string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(int(port)), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	want := len("echo:") + len(msg)
	buf := make([]byte, want)
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatalf("read the answer to %q: %v", msg, err)
	}
	return string(buf)
}

// pfPodSpec is kwokPodSpec with container port 8080 "http".
func pfPodSpec() corev1.PodSpec {
	spec := kwokPodSpec("registry.local/echo:1")
	spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}
	return spec
}

// pfReadyPod waits until a pod of ns matching sel is ready (60 s at most)
// and returns it.
func pfReadyPod(t *testing.T, cs kubernetes.Interface, ns, sel, not string) corev1.Pod {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		list, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range list.Items {
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && p.DeletionTimestamp == nil && p.Name != not {
					return p
				}
			}
		}
	}
	t.Fatalf("no ready pod of %s in %s", sel, ns)
	return corev1.Pod{}
}

// A forward to a pod carries bytes both ways, counted.
func TestE2EPortForwardPod(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := kubetest.TempNamespace(t, cs, "kpf")
	ctx := context.Background()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "echo", Namespace: ns, Labels: map[string]string{"app": "echo"}}, Spec: pfPodSpec()}
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kwokForward(t, dynamic.NewForConfigOrDie(cfg), ns, "echo", 8080, pfEchoServer(t))
	p := pfReadyPod(t, cs, ns, "app=echo", "")

	c := kubetest.Client(t, cfg)
	ports, err := c.PortForwardPorts(ctx, kube.KindPods, ns, "echo")
	if err != nil || len(ports) != 1 || ports[0].Port != 8080 || ports[0].Name != "http" {
		t.Fatalf("ports %+v %v", ports, err)
	}
	st, err := c.StartPortForward(ctx, kube.PortForwardRequest{Kind: kube.KindPods, Namespace: ns, Name: "echo", UID: string(p.UID), RemotePort: 8080})
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range []string{"ping", strings.Repeat("x", 3000)} {
		if got := pfExchange(t, st.LocalPort, msg); got != "echo:"+msg {
			t.Fatalf("answer %.40q", got)
		}
	}
	var last kube.ForwardStatus
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		last = c.PortForwards()[0]
		// Each direction is counted by its own copy as it completes:
		// wait for both.
		if last.BytesIn == int64(2*len("echo:")+3004) && last.BytesOut == 3004 {
			break
		}
	}
	if last.BytesOut != 3004 || last.BytesIn != 3014 || last.Connections != 2 || last.State != kube.ForwardActive || last.Pod != "echo" {
		t.Fatalf("status %+v", last)
	}
	if err := c.StopPortForward(st.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(int(st.LocalPort)), time.Second); err == nil {
		t.Fatal("the stopped forward still listens")
	}
}

// A forward to a Deployment moves to the new pod when its pod is deleted:
// the ReplicaSet makes another, kwok makes it ready, a new connection
// reaches it through the same local port.
func TestE2EPortForwardDeploymentMoves(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := kubetest.TempNamespace(t, cs, "kpf")
	ctx := context.Background()
	kwokForward(t, dynamic.NewForConfigOrDie(cfg), ns, "", 8080, pfEchoServer(t))
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr(int32(1)), Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: pfPodSpec()}}}
	d, err := cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first := pfReadyPod(t, cs, ns, "app=web", "")

	c := kubetest.Client(t, cfg)
	st, err := c.StartPortForward(ctx, kube.PortForwardRequest{Kind: kube.KindDeployments, Namespace: ns, Name: "web", UID: string(d.UID), RemotePort: 8080})
	if err != nil {
		t.Fatal(err)
	}
	if st.Pod != first.Name {
		t.Fatalf("forwarding to %q, want %q", st.Pod, first.Name)
	}
	if got := pfExchange(t, st.LocalPort, "before"); got != "echo:before" {
		t.Fatalf("answer %q", got)
	}
	if err := cs.CoreV1().Pods(ns).Delete(ctx, first.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	second := pfReadyPod(t, cs, ns, "app=web", first.Name)
	var last kube.ForwardStatus
	states := map[kube.ForwardState]bool{}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		last = c.PortForwards()[0]
		states[last.State] = true
		if last.State == kube.ForwardActive && last.Pod == second.Name {
			break
		}
	}
	if last.Pod != second.Name || last.State != kube.ForwardActive || last.LocalPort != st.LocalPort {
		t.Fatalf("after the delete: %+v (states seen %v)", last, states)
	}
	if got := pfExchange(t, st.LocalPort, "after"); got != "echo:after" {
		t.Fatalf("answer after the move %q", got)
	}
	t.Logf("moved from %s to %s; states seen %v", first.Name, second.Name, states)
}

// The read-only user may not port-forward in demo: refused before any
// dial, nothing listens.
func TestE2EPortForwardForbidden(t *testing.T) {
	c := kubetest.Client(t, kubetest.LocalReadOnly(t))
	_, err := c.StartPortForward(context.Background(), kube.PortForwardRequest{Kind: kube.KindPods, Namespace: kubetest.DemoNamespace,
		Name: "any", RemotePort: 8080})
	if kube.ReasonOf(err) != kube.ReasonForbidden || !strings.Contains(err.Error(), "create pods/portforward") {
		t.Fatalf("read-only user: %v", err)
	}
	if len(c.PortForwards()) != 0 {
		t.Fatal("a refused forward is listed")
	}
}
