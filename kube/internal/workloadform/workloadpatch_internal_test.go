package workloadform

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// patchFixture is a Deployment with what the form must leave alone:
// probes, volume mounts, a securityContext, an init container and a native
// sidecar, fieldRef and resourceFieldRef env, envFrom, a GPU limit and
// duplicate env names in one container.
func patchFixture() *appsv1.Deployment {
	always := corev1.ContainerRestartPolicyAlways
	yes := true
	replicas := int32(3)
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "demo", UID: "u1", ResourceVersion: "100",
			Annotations: map[string]string{"team": "shop"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{
					InitContainers: []corev1.Container{
						{Name: "migrate", Image: "app:1", Command: []string{"/migrate"}},
						{Name: "shipper", Image: "shipper:1", RestartPolicy: &always,
							Env: []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "N", Value: "x"}, {Name: "T", Value: "t"}, {Name: "N", Value: "y"}}},
					},
					Containers: []corev1.Container{{
						Name: "app", Image: "app:1", Args: []string{"--port=8080"},
						Env: []corev1.EnvVar{
							{Name: "A", Value: "1"},
							{Name: "B", Value: "$(A)-x"},
							{Name: "IDX", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['apps.kubernetes.io/pod-index']"}}},
							{Name: "MEM", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.memory", Divisor: resource.MustParse("1Mi")}}},
							{Name: "CM", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "c1"}, Key: "k", Optional: &yes}}},
							{Name: "PW", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Key: "password"}}},
						},
						EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "app-env"}}}},
						Resources: corev1.ResourceRequirements{
							Limits:   corev1.ResourceList{"memory": resource.MustParse("1Gi"), "cpu": resource.MustParse("0.5"), "nvidia.com/gpu": resource.MustParse("1")},
							Requests: corev1.ResourceList{"memory": resource.MustParse("524288e3")},
						},
						ReadinessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz"}}},
						VolumeMounts:    []corev1.VolumeMount{{Name: "data", MountPath: "/data"}},
						SecurityContext: &corev1.SecurityContext{RunAsNonRoot: &yes},
					}},
					Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				},
			},
		},
	}
}

