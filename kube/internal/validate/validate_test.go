package validate_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kyyard/kyyard/kube/internal/validate"
	"github.com/kyyard/kyyard/kube/vocab"
)

const hex64 = "342538af0d5ee0f7d5cd9a0b53a84ee4f8a4ec9ee60aeb0a3e3a8ad6a2f2bb6c"

func TestC28ImageReferences(t *testing.T) {
	for _, tc := range []struct {
		image, reason string // reason "" = valid; else a substring of the error
	}{
		{"localhost:5000/team/app:v2", ""},
		{"localhost:5000/team/app", ""},
		{"nginx", ""},
		{"registry.local:5000/shop/web:1.4.2", ""},
		{"app@sha256:" + hex64, ""},
		{"app:v1@sha256:" + hex64, ""},
		{"app@" + hex64, "names its algorithm"},
		{"app@sha256:abc", "64 hex digits"},
		{"", "required"},
		{"App:1", "lower case"},
		{"app:", "empty tag"},
		{"app:-x", "not an image reference"},
		{" app", "no spaces"},
		{"app :v1", "no spaces"},
		{hex64, "image ID"},
	} {
		err := validate.ValidateImage(tc.image)
		switch {
		case tc.reason == "" && err != nil:
			t.Errorf("ValidateImage(%q) = %v, want valid", tc.image, err)
		case tc.reason != "" && err == nil:
			t.Errorf("ValidateImage(%q) accepted, want refused (%s)", tc.image, tc.reason)
		case tc.reason != "" && !strings.Contains(err.Error(), tc.reason):
			t.Errorf("ValidateImage(%q) = %q, want a reason with %q", tc.image, err, tc.reason)
		}
	}
}

func TestC27BadQuantities(t *testing.T) {
	for _, tc := range []struct{ q, reason string }{
		{"1GB", `unknown suffix "GB"`},
		{"0.5.1", "not a number"},
		{"-1", "negative"},
		{"1e400", "too large"},
		{"12 Mi", "no spaces"},
		{"abc", "not a number"},
		{"100000000000000000000000Ki", "too large"},
	} {
		err := validate.ValidateQuantity(tc.q)
		if err == nil || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("ValidateQuantity(%q) = %v, want a refusal with %q", tc.q, err, tc.reason)
		}
	}
	for _, q := range []string{"", "500m", "0.5", "1", "256Mi", "1Gi", "524288e3", "1E3", "+1"} {
		if err := validate.ValidateQuantity(q); err != nil {
			t.Errorf("ValidateQuantity(%q) = %v, want valid", q, err)
		}
	}
}

