package guards

// The guards of a delete of any kind: what holds the object after its delete
// is accepted (finalizers), what the delete takes with it (dependents, a
// Namespace's or a CustomResourceDefinition's contents).

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kyyard/kyyard/kube/vocab"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// knownFinalizers are the finalizers Kubernetes' own components set, with
// who removes each and when (the controllers of kube-controller-manager,
// kube-apiserver's apiextensions controller; Kubernetes documentation,
// "Finalizers" and "Garbage Collection").
var knownFinalizers = map[string]string{
	"kubernetes.io/pvc-protection": "kube-controller-manager's PVC protection controller, once no Pod uses the claim",
	"kubernetes.io/pv-protection":  "kube-controller-manager's PV protection controller, once no claim is bound to the volume",
	"foregroundDeletion":           "the garbage collector, once the dependents that block their owner's deletion are gone",
	"orphan":                       "the garbage collector, once it has orphaned the dependents",
	"kubernetes":                   "the namespace controller, once every object in the namespace is deleted",
	"customresourcecleanup.apiextensions.k8s.io":  "kube-apiserver's CRD cleanup, once every custom resource of the definition is deleted",
	"batch.kubernetes.io/job-tracking":            "the Job controller, once it has counted the pod",
	"service.kubernetes.io/load-balancer-cleanup": "the service controller (cloud-controller-manager), once the cloud load balancer is deleted",
	"kubernetes.io/legacy-token-invalidation":     "kube-controller-manager's token cleaner",
}

// FinalizerManagers returns, per finalizer of meta, the field managers
// that own it in meta.managedFields (the manager that added it: a
// controller's name, "kubectl-edit", "kyyard"), sorted; a finalizer no
// entry names is left out. An entry whose FieldsV1 does not parse is
// skipped.
func FinalizerManagers(meta *metav1.ObjectMeta) map[string][]string {
	out := map[string][]string{}
	for _, mf := range meta.ManagedFields {
		if mf.FieldsV1 == nil {
			continue
		}
		var fields struct {
			Metadata struct {
				Finalizers map[string]json.RawMessage `json:"f:finalizers"`
			} `json:"f:metadata"`
		}
		if json.Unmarshal(mf.FieldsV1.Raw, &fields) != nil {
			continue
		}
		for key := range fields.Metadata.Finalizers {
			// A set's member is keyed v:<its JSON value>: v:"example.com/x".
			v, ok := strings.CutPrefix(key, "v:")
			if !ok {
				continue
			}
			name, err := strconv.Unquote(v)
			if err != nil {
				continue
			}
			out[name] = append(out[name], mf.Manager)
		}
	}
	for name := range out {
		sort.Strings(out[name])
	}
	return out
}

// Finalizers is the delete's verdict on meta's finalizers: a pass that says
// nothing holds it, or a pass that names each finalizer and who removes it
// (the manager that added it, from managedFields; for Kubernetes' own
// finalizers, the component and when), and that the object stays, marked
// for deletion, until all are removed. It never refuses: a finalizer is how
// a controller cleans up, and kubectl deletes such objects alike.
func Finalizers(meta *metav1.ObjectMeta) vocab.Verdict {
	v := vocab.Verdict{Guard: vocab.GuardFinalizers, Outcome: vocab.OutcomePass}
	if len(meta.Finalizers) == 0 {
		v.Sentence = "no finalizers hold it"
		return v
	}
	managers := FinalizerManagers(meta)
	var parts []string
	for _, f := range meta.Finalizers {
		who := knownFinalizers[f]
		switch by := managers[f]; {
		case who != "" && len(by) > 0:
			who += "; added by " + strings.Join(by, ", ")
		case who == "" && len(by) > 0:
			who = "added by " + strings.Join(by, ", ") + ", which must remove it"
		case who == "":
			who = "no field manager names it: if no controller removes it, it holds the object until removed by hand"
		}
		parts = append(parts, f+" ("+who+")")
	}
	v.Sentence = fmt.Sprintf("it stays, marked for deletion, until %s removed: %s",
		map[bool]string{true: "its finalizer is", false: "its finalizers are"}[len(parts) == 1], strings.Join(parts, "; "))
	return v
}

// Dependents is the delete's verdict on what it takes with it: counts are
// the objects, by kind, that name the object in their ownerReferences (the
// garbage collector deletes them with Background propagation), seen is the
// kinds they were looked for in (those read so far), and controller is the
// object's own controller owner ("replicasets/web-5d4f", "" when none),
// which may make it again. A pass: deleting dependents with their owner is
// what the owner is for.
func Dependents(counts map[vocab.Kind]int, seen []vocab.Kind, controller string) vocab.Verdict {
	v := vocab.Verdict{Guard: vocab.GuardDependents, Outcome: vocab.OutcomePass}
	var parts []string
	kinds := make([]vocab.Kind, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i] < kinds[j] })
	for _, k := range kinds {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
		}
	}
	var where string
	if len(seen) > 0 {
		names := make([]string, len(seen))
		for i, k := range seen {
			names[i] = string(k)
		}
		sort.Strings(names)
		where = " (looked for in the kinds read so far: " + strings.Join(names, ", ") + ")"
	}
	switch {
	case len(parts) > 0:
		v.Sentence = "the garbage collector deletes with it what it owns: " + strings.Join(parts, ", ") + where
	case len(seen) == 0:
		v.Sentence = "what it owns is not known (no kind has been read yet); the garbage collector deletes it with it"
	default:
		v.Sentence = "it owns nothing" + where
	}
	if controller != "" {
		v.Sentence += "; its controller " + controller + " may make it again"
	}
	return v
}

// ContentsDeleted warns (strict: refuses) that deleting a Namespace
// deletes every object in it (the namespace controller), and deleting a
// CustomResourceDefinition every custom resource of it (the API server's
// customresourcecleanup finalizer); the person confirms by typing name.
// kind is the plugin id ("namespaces", "customresourcedefinitions").
func (g *Checker) ContentsDeleted(kind vocab.Kind, name string) vocab.Verdict {
	s := "deleting namespace " + name + " deletes every object in it"
	if kind != vocab.KindNamespaces {
		s = "deleting the definition " + name + " deletes every custom resource of it in every namespace"
	}
	return g.Warn(vocab.Verdict{Guard: vocab.GuardDependents, Reason: vocab.ReasonContentsDeleted, Confirm: name, Sentence: s})
}
