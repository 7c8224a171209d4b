package kube_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// setEnvFOO is the second writer: `kubectl set env deployment/web FOO=v`
// with the local cluster's kubectl when the tests have it, else the same
// strategic merge patch through the clientset.
func (e *editEnv) setEnvFOO(v string) {
	e.t.Helper()
	if kubectl, kubeconfig := os.Getenv(kubetest.KubectlEnv), os.Getenv(kubetest.KubeconfigEnv); kubectl != "" && kubeconfig != "" {
		out, err := exec.Command(kubectl, "--kubeconfig", kubeconfig, "-n", e.ns, "set", "env", "deployment/web", "-c", "app", "FOO="+v).CombinedOutput()
		if err != nil {
			e.t.Fatalf("kubectl set env: %v: %s", err, out)
		}
		return
	}
	e.patch(`{"spec":{"template":{"spec":{"containers":[{"name":"app","env":[{"name":"FOO","value":"` + v + `"}]}]}}}}`)
}

// patch is a strategic merge patch of deployments/web by the clientset
// (another writer than the env's client: its user agent is not the env's).
func (e *editEnv) patch(body string) {
	e.t.Helper()
	if _, err := e.cs.AppsV1().Deployments(e.ns).Patch(context.Background(), "web", types.StrategicMergePatchType, []byte(body), metav1.PatchOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// TestE2EConflictNamesTheClash: two writers on the local cluster. The form
// read env FOO=a0 and the person typed "a"; a second writer then set
// FOO=b (kubectl set env), or only replicas 5. The preview and the apply
// are refused as a conflict whose words name the clash with the server's
// value now and the person's (`FOO: server now "b", yours "a"`), or say
// the person's fields are untouched; the audit log shows no write of the
// refused apply (nor of its dry run). Read again and rebased (C21), the
// apply of the untouched case lands with both changes.
func TestE2EConflictNamesTheClash(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writer func(e *editEnv)
		want   string
	}{
		{"the writer set FOO", func(e *editEnv) { e.setEnvFOO("b") },
			`container app env FOO: server now "b", yours "a"; nothing else the form shows changed`},
		{"the writer set replicas only", func(e *editEnv) { e.patch(`{"spec":{"replicas":5}}`) },
			`your fields are untouched: the server's change (replicas 2 → 5) does not touch them`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEditEnv(t, kube.PolicyInteractive)
			e.patch(`{"spec":{"template":{"spec":{"containers":[{"name":"app","env":[{"name":"FOO","value":"a0"}]}]}}}}`)
			e.settle()
			before := e.read()
			after := before
			after.Containers = append([]kube.Container(nil), before.Containers...)
			app := &after.Containers[2]
			app.Env = append([]kube.EnvVar(nil), app.Env...)
			foo := -1
			for i, v := range app.Env {
				if v.Name == "FOO" {
					foo = i
				}
			}
			if app.Name != "app" || foo < 0 {
				t.Fatalf("container %s env %+v", app.Name, app.Env)
			}
			app.Env[foo].Value = "a"
			tc.writer(e)
			since := time.Now()
			p, err := e.c.DryRun(context.Background(), before, after)
			if err != nil {
				t.Fatal(err)
			}
			r := p.Verdicts.Refusal()
			if r == nil || r.Reason != kube.ReasonConflict || !strings.Contains(r.Detail, tc.want) {
				t.Fatalf("preview's refusal %+v\nwant %q", r, tc.want)
			}
			_, err = e.c.ApplyWorkload(context.Background(), before, after, confirmAll)
			if !errors.As(err, &r) || r.Reason != kube.ReasonConflict || !strings.Contains(r.Detail, tc.want) {
				t.Fatalf("apply: %v\nwant %q", err, tc.want)
			}
			time.Sleep(300 * time.Millisecond) // a write would be logged by now
			if ws := e.writes(since, 0); len(ws) != 0 {
				t.Fatalf("the refused preview and apply wrote %+v", ws)
			}
			fresh := e.read()
			merged, clashes := kube.Rebase(before, after, fresh)
			if tc.name == "the writer set FOO" {
				if len(clashes) != 1 || clashes[0].Before != "b" || clashes[0].After != "a" {
					t.Fatalf("rebase clashes %+v", clashes)
				}
				return
			}
			res := e.apply(fresh, merged)
			if c, _ := res.Workload.Container("app"); res.Workload.Replicas != 5 || c.Env[foo].Value != "a" {
				t.Fatalf("after the rebased apply: replicas %d env %+v (C21)", res.Workload.Replicas, c.Env)
			}
		})
	}
}
