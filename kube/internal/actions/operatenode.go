package actions

// A Node's actions: cordon and uncordon (spec.unschedulable), as `kubectl
// cordon` and `kubectl uncordon` do them (k8s.io/kubectl/pkg/drain,
// cordon.go: a strategic merge patch of spec.unschedulable). The pipeline
// around them is every action's (operateguards.go).

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube/vocab"
)

// readNode reads ref's Node fresh. Errors are the API server's.
func (ac Actor) readNode(ctx context.Context, ref vocab.ObjectRef) (opTarget, error) {
	n, err := ac.CS.CoreV1().Nodes().Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil {
		return opTarget{}, err
	}
	return opTarget{node: n, meta: &n.ObjectMeta}, nil
}

// prepareCordon sets p's write of a cordon or uncordon on the Node read
// (p.target.node), or p.noop when the Node is already as asked (kubectl
// prints "node/x already cordoned" and sends nothing).
func (ac Actor) prepareCordon(op Operation, p *operationPlan) (vocab.Verdicts, error) {
	n, ref := p.target.node, op.Ref
	if n == nil { // a kind whose plugin declares these actions without their code
		return nil, fmt.Errorf("%w: %s: %s is for Nodes", vocab.ErrInvalid, ref, op.Action)
	}
	want := op.Action == vocab.ActionCordon
	if n.Spec.Unschedulable == want {
		p.noop = ref.String() + map[bool]string{true: " already cordoned", false: " already uncordoned"}[want]
		return nil, nil
	}
	p.write = func(ctx context.Context, t opTarget) (string, error) {
		patch := specFlagPatch(t.meta.ResourceVersion, "unschedulable", want)
		got, err := ac.CS.CoreV1().Nodes().Patch(ctx, ref.Name, patch.kind, patch.body, metav1.PatchOptions{})
		if err != nil {
			return "", err
		}
		return got.ResourceVersion, nil
	}
	p.done = map[bool]string{true: "cordoned " + ref.String() + ": no new pod is scheduled on it (the pods running there stay)",
		false: "uncordoned " + ref.String() + ": pods may be scheduled on it again"}[want]
	return nil, nil
}
