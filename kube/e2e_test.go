package kube_test

// End-to-end tests against the local cluster of hack/cluster, seeded by its
// `seed` command. `make test` starts the cluster and sets KYYARD_E2E_*; run
// alone, these tests skip.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// compareWithServer takes a snapshot of one kind and the API server's Table
// of it back to back, and compares the named columns of every row. Pods
// move (kwok's stages, restarts), so a mismatch is retried a few times
// before it fails.
func compareWithServer(t *testing.T, c *kube.Client, kind kube.Kind, group, resource, ns string, columns []string) kube.Table {
	t.Helper()
	return kubetest.CompareWithServer(t, c, kubetest.Local(t), kind, group, "v1", resource, ns, columns, 5)
}

func TestE2EPodsMatchServerTable(t *testing.T) {
	c := kubetest.Client(t, kubetest.Local(t))
	table := compareWithServer(t, c, "pods", "", "pods", kubetest.DemoNamespace,
		[]string{"Name", "Ready", "Status", "Restarts", "IP", "Node", "Nominated Node", "Readiness Gates"})

	// The seeded demo must show each status kyyard has to get right.
	want := map[string]string{"web-": "Running", "crashy-": "CrashLoopBackOff", "badimage-": "ImagePullBackOff",
		"sidecar-demo": "Running", "multi": "Running", "migrate-": "Completed", "db-0": "Running"}
	for prefix, status := range want {
		found := false
		for _, r := range table.Rows {
			if strings.HasPrefix(r.Name, prefix) && r.Status == status {
				found = true
			}
		}
		if !found {
			t.Errorf("no demo pod %s* with STATUS %s", prefix, status)
		}
	}
	for _, r := range table.Rows {
		if r.Name == "sidecar-demo" && r.Cells[1].Text != "2/2" {
			t.Errorf("sidecar-demo READY %q, want 2/2 (native sidecar counts)", r.Cells[1].Text)
		}
	}
}

func TestE2EAllNamespacesPodsMatchServerTable(t *testing.T) {
	c := kubetest.Client(t, kubetest.Local(t))
	compareWithServer(t, c, "pods", "", "pods", "", []string{"Name", "Ready", "Status", "Restarts"})
}

func TestE2EDeploymentsNodesNamespacesMatchServerTable(t *testing.T) {
	c := kubetest.Client(t, kubetest.Local(t))
	compareWithServer(t, c, "deployments", "apps", "deployments", kubetest.DemoNamespace,
		[]string{"Name", "Ready", "Up-to-date", "Available", "Containers", "Images", "Selector"})
	compareWithServer(t, c, "nodes", "", "nodes", "", []string{"Name", "Status", "Roles", "Version", "Internal-IP", "External-IP"})
	compareWithServer(t, c, "namespaces", "", "namespaces", "", []string{"Name", "Status"})
}

func TestE2EFacts(t *testing.T) {
	c := kubetest.Client(t, kubetest.Local(t))
	f := c.Facts(context.Background())
	if f.ServerVersion != "v1.37.2" {
		t.Errorf("ServerVersion %q, want v1.37.2", f.ServerVersion)
	}
	if !strings.HasPrefix(f.Platform, "kwok ") || !strings.Contains(f.Platform, "/") {
		t.Errorf("Platform %q, want kwok <os>/<arch>", f.Platform)
	}
	if f.Nodes == kube.Unknown || f.Nodes == "0" {
		t.Errorf("Nodes %q", f.Nodes)
	}
	if f.User == kube.Unknown || f.User == "" {
		t.Errorf("User %q", f.User)
	}
}