func TestValidateEnvName(t *testing.T) {
	// "1A" and "a b" are accepted by the API server since 1.34.
	for _, ok := range []string{"A", "LOG_LEVEL", "my.env-name", "_x", "MyEnvName1", "1A", "a b", "MY VAR"} {
		if err := validate.ValidateEnvName(ok); err != nil {
			t.Errorf("ValidateEnvName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "A=B", "é", "tab\there"} {
		err := validate.ValidateEnvName(bad)
		if err == nil {
			t.Errorf("ValidateEnvName(%q) accepted", bad)
			continue
		}
		if strings.Contains(err.Error(), "regex") || strings.Contains(err.Error(), "e.g.") {
			t.Errorf("ValidateEnvName(%q) = %q: examples and regex should be cut", bad, err)
		}
	}
}

func TestValidateResourcesLimitBelowRequest(t *testing.T) {
	got := validate.ValidateResources(vocab.Resources{CPURequest: "250m", CPULimit: "1", MemoryRequest: "256Mi", MemoryLimit: "128Mi"})
	if len(got) != 1 || got[0].Field != "memory limit" || got[0].Message != "limit below request" {
		t.Fatalf("ValidateResources = %+v, want one memory limit below request", got)
	}
	got = validate.ValidateResources(vocab.Resources{CPURequest: "1GB", CPULimit: "0.5", MemoryRequest: "524288e3", MemoryLimit: "1Gi"})
	if len(got) != 1 || got[0].Field != "cpu request" {
		t.Fatalf("ValidateResources = %+v, want only the cpu request refused", got)
	}
}

func validWorkload() vocab.Workload {
	return vocab.Workload{
		Ref:         vocab.WorkloadRef{Kind: vocab.KindDeployments, Namespace: "demo", Name: "web"},
		HasReplicas: true, Replicas: 3,
		Containers: []vocab.Container{{
			Name: "web", Role: vocab.RoleContainer, Image: "nginx:1.27",
			Env: []vocab.EnvVar{
				{Name: "A", Source: vocab.EnvLiteral, Value: "1"},
				{Name: "N", Source: vocab.EnvLiteral, Value: "x"},
				{Name: "T", Source: vocab.EnvSecret, Ref: "db", Key: "password"},
				{Name: "N", Source: vocab.EnvLiteral, Value: "y"},
				{Name: "POD", Source: vocab.EnvField, FieldPath: "metadata.name"},
			},
		}, {Name: "old", ReadOnly: true, Image: "NOT VALID"}},
	}
}

func TestValidateWorkload(t *testing.T) {
	w := validWorkload()
	if got := validate.ValidateWorkload(w); len(got) != 0 {
		t.Fatalf("ValidateWorkload(valid, with a duplicate it already had) = %v", got)
	}
	w.Replicas = vocab.MaxReplicas + 1
	w.Containers[0].Image = "app@" + hex64
	w.Containers[0].Env[2].Ref = "Not_A_Name"
	w.Containers[0].Env[2].Key = "a/b"
	w.Containers[0].Args = make([]string, vocab.MaxFormArgv+1)
	w.Containers[0].Resources.MemoryLimit = "1GB"
	var fields []string
	for _, fe := range validate.ValidateWorkload(w) {
		fields = append(fields, fe.Container+":"+fe.Field)
	}
	want := ":replicas web:image web:args web:env T web:env T web:memory limit"
	if got := strings.Join(fields, " "); got != want {
		t.Fatalf("ValidateWorkload fields = %q, want %q", got, want)
	}
}

func TestC20NewDuplicatesOnly(t *testing.T) {
	before := validWorkload()
	after := validWorkload()
	if got := validate.ValidateNewDuplicates(before, after); len(got) != 0 {
		t.Fatalf("a duplicate the object had is flagged: %v", got)
	}
	after.Containers[0].Env = append(after.Containers[0].Env, vocab.EnvVar{Name: "A", Source: vocab.EnvLiteral})
	got := validate.ValidateNewDuplicates(before, after)
	if len(got) != 1 || got[0].Message != "duplicate name A" || got[0].Field != "env A" {
		t.Fatalf("ValidateNewDuplicates = %v, want duplicate name A", got)
	}
}

func FuzzValidateImage(f *testing.F) {
	for _, s := range []string{"localhost:5000/team/app:v2", "app@sha256:" + hex64, "app@" + hex64, "", "A:b", "a:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := validate.ValidateImage(s); err != nil && err.Error() == "" {
			t.Fatalf("empty reason for %q", s)
		}
	})
}

func FuzzValidateQuantity(f *testing.F) {
	for _, s := range []string{"1GB", "0.5.1", "-1", "1e400", "12 Mi", "500m", "1Gi", "524288e3", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := validate.ValidateQuantity(s)
		if err != nil || s == "" {
			return
		}
		q, perr := resource.ParseQuantity(s)
		if perr != nil {
			t.Fatalf("accepted %q does not parse: %v", s, perr)
		}
		if again, err := resource.ParseQuantity(q.String()); err != nil || again.Cmp(q) != 0 {
			t.Fatalf("accepted %q does not re-parse: %q %v", s, q.String(), err)
		}
		if validate.ValidateQuantity(q.String()) != nil {
			t.Fatalf("accepted %q, refused its canonical form %q", s, q.String())
		}
	})
}

func FuzzValidateEnvName(f *testing.F) {
	for _, s := range []string{"A", "1A", "a b", "", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := validate.ValidateEnvName(s); err == nil && s == "" {
			t.Fatal("empty name accepted")
		}
	})
}

