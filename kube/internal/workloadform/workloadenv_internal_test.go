package workloadform

import (
	"slices"
	"testing"

	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
)

// TestEnvSourceSwitches: every env source becomes every other one, and a
// row of any source is removed: the patch carries only that entry (merged
// by name), with what it replaces nulled, and the result holds exactly
// one of value and valueFrom, with one source in it (the API server
// refuses both), read back as the form shows it (casebook C20, C25: the
// others keep their place and bytes).
func TestEnvSourceSwitches(t *testing.T) {
	field := vocab.EnvVar{Source: vocab.EnvField, FieldPath: "metadata.namespace", APIVersion: vocab.FieldRefAPIVersion}
	res := vocab.EnvVar{Source: vocab.EnvResource, Resource: "requests.cpu", ContainerName: "app", Divisor: "1m"}
	lit := vocab.EnvVar{Source: vocab.EnvLiteral, Value: "3"}
	for _, tc := range []struct {
		name  string
		at    int          // index in container app's env: A, B, IDX, MEM, CM, PW
		to    vocab.EnvVar // zero: the row is removed
		patch string       // the container's entry in the patch
	}{
		{"fieldRef to literal", 2, lit, `{"env":[{"name":"IDX","value":"3","valueFrom":null}],"name":"app"}`},
		{"literal to fieldRef", 0, field, `{"env":[{"name":"A","value":null,"valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}}],"name":"app"}`},
		{"literal to resourceFieldRef", 1, res, `{"env":[{"name":"B","value":null,"valueFrom":{"resourceFieldRef":{"containerName":"app","divisor":"1m","resource":"requests.cpu"}}}],"name":"app"}`},
		{"resourceFieldRef to fieldRef", 3, field, `{"env":[{"name":"MEM","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"},"resourceFieldRef":null}}],"name":"app"}`},
		{"resourceFieldRef loses its divisor", 3, vocab.EnvVar{Source: vocab.EnvResource, Resource: "limits.memory"},
			`{"env":[{"name":"MEM","valueFrom":{"resourceFieldRef":{"divisor":null,"resource":"limits.memory"}}}],"name":"app"}`},
		{"fieldRef to another path", 2, field, `{"env":[{"name":"IDX","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}}],"name":"app"}`},
		{"configMapKeyRef to resourceFieldRef", 4, res, `{"env":[{"name":"CM","valueFrom":{"configMapKeyRef":null,"resourceFieldRef":{"containerName":"app","divisor":"1m","resource":"requests.cpu"}}}],"name":"app"}`},
		{"secretKeyRef to fieldRef", 5, field, `{"env":[{"name":"PW","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"},"secretKeyRef":null}}],"name":"app"}`},
		{"fieldRef to secretKeyRef", 2, vocab.EnvVar{Source: vocab.EnvSecret, Ref: "db", Key: "k"}, `{"env":[{"name":"IDX","valueFrom":{"fieldRef":null,"secretKeyRef":{"key":"k","name":"db"}}}],"name":"app"}`},
		{"fieldRef removed", 2, vocab.EnvVar{}, `{"$setElementOrder/env":[{"name":"A"},{"name":"B"},{"name":"MEM"},{"name":"CM"},{"name":"PW"}],"env":[{"$patch":"delete","name":"IDX"}],"name":"app"}`},
		{"resourceFieldRef removed", 3, vocab.EnvVar{}, `{"$setElementOrder/env":[{"name":"A"},{"name":"B"},{"name":"IDX"},{"name":"CM"},{"name":"PW"}],"env":[{"$patch":"delete","name":"MEM"}],"name":"app"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := patchFixture()
			before := formOf(d)
			after := cloneWorkload(before)
			env := &after.Containers[2].Env
			if tc.to.Source == "" {
				*env = slices.Delete(*env, tc.at, tc.at+1)
			} else {
				tc.to.Name, tc.to.Read = (*env)[tc.at].Name, (*env)[tc.at].Read
				(*env)[tc.at] = tc.to
			}
			patch := string(checkPatch(t, d, before, after))
			want := `{"metadata":{"resourceVersion":"100"},"spec":{"template":{"spec":{"containers":[` + tc.patch + `]}}}}`
			if patch != want {
				t.Fatalf("patch %s\nwant  %s", patch, want)
			}
			for _, e := range applyPatch(t, d, []byte(patch)).Spec.Template.Spec.Containers[0].Env {
				if !oneSource(e) {
					t.Errorf("entry %s holds %+v", e.Name, e)
				}
			}
		})
	}
}

// oneSource reports whether an env entry holds a value or exactly one
// valueFrom source, not both.
func oneSource(e corev1.EnvVar) bool {
	if e.ValueFrom == nil {
		return true
	}
	n := 0
	f := e.ValueFrom
	for _, set := range []bool{f.FieldRef != nil, f.ResourceFieldRef != nil, f.ConfigMapKeyRef != nil, f.SecretKeyRef != nil, f.FileKeyRef != nil} {
		if set {
			n++
		}
	}
	return e.Value == "" && n == 1
}

// TestEnvOtherSourceReplaced: an entry of a source kyyard does not write
// (fileKeyRef) is shown read-only, yet it can be replaced by a literal or
// a reference (its valueFrom replaced whole) or removed.
func TestEnvOtherSourceReplaced(t *testing.T) {
	for _, tc := range []struct {
		to    vocab.EnvVar
		patch string
	}{
		{vocab.EnvVar{Source: vocab.EnvLiteral, Value: "x"}, `{"env":[{"name":"F","value":"x","valueFrom":null}],"name":"app"}`},
		{vocab.EnvVar{Source: vocab.EnvConfigMap, Ref: "c1", Key: "k"}, `{"env":[{"name":"F","valueFrom":{"$patch":"replace","configMapKeyRef":{"key":"k","name":"c1"}}}],"name":"app"}`},
	} {
		d := patchFixture()
		d.Spec.Template.Spec.Containers[0].Env = append(d.Spec.Template.Spec.Containers[0].Env, corev1.EnvVar{Name: "F",
			ValueFrom: &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{VolumeName: "data", Path: "app.env", Key: "F"}}})
		before := formOf(d)
		if e := before.Containers[2].Env[6]; !e.ReadOnly() || e.Path != "file data/app.env key F" {
			t.Fatalf("F read as %+v", e)
		}
		after := cloneWorkload(before)
		e := &after.Containers[2].Env[6]
		tc.to.Name, tc.to.Read = e.Name, e.Read
		*e = tc.to
		patch := string(checkPatch(t, d, before, after))
		if want := `{"metadata":{"resourceVersion":"100"},"spec":{"template":{"spec":{"containers":[` + tc.patch + `]}}}}`; patch != want {
			t.Fatalf("patch %s\nwant  %s", patch, want)
		}
		for _, e := range applyPatch(t, d, []byte(patch)).Spec.Template.Spec.Containers[0].Env {
			if !oneSource(e) {
				t.Errorf("entry %s holds %+v", e.Name, e)
			}
		}
	}
}
