package helm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/release/common"
	rspb "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/storage/driver"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/kube/internal/helm"
	"github.com/kyyard/kyyard/kube/vocab"
)

const manifest1 = `---
# Source: greeter/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: greeter-secret
stringData:
  password: s3cret-one
data:
  token: dG9rZW4=
---
# Source: greeter/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: greeter-config
data:
  message: hello
---
apiVersion: v1
kind: Service
metadata:
  name: old-only
`

const manifest2 = `---
# Source: greeter/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: greeter-secret
stringData:
  password: s3cret-two
data:
  token: dG9rZW4=
---
# Source: greeter/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: greeter-config
data:
  message: hello again
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: greeter
  namespace: demo
`

// record stores a release revision as Helm's secret driver stores it.
func record(t *testing.T, cs *fake.Clientset, ns, name string, version int, status common.Status, chartVersion, manifest string, values map[string]any) {
	t.Helper()
	rel := &rspb.Release{
		Name: name, Namespace: ns, Version: version, Manifest: manifest, Config: values,
		Info:  &rspb.Info{Status: status, Description: fmt.Sprintf("revision %d", version), LastDeployed: time.Date(2026, 12, 1, 10, version, 0, 0, time.UTC)},
		Chart: &chart.Chart{Metadata: &chart.Metadata{Name: "greeter", Version: chartVersion, AppVersion: "1." + chartVersion[2:3], APIVersion: "v2"}, Values: map[string]any{"replicas": 1, "message": "default"}},
	}
	d := driver.NewSecrets(cs.CoreV1().Secrets(ns))
	if err := d.Create(fmt.Sprintf("sh.helm.release.v1.%s.v%d", name, version), rel); err != nil {
		t.Fatal(err)
	}
}

func seeded(t *testing.T) *fake.Clientset {
	cs := fake.NewClientset()
	record(t, cs, "demo", "greeter", 1, common.StatusSuperseded, "0.1.0", manifest1, map[string]any{"message": "hello"})
	record(t, cs, "demo", "greeter", 2, common.StatusDeployed, "0.2.0", manifest2, map[string]any{"message": "hello again", "replicas": 2})
	record(t, cs, "other", "db", 1, common.StatusFailed, "0.1.0", "", nil)
	return cs
}

// Releases lists each release's latest revision once, by namespace, and
// decodes only that one record (the list is one request).
func TestReleases(t *testing.T) {
	cs := seeded(t)
	cs.ClearActions()
	got, err := helm.NewReader(cs).Releases(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "greeter" || got[0].Revision != 2 || got[0].Status != "deployed" || got[0].Chart != "greeter-0.2.0" ||
		got[1].Namespace != "other" || got[1].Status != "failed" {
		t.Fatalf("releases: %+v", got)
	}
	if got[1].Health() != vocab.HealthFailed || got[0].Health() != vocab.HealthOK {
		t.Fatalf("health: %v %v", got[0].Health(), got[1].Health())
	}
	if n := len(cs.Actions()); n != 1 {
		t.Fatalf("%d requests, want one list", n)
	}
	only, err := helm.NewReader(cs).Releases(context.Background(), "other")
	if err != nil || len(only) != 1 || only[0].Name != "db" {
		t.Fatalf("one namespace: %+v %v", only, err)
	}
}

// A forbidden list comes back with the API server's error (its reason
// kept), not Helm's wording around it.
func TestReleasesForbidden(t *testing.T) {
	cs := fake.NewClientset()
	cs.PrependReactor("list", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "", errors.New("no"))
	})
	if _, err := helm.NewReader(cs).Releases(context.Background(), "demo"); !apierrors.IsForbidden(err) {
		t.Fatalf("releases: %v", err)
	}
	if _, err := helm.NewReader(cs).History(context.Background(), "demo", "greeter"); !apierrors.IsForbidden(err) {
		t.Fatalf("history: %v", err)
	}
}

func TestHistoryValuesManifest(t *testing.T) {
	r := helm.NewReader(seeded(t))
	ctx := context.Background()
	h, err := r.History(ctx, "demo", "greeter")
	if err != nil || len(h) != 2 || h[0].Revision != 2 || h[1].Revision != 1 || h[1].Status != "superseded" {
		t.Fatalf("history: %+v %v", h, err)
	}
	if _, err := r.History(ctx, "demo", "nope"); !errors.Is(err, helm.ErrNoRelease) {
		t.Fatalf("missing release: %v", err)
	}
	v, err := r.Values(ctx, "demo", "greeter", 1, false)
	if err != nil || v != "message: hello\n" {
		t.Fatalf("values of 1: %q %v", v, err)
	}
	all, err := r.Values(ctx, "demo", "greeter", 0, true)
	if err != nil || !strings.Contains(all, "message: hello again") || !strings.Contains(all, "replicas: 2") {
		t.Fatalf("values --all of the latest: %q %v", all, err)
	}
	if _, err := r.Values(ctx, "demo", "greeter", 7, false); !errors.Is(err, helm.ErrNoRelease) {
		t.Fatalf("missing revision: %v", err)
	}
	m, err := r.Manifest(ctx, "demo", "greeter", 1)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(m, "s3cret") || strings.Contains(m, "dG9rZW4=") || !strings.Contains(m, "password: (10 bytes)") || !strings.Contains(m, "token: (5 bytes)") {
		t.Fatalf("a Secret's values must show as sizes only:\n%s", m)
	}
	if !strings.Contains(m, "# Source: greeter/templates/secret.yaml") || !strings.Contains(m, "message: hello") {
		t.Fatalf("the manifest's other lines are kept:\n%s", m)
	}
}

// The diff of two revisions shows the values and manifest lines that
// changed; a Secret's changed value names each side's revision, never
// the value.
func TestDiff(t *testing.T) {
	r := helm.NewReader(seeded(t))
	d, err := r.Diff(context.Background(), "demo", "greeter", 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--- values of greeter revision 2", "+++ values of greeter revision 1", "-message: hello again", "+message: hello",
		"-  password: (10 bytes, revision 2's value)", "+  password: (10 bytes, revision 1's value)", "+kind: Service", "-kind: Deployment"} {
		if !strings.Contains(d, want) {
			t.Fatalf("diff lacks %q:\n%s", want, d)
		}
	}
	if strings.Contains(d, "s3cret") || strings.Contains(d, "token: (5 bytes, revision") {
		t.Fatalf("diff shows a value or marks an unchanged one:\n%s", d)
	}
	if _, err := r.Diff(context.Background(), "demo", "greeter", 2, 2); err == nil {
		t.Fatal("a revision against itself must be refused")
	}
	if _, err := r.Diff(context.Background(), "demo", "greeter", 2, 9); !errors.Is(err, helm.ErrNoRelease) {
		t.Fatalf("missing revision: %v", err)
	}
}

// Changes are what Helm's update does to each object going from one
// revision to another.
func TestChanges(t *testing.T) {
	r := helm.NewReader(seeded(t))
	got, err := r.Changes(context.Background(), "demo", "greeter", 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, c := range got {
		s = append(s, c.Do+" "+c.Kind+" "+c.Namespace+"/"+c.Name)
	}
	want := "update Secret /greeter-secret,update ConfigMap /greeter-config,create Service /old-only,delete Deployment demo/greeter"
	if strings.Join(s, ",") != want {
		t.Fatalf("changes:\n got %s\nwant %s", strings.Join(s, ","), want)
	}
	latest, status, err := r.Latest(context.Background(), "demo", "greeter")
	if err != nil || latest != 2 || status != "deployed" {
		t.Fatalf("latest: %d %s %v", latest, status, err)
	}
}
