package workloadform

import (
	"slices"
	"testing"

	"github.com/kyyard/kyyard/kube/vocab"
)

// carryBase is web as cluster A has it; env entries numbered as read.
func carryBase(image, greeting string, replicas int32) vocab.Workload {
	return vocab.Workload{HasReplicas: true, Replicas: replicas, ResourceVersion: "1",
		Containers: []vocab.Container{{Name: "web", Image: image, Resources: vocab.Resources{CPURequest: "100m"},
			Env: []vocab.EnvVar{
				{Name: "GREETING", Source: vocab.EnvLiteral, Value: greeting, Read: 1},
				{Name: "MODE", Source: vocab.EnvLiteral, Value: "fast", Read: 2},
			}}}}
}

func envNames(env []vocab.EnvVar) []string {
	var out []string
	for _, e := range env {
		out = append(out, e.Name+"="+e.Value)
	}
	return out
}

// The person's image and env edits land in a cluster whose image and
// greeting differed (said in differed), and its own replicas and
// resourceVersion stay.
func TestCarryLaysEditsOverAnotherClustersValues(t *testing.T) {
	base := carryBase("nginx:1.27.3", "hello", 2)
	edited := cloneWorkload(base)
	edited.Containers[0].Image = "nginx:1.28.0"
	edited.Containers[0].Env[0].Value = "hi"
	target := carryBase("nginx:1.27.4", "hallo", 5)
	target.ResourceVersion = "77"
	merged, differed, refused := Carry(base, edited, target)
	if len(refused) != 0 {
		t.Fatalf("refused %v", refused)
	}
	c := merged.Containers[0]
	if c.Image != "nginx:1.28.0" || merged.Replicas != 5 || merged.ResourceVersion != "77" || !slices.Equal(envNames(c.Env), []string{"GREETING=hi", "MODE=fast"}) {
		t.Fatalf("merged %+v", merged)
	}
	var fields []string
	for _, d := range differed {
		fields = append(fields, d.Field+": "+d.Before+" → "+d.After)
	}
	if want := []string{"image: nginx:1.27.4 → nginx:1.28.0", "env GREETING: hallo → hi"}; !slices.Equal(fields, want) {
		t.Errorf("differed %q, want %q", fields, want)
	}
	// What the cluster then gets is exactly the person's two edits.
	if got := Changes(target, merged); len(got) != 2 {
		t.Errorf("changes in the target %v", got)
	}
}

// Env is carried by name where the lists differ: an added entry, a
// removed one, and an edit of an entry the target lacks (added there).
func TestCarryEnvByName(t *testing.T) {
	base := carryBase("x:1", "hello", 1)
	edited := cloneWorkload(base)
	edited.Containers[0].Env = []vocab.EnvVar{
		{Name: "GREETING", Source: vocab.EnvLiteral, Value: "hello", Read: 1},
		{Name: "MODE", Source: vocab.EnvLiteral, Value: "slow", Read: 2},
		{Name: "NEW", Source: vocab.EnvLiteral, Value: "1"},
	}
	target := carryBase("x:1", "hello", 1)
	target.Containers[0].Env = []vocab.EnvVar{
		{Name: "EXTRA", Source: vocab.EnvLiteral, Value: "e", Read: 1},
		{Name: "GREETING", Source: vocab.EnvLiteral, Value: "hello", Read: 2},
	}
	merged, differed, refused := Carry(base, edited, target)
	if len(refused) != 0 {
		t.Fatalf("refused %v", refused)
	}
	if got := envNames(merged.Containers[0].Env); !slices.Equal(got, []string{"EXTRA=e", "GREETING=hello", "MODE=slow", "NEW=1"}) {
		t.Fatalf("env %v", got)
	}
	if len(differed) != 1 || differed[0].Field != "env MODE" || differed[0].Before != "(absent)" {
		t.Errorf("differed %+v, want MODE absent here", differed)
	}

	// A removal removes the target's entry of that name.
	edited = cloneWorkload(base)
	edited.Containers[0].Env = edited.Containers[0].Env[:1] // MODE removed
	target.Containers[0].Env = append(target.Containers[0].Env, vocab.EnvVar{Name: "MODE", Source: vocab.EnvLiteral, Value: "fast", Read: 3})
	merged, _, _ = Carry(base, edited, target)
	if got := envNames(merged.Containers[0].Env); !slices.Equal(got, []string{"EXTRA=e", "GREETING=hello"}) {
		t.Fatalf("env after the removal %v", got)
	}
}

// A container the target lacks, and duplicate env names (casebook C20),
// refuse the edits that cannot be carried; the rest still goes.
func TestCarryRefusesWhatCannotBeCarried(t *testing.T) {
	base := carryBase("x:1", "hello", 1)
	base.Containers = append(base.Containers, vocab.Container{Name: "sidecar", Image: "envoy:1"})
	edited := cloneWorkload(base)
	edited.Containers[1].Image = "envoy:2"
	edited.Containers[0].Env[0].Value = "hi"
	edited.Replicas = 3
	target := carryBase("x:1", "hello", 1)
	target.Containers[0].Env = append(target.Containers[0].Env, vocab.EnvVar{Name: "GREETING", Source: vocab.EnvLiteral, Value: "twice", Read: 3})
	merged, _, refused := Carry(base, edited, target)
	var fields []string
	for _, r := range refused {
		fields = append(fields, r.Container+" "+r.Field)
	}
	if want := []string{"web env GREETING", "sidecar image"}; !slices.Equal(fields, want) {
		t.Fatalf("refused %v, want %v", fields, want)
	}
	if merged.Replicas != 3 || merged.Containers[0].Env[0].Value != "hello" {
		t.Errorf("merged %+v", merged)
	}
}

// A target already holding the person's values gets no change at all.
func TestCarryOntoATargetAlreadyThere(t *testing.T) {
	base := carryBase("x:1", "hello", 1)
	edited := cloneWorkload(base)
	edited.Containers[0].Image = "x:2"
	target := carryBase("x:2", "hello", 1)
	merged, _, _ := Carry(base, edited, target)
	if got := Changes(target, merged); len(got) != 0 {
		t.Fatalf("changes %v, want none", got)
	}
}
