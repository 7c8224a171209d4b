package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// fakeFleet is four contexts: eu and us hold pods in demo, ap forbids
// listing pods, hang never connects; fleets: prod is eu and us.
func fakeFleet(t *testing.T) fleetConnect { return fakeFleetIn(t, "") }

// fakeFleetIn is fakeFleet with -n namespace given.
func fakeFleetIn(t *testing.T, namespace string) fleetConnect {
	t.Helper()
	clusters := map[string]*fake.Clientset{
		"prod-eu": fake.NewClientset(pod("demo", "web-eu", nil), pod("demo", "db-eu", nil)),
		"prod-us": fake.NewClientset(pod("demo", "web-us", nil)),
		"prod-ap": fake.NewClientset(pod("demo", "web-ap", nil)),
	}
	clusters["prod-ap"].PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New(`User "viewer" cannot list resource "pods"`))
	})
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	return fleetConnect{
		known: func() ([]string, error) { return []string{"hang", "prod-ap", "prod-eu", "prod-us"}, nil },
		connect: func(name string) (*kube.Client, error) {
			cs, ok := clusters[name]
			if !ok {
				<-hang // a credential plugin that never answers
				return nil, errors.New("released")
			}
			c := kube.NewFromClientset(cs, kube.Options{Registry: kinds.Builtin(), NoCache: true, TablePlugin: kinds.NewTable})
			c.SetNamespace("default") // the contexts' own: -n demo reads demo
			return c, nil
		},
		namespace: func() string { return namespace },
		fleet: func(name string) ([]string, error) {
			if name == "prod" {
				return []string{"prod-eu", "prod-us"}, nil
			}
			return nil, errors.New(`unknown fleet "` + name + `"`)
		},
	}
}

func fleetGet(t *testing.T, fc fleetConnect, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := newGetCommand(func() (*kube.Client, func(), error) { return nil, nil, errors.New("not a fleet") }, fc)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}

// Every context chosen is read at once: the rows of those that answer
// under CONTEXT, in the order chosen; a forbidden one and one that hangs
// are named on stderr with their reasons, the hung one after
// --cluster-timeout, not holding the others; the exit is an error.
func TestFleetGetNeverWaitsForOneCluster(t *testing.T) {
	start := time.Now()
	out, errOut, err := fleetGet(t, fakeFleetIn(t, "demo"), "pods", "--contexts", "prod-us,prod-eu,prod-ap,hang", "--cluster-timeout", "300ms")
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("took %s", took)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "CONTEXT   NAME") || !strings.HasPrefix(lines[1], "prod-us   web-us") ||
		!strings.HasPrefix(lines[2], "prod-eu   db-eu") || !strings.HasPrefix(lines[3], "prod-eu   web-eu") {
		t.Fatalf("table:\n%s", out)
	}
	if !strings.Contains(errOut, "context prod-ap: forbidden: cannot read pods") || !strings.Contains(errOut, `cannot list resource "pods"`) ||
		!strings.Contains(errOut, "context hang: timeout: no answer within 300ms (--cluster-timeout)") {
		t.Fatalf("stderr:\n%s", errOut)
	}
	if err == nil || err.Error() != "2 contexts of 4 could not be read" {
		t.Fatalf("err %v", err)
	}
}

// -o json gives every row its context and every context its state; -A
// adds the namespace column; --fleet names the configuration file's set.
func TestFleetGetJSONAndFleet(t *testing.T) {
	out, _, err := fleetGet(t, fakeFleetIn(t, "demo"), "pods", "--fleet", "prod", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var doc fleetDocument
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(doc.Rows) != 3 || doc.Rows[0].Context != "prod-eu" || doc.Rows[2].Context != "prod-us" || doc.Rows[2].Name != "web-us" ||
		len(doc.Contexts) != 2 || doc.Contexts[1].State != "answered" || doc.Contexts[1].Rows != 1 || doc.Contexts[0].Namespace != "demo" {
		t.Fatalf("doc %+v", doc)
	}
	if doc.Columns[0].Name != "NAME" {
		t.Fatalf("columns %+v", doc.Columns)
	}
	out, _, err = fleetGet(t, fakeFleetIn(t, "demo"), "pods", "--contexts", "prod-ap,prod-eu", "-o", "json")
	if err == nil || !strings.Contains(out, `"state": "failed"`) || !strings.Contains(out, `"reason": "forbidden"`) {
		t.Fatalf("a failed context in JSON: %v\n%s", err, out)
	}
	// Without -n each context's own namespace is read (default: empty).
	out, errOut, err := fleetGet(t, fakeFleet(t), "pods", "--contexts", "prod-e*")
	if err != nil || out != "" || !strings.Contains(errOut, "No resources found") {
		t.Fatalf("the contexts' own namespace: %v %q %q", err, out, errOut)
	}
	out, _, err = fleetGet(t, fakeFleet(t), "pods", "--contexts", "prod-e*", "-A")
	if err != nil || !strings.HasPrefix(out, "CONTEXT   NAMESPACE   NAME") {
		t.Fatalf("-A: %v\n%s", err, out)
	}
}

// Bad choices are refused before any cluster is read, each with what the
// kubeconfig or the configuration file has.
func TestFleetGetBadChoices(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"--contexts qa", `unknown context "qa" (the kubeconfig has hang, prod-ap, prod-eu, prod-us)`},
		{"--contexts dev-*", `context pattern "dev-*" matches no context`},
		{"--fleet staging", `unknown fleet "staging"`},
		{"--fleet prod --contexts prod-eu", "--contexts and --fleet both choose the contexts"},
		{"--contexts prod-eu -o yaml", `unknown output format "yaml"`},
	} {
		_, _, err := fleetGet(t, fakeFleet(t), append([]string{"pods"}, strings.Fields(tc.args)...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.args, err, tc.want)
		}
	}
}
