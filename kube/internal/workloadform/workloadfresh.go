package workloadform

import (
	"fmt"

	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
)

// guardFresh compares the object read just now with what the person saw
// (before). A moved resourceVersion is a conflict when someone wrote the
// object: its metadata.generation moved (every write of a Deployment's,
// StatefulSet's or DaemonSet's spec raises it) or the form's picture of it
// differs. A resourceVersion moved by status alone (the controller
// reporting progress) is not: the apply then carries the fresh
// resourceVersion as its precondition, so a write after this read is still
// a conflict. A conflict's sentence names, by ConflictOf, each field the
// person changed (before → after) that the server changed too, with the
// server's value now and the person's, and whether the server's other
// changes touch the person's fields.
func guardFresh(before, after vocab.Workload, fresh objects.PodOwner) vocab.Verdict {
	name := string(before.Ref.Kind) + "/" + before.Ref.Name
	meta := fresh.Meta
	switch {
	case meta.DeletionTimestamp != nil:
		return vocab.Verdict{Guard: vocab.GuardFresh, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonConflict, Sentence: name + " is being deleted"}
	case string(meta.UID) != before.UID:
		return vocab.Verdict{Guard: vocab.GuardFresh, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonConflict,
			Sentence: name + " was deleted and created again since you read it (its UID changed)"}
	case meta.ResourceVersion == before.ResourceVersion:
		return vocab.Verdict{Guard: vocab.GuardFresh, Outcome: vocab.OutcomePass, Sentence: name + " is as you read it (resourceVersion " + before.ResourceVersion + ")"}
	case meta.Generation != before.Generation:
		return vocab.Verdict{Guard: vocab.GuardFresh, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonConflict,
			Sentence: fmt.Sprintf("%s was changed since you read it (generation %d is now %d): %s", name, before.Generation, meta.Generation,
				ConflictOf(before, after, toWorkload(before.Ref, fresh)).Text())}
	}
	now := toWorkload(before.Ref, fresh)
	if where := formDifference(now, before).where; where != "" {
		return vocab.Verdict{Guard: vocab.GuardFresh, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonConflict,
			Sentence: fmt.Sprintf("%s was changed since you read it (%s): %s", name, where, ConflictOf(before, after, now).Text())}
	}
	return vocab.Verdict{Guard: vocab.GuardFresh, Outcome: vocab.OutcomePass,
		Sentence: fmt.Sprintf("%s is as you read it (generation %d; only its status moved)", name, meta.Generation)}
}
