package workload

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// auditPatches returns the patch and update requests of user agent agent
// the API server's audit log received since (dry runs included), waiting
// a moment for the log to be flushed.
func auditPatches(t *testing.T, agent string, since time.Time) []string {
	t.Helper()
	path := os.Getenv(kubetest.AuditLogEnv)
	if path == "" {
		t.Fatalf("%s is not set", kubetest.AuditLogEnv)
	}
	time.Sleep(time.Second) // a write would be logged by now
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if !strings.Contains(sc.Text(), agent) {
			continue
		}
		var ev struct {
			Verb      string    `json:"verb"`
			UserAgent string    `json:"userAgent"`
			Stage     string    `json:"stage"`
			Received  time.Time `json:"requestReceivedTimestamp"`
			URI       string    `json:"requestURI"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.UserAgent == agent && ev.Stage == "ResponseComplete" && !ev.Received.Before(since) && (ev.Verb == "patch" || ev.Verb == "update") {
			out = append(out, ev.Verb+" "+ev.URI)
		}
	}
	return out
}

// TestE2EFormTwoWritersNamesTheClash: two writers on the local cluster.
// The form reads deployments/web (env FOO=a0) and the person types "a";
// a second writer then sets FOO=b (kubectl set env), or only replicas 5.
// The form's next re-read says at once what the server changed against the
// person's fields; the preview refuses as a conflict in the same words,
// and so does its history entry; the audit log shows no write (nor dry
// run) of the form's user agent.
func TestE2EFormTwoWritersNamesTheClash(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writer func(t *testing.T, ns string)
		want   string
	}{
		{"the writer set FOO", func(t *testing.T, ns string) { setEnvFOO(t, ns, "b") },
			`container web env FOO: server now "b", yours "a"; nothing else the form shows changed`},
		{"the writer set replicas only", func(t *testing.T, ns string) { patchWeb(t, ns, `{"spec":{"replicas":5}}`) },
			`your fields are untouched: the server's change (replicas 2 → 5) does not touch them`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ref := newFormDeployment(t)
			patchWeb(t, ref.Namespace, `{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"FOO","value":"a0"}]}]}}}}`)
			agent := fmt.Sprintf("kyyard-form-conflict-%d", time.Now().UnixNano())
			cfg := rest.CopyConfig(kubetest.Local(t))
			cfg.UserAgent = agent
			client, err := kube.NewFromConfig(cfg, kube.Options{Registry: kinds.Builtin()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(client.Close)
			h := openAs(t, nil, client, ref, 120, 40)
			if h.m.mode != modeForm {
				t.Fatalf("the form did not open:\n%s", h.view())
			}
			h.focusOn(fkEnvValue, 0, 0)
			h.replace("a")
			tc.writer(t, ref.Namespace)
			since := time.Now()
			h.reread()
			if v := flat(h.view()); !strings.Contains(v, "changed since you read it") || !strings.Contains(v, tc.want) {
				t.Fatalf("the form does not say what the server changed (want %q):\n%s", tc.want, h.view())
			}
			h.press("ctrl+s")
			if v := flat(h.view()); !strings.Contains(v, tc.want) || !strings.Contains(v, "(conflict)") {
				t.Fatalf("the preview's refusal does not name the clash (want %q):\n%s", tc.want, h.view())
			}
			h.press("enter")
			if o := h.oneReported(); o.Reason != kube.ReasonConflict || o.Written || !strings.Contains(o.Detail, tc.want) {
				t.Fatalf("history %+v", o)
			}
			if ws := auditPatches(t, agent, since); len(ws) != 0 {
				t.Fatalf("the refused apply wrote: %v", ws)
			}
		})
	}
}

// setEnvFOO is the second writer: `kubectl set env deployment/web FOO=v`
// with the local cluster's kubectl when the tests have it, else the same
// strategic merge patch through the clientset.
func setEnvFOO(t *testing.T, ns, v string) {
	t.Helper()
	if kubectl, kubeconfig := os.Getenv(kubetest.KubectlEnv), os.Getenv(kubetest.KubeconfigEnv); kubectl != "" && kubeconfig != "" {
		if out, err := exec.Command(kubectl, "--kubeconfig", kubeconfig, "-n", ns, "set", "env", "deployment/web", "FOO="+v).CombinedOutput(); err != nil {
			t.Fatalf("kubectl set env: %v: %s", err, out)
		}
		return
	}
	patchWeb(t, ns, `{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"FOO","value":"`+v+`"}]}]}}}}`)
}

// patchWeb is a strategic merge patch of deployments/web by the local
// cluster's admin, another user agent than the form's.
func patchWeb(t *testing.T, ns, body string) {
	t.Helper()
	cs := kubernetes.NewForConfigOrDie(kubetest.Local(t))
	if _, err := cs.AppsV1().Deployments(ns).Patch(context.Background(), "web", types.StrategicMergePatchType, []byte(body), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}
