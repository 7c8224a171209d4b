package seed

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/kyyard/kyyard/hack/cluster/internal/cluster"
	"github.com/kyyard/kyyard/hack/cluster/internal/fleet"
	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
)

// FleetReplicas is the replica count of every fleet member's Deployment.
const FleetReplicas = 2

// FleetAPIImage is the image of Deployment api (kyyard-fleet-3 only).
const FleetAPIImage = "ghcr.io/kyyard/demo-api:2.1.0"

// FleetDemo is where the demo of the fleet's members differs on purpose, so
// that a view across clusters has differences to show: an image, an env
// value, a Deployment only one member has, a read-only user that may not
// list pods on one member.
type FleetDemo struct {
	// WebImage is Deployment web's image; empty: the member has no web.
	WebImage string
	// APIImage is Deployment api's image; empty: the member has no api.
	APIImage string
	// Greeting is the env GREETING of the member's Deployments.
	Greeting string
	// ViewerReadsPods says whether the read-only user's Role grants pods.
	ViewerReadsPods bool
}

// FleetDemoOf returns member i's demo (from 1): kyyard-fleet-1 has web on
// nginx:1.27.3 with GREETING=hello; kyyard-fleet-2 the same web on
// nginx:1.27.4 with GREETING=hallo; kyyard-fleet-3 no web but api (GREETING=bonjour), and its
// read-only user may not list pods. Members beyond 3 have kyyard-fleet-1's.
func FleetDemoOf(i int) FleetDemo {
	switch i {
	case 2:
		return FleetDemo{WebImage: "nginx:1.27.4", Greeting: "hallo", ViewerReadsPods: true}
	case 3:
		return FleetDemo{APIImage: FleetAPIImage, Greeting: "bonjour", ViewerReadsPods: false}
	}
	return FleetDemo{WebImage: "nginx:1.27.3", Greeting: "hello", ViewerReadsPods: true}
}

// FleetObjects returns member i's demo objects in apply order: namespace
// demo first, the fake nodes' toleration policy, the read-only
// ServiceAccount with its Role (the single cluster's rules, without pods
// when the member's viewer may not read them), RoleBinding and token
// Secret, then the member's Deployments (FleetReplicas each, on the fake
// nodes).
func FleetObjects(i int) []runtime.Object {
	d := FleetDemoOf(i)
	objs := []runtime.Object{namespace()}
	objs = append(objs, tolerationPolicy()...)
	rules := viewerRules
	if !d.ViewerReadsPods {
		rules = withoutResource(viewerRules, "", "pods")
	}
	objs = append(objs, viewerObjectsWith(rules)...)
	if d.WebImage != "" {
		objs = append(objs, fleetDeployment("web", d.WebImage, d.Greeting))
	}
	if d.APIImage != "" {
		objs = append(objs, fleetDeployment("api", d.APIImage, d.Greeting))
	}
	return objs
}

// fleetDeployment is a Deployment of FleetReplicas pods on the fake nodes:
// one container serving http on 8080, env GREETING.
func fleetDeployment(name, image, greeting string) runtime.Object {
	c := container(name, image, "100m", "128Mi")
	c.Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
	c.Env = []corev1.EnvVar{{Name: "GREETING", Value: greeting}}
	return deployment(name, FleetReplicas, appLabels(name), appLabels(name), podSpec(c))
}

// withoutResource returns rules without resource in API group group (a
// rule left with no resource is dropped); rules is not changed.
func withoutResource(rules []rbacv1.PolicyRule, group, resource string) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, r := range rules {
		r = *r.DeepCopy()
		if len(r.APIGroups) == 1 && r.APIGroups[0] == group {
			var keep []string
			for _, res := range r.Resources {
				if res != resource {
					keep = append(keep, res)
				}
			}
			r.Resources = keep
		}
		if len(r.Resources) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// fleetChecks are member i's expected states: its Deployments available.
func fleetChecks(i int) []check {
	d := FleetDemoOf(i)
	var cs []check
	for _, w := range []struct{ name, image string }{{"web", d.WebImage}, {"api", d.APIImage}} {
		if w.image != "" {
			cs = append(cs, check{fmt.Sprintf("Deployment %s available", w.name), deploymentAvailable(w.name, FleetReplicas)})
		}
	}
	return cs
}

// RunFleet seeds every member (FleetObjects, server-side apply as Run
// does), keeps each member's read-only token beside it (fleet.Member's
// TokenPath), waits for each member's Deployments, writes the fleet
// kubeconfig with the -viewer contexts and checks each read-only user's
// permissions through it; then, as Run does, it waits until each member's
// metrics API (its own metrics-server) reports every node and running demo
// pod, so `kubectl top` answers with values on every member.
func RunFleet(ctx context.Context, l layout.Layout, members []fleet.Member, opt Options) error {
	out := opt.Out
	if out == nil {
		out = io.Discard
	}
	start := time.Now()
	logsFrom := start.Truncate(time.Second).Add(-2 * time.Minute)
	for _, m := range members {
		if err := seedMember(ctx, m, logsFrom, opt.Timeout, out); err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
	}
	if err := fleet.WriteKubeconfig(l, members); err != nil {
		return fmt.Errorf("fleet kubeconfig: %w", err)
	}
	for _, m := range members {
		ctxName := fleet.ViewerContext(m.Index)
		cfg, err := cluster.RESTConfigContext(l.FleetKubeconfig(), ctxName)
		if err != nil {
			return err
		}
		viewer, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return err
		}
		lines, err := verifyViewerReadsPods(ctx, viewer, FleetDemoOf(m.Index).ViewerReadsPods)
		if err != nil {
			return fmt.Errorf("context %s: %w", ctxName, err)
		}
		fmt.Fprintf(out, "fleet seed: context %s verified:\n", ctxName)
		for _, line := range lines {
			fmt.Fprintf(out, "fleet seed:   %s\n", line)
		}
	}
	for _, m := range members {
		if err := waitMemberMetrics(ctx, m); err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
		fmt.Fprintf(out, "fleet seed: %s: metrics API reports every node and running demo pod (%s after start)\n",
			m.Name, time.Since(start).Round(10*time.Millisecond))
	}
	fmt.Fprintf(out, "fleet seed: %d cluster(s) seeded in %s; kubeconfig %s\n", len(members), time.Since(start).Round(10*time.Millisecond), l.FleetKubeconfig())
	return nil
}

