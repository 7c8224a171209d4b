package kube_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// apiServer is a small fake API server: discovery for pods, secrets,
// events and deployments, and canned answers by path. Unknown paths are 404
// with a Status body, as the real one answers.
type apiServer struct {
	mu      sync.Mutex
	answers map[string]answer
	paths   []string // every path asked, in order
}

type answer struct {
	code int
	body any
	// arrived, when set, is closed as the request arrives; the answer then
	// waits for the request to be cancelled.
	arrived chan struct{}
}

func newAPIServer(t *testing.T) (*apiServer, *kube.Client) {
	t.Helper()
	s := &apiServer{answers: map[string]answer{
		"/api": {code: 200, body: map[string]any{"kind": "APIVersions", "versions": []string{"v1"}}},
		"/api/v1": {code: 200, body: map[string]any{"kind": "APIResourceList", "groupVersion": "v1", "resources": []map[string]any{
			{"name": "pods", "singularName": "pod", "namespaced": true, "kind": "Pod", "verbs": []string{"get", "list"}},
			{"name": "secrets", "singularName": "secret", "namespaced": true, "kind": "Secret", "verbs": []string{"get", "list"}},
			{"name": "events", "singularName": "event", "namespaced": true, "kind": "Event", "verbs": []string{"get", "list"}},
			{"name": "nodes", "singularName": "node", "namespaced": false, "kind": "Node", "verbs": []string{"get", "list"}},
		}}},
		"/apis": {code: 200, body: map[string]any{"kind": "APIGroupList", "groups": []map[string]any{{
			"name": "apps", "versions": []map[string]any{{"groupVersion": "apps/v1", "version": "v1"}},
			"preferredVersion": map[string]any{"groupVersion": "apps/v1", "version": "v1"},
		}}}},
		"/apis/apps/v1": {code: 200, body: map[string]any{"kind": "APIResourceList", "groupVersion": "apps/v1", "resources": []map[string]any{
			{"name": "deployments", "singularName": "deployment", "namespaced": true, "kind": "Deployment", "verbs": []string{"get", "list"}},
		}}},
		"/api/v1/namespaces/demo/events": {code: 200, body: map[string]any{"kind": "EventList", "apiVersion": "v1", "items": []any{}}},
	}}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	c, err := kube.NewFromConfig(&rest.Config{Host: srv.URL}, kube.Options{Registry: kinds.Builtin()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return s, c
}

func (s *apiServer) set(path string, code int, body any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answers[path] = answer{code: code, body: body}
}

func (s *apiServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	a, ok := s.answers[r.URL.Path]
	s.paths = append(s.paths, r.URL.Path)
	s.mu.Unlock()
	if !ok {
		a = answer{code: 404, body: status(404, "NotFound", "the server could not find the requested resource")}
	}
	if a.arrived != nil {
		close(a.arrived)
		<-r.Context().Done()
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.code)
	_ = json.NewEncoder(w).Encode(a.body)
}

func status(code int, reason, message string) map[string]any {
	return map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code, "reason": reason, "message": message}
}

func managedFields() []any {
	return []any{map[string]any{"manager": "kubectl-client-side-apply", "operation": "Update", "fieldsType": "FieldsV1",
		"fieldsV1": map[string]any{"f:spec": map[string]any{}}}}
}

func TestYAMLHidesManagedFieldsUnlessAsked(t *testing.T) {
	s, c := newAPIServer(t)
	s.set("/apis/apps/v1/namespaces/demo/deployments/web", 200, map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "demo", "managedFields": managedFields(),
			"annotations": map[string]any{"kubectl.kubernetes.io/last-applied-configuration": `{"kind":"Deployment"}`}},
		"spec": map[string]any{"replicas": 3},
	})
	for _, tc := range []struct {
		kind    kube.Kind
		managed bool
	}{{"deployments", false}, {"deploy", true}, {"deployments.apps", false}} {
		out, err := c.YAML(context.Background(), tc.kind, "demo", "web", kube.YAMLOptions{ManagedFields: tc.managed})
		if err != nil {
			t.Fatalf("%s: %v", tc.kind, err)
		}
		for _, want := range []string{"kind: Deployment", "replicas: 3", "name: web", "last-applied-configuration"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: YAML lacks %q:\n%s", tc.kind, want, out)
			}
		}
		if got := strings.Contains(out, "managedFields:"); got != tc.managed {
			t.Errorf("%s, ManagedFields %v: managedFields shown %v:\n%s", tc.kind, tc.managed, got, out)
		}
	}
}

