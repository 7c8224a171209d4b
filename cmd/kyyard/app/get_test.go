package app

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// TestWriteTableLaysOutLikeKubectl: columns at least 6 wide, padded by 3,
// widths counted in display cells; ESC is escaped as kubectl escapes it
// (^[), other control characters never reach the terminal.
func TestWriteTableLaysOutLikeKubectl(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	table := kube.Table{
		Kind:    "widgets",
		Columns: []kube.Column{{Name: "NAME"}, {Name: "READY"}, {Name: "NODE", Wide: true}, {Name: "AGE"}},
		Rows: []kube.Row{
			{Namespace: "a", Name: "web-1", Cells: []kube.Cell{kube.Text("web-1"), kube.Text("1/1"), kube.Text("n1"), kube.Age(now.Add(-5 * time.Minute))}},
			{Namespace: "long-namespace", Name: "evil", Cells: []kube.Cell{kube.Text("evil\x1b]0;owned\x07"), kube.Text("0/1"), kube.Text("node-number-two"), kube.Age(now.Add(-49 * time.Hour))}},
		},
	}
	tests := []struct {
		name         string
		wide, withNS bool
		want         string
	}{
		{"table", false, false, "" +
			"NAME              READY   AGE\n" +
			"web-1             1/1     5m\n" +
			"evil^[]0;owned\uFFFD   0/1     2d1h\n"},
		{"wide", true, false, "" +
			"NAME              READY   NODE              AGE\n" +
			"web-1             1/1     n1                5m\n" +
			"evil^[]0;owned\uFFFD   0/1     node-number-two   2d1h\n"},
		{"all namespaces", false, true, "" +
			"NAMESPACE        NAME              READY   AGE\n" +
			"a                web-1             1/1     5m\n" +
			"long-namespace   evil^[]0;owned\uFFFD   0/1     2d1h\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		if err := writeTable(&out, table, tt.wide, tt.withNS, now); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, out.String(), tt.want)
		}
	}
}

func pod(ns, name string, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name), Labels: labels,
			CreationTimestamp: metav1.NewTime(time.Now().Add(-time.Hour))},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "c"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1",
			ContainerStatuses: []corev1.ContainerStatus{{Name: "c", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}},
	}
}

// fakeGet runs `get args...` over a fake clientset holding the demo pods,
// where deployments are forbidden and limitranges are a discovered kind (that
// the fake, having no REST client, cannot list).
func fakeGet(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cs := fake.NewClientset(
		pod("demo", "web-1", map[string]string{"app": "web"}),
		pod("demo", "db-0", map[string]string{"app": "db"}),
		pod("other", "x", nil),
	)
	cs.PrependReactor("list", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "", nil)
	})
	cs.Resources = []*metav1.APIResourceList{{GroupVersion: "v1", APIResources: []metav1.APIResource{
		{Name: "pods", SingularName: "pod", Kind: "Pod", Namespaced: true, Verbs: metav1.Verbs{"list"}},
		{Name: "limitranges", SingularName: "limitrange", Kind: "LimitRange", Namespaced: true, Verbs: metav1.Verbs{"list"}, ShortNames: []string{"limits"}},
	}}}
	connect := func() (*kube.Client, func(), error) {
		c := kube.NewFromClientset(cs, kube.Options{Registry: kinds.Builtin(), NoCache: true, TablePlugin: kinds.NewTable})
		c.SetNamespace("demo")
		return c, func() {}, nil
	}
	var out, errOut bytes.Buffer
	cmd := newGetCommand(connect, fleetConnect{})
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestGetPrintsTheNamespacesRows(t *testing.T) {
	out, _, err := fakeGet(t, "po")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "NAME READY STATUS RESTARTS AGE" ||
		!strings.HasPrefix(lines[1], "db-0 ") || !strings.HasPrefix(lines[2], "web-1 ") {
		t.Fatalf("get po:\n%s", out)
	}
	if got := strings.Fields(lines[2]); strings.Join(got[:4], " ") != "web-1 1/1 Running 0" {
		t.Errorf("web-1 row %q", lines[2])
	}

	out, _, err = fakeGet(t, "pods", "-A", "-o", "wide", "-l", "app")
	if err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "NAMESPACE ") || !strings.Contains(lines[0], "NOMINATED NODE") ||
		!strings.HasPrefix(lines[1], "demo ") || !strings.Contains(lines[1], "node-1") {
		t.Errorf("get pods -A -o wide -l app:\n%s", out)
	}

	out, errOut, err := fakeGet(t, "po", "-l", "app=none")
	if err != nil || out != "" || errOut != "No resources found in demo namespace.\n" {
		t.Errorf("an empty list: %q %q %v", out, errOut, err)
	}
}