// TestE2EReadOnlyUser: a ServiceAccount that may get and list in one
// namespace, and nothing cluster-wide (casebook C13's kind of user), sees its
// namespace's pods; namespaces and nodes are named as forbidden, not fatal.
func TestE2EReadOnlyUser(t *testing.T) {
	c := kubetest.Client(t, kubetest.LocalReadOnly(t))
	snap := c.Snapshot(context.Background(), kube.SnapshotRequest{
		Kinds: []kube.Kind{"pods", "deployments", "namespaces", "nodes"}, Namespace: kubetest.DemoNamespace})
	if pods, ok := snap.Table("pods"); !ok || len(pods.Rows) == 0 {
		t.Fatalf("the read-only user sees no pods: %+v", snap.Truncated)
	}
	if _, ok := snap.Table("deployments"); !ok {
		t.Fatalf("the read-only user cannot list deployments: %+v", snap.Truncated)
	}
	for _, kind := range []kube.Kind{"namespaces", "nodes"} {
		if tr, ok := snap.Truncation(kind); !ok || tr.Reason != kube.ReasonForbidden {
			t.Errorf("%s: truncation %+v, want forbidden", kind, tr)
		}
	}
	f := c.Facts(context.Background())
	if f.Nodes != kube.Unknown {
		t.Errorf("Nodes %q for a user who may not list nodes, want unknown", f.Nodes)
	}
	if f.User != "system:serviceaccount:demo:viewer" {
		t.Errorf("User %q", f.User)
	}
}

// auditEvent is the part of an audit.k8s.io/v1 Event the tests read.
type auditEvent struct {
	Verb       string    `json:"verb"`
	UserAgent  string    `json:"userAgent"`
	Stage      string    `json:"stage"`
	RequestURI string    `json:"requestURI"`
	Received   time.Time `json:"requestReceivedTimestamp"`
	ObjectRef  *struct {
		Resource  string `json:"resource"`
		Namespace string `json:"namespace"`
	} `json:"objectRef"`
}

// TestE2ESnapshotOnlyReads uses the API server's audit log as the oracle:
// snapshots and facts list, watch (informers; client-go's watch-list sync
// reads with a watch) and get, and the only things they create are
// SelfSubjectReviews and SelfSubjectAccessReviews (which store nothing).
func TestE2ESnapshotOnlyReads(t *testing.T) {
	cfg := kubetest.Local(t)
	logPath := os.Getenv(kubetest.AuditLogEnv)
	if logPath == "" {
		t.Fatalf("%s is not set", kubetest.AuditLogEnv)
	}
	agent := fmt.Sprintf("kyyard-e2e-%d", time.Now().UnixNano())
	cfg.UserAgent = agent
	c := kubetest.Client(t, cfg)
	c.Facts(context.Background())
	c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"pods", "deployments", "nodes", "namespaces"}, Namespace: kubetest.DemoNamespace})

	var events []auditEvent
	deadline := time.Now().Add(10 * time.Second)
	for {
		events = readAudit(t, logPath, agent)
		reads := map[string]bool{}
		for _, e := range events {
			if (e.Verb == "list" || e.Verb == "watch") && e.ObjectRef != nil {
				reads[e.ObjectRef.Resource] = true
			}
		}
		if (reads["pods"] && reads["deployments"] && reads["nodes"] && reads["namespaces"]) || time.Now().After(deadline) {
			for _, r := range []string{"pods", "deployments", "nodes", "namespaces"} {
				if !reads[r] {
					t.Errorf("the audit log has no list or watch of %s by %s (%d events)", r, agent, len(events))
				}
			}
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, e := range events {
		switch {
		case e.Verb == "list" || e.Verb == "get" || e.Verb == "watch":
		case e.Verb == "create" && e.ObjectRef != nil &&
			(e.ObjectRef.Resource == "selfsubjectreviews" || e.ObjectRef.Resource == "selfsubjectaccessreviews"):
		default:
			t.Errorf("a read issued %s %+v", e.Verb, e.ObjectRef)
		}
	}
}

func readAudit(t *testing.T, path, agent string) []auditEvent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []auditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if !strings.Contains(sc.Text(), agent) {
			continue
		}
		var e auditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit line: %v", err)
		}
		// A watch is logged when it starts (ResponseStarted) and again when
		// it ends; every other request once, when complete.
		if e.UserAgent == agent && (e.Stage == "ResponseComplete" || (e.Stage == "ResponseStarted" && e.Verb == "watch")) {
			out = append(out, e)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// readAuditAfter returns the agent's audit events received at or after since.
func readAuditAfter(t *testing.T, path, agent string, since time.Time) []auditEvent {
	t.Helper()
	var out []auditEvent
	for _, e := range readAudit(t, path, agent) {
		if !e.Received.Before(since) {
			out = append(out, e)
		}
	}
	return out
}
