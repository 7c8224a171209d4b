package kinds

import (
	"context"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// Nodes serves nodes: NAME STATUS ROLES AGE VERSION, and with -o wide
// INTERNAL-IP EXTERNAL-IP OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME.
type Nodes struct{}

// Info describes nodes.
func (Nodes) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "nodes", Version: "v1", Resource: "nodes",
		Capabilities: vocab.CanDelete | vocab.CanCordon,
		Aliases:      []string{"node", "no"},
		Columns: []vocab.Column{
			{Name: "NAME"}, {Name: "STATUS"}, {Name: "ROLES"}, {Name: "AGE"}, {Name: "VERSION"},
			{Name: "INTERNAL-IP", Wide: true}, {Name: "EXTERNAL-IP", Wide: true}, {Name: "OS-IMAGE", Wide: true},
			{Name: "KERNEL-VERSION", Wide: true}, {Name: "CONTAINER-RUNTIME", Wide: true},
		},
		DrillDown: "pods",
	}
}

// List lists nodes as *corev1.Node; namespace is ignored.
func (Nodes) List(ctx context.Context, cs kubernetes.Interface, _ string, sel vocab.Selector) ([]any, error) {
	list, err := cs.CoreV1().Nodes().List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *corev1.Node into its row (NodeRow).
func (Nodes) Row(obj any) (vocab.Row, bool) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return vocab.Row{}, false
	}
	return NodeRow(n), true
}

// DrillSelector selects the pods bound to the node (spec.nodeName).
func (Nodes) DrillSelector(obj any) (vocab.Selector, bool) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return vocab.Selector{}, false
	}
	return vocab.Selector{Fields: "spec.nodeName=" + n.Name}, true
}

// NodeRow turns a Node into its row (kubectl's printNode): STATUS is Ready,
// NotReady or Unknown from the Ready condition, plus SchedulingDisabled when
// cordoned; ROLES come from node-role.kubernetes.io/<role> labels and the
// kubernetes.io/role label.
func NodeRow(n *corev1.Node) vocab.Row {
	status := []string{}
	health := vocab.HealthFailed
	// kubectl's printNode keys the conditions by type in a map, so of
	// repeated Ready conditions the last one counts, and it prints one word.
	var ready *corev1.NodeCondition
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeReady {
			ready = &n.Status.Conditions[i]
		}
	}
	switch {
	case ready == nil:
	case ready.Status == corev1.ConditionTrue:
		status = append(status, "Ready")
		health = vocab.HealthOK
	default:
		status = append(status, "NotReady")
	}
	if len(status) == 0 {
		status = append(status, "Unknown")
	}
	if n.Spec.Unschedulable {
		status = append(status, "SchedulingDisabled")
		if health == vocab.HealthOK {
			health = vocab.HealthWarning
		}
	}
	roles := nodeRoles(n)
	info := n.Status.NodeInfo
	kernel := orUnknownValue(info.KernelVersion)
	if info.Architecture != "" {
		kernel += " (" + info.Architecture + ")"
	}
	text := strings.Join(status, ",")
	row := identity(&n.ObjectMeta)
	row.Status, row.Health = text, health
	row.Resources = nodeResources(n)
	row.Cells = []vocab.Cell{
		vocab.Text(n.Name), vocab.Text(text), vocab.Text(roles), vocab.Age(n.CreationTimestamp.Time),
		vocab.Text(info.KubeletVersion),
		vocab.Text(nodeAddress(n, corev1.NodeInternalIP)), vocab.Text(nodeAddress(n, corev1.NodeExternalIP)),
		vocab.Text(orUnknownValue(info.OSImage)), vocab.Text(kernel), vocab.Text(orUnknownValue(info.ContainerRuntimeVersion)),
	}
	return row
}

func nodeRoles(n *corev1.Node) string {
	const prefix = "node-role.kubernetes.io/"
	set := map[string]bool{}
	for k, v := range n.Labels {
		switch {
		case strings.HasPrefix(k, prefix):
			if role := strings.TrimPrefix(k, prefix); role != "" {
				set[role] = true
			}
		case k == "kubernetes.io/role" && v != "":
			set[v] = true
		}
	}
	if len(set) == 0 {
		return "<none>"
	}
	roles := make([]string, 0, len(set))
	for r := range set {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	return strings.Join(roles, ",")
}

func nodeAddress(n *corev1.Node, t corev1.NodeAddressType) string {
	for _, a := range n.Status.Addresses {
		if a.Type == t {
			return a.Address
		}
	}
	return "<none>"
}

func orUnknownValue(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}