func TestGetJSON(t *testing.T) {
	out, _, err := fakeGet(t, "po", "-o", "json", "-l", "app=web")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Kind      string
		Namespace string
		Columns   []struct {
			Name string
			Wide bool
		}
		Rows []struct {
			Namespace, Name, Status, Health string
			Cells                           []string
		}
		Truncated []struct{ Reason, Message string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if doc.Kind != "pods" || doc.Namespace != "demo" || len(doc.Rows) != 1 || doc.Truncated == nil || len(doc.Truncated) != 0 {
		t.Fatalf("document: %+v", doc)
	}
	r := doc.Rows[0]
	if r.Namespace != "demo" || r.Name != "web-1" || r.Status != "Running" || r.Health != "ok" ||
		len(r.Cells) != len(doc.Columns) || r.Cells[0] != "web-1" || r.Cells[4] != "60m" {
		t.Errorf("row %+v", r)
	}
	if !doc.Columns[5].Wide || doc.Columns[5].Name != "IP" || doc.Columns[0].Wide {
		t.Errorf("columns %+v", doc.Columns)
	}
	if !strings.Contains(out, `"<none>"`) {
		t.Errorf("JSON escapes <none>:\n%s", out)
	}
}

func TestGetErrors(t *testing.T) {
	tests := []struct {
		args    []string
		want    []string
		stdout  string // a prefix of stdout; "" means empty
		wantDoc bool
	}{
		{args: []string{"widgets"}, want: []string{`unknown kind "widgets"`, "pods", "deployments", "limitranges"}},
		{args: []string{"po", "-o", "yaml"}, want: []string{`unknown output format "yaml"`}},
		{args: []string{"deploy"}, want: []string{"cannot read deployments (forbidden)", "RBAC forbids it", "deployments.apps is forbidden"}},
		{args: []string{"deploy", "-o", "json"}, want: []string{"forbidden"}, wantDoc: true},
		{args: []string{"limits"}, want: []string{"cannot read limitranges", "no discovery REST client"}},
		{args: []string{}, want: []string{"accepts 1 arg"}},
	}
	for _, tt := range tests {
		out, _, err := fakeGet(t, tt.args...)
		if err == nil {
			t.Errorf("get %v succeeded:\n%s", tt.args, out)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("get %v: error %q lacks %q", tt.args, err, w)
			}
		}
		if tt.wantDoc {
			if !strings.Contains(out, `"reason": "forbidden"`) {
				t.Errorf("get %v: JSON lacks the truncation:\n%s", tt.args, out)
			}
		} else if out != "" {
			t.Errorf("get %v printed %q on stdout", tt.args, out)
		}
	}
}

func TestHelpDocumentsGet(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"get", "--help"}} {
		var out bytes.Buffer
		cmd := NewCommand(&out, &out)
		cmd.SetArgs(args)
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"get KIND", "-o", "-A", "--kubeconfig"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("kyyard %v lacks %q:\n%s", args, want, out.String())
			}
		}
	}
}

func TestDiscoverAtStart(t *testing.T) {
	cs := fake.NewClientset()
	cs.Resources = []*metav1.APIResourceList{{GroupVersion: "v1", APIResources: []metav1.APIResource{
		{Name: "limitranges", SingularName: "limitrange", Kind: "LimitRange", Namespaced: true, Verbs: metav1.Verbs{"list"}, ShortNames: []string{"limits"}},
	}}}
	c := kube.NewFromClientset(cs, kube.Options{Registry: kinds.Builtin(), TablePlugin: kinds.NewTable})
	defer c.Close()
	if err := discoverAtStart(c, "limits", false); err != nil {
		t.Errorf("-c cm: %v", err)
	}
	if err := discoverAtStart(c, "widgets", false); err == nil || !strings.Contains(err.Error(), `unknown kind "widgets"`) ||
		!strings.Contains(err.Error(), "limitranges") {
		t.Errorf("-c widgets: %v", err)
	}
	if err := discoverAtStart(c, "pods", true); err != nil {
		t.Errorf("-c pods: %v", err)
	}
}

// TestGetClusterScopedHasNoNamespace: a cluster-scoped kind's JSON names
// no namespace, whatever namespace the kubeconfig selects.
func TestGetClusterScopedHasNoNamespace(t *testing.T) {
	out, _, err := fakeGet(t, "nodes", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"namespace": ""`) {
		t.Fatalf("nodes as JSON:\n%s", out)
	}
}

// TestGetOnceSaysItDoesNotRetry: `get` reads once; the reason sentences it
// prints for an unreachable or slow server promise no retries.
func TestGetOnceSaysItDoesNotRetry(t *testing.T) {
	for _, r := range []kube.Reason{kube.ReasonUnavailable, kube.ReasonTimeout} {
		if s := r.Sentence(); strings.Contains(s, "retry") || s == "" {
			t.Errorf("%s: %q", r, s)
		}
	}
}

// TestGetTakesGroupQualifiedKinds: as kubectl, a built-in kind may be named
// with its group (and version); another group's name is no kind.
func TestGetTakesGroupQualifiedKinds(t *testing.T) {
	for _, kind := range []string{"deployments.apps", "Deployment.apps", "deployments.v1.apps"} {
		if _, _, err := fakeGet(t, kind); err == nil || !strings.Contains(err.Error(), "cannot read deployments (forbidden)") {
			t.Errorf("get %s: %v, want the deployments' forbidden", kind, err)
		}
	}
	out, _, err := fakeGet(t, "pods.v1.", "-o", "json")
	if err != nil || !strings.Contains(out, `"kind": "pods"`) || !strings.Contains(out, "web-1") {
		t.Errorf("get pods.v1. -o json: %v\n%s", err, out)
	}
	if _, _, err := fakeGet(t, "deployments.extensions"); err == nil || !strings.Contains(err.Error(), `unknown kind "deployments.extensions"`) {
		t.Errorf("get deployments.extensions: %v", err)
	}
}