// applyPatch applies a strategic merge patch to d with apimachinery's own
// strategic merge code (what the API server runs) and returns the result.
func applyPatch(t testing.TB, d *appsv1.Deployment, patch []byte) *appsv1.Deployment {
	t.Helper()
	orig, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := strategicpatch.StrategicMergePatch(orig, patch, appsv1.Deployment{})
	if err != nil {
		t.Fatalf("strategic merge of %s: %v", patch, err)
	}
	var out appsv1.Deployment
	if err := json.Unmarshal(merged, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// editableStripped returns d as JSON with every field the form edits
// removed: what must not change whatever the edit.
func editableStripped(t testing.TB, d *appsv1.Deployment) string {
	t.Helper()
	c := d.DeepCopy()
	c.ResourceVersion = ""
	c.Spec.Replicas, c.Spec.Paused = nil, false
	strip := func(list []corev1.Container) {
		for i := range list {
			ct := &list[i]
			ct.Image, ct.Command, ct.Args, ct.Env = "", nil, nil, nil
			for _, l := range []corev1.ResourceList{ct.Resources.Requests, ct.Resources.Limits} {
				delete(l, corev1.ResourceCPU)
				delete(l, corev1.ResourceMemory)
			}
			if len(ct.Resources.Requests) == 0 {
				ct.Resources.Requests = nil
			}
			if len(ct.Resources.Limits) == 0 {
				ct.Resources.Limits = nil
			}
		}
	}
	strip(c.Spec.Template.Spec.InitContainers)
	strip(c.Spec.Template.Spec.Containers)
	b, _ := json.Marshal(c)
	return string(b)
}

// formOf reads d as the form does.
func formOf(d *appsv1.Deployment) vocab.Workload {
	wo, _ := objects.AsPodOwner(d)
	return toWorkload(vocab.WorkloadRef{Kind: vocab.KindDeployments, Namespace: d.Namespace, Name: d.Name}, wo)
}

// envContent drops Read numbers, to compare env lists by what is written.
func envContent(w vocab.Workload) vocab.Workload {
	w = cloneWorkload(w)
	w.ResourceVersion, w.Generation = "", 0
	for i := range w.Containers {
		c := &w.Containers[i]
		for j := range c.Env {
			c.Env[j].Read = 0
		}
		if len(c.Env) == 0 {
			c.Env = nil // an emptied list and no list read the same
		}
		if len(c.Command) == 0 {
			c.Command = nil
		}
		if len(c.Args) == 0 {
			c.Args = nil
		}
		for _, q := range []*string{&c.Resources.CPURequest, &c.Resources.CPULimit, &c.Resources.MemoryRequest, &c.Resources.MemoryLimit} {
			if v, err := resource.ParseQuantity(*q); err == nil {
				// by value: "0.5" is "500m", "0.5Gi" is "512Mi" (C26)
				if *q = v.AsDec().String(); strings.Contains(*q, ".") {
					*q = strings.TrimRight(strings.TrimRight(*q, "0"), ".")
				}
			}
		}
	}
	return w
}

// checkPatch builds the patch of before → after over d, applies it, and
// checks that the result reads as after and differs from d only in the
// paths the form edits.
func checkPatch(t testing.TB, d *appsv1.Deployment, before, after vocab.Workload) []byte {
	t.Helper()
	wo, _ := objects.AsPodOwner(d)
	patch, err := checkedPatch(before, after, wo)
	if errors.Is(err, errPatchUnsafe) && duplicatesChanged(before, after) {
		return nil // refused, as casebook C20 allows: nothing is lost
	}
	if err != nil {
		t.Fatalf("checkedPatch: %v", err)
	}
	res := applyPatch(t, d, patch)
	if got, want := envContent(formOf(res)), envContent(after); !reflect.DeepEqual(got, want) {
		t.Fatalf("patch %s\nresult reads as\n%+v\nwant\n%+v", patch, got.Containers, want.Containers)
	}
	if got, want := editableStripped(t, res), editableStripped(t, d); got != want {
		t.Fatalf("patch %s changed fields the form does not edit:\n got %s\nwant %s", patch, got, want)
	}
	if len(Changes(before, after)) == 0 && string(patch) != fmt.Sprintf(`{"metadata":{"resourceVersion":%q}}`, before.ResourceVersion) {
		t.Fatalf("no change, but the patch says more than the precondition: %s", patch)
	}
	return patch
}

// duplicatesChanged reports whether an env list that holds duplicate
// names after the edit was changed: the one case a patch may be refused.
func duplicatesChanged(before, after vocab.Workload) bool {
	for _, a := range after.Containers {
		b, _ := before.Container(a.Name)
		if hasDuplicateNames(a.Env) && !envEqual(a.Env, b.Env) {
			return true
		}
	}
	return false
}

// edit applies one edit, chosen by op and arg, to w.
func edit(w *vocab.Workload, op, arg byte) {
	c := &w.Containers[int(arg)%len(w.Containers)]
	names := []string{"A", "B", "N", "NEW", "T", "CM", "PW", "X"}
	name := names[int(op>>4)%len(names)]
	pick := func() *vocab.EnvVar {
		if len(c.Env) == 0 {
			return nil
		}
		return &c.Env[int(op>>3)%len(c.Env)]
	}
	// set switches an entry to a source, with only that source's fields,
	// as the form writes it (one of value and valueFrom).
	set := func(v vocab.EnvVar) {
		if e := pick(); e != nil && !e.ReadOnly() {
			v.Name, v.Read = e.Name, e.Read
			*e = v
		}
	}
	switch op % 16 {
	case 0:
		c.Image = fmt.Sprintf("app:%d", arg)
	case 1:
		c.Command = append(c.Command, fmt.Sprintf("c%d", arg))
	case 2:
		c.Args = nil
	case 3: // the spellings a person types, canonical or not (C26)
		c.Resources.CPURequest = []string{fmt.Sprintf("%dm", 100+int(arg)), "0.5", "2000m", "1e3", "0.0001", "1"}[int(arg)%6]
	case 4:
		c.Resources.MemoryLimit = ""
	case 5:
		c.Env = append(c.Env, vocab.EnvVar{Name: name, Source: vocab.EnvLiteral, Value: fmt.Sprint(arg)})
	case 6:
		set(vocab.EnvVar{Source: vocab.EnvLiteral, Value: fmt.Sprint(arg)})
	case 7:
		set(vocab.EnvVar{Source: vocab.EnvSecret, Ref: "s" + fmt.Sprint(arg%3), Key: "k", Optional: arg%2 == 0})
	case 8:
		set(vocab.EnvVar{Source: vocab.EnvConfigMap, Ref: "c" + fmt.Sprint(arg%3), Key: "k", Optional: arg%2 == 1})
	case 14:
		set(vocab.EnvVar{Source: vocab.EnvField, APIVersion: vocab.FieldRefAPIVersion, FieldPath: []string{"metadata.name", "status.podIP", "metadata.labels['app']"}[int(arg)%3]})
	case 15:
		set(vocab.EnvVar{Source: vocab.EnvResource, Resource: []string{"limits.memory", "requests.cpu"}[int(arg)%2],
			ContainerName: []string{"", "app"}[int(arg/2)%2], Divisor: []string{"", "1Mi", "1m"}[int(arg)%3]})
	case 9:
		if len(c.Env) > 0 {
			i := int(op>>3) % len(c.Env)
			c.Env = append(c.Env[:i:i], c.Env[i+1:]...)
		}
	case 10:
		if e := pick(); e != nil && !e.ReadOnly() {
			e.Name = name
		}
	case 11:
		if w.HasReplicas {
			w.Replicas = int32(arg % 7)
		}
	case 12:
		w.Paused = !w.Paused
	case 13:
		c.Resources.CPULimit = ""
		c.Resources.MemoryRequest = []string{"64Mi", "1024Mi", "0.5Gi", "1.5", "524288e3"}[int(arg)%5]
	}
}

// TestC26QuantitySpellings: a quantity typed as a person spells it
// ("0.5", "2000m", "1024Mi", "0.25Gi"), not as the API server stores it
// ("500m", "2", "1Gi", "256Mi"), is written as typed and checked by value:
// the server's canonical form read back is the value the form showed. A
// spelling of the value already there ("1024Mi" over "1Gi") is no change
// and writes nothing. The helper's trial refused them all, blaming
// duplicate env names the workload did not have.
func TestC26QuantitySpellings(t *testing.T) {
	for _, tc := range []struct {
		field, typed, stored string
		change               bool
	}{
		{"cpu request", "0.5", "500m", true},
		{"cpu request", "2000m", "2", true},
		{"cpu request", "1000m", "1", true},
		{"cpu request", "0.1", "100m", true},
		{"cpu request", "0.0001", "100u", true},
		{"cpu limit", "500m", "500m", false}, // the fixture's "0.5", read back as "500m"
		{"cpu limit", "0.50", "500m", false},
		{"memory limit", "1024Mi", "1Gi", false}, // the fixture's 1Gi
		{"memory limit", "0.5Gi", "512Mi", true},
		{"memory request", "0.25Gi", "256Mi", true},
		{"memory request", "1.5", "1500m", true},
		{"memory request", "524288000", "524288e3", false}, // the fixture's 524288e3
	} {
		d := patchFixture()
		before := formOf(d)
		after := cloneWorkload(before)
		var fld containerField
		for _, f := range containerFields {
			if f.name == tc.field {
				fld = f
			}
		}
		app := &after.Containers[2]
		fld.set(app, tc.typed)
		if n := len(Changes(before, after)); n != map[bool]int{false: 0, true: 1}[tc.change] {
			t.Errorf("%s %q: %d changes, want change=%v", tc.field, tc.typed, n, tc.change)
		}
		patch := checkPatch(t, d, before, after)
		if !tc.change && string(patch) != `{"metadata":{"resourceVersion":"100"}}` {
			t.Errorf("%s %q over the same value: patch %s", tc.field, tc.typed, patch)
		}
		res, _ := formOf(applyPatch(t, d, patch)).Container("app")
		if got := fld.get(&res).(string); got != tc.stored {
			t.Errorf("%s %q read back as %q, want %q", tc.field, tc.typed, got, tc.stored)
		}
	}
}

// TestPatchUnsafeSaysWhy: a merge that would not give what the form shows
// is refused with the field and what it would be; the duplicate env names
// hint only where an env list holds a duplicate (casebook C20).
func TestPatchUnsafeSaysWhy(t *testing.T) {
	w := vocab.Workload{HasReplicas: true, Replicas: 3, Containers: []vocab.Container{{Name: "app", Image: "app:1", Resources: vocab.Resources{CPURequest: "250m"},
		Env: []vocab.EnvVar{{Name: "N", Value: "x"}, {Name: "N", Value: "y"}}}}}
	got := cloneWorkload(w)
	got.Containers[0].Resources.CPURequest = "300m"
	if d := formDifference(got, w).String(); d != `container app cpu request would not come out as the form shows it (it would be "300m"; kubectl edit can write it as you want it)` {
		t.Errorf("cpu: %s", d)
	}
	got = cloneWorkload(w)
	got.Containers[0].Env = got.Containers[0].Env[:1]
	if d := formDifference(got, w).String(); !strings.Contains(d, "container app env would not") || !strings.Contains(d, "duplicate env names") {
		t.Errorf("env: %s", d)
	}
	if d := formDifference(w, w); d.where != "" {
		t.Errorf("the same workload differs in %s", d)
	}
}

// TestPatchExactlyTheEditedPaths applies a fixed set of edit sequences.
func TestPatchExactlyTheEditedPaths(t *testing.T) {
	for _, seq := range [][]byte{
		{0, 1},
		{5, 0, 5, 2},
		{6, 1, 7, 2, 8, 0},
		{9, 2, 9, 1},
		{10, 2, 10, 3},
		{11, 0, 12, 0, 13, 2},
		{0x95, 1, 0x25, 1, 0x1a, 1}, // in the sidecar with duplicate names
	} {
		d := patchFixture()
		before := formOf(d)
		after := cloneWorkload(before)
		for i := 0; i+1 < len(seq); i += 2 {
			edit(&after, seq[i], seq[i+1])
		}
		checkPatch(t, d, before, after)
	}
}

// FuzzWorkloadPatch: any sequence of form edits applied to the fixture,
// patched and merged by apimachinery's strategic merge code, changes
// exactly the edited paths and reads back as the form's values.
func FuzzWorkloadPatch(f *testing.F) {
	f.Add([]byte{0, 1, 5, 2, 9, 0})
	f.Add([]byte{0x95, 1, 0x25, 1, 0x1a, 1, 0x48, 2})
	f.Add([]byte{7, 2, 6, 2, 8, 2, 10, 0})
	f.Fuzz(func(t *testing.T, seq []byte) {
		if len(seq) > 64 {
			seq = seq[:64]
		}
		d := patchFixture()
		before := formOf(d)
		after := cloneWorkload(before)
		for i := 0; i+1 < len(seq); i += 2 {
			edit(&after, seq[i], seq[i+1])
		}
		checkPatch(t, d, before, after)
	})
}

// TestEnvChangeOfAnEmptyValue: an entry whose value was "" and is set to X
// reads `"" → X`, not an empty Before the screens show as "(none)", as
// for an entry added (the tester read `env E4 (none) → X` as a new E4);
// an entry added still has no Before, and one set to "" reads `→ ""`.
func TestEnvChangeOfAnEmptyValue(t *testing.T) {
	before := vocab.Workload{Containers: []vocab.Container{{Name: "app", Env: []vocab.EnvVar{{Name: "E4", Source: vocab.EnvLiteral, Read: 1}, {Name: "F", Source: vocab.EnvLiteral, Value: "f", Read: 2}}}}}
	after := cloneWorkload(before)
	c := &after.Containers[0]
	c.Env[0].Value = "X"
	c.Env[1].Value = ""
	c.Env = append(c.Env, vocab.EnvVar{Name: "NEW", Source: vocab.EnvLiteral, Value: "n"})
	var got []string
	for _, ch := range Changes(before, after) {
		got = append(got, fmt.Sprintf("%s: %q → %q", ch.Field, ch.Before, ch.After))
	}
	want := []string{`env E4: "\"\"" → "X"`, `env F: "f" → "\"\""`, `env NEW: "" → "n"`}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("changes\n%q\nwant\n%q", got, want)
	}
}
