package oracle

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// Subject is one kind under test: kyyard's plugin, a generator of its objects
// and hand-written corner cases.
type Subject struct {
	// ID is the plugin's kind ID in kinds.Builtin().
	ID kube.Kind
	// Plugin is kyyard's plugin for the kind.
	Plugin kube.Plugin
	// Gen draws one object (a v1 typed pointer) from g.
	Gen func(g *gen) runtime.Object
	// Corners returns the hand-written cases; nil when the kind has none
	// beyond the generated ones.
	Corners func(g *gen) []runtime.Object
}

// Untested names the built-in plugins that have no Kubernetes printer to
// compare with, and why.
var Untested = map[kube.Kind]string{
	"containers": "a kyyard view of a pod's containers; Kubernetes prints no such table",
}

// Subjects returns every built-in kind that has a printer in Kubernetes, in
// kinds.Builtin()'s order. A kind missing from both this list and Untested
// is a test failure (see TestEveryBuiltinKind).
func Subjects() []Subject {
	gens := map[kube.Kind]Subject{
		"pods":                     {Gen: genPod, Corners: podCorners},
		"deployments":              {Gen: genDeployment},
		"nodes":                    {Gen: genNode, Corners: nodeCorners},
		"namespaces":               {Gen: genNamespace},
		"replicasets":              {Gen: genReplicaSet},
		"statefulsets":             {Gen: genStatefulSet},
		"daemonsets":               {Gen: genDaemonSet},
		"jobs":                     {Gen: genJob, Corners: jobCorners},
		"cronjobs":                 {Gen: genCronJob},
		"horizontalpodautoscalers": {Gen: genHPA},
		"poddisruptionbudgets":     {Gen: genPDB},
		"services":                 {Gen: genService},
		"endpointslices":           {Gen: genEndpointSlice, Corners: endpointSliceCorners},
		"ingresses":                {Gen: genIngress},
		"networkpolicies":          {Gen: genNetworkPolicy},
		"configmaps":               {Gen: genConfigMap},
		"secrets":                  {Gen: genSecret},
		"serviceaccounts":          {Gen: genServiceAccount},
		"persistentvolumeclaims":   {Gen: genPVC},
		"persistentvolumes":        {Gen: genPV},
		"storageclasses":           {Gen: genStorageClass},
		"events":                   {Gen: genEvent},
		"roles":                    {Gen: genRole},
		"clusterroles":             {Gen: genClusterRole},
		"rolebindings":             {Gen: genRoleBinding},
		"clusterrolebindings":      {Gen: genClusterRoleBinding},
	}
	var out []Subject
	reg := kinds.Builtin()
	for _, info := range reg.Kinds() {
		s, ok := gens[info.ID]
		if !ok {
			continue
		}
		s.ID = info.ID
		s.Plugin, _ = reg.Lookup(string(info.ID))
		out = append(out, s)
	}
	return out
}
