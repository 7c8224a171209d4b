package ui_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// TestE2EReadOnlySessionWritesNothing runs a --readonly session that tries
// every write through its keys (restart, scale, delete, pause, resume,
// undo, and an edit in the form taken to its apply) on a Deployment of
// the test's own namespace, and reads the API server's audit log: no
// request of the session's user agent writes anything (access reviews
// and self reviews store nothing and are allowed; nothing else is).
func TestE2EReadOnlySessionWritesNothing(t *testing.T) {
	cfg := kubetest.Local(t)
	logPath := os.Getenv(kubetest.AuditLogEnv)
	if logPath == "" {
		t.Fatalf("%s is not set", kubetest.AuditLogEnv)
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := kubetest.TempNamespace(t, cs, "kyyard-ui-readonly")
	createDeployment(t, cs, ns, "web")

	agent := fmt.Sprintf("kyyard-readonly-%d", time.Now().UnixNano())
	rcfg := rest.CopyConfig(cfg)
	rcfg.UserAgent = agent
	client, err := kube.NewFromConfig(rcfg, kube.Options{Registry: kinds.Builtin(), ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	h := startWith(t, client, ns, 160, 40)
	deadline := time.Now().Add(90 * time.Second)
	h.showDeployments(deadline, "web")
	if !strings.Contains(h.m.View(), "mode: read-only") {
		t.Fatalf("the header does not name the mode:\n%s", h.m.View())
	}
	for _, k := range []string{"r", "s", "ctrl+d", "z", "Z", "B"} {
		h.drive(h.keys(k), deadline)
		if v := h.m.View(); !strings.Contains(v, "read-only") {
			t.Fatalf("%s in read-only mode says nothing:\n%s", k, v)
		}
	}
	h.drive(h.keys("e"), deadline)
	h.drive(h.keys("ctrl+u", "5", "ctrl+s"), deadline)
	if v := h.m.View(); !strings.Contains(v, "read_only") {
		t.Fatalf("the preview does not say the write is refused:\n%s", v)
	}
	h.drive(h.keys("enter"), deadline)
	if v := h.m.View(); !strings.Contains(v, "read_only") {
		t.Fatalf("enter on a refused preview:\n%s", v)
	}
	if d, err := cs.AppsV1().Deployments(ns).Get(t.Context(), "web", metav1.GetOptions{}); err != nil || *d.Spec.Replicas != 2 {
		t.Fatalf("the Deployment changed: %v", err)
	}

	time.Sleep(time.Second) // the audit log is written after the response
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	requests := 0
	for sc.Scan() {
		if !strings.Contains(sc.Text(), agent) {
			continue
		}
		var e struct {
			Verb      string `json:"verb"`
			UserAgent string `json:"userAgent"`
			URI       string `json:"requestURI"`
			ObjectRef *struct {
				Resource string `json:"resource"`
			} `json:"objectRef"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.UserAgent != agent {
			continue
		}
		requests++
		switch {
		case e.Verb == "get" || e.Verb == "list" || e.Verb == "watch":
		case e.Verb == "create" && e.ObjectRef != nil &&
			(e.ObjectRef.Resource == "selfsubjectaccessreviews" || e.ObjectRef.Resource == "selfsubjectreviews"):
		default:
			t.Errorf("the read-only session sent %s %s", e.Verb, e.URI)
		}
	}
	if requests == 0 {
		t.Fatal("no request of the session in the audit log: the oracle saw nothing")
	}
}
