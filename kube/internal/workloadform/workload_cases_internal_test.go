package workloadform

import (
	"slices"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
)

// envOf returns a container's env as NAME=value,NAME=value.
func envOf(t *testing.T, c *corev1.Container) string {
	t.Helper()
	var parts []string
	for _, e := range c.Env {
		parts = append(parts, e.Name+"="+e.Value)
	}
	return strings.Join(parts, ",")
}

// TestC20DuplicateEnvNames: env [A, N, T, N] (N twice, different
// values); removing the second N gives [A, N, T] with the first N's value;
// an edit that keeps the duplicate and would be regrouped by the merge is
// refused with a reason, never a loss.
func TestC20DuplicateEnvNames(t *testing.T) {
	d := patchFixture()
	before := formOf(d)
	after := cloneWorkload(before)
	sidecar := &after.Containers[1]
	sidecar.Env = slices.Delete(sidecar.Env, 3, 4)
	patch := checkPatch(t, d, before, after)
	res := applyPatch(t, d, patch)
	if got := envOf(t, &res.Spec.Template.Spec.InitContainers[1]); got != "A=1,N=x,T=t" {
		t.Fatalf("env after removing the second N: %s (patch %s)", got, patch)
	}

	keep := cloneWorkload(before)
	keep.Containers[1].Env[2].Value = "t2" // T changed, both N kept
	wo, _ := objects.AsPodOwner(d)
	if body, err := checkedPatch(before, keep, wo); err == nil {
		res := applyPatch(t, d, body)
		if got := envOf(t, &res.Spec.Template.Spec.InitContainers[1]); got != "A=1,N=x,T=t2,N=y" {
			t.Fatalf("edit beside duplicates gave %s", got)
		}
	} else if !strings.Contains(err.Error(), "duplicate env names") {
		t.Fatalf("refusal without the reason: %v", err)
	}
}

// TestC21RebaseKeepsEditsAndServerChanges: the form read replicas 3 and
// image app:1; an autoscaler set replicas 5; the person changed the image:
// rebased on the fresh read, the change is the image alone, replicas 5.
// A path both sides changed clashes and keeps the server's value.
func TestC21RebaseKeepsEditsAndServerChanges(t *testing.T) {
	base := formOf(patchFixture())
	edited := cloneWorkload(base)
	edited.Containers[2].Image = "app:2"
	edited.Containers[2].Env[0].Value = "mine"
	fresh := cloneWorkload(base)
	fresh.Replicas, fresh.ResourceVersion = 5, "101"
	fresh.Containers[2].Env[0].Value = "theirs"
	merged, clashes := Rebase(base, edited, fresh)
	if merged.Replicas != 5 || merged.Containers[2].Image != "app:2" || merged.ResourceVersion != "101" {
		t.Fatalf("merged replicas %d image %s rv %s", merged.Replicas, merged.Containers[2].Image, merged.ResourceVersion)
	}
	if len(clashes) != 1 || clashes[0].Field != "env A" || clashes[0].Before != "theirs" || clashes[0].After != "mine" {
		t.Fatalf("clashes %+v", clashes)
	}
	if ch := Changes(fresh, merged); len(ch) != 1 || ch[0].Field != "image" {
		t.Fatalf("changes after the rebase %+v", ch)
	}
}

// TestC25NewEnvAfterExisting: env [A=1, B=$(A)-x]; C added: A, B, C.
func TestC25NewEnvAfterExisting(t *testing.T) {
	d := patchFixture()
	before := formOf(d)
	after := cloneWorkload(before)
	after.Containers[2].Env = append(after.Containers[2].Env, vocab.EnvVar{Name: "C", Source: vocab.EnvLiteral, Value: "3"})
	res := applyPatch(t, d, checkPatch(t, d, before, after))
	env := res.Spec.Template.Spec.Containers[0].Env
	if env[0].Name != "A" || env[1].Name != "B" || env[len(env)-1].Name != "C" {
		t.Fatalf("env order %+v", env)
	}
}

// TestC26UntouchedQuantitiesNotInPatch: memory limit 1Gi, cpu limit 0.5,
// memory request 524288e3; only the cpu request edited: the patch names
// the cpu request alone.
func TestC26UntouchedQuantitiesNotInPatch(t *testing.T) {
	d := patchFixture()
	before := formOf(d)
	after := cloneWorkload(before)
	after.Containers[2].Resources.CPURequest = "250m"
	patch := string(checkPatch(t, d, before, after))
	want := `{"metadata":{"resourceVersion":"100"},"spec":{"template":{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"250m"}}}]}}}}`
	if patch != want {
		t.Fatalf("patch %s\nwant  %s", patch, want)
	}
	if got := formOf(applyPatch(t, d, []byte(patch))); len(Changes(after, got)) != 0 {
		t.Fatalf("read again: %+v", Changes(after, got))
	}
}

// TestC34NothingChangedIsNoChange: the form's own read against itself has
// no change.
func TestC34NothingChangedIsNoChange(t *testing.T) {
	w := formOf(patchFixture())
	if ch := Changes(w, cloneWorkload(w)); len(ch) != 0 {
		t.Fatalf("changes %+v", ch)
	}
}

// TestC23ReferencesStayReferences: with the fieldRef, resourceFieldRef
// (divisor 1Mi) and optional configMapKeyRef entries editable, an edit of
// another variable leaves them out of the patch, so the API server keeps
// their bytes; and an entry of a source kyyard does not write (fileKeyRef)
// is never written: its edit is refused by the patch builder.
func TestC23ReferencesStayReferences(t *testing.T) {
	d := patchFixture()
	before := formOf(d)
	after := cloneWorkload(before)
	after.Containers[2].Env[0].Value = "2"
	patch := string(checkPatch(t, d, before, after))
	want := `{"metadata":{"resourceVersion":"100"},"spec":{"template":{"spec":{"containers":[{"env":[{"name":"A","value":"2"}],"name":"app"}]}}}}`
	if patch != want {
		t.Fatalf("patch %s\nwant  %s", patch, want)
	}
	if e := before.Containers[2].Env[3]; e.Source != vocab.EnvResource || e.Resource != "limits.memory" || e.Divisor != "1Mi" {
		t.Fatalf("MEM read as %+v", e)
	}
	d.Spec.Template.Spec.Containers[0].Env = append(d.Spec.Template.Spec.Containers[0].Env, corev1.EnvVar{Name: "F",
		ValueFrom: &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{VolumeName: "data", Path: "app.env", Key: "F"}}})
	before = formOf(d)
	after = cloneWorkload(before)
	after.Containers[2].Env[6].Path = "file data/other.env key F"
	if _, err := buildPatch(before, after, &d.Spec.Template.Spec); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("edit of a fileKeyRef: %v", err)
	}
}
