package app

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// fakeInspect runs `inspect args...` in namespace demo over a fake
// clientset holding objs.
func fakeInspect(t *testing.T, cs *fake.Clientset, args ...string) (stdout string, err error) {
	t.Helper()
	connect := func() (*kube.Client, func(), error) {
		c := kube.NewFromClientset(cs, kube.Options{Registry: kinds.Builtin(), NoCache: true, TablePlugin: kinds.NewTable})
		c.SetNamespace("demo")
		return c, func() {}, nil
	}
	var out, errOut bytes.Buffer
	cmd := newInspectCommand(connect)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err = cmd.Execute()
	return out.String(), err
}

// TestInspectPrintsTheRolloutStateAsJSON: `kyyard inspect deploy/web`
// prints the Deployment's generations, replicas counts and the pods its
// selector selects as JSON, in two requests (a get and a list of pods);
// a workload that is gone prints missing and fails; a kind without a
// rollout and a malformed argument fail before any request; a forbidden
// read fails with its reason.
func TestInspectPrintsTheRolloutStateAsJSON(t *testing.T) {
	three := int32(3)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "demo", UID: "uid-web", Generation: 4, ResourceVersion: "9"},
		Spec:   appsv1.DeploymentSpec{Replicas: &three, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 4, ReadyReplicas: 2, UpdatedReplicas: 3, AvailableReplicas: 2}}
	cs := fake.NewClientset(d, pod("demo", "web-1", map[string]string{"app": "web"}), pod("demo", "db-0", map[string]string{"app": "db"}))
	out, err := fakeInspect(t, cs, "deploy/web")
	if err != nil {
		t.Fatal(err)
	}
	var got inspectJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if got.Kind != "deployments" || got.Namespace != "demo" || got.Name != "web" || got.Missing || got.UID != "uid-web" ||
		got.Generation != 4 || got.ObservedGeneration != 4 || got.Replicas != 3 || got.ReadyReplicas != 2 ||
		got.UpdatedReplicas != 3 || got.AvailableReplicas != 2 || len(got.Pods) != 1 || got.Pods[0].Name != "web-1" ||
		got.Pods[0].Ready != "1/1" || got.Pods[0].Status != "Running" {
		t.Errorf("inspect deploy/web:\n%s", out)
	}
	if n := len(cs.Actions()); n != 2 {
		t.Errorf("%d requests, want a get and a list: %v", n, cs.Actions())
	}

	out, err = fakeInspect(t, cs, "sts/gone")
	if err == nil || !strings.Contains(out, `"missing": true`) {
		t.Errorf("inspect of a missing workload: %v\n%s", err, out)
	}
	cs.ClearActions()
	for _, arg := range []string{"pods/web-1", "web", "deploy/"} {
		if _, err := fakeInspect(t, cs, arg); err == nil {
			t.Errorf("inspect %s did not fail", arg)
		}
	}
	if n := len(cs.Actions()); n != 0 {
		t.Errorf("refused arguments sent %v", cs.Actions())
	}
	cs.PrependReactor("get", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", nil)
	})
	if _, err := fakeInspect(t, cs, "deploy/web"); err == nil || !strings.Contains(err.Error(), "(forbidden)") {
		t.Errorf("a forbidden inspect: %v", err)
	}
}
