package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// fakeNode is a node kwok manages (the shape hack/cluster creates), marked
// as the scale run's.
func fakeNode(name string) *corev1.Node {
	res := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{"node.alpha.kubernetes.io/ttl": "0", "kwok.x-k8s.io/node": "fake"},
			Labels: map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
				"type": "kwok", scaleLabel: "true"},
		},
		// The second taint keeps the demo DaemonSet (which tolerates only
		// kwok's) off the scale nodes: the run adds pods nowhere else.
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{
			{Key: "kwok.x-k8s.io/node", Value: "fake", Effect: corev1.TaintEffectNoSchedule},
			{Key: scaleLabel, Value: "true", Effect: corev1.TaintEffectNoSchedule},
		}},
		Status: corev1.NodeStatus{Allocatable: res, Capacity: res, Phase: corev1.NodeRunning,
			NodeInfo: corev1.NodeSystemInfo{Architecture: "amd64", OperatingSystem: "linux", KubeletVersion: "fake"}},
	}
}

func scalePod(ns, name, node string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
			Labels: map[string]string{"app": "scale", scaleLabel: "true"}},
		Spec: corev1.PodSpec{
			NodeName: node, // bound directly: the run measures kyyard, not the scheduler
			Tolerations: []corev1.Toleration{
				{Key: "kwok.x-k8s.io/node", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
				{Key: scaleLabel, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
			},
			Containers: []corev1.Container{{Name: "app", Image: "registry.invalid/scale:1",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")}}}},
		},
	}
}

// seed creates the nodes, namespaces and pods, then (unless noWait) waits
// until kwok has made every pod Running, saying how long each step took.
// With noWait it returns once the pods are created, most of them still
// being started by kwok (the start-while-churning run: measure
// --interleave right after).
func seed(ctx context.Context, cs kubernetes.Interface, say func(format string, a ...any), pods, namespaces, nodes int, noWait bool) error {
	start := time.Now()
	for i := range nodes {
		name := fmt.Sprintf("kyyard-scale-node-%d", i)
		if _, err := cs.CoreV1().Nodes().Create(ctx, fakeNode(name), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create node %s: %w", name, err)
		}
	}
	for i := range namespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("scale-%d", i), Labels: map[string]string{scaleLabel: "true"}}}
		if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create namespace: %w", err)
		}
	}
	say("seed: %d nodes and %d namespaces in %s\n", nodes, namespaces, time.Since(start).Round(time.Millisecond))

	created := time.Now()
	work := make(chan int)
	var failed atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				ns := fmt.Sprintf("scale-%d", i%namespaces)
				p := scalePod(ns, fmt.Sprintf("scale-pod-%05d", i), fmt.Sprintf("kyyard-scale-node-%d", i%nodes))
				if err := createPod(ctx, cs, p); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
				}
			}
		}()
	}
	for i := range pods {
		work <- i
	}
	close(work)
	wg.Wait()
	if n := failed.Load(); n > 0 {
		return fmt.Errorf("%d pod creates failed, first: %v", n, firstErr.Load())
	}
	say("seed: %d pods created in %s\n", pods, time.Since(created).Round(time.Millisecond))
	if noWait {
		return nil
	}

	var said time.Time
	for {
		running := 0
		cont := ""
		for {
			list, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{LabelSelector: scaleLabel + "=true", Limit: 2000, Continue: cont})
			if err != nil && time.Since(created) < 30*time.Minute {
				// The API server may be restarting (a shared fleet): ask again.
				say("seed: %v; again in 5s\n", err)
				time.Sleep(5 * time.Second)
				running, cont = 0, ""
				continue
			}
			if err != nil {
				return err
			}
			for _, p := range list.Items {
				if p.Status.Phase == corev1.PodRunning {
					running++
				}
			}
			if cont = list.Continue; cont == "" {
				break
			}
		}
		if running >= pods || time.Since(said) >= 30*time.Second {
			say("seed: %d/%d Running after %s\n", running, pods, time.Since(created).Round(time.Second))
			said = time.Now()
		}
		if running >= pods {
			return nil
		}
		if time.Since(created) > 30*time.Minute {
			return fmt.Errorf("only %d of %d pods Running after 30 minutes", running, pods)
		}
		time.Sleep(5 * time.Second)
	}
}

// createPod creates p, asking again for up to a minute while the API
// server does not answer (it may be restarting: the fleet is shared); one
// already there counts as created.
func createPod(ctx context.Context, cs kubernetes.Interface, p *corev1.Pod) error {
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := cs.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
		if err == nil || apierrors.IsAlreadyExists(err) {
			return nil
		}
		if apierrors.IsInvalid(err) || apierrors.IsForbidden(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(time.Second)
	}
}

// clean deletes what seed created: the scale namespaces (their pods go
// with them) and the scale nodes.
func clean(ctx context.Context, cs kubernetes.Interface, say func(format string, a ...any)) error {
	sel := metav1.ListOptions{LabelSelector: scaleLabel + "=true"}
	nss, err := cs.CoreV1().Namespaces().List(ctx, sel)
	if err != nil {
		return err
	}
	zero := int64(0)
	for _, ns := range nss.Items {
		// Pods on fake nodes need a forced delete: no kubelet confirms.
		if err := cs.CoreV1().Pods(ns.Name).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{}); err != nil {
			return err
		}
		if err := cs.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	if err := cs.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, sel); err != nil {
		return err
	}
	say("clean: deleted %d namespaces and the scale nodes\n", len(nss.Items))
	return nil
}