// TestValidateEnvSources: a fieldRef's path, a resourceFieldRef's
// resource and divisor are checked by the API server's rules for env
// (k8s.io/kubernetes pkg/apis/core/validation: validateObjectFieldSelector
// with validEnvDownwardAPIFieldPathExpressions,
// validateContainerResourceFieldSelector, validateContainerResourceDivisor).
func TestValidateEnvSources(t *testing.T) {
	for _, ok := range []string{"metadata.name", "metadata.namespace", "metadata.uid", "metadata.labels['k']",
		"metadata.labels['apps.kubernetes.io/pod-index']", "metadata.annotations['Example.com/Key']",
		"spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"} {
		if err := validate.ValidateFieldPath(ok); err != nil {
			t.Errorf("ValidateFieldPath(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "status.phase", "metadata.labels", "spec.restartPolicy", "metadata.name['x']",
		"metadata.labels['-bad-']", "metadata.labels['']", "metadata.labels['a/b/c']", "spec.containers[0].image", "x"} {
		if err := validate.ValidateFieldPath(bad); err == nil {
			t.Errorf("ValidateFieldPath(%q) accepted", bad)
		}
	}
	if validate.ValidateFieldAPIVersion("v1") != nil || validate.ValidateFieldAPIVersion("") != nil || validate.ValidateFieldAPIVersion("v2") == nil {
		t.Error("ValidateFieldAPIVersion takes v1 (or the default) only")
	}
	for _, ok := range []string{"limits.cpu", "limits.memory", "limits.ephemeral-storage", "requests.cpu", "requests.memory",
		"requests.ephemeral-storage", "limits.hugepages-2Mi", "requests.hugepages-1Gi"} {
		if err := validate.ValidateResourceName(ok); err != nil {
			t.Errorf("ValidateResourceName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "cpu", "limits.nvidia.com/gpu", "limits.storage", "usage.cpu"} {
		if err := validate.ValidateResourceName(bad); err == nil {
			t.Errorf("ValidateResourceName(%q) accepted", bad)
		}
	}
	for _, tc := range []struct {
		resource, divisor string
		ok                bool
	}{
		{"limits.cpu", "", true}, {"limits.cpu", "1m", true}, {"limits.cpu", "1", true}, {"requests.cpu", "1000m", true},
		{"limits.cpu", "0", true}, {"limits.cpu", "1Mi", false}, {"limits.cpu", "2", false},
		{"limits.memory", "1Mi", true}, {"limits.memory", "1Gi", true}, {"limits.memory", "1k", true}, {"limits.memory", "1024Ki", true},
		{"limits.memory", "1m", false}, {"limits.memory", "2Mi", false}, {"requests.ephemeral-storage", "1G", true},
		{"limits.hugepages-2Mi", "1Mi", true}, {"limits.hugepages-2Mi", "3", false},
		{"limits.memory", "1 Mi", false}, {"limits.memory", "-1Mi", false}, {"limits.memory", "1GB", false},
	} {
		if err := validate.ValidateDivisor(tc.resource, tc.divisor); (err == nil) != tc.ok {
			t.Errorf("ValidateDivisor(%q, %q) = %v, want ok %v", tc.resource, tc.divisor, err, tc.ok)
		}
	}
	w := validWorkload()
	w.Containers[0].Env = append(w.Containers[0].Env,
		vocab.EnvVar{Name: "BAD_PATH", Source: vocab.EnvField, FieldPath: "status.phase"},
		vocab.EnvVar{Name: "MEM", Source: vocab.EnvResource, Resource: "limits.memory", ContainerName: "web", Divisor: "1Mi"},
		vocab.EnvVar{Name: "BAD_RES", Source: vocab.EnvResource, Resource: "limits.gpu"},
		vocab.EnvVar{Name: "BAD_CTR", Source: vocab.EnvResource, Resource: "limits.cpu", ContainerName: "nope"},
		vocab.EnvVar{Name: "BAD_DIV", Source: vocab.EnvResource, Resource: "limits.cpu", Divisor: "1Mi"})
	var fields []string
	for _, fe := range validate.ValidateWorkload(w) {
		fields = append(fields, fe.Field)
	}
	if got := strings.Join(fields, ","); got != "env BAD_PATH,env BAD_RES,env BAD_CTR,env BAD_DIV" {
		t.Errorf("ValidateWorkload refused %s", got)
	}
}

// TestParseReplicas: the one replicas parser: spaces trimmed, a whole
// number in 0..MaxReplicas, and the same words for every refusal (the
// screens test it with one table, viewtest.ReplicasInputs).
func TestParseReplicas(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int32
		err  string
	}{
		{" 3", 3, ""}, {"4 ", 4, ""}, {"+2", 2, ""}, {"0", 0, ""}, {"10000", 10000, ""},
		{"", 0, "required"}, {" ", 0, "required"}, {"3q", 0, "a whole number"}, {"1e3", 0, "a whole number"},
		{"-1", 0, "between 0 and 10000"}, {"10001", 0, "between 0 and 10000"}, {"99999999999999999999", 0, "between 0 and 10000"},
	} {
		n, err := validate.ParseReplicas(tc.in)
		switch {
		case tc.err == "" && (err != nil || n != tc.want):
			t.Errorf("ParseReplicas(%q) = %d, %v; want %d", tc.in, n, err, tc.want)
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("ParseReplicas(%q) = %d, %v; want %q", tc.in, n, err, tc.err)
		}
	}
}
