package drift_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views/drift"
)

var deployRef = kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: "demo", Name: "web"}

// web is Deployment web as one cluster has it: image, GREETING, a
// password from a Secret, replicas 2.
func web(image, greeting string) kube.Workload {
	return kube.Workload{Ref: deployRef, HasReplicas: true, Replicas: 2, HasPaused: true,
		Labels:      map[string]string{"app": "web"},
		Annotations: map[string]string{"deployment.kubernetes.io/revision": "3", "team": "shop"},
		Containers: []kube.Container{{Name: "web", Image: image, Args: []string{"--port", "8080"},
			Env: []kube.EnvVar{
				{Name: "GREETING", Source: kube.EnvLiteral, Value: greeting},
				{Name: "PASSWORD", Source: kube.EnvSecret, Ref: "db", Key: "password"},
			},
			Resources: kube.Resources{CPURequest: "100m", MemoryLimit: "128Mi"}}}}
}

func notFound() error {
	return apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web")
}

// rowOf returns the row of container/field, failing when there is none.
func rowOf(t *testing.T, rows []drift.Row, container, field string) drift.Row {
	t.Helper()
	for _, r := range rows {
		if r.Container == container && r.Field == field {
			return r
		}
	}
	t.Fatalf("no row %s %s in %v", container, field, rows)
	return drift.Row{}
}

func TestCompareMarksExactlyTheDifferences(t *testing.T) {
	b := web("nginx:1.27.4", "hallo")
	b.Labels["tier"] = "front"
	b.Annotations["deployment.kubernetes.io/revision"] = "9" // differs by nature: not compared
	rows := drift.Compare([]drift.Read{
		{Context: "eu", Workload: web("nginx:1.27.3", "hello")},
		{Context: "us", Workload: b},
		{Context: "ap", Err: notFound()},
	})
	var differ []string
	for _, r := range rows {
		if r.Differs {
			differ = append(differ, strings.TrimPrefix(r.Container+" "+r.Field, " "))
		}
	}
	if want := []string{"present", "web image", "web env GREETING", "label tier"}; !slices.Equal(differ, want) {
		t.Fatalf("fields that differ %v, want %v", differ, want)
	}
	if got := rowOf(t, rows, "", "present").Values; !slices.Equal(got, []string{"yes", "yes", "missing"}) {
		t.Errorf("present %v", got)
	}
	if got := rowOf(t, rows, "web", "image").Values; !slices.Equal(got, []string{"nginx:1.27.3", "nginx:1.27.4", drift.Absent}) {
		t.Errorf("image %v", got)
	}
	if got := rowOf(t, rows, "web", "env GREETING").Values; !slices.Equal(got, []string{"hello", "hallo", drift.Absent}) {
		t.Errorf("GREETING %v", got)
	}
	// A Secret reference by name and key only.
	if r := rowOf(t, rows, "web", "env PASSWORD"); r.Differs || r.Values[0] != "secret db/password" {
		t.Errorf("PASSWORD %+v", r)
	}
	if r := rowOf(t, rows, "web", "args"); r.Differs || r.Values[0] != "--port 8080" {
		t.Errorf("args %+v", r)
	}
	if r := rowOf(t, rows, "", "replicas"); r.Differs || r.Values[1] != "2" {
		t.Errorf("replicas %+v", r)
	}
	for _, r := range rows {
		if r.Field == "annotation deployment.kubernetes.io/revision" {
			t.Errorf("the revision annotation is compared: %+v", r)
		}
		if r.Field == "command" || r.Field == "cpu limit" {
			t.Errorf("a field no cluster sets has a row: %+v", r)
		}
	}
}

func TestCompareUnreadContextIsNotADifferenceOfEveryField(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", errors.New("no"))
	rows := drift.Compare([]drift.Read{{Context: "a", Workload: web("x:1", "hi")}, {Context: "b", Err: forbidden}, {Context: "c", Workload: web("x:1", "hi")}})
	for _, r := range rows {
		if r.Differs != (r.Field == "present") {
			t.Errorf("%s %s differs %v", r.Container, r.Field, r.Differs)
		}
	}
	if got := rowOf(t, rows, "", "present").Values[1]; got != "unread: forbidden" {
		t.Errorf("present %q", got)
	}
}

func TestCompareContainerOnlyInOneContext(t *testing.T) {
	b := web("x:1", "hi")
	b.Containers = append(b.Containers, kube.Container{Name: "sidecar", Image: "envoy:1"})
	rows := drift.Compare([]drift.Read{{Context: "a", Workload: web("x:1", "hi")}, {Context: "b", Workload: b}})
	if r := rowOf(t, rows, "sidecar", "image"); !r.Differs || r.Values[0] != drift.Absent || r.Values[1] != "envoy:1" {
		t.Errorf("sidecar image %+v", r)
	}
}

// Values that would not read back as themselves are quoted (a trailing
// space, an empty value, a control character), so that two that look
// alike on screen are told apart.
func TestCompareQuotesValuesThatDoNotReadBack(t *testing.T) {
	a, b := web("x:1", "hi "), web("x:1", "")
	c := web("x:1", "a\x1b[31mred")
	rows := drift.Compare([]drift.Read{{Context: "a", Workload: a}, {Context: "b", Workload: b}, {Context: "c", Workload: c}})
	got := rowOf(t, rows, "web", "env GREETING").Values
	if want := []string{`"hi "`, `""`, fmt.Sprintf("%q", "a\x1b[31mred")}; !slices.Equal(got, want) {
		t.Fatalf("GREETING %q, want %q", got, want)
	}
}

func TestCompareEveryContextMissing(t *testing.T) {
	rows := drift.Compare([]drift.Read{{Context: "a", Err: notFound()}, {Context: "b", Err: notFound()}})
	if len(rows) != 1 || rows[0].Field != "present" || !rows[0].Differs {
		t.Fatalf("rows %+v, want present only", rows)
	}
}