// waitMemberMetrics waits until member m's metrics API has samples of its
// nodes and Running, ready demo pods (waitMetrics, within metricsTimeout).
// The members' metrics-servers scrape side by side, so waiting for one
// after another costs about one wait.
func waitMemberMetrics(ctx context.Context, m fleet.Member) error {
	cs, cfg, err := cluster.AdminClient(m.L)
	if err != nil {
		return err
	}
	mc, err := metricsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	return waitMetrics(ctx, cs, mc, metricsTimeout)
}

// seedMember applies member m's objects and its container logs (FleetLogLines
// from logsFrom), writes its read-only token and waits for its Deployments.
func seedMember(ctx context.Context, m fleet.Member, logsFrom time.Time, timeout time.Duration, out io.Writer) error {
	start := time.Now()
	cs, cfg, err := cluster.AdminClient(m.L)
	if err != nil {
		return err
	}
	ap, err := newApplier(cfg)
	if err != nil {
		return err
	}
	objs := FleetObjects(m.Index)
	if err := ap.apply(ctx, objs[0]); err != nil {
		return err
	}
	if err := waitServiceAccount(ctx, cs, 30*time.Second); err != nil {
		return err
	}
	logs, err := writeFleetLogs(m, logsFrom)
	if err != nil {
		return err
	}
	for _, o := range append(objs[1:], logs) {
		if err := ap.apply(ctx, o); err != nil {
			return err
		}
	}
	token, err := viewerToken(ctx, cs, 30*time.Second)
	if err != nil {
		return err
	}
	if err := os.WriteFile(m.TokenPath(), []byte(token+"\n"), 0o600); err != nil {
		return err
	}
	if err := waitChecks(ctx, cs, fleetChecks(m.Index), timeout); err != nil {
		return err
	}
	d := FleetDemoOf(m.Index)
	fmt.Fprintf(out, "fleet seed: %s: %d objects applied and converged in %s (web %q, api %q, GREETING=%s, viewer lists pods: %t)\n",
		m.Name, len(objs), time.Since(start).Round(10*time.Millisecond), d.WebImage, d.APIImage, d.Greeting, d.ViewerReadsPods)
	return nil
}

// FleetLogLines are the container log lines of every demo pod of member i
// (kwok serves them, followed): line k is written at from + k s + i×100 ms,
// so that the lines of several members merged in timestamp order
// alternate, member by member ("kyyard-fleet-1 line 0", "kyyard-fleet-2
// line 0", ..., "kyyard-fleet-1 line 1", ...).
func FleetLogLines(i int, from time.Time) []LogLine {
	out := make([]LogLine, 20)
	for k := range out {
		out[k] = LogLine{Time: from.Add(time.Duration(k)*time.Second + time.Duration(i)*100*time.Millisecond),
			Stream: "stdout", Text: fmt.Sprintf("%s line %d", fleet.Name(i), k)}
	}
	return out
}

// writeFleetLogs writes member m's log file (FleetLogLines) and returns
// the ClusterLogs that points kwok at it for every container of the demo
// namespace.
func writeFleetLogs(m fleet.Member, from time.Time) (runtime.Object, error) {
	if err := os.MkdirAll(m.L.PodLogs, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(m.L.PodLogs, "fleet.log")
	if err := writeLines(path, FleetLogLines(m.Index, from)); err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kwok.x-k8s.io/v1alpha1",
		"kind":       "ClusterLogs",
		"metadata":   map[string]any{"name": "kyyard-fleet-logs"},
		"spec": map[string]any{
			"selector": map[string]any{"matchNamespaces": []any{Namespace}},
			"logs":     []any{map[string]any{"logsFile": path, "follow": true}},
		},
	}}, nil
}
