package cluster

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/hack/cluster/internal/kwokconf"
)

// Fake node shape, as in kwok's documentation.
const (
	// NodeTaintKey is the taint every fake node carries (value "fake",
	// effect NoSchedule); workloads for them must tolerate it.
	NodeTaintKey = "kwok.x-k8s.io/node"
	// NodeTypeLabel is the label (value "kwok") that selects fake nodes.
	NodeTypeLabel = "type"
)

// NodeName returns the name of fake node i (from 0).
func NodeName(i int) string { return fmt.Sprintf("kwok-node-%d", i) }

// fakeNode is a node that kwok manages: tainted, labelled type=kwok, with 32
// CPUs, 256Gi of memory and room for 110 pods.
func fakeNode(name string) *corev1.Node {
	res := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Annotations: map[string]string{
				"node.alpha.kubernetes.io/ttl": "0",
				"kwok.x-k8s.io/node":           "fake",
				// metrics-server scrapes this path of the node's kubelet
				// endpoint (kwok's server) instead of /metrics/resource.
				"metrics.k8s.io/resource-metrics-path": strings.ReplaceAll(kwokconf.ResourceMetricsPath, "{nodeName}", name),
			},
			Labels: map[string]string{
				"beta.kubernetes.io/arch":       "amd64",
				"beta.kubernetes.io/os":         "linux",
				"kubernetes.io/arch":            "amd64",
				"kubernetes.io/hostname":        name,
				"kubernetes.io/os":              "linux",
				"kubernetes.io/role":            "agent",
				"node-role.kubernetes.io/agent": "",
				NodeTypeLabel:                   "kwok",
			},
		},
		Spec: corev1.NodeSpec{
			Taints: []corev1.Taint{{Key: NodeTaintKey, Value: "fake", Effect: corev1.TaintEffectNoSchedule}},
		},
		Status: corev1.NodeStatus{
			Allocatable: res,
			Capacity:    res,
			NodeInfo: corev1.NodeSystemInfo{
				Architecture:     "amd64",
				OperatingSystem:  "linux",
				KubeletVersion:   "fake",
				KubeProxyVersion: "fake",
			},
			Phase: corev1.NodeRunning,
		},
	}
}

// createNodes creates fake nodes 0..n-1 (a node that exists already is kept).
func (s *starter) createNodes(ctx context.Context, n int) error {
	for i := 0; i < n; i++ {
		_, err := s.client.CoreV1().Nodes().Create(ctx, fakeNode(NodeName(i)), metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create node %s: %w", NodeName(i), err)
		}
	}
	return nil
}

// waitClusterReady waits until n nodes are Ready and the default
// ServiceAccount exists (the ServiceAccount admission plugin rejects pods in a
// namespace until its default ServiceAccount exists).
func (s *starter) waitClusterReady(ctx context.Context, n int) error {
	start := time.Now()
	deadline := start.Add(clusterTimeout)
	nodesAt := time.Duration(0)
	for {
		var problem string
		nodes, err := s.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		switch {
		case err != nil:
			problem = err.Error()
		default:
			var notReady []string
			ready := 0
			for _, node := range nodes.Items {
				if nodeReady(&node) {
					ready++
				} else {
					notReady = append(notReady, node.Name)
				}
			}
			if ready < n {
				problem = fmt.Sprintf("%d of %d nodes Ready (not Ready: %s)", ready, n, strings.Join(notReady, ", "))
			}
		}
		if problem == "" && nodesAt == 0 {
			nodesAt = time.Since(start)
			fmt.Fprintf(s.c.Out, "up: %d node(s) Ready in %s\n", n, nodesAt.Round(10*time.Millisecond))
		}
		if problem == "" {
			if _, err := s.client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err != nil {
				problem = "ServiceAccount default/default: " + err.Error()
			}
		}
		if problem == "" {
			return nil
		}
		if time.Now().After(deadline) {
			name := "kwok"
			if strings.HasPrefix(problem, "ServiceAccount") {
				name = "kube-controller-manager"
			}
			return s.failure(name, fmt.Errorf("cluster not ready after %s: %s", clusterTimeout, problem))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