func TestYAMLShowsSecretSizesNeverValues(t *testing.T) {
	s, c := newAPIServer(t)
	password := "hunter2-correct-horse"
	s.set("/api/v1/namespaces/demo/secrets/creds", 200, map[string]any{
		"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
		"metadata": map[string]any{"name": "creds", "namespace": "demo", "annotations": map[string]any{
			"kubectl.kubernetes.io/last-applied-configuration": `{"data":{"password":"` + password + `"}}`}},
		"data":       map[string]any{"password": base64.StdEncoding.EncodeToString([]byte(password)), "empty": ""},
		"stringData": map[string]any{"token": "abc"},
	})
	out, err := c.YAML(context.Background(), "secrets", "demo", "creds", kube.YAMLOptions{ManagedFields: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"password: <21 bytes>", "empty: <0 bytes>", "token: <3 bytes>", "kind: Secret", "type: Opaque"} {
		if !strings.Contains(out, want) {
			t.Errorf("YAML lacks %q:\n%s", want, out)
		}
	}
	for _, secret := range []string{password, base64.StdEncoding.EncodeToString([]byte(password)), "abc", "last-applied", "annotations"} {
		if strings.Contains(out, secret) {
			t.Errorf("YAML shows %q:\n%s", secret, out)
		}
	}
}

// TestYAMLEscapesControlCharacters: a value with terminal escapes is
// written with YAML's escapes, so no raw ESC leaves YAML.
func TestYAMLEscapesControlCharacters(t *testing.T) {
	s, c := newAPIServer(t)
	s.set("/api/v1/namespaces/demo/pods/evil", 200, map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "evil", "namespace": "demo", "annotations": map[string]any{"x": "\x1b]52;c;aGk=\x07\x1b[2J"}},
	})
	out, err := c.YAML(context.Background(), "pods", "demo", "evil", kube.YAMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Fatalf("raw control characters in YAML: %q", out)
	}
}

func TestObjectErrorsAreClassified(t *testing.T) {
	s, c := newAPIServer(t)
	s.set("/api/v1/namespaces/demo/pods/locked", 403, status(403, "Forbidden", `pods "locked" is forbidden: User "u" cannot get resource "pods"`))
	s.set("/api/v1/namespaces/demo/pods/flaky", 503, status(503, "ServiceUnavailable", "etcd is down"))
	s.set("/api/v1/nodes/locked", 403, status(403, "Forbidden", `nodes "locked" is forbidden`))
	ctx := context.Background()
	for _, tc := range []struct {
		kind       kube.Kind
		ns, name   string
		want       kube.Reason
		noDescribe bool
	}{
		{"pods", "demo", "locked", kube.ReasonForbidden, false},
		{"pods", "demo", "gone", kube.ReasonNotFound, false},
		{"pods", "demo", "flaky", kube.ReasonUnavailable, false},
		{"nodes", "ignored", "locked", kube.ReasonForbidden, false},
		{"widgets", "demo", "x", kube.ReasonNotFound, false},
		{"pods", "demo", "", kube.ReasonInvalid, false},
	} {
		_, err := c.YAML(ctx, tc.kind, tc.ns, tc.name, kube.YAMLOptions{})
		if got := kube.ReasonOf(err); got != tc.want {
			t.Errorf("YAML %s/%s/%s: reason %q (%v), want %q", tc.kind, tc.ns, tc.name, got, err, tc.want)
		}
		_, err = c.Describe(ctx, tc.kind, tc.ns, tc.name)
		if got := kube.ReasonOf(err); got != tc.want {
			t.Errorf("Describe %s/%s/%s: reason %q (%v), want %q", tc.kind, tc.ns, tc.name, got, err, tc.want)
		}
	}
}

func TestDescribeUsesKubectlDescriber(t *testing.T) {
	s, c := newAPIServer(t)
	s.set("/api/v1/namespaces/demo/pods/web-1", 200, map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "web-1", "namespace": "demo", "uid": "u1", "labels": map[string]any{"app": "web"}},
		"spec":     map[string]any{"nodeName": "node-1", "containers": []any{map[string]any{"name": "app", "image": "nginx:1.27"}}},
		"status": map[string]any{"phase": "Running", "podIP": "10.0.0.7", "containerStatuses": []any{map[string]any{
			"name": "app", "ready": false, "restartCount": 4,
			"state": map[string]any{"waiting": map[string]any{"reason": "CrashLoopBackOff"}}}}},
	})
	out, err := c.Describe(context.Background(), "po", "demo", "web-1")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Name:", "web-1", "Namespace:", "demo", "Node:", "node-1", "app=web", "nginx:1.27",
		"CrashLoopBackOff", "Restart Count:  4", "Events:"} {
		if !strings.Contains(out, want) {
			t.Errorf("describe lacks %q:\n%s", want, out)
		}
	}
}

func TestDescribeAndYAMLNeedARESTConfig(t *testing.T) {
	c, _ := kubetest.FakeClient(t)
	if _, err := c.Describe(context.Background(), "pods", "demo", "x"); err == nil || !strings.Contains(err.Error(), "no REST config") {
		t.Errorf("Describe on a clientset client: %v", err)
	}
	if _, err := c.YAML(context.Background(), "pods", "demo", "x", kube.YAMLOptions{}); err == nil || !strings.Contains(err.Error(), "no REST config") {
		t.Errorf("YAML on a clientset client: %v", err)
	}
}

// TestDescribeHonoursContext: kubectl's describers take no context, yet
// cancelling Describe's context ends a request the API server has not
// answered; a context cancelled before the call reads nothing.
func TestDescribeHonoursContext(t *testing.T) {
	s, c := newAPIServer(t)
	arrived := make(chan struct{})
	s.mu.Lock()
	s.answers["/api/v1/namespaces/demo/pods/stuck"] = answer{arrived: arrived}
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	_, err := c.Describe(ctx, "pods", "demo", "stuck")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Describe of an unanswered request after cancel: %v", err)
	}

	s.mu.Lock()
	before := len(s.paths)
	s.mu.Unlock()
	if _, err := c.Describe(ctx, "pods", "demo", "web-1"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Describe with a cancelled context: %v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.paths) != before {
		t.Fatalf("a cancelled Describe asked the server for %v", s.paths[before:])
	}
}
