// Package seed fills the local cluster with demo data in namespace demo:
// healthy and failing workloads (statuses simulated by kwok Stages), storage
// that really binds, configuration, pod logs and exec through the API server,
// a read-only ServiceAccount with its own kubeconfig, and pods whose
// emulated usage the metrics API reports. Seeding is
// idempotent (server-side apply) and waits until every object reached its
// expected state.
package seed

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/kyyard/kyyard/hack/cluster/internal/cluster"
	"github.com/kyyard/kyyard/hack/cluster/internal/components"
	"github.com/kyyard/kyyard/hack/cluster/internal/kubeconfig"
	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
)

// Options tune Run.
type Options struct {
	// Timeout bounds the wait for the objects to converge.
	Timeout time.Duration
	// Out receives progress messages.
	Out io.Writer
}

// Objects returns every demo object in apply order (namespace first, the
// fake nodes' pods, then the real node's); pvDir is the folder the hostPath
// PersistentVolumes name.
func Objects(pvDir string) []runtime.Object {
	objs := []runtime.Object{namespace()}
	objs = append(objs, tolerationPolicy()...)
	objs = append(objs, storage(pvDir)...)
	objs = append(objs, configAndServices()...)
	objs = append(objs, viewerObjects()...)
	objs = append(objs, workloads()...)
	return append(objs, RealNodeObjects(Namespace)...)
}

// metricsTimeout bounds the wait for the first metrics samples: a few
// metric resolutions (15 s each), with room for a loaded machine (a CI run
// saw the aggregator's TLS handshakes to a fleet member's metrics-server
// time out for over 90 s while the tests' packages were being built).
const metricsTimeout = 3 * time.Minute

// Run seeds the cluster described by l, writes the readonly kubeconfig and
// verifies its permissions, then waits for convergence and for the metrics
// API's first samples of every node and running demo pod.
func Run(ctx context.Context, l layout.Layout, opt Options) error {
	out := opt.Out
	if out == nil {
		out = io.Discard
	}
	start := time.Now()
	cs, cfg, err := cluster.AdminClient(l)
	if err != nil {
		return err
	}
	ap, err := newApplier(cfg)
	if err != nil {
		return err
	}
	objs := Objects(filepath.Join(l.Data, "pv"))
	// Pod logs and exec first, so they work from the pods' first moment.
	logs, err := writePodLogs(l.PodLogs, time.Now())
	if err != nil {
		return fmt.Errorf("pod logs: %w", err)
	}
	if err := ap.apply(ctx, objs[0]); err != nil {
		return err
	}
	if err := waitServiceAccount(ctx, cs, 30*time.Second); err != nil {
		return err
	}
	for _, o := range append([]runtime.Object{logs, clusterExec(l.ExecRoot)}, objs[1:]...) {
		if err := ap.apply(ctx, o); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "seed: applied %d objects in namespace %s (and cluster-scoped storage, ClusterLogs, ClusterExec) in %s\n",
		len(objs)+2, Namespace, time.Since(start).Round(10*time.Millisecond))
	fmt.Fprintf(out, "seed: pod logs in %s, exec working directory %s\n", l.PodLogs, l.ExecRoot)

	if err := writeReadonly(ctx, l, cs, out); err != nil {
		return err
	}
	if err := waitConverged(ctx, cs, opt.Timeout); err != nil {
		return err
	}
	fmt.Fprintf(out, "seed: all demo objects converged in %s\n", time.Since(start).Round(10*time.Millisecond))
	mc, err := metricsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := waitMetrics(ctx, cs, mc, metricsTimeout); err != nil {
		return err
	}
	fmt.Fprintf(out, "seed: metrics API reports every node and running demo pod; done in %s\n", time.Since(start).Round(10*time.Millisecond))
	return nil
}

// waitServiceAccount waits for Namespace's default ServiceAccount; the
// ServiceAccount admission plugin rejects pods until it exists.
func waitServiceAccount(ctx context.Context, cs kubernetes.Interface, timeout time.Duration) error {
	return waitNamespaceServiceAccount(ctx, cs, Namespace, timeout)
}

// waitNamespaceServiceAccount waits for namespace ns's default ServiceAccount.
func waitNamespaceServiceAccount(ctx context.Context, cs kubernetes.Interface, ns string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		_, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ServiceAccount %s/default not created after %s (kube-controller-manager): %w", ns, timeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// writeReadonly writes the viewer's kubeconfig (token auth, namespace demo) and
// checks its permissions against the API server.
func writeReadonly(ctx context.Context, l layout.Layout, cs kubernetes.Interface, out io.Writer) error {
	token, err := viewerToken(ctx, cs, 30*time.Second)
	if err != nil {
		return err
	}
	err = kubeconfig.WriteFile(l.ReadonlyKubeconfig(), kubeconfig.Config{
		Server:    components.DefaultPorts.ServerURL(),
		CAFile:    l.PKIPath("ca.crt"),
		User:      Namespace + "-" + ViewerServiceAccount,
		Token:     token,
		Namespace: Namespace,
	})
	if err != nil {
		return err
	}
	cfg, err := cluster.RESTConfig(l.ReadonlyKubeconfig())
	if err != nil {
		return err
	}
	viewer, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	lines, err := verifyViewer(ctx, viewer)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "seed: wrote %s (ServiceAccount %s/%s); verified:\n", l.ReadonlyKubeconfig(), Namespace, ViewerServiceAccount)
	for _, line := range lines {
		fmt.Fprintf(out, "seed:   %s\n", line)
	}
	return nil
}
