package apply

import (
	"embed"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
)

// templates holds one starting YAML per common kind, named after the
// kind's resource (configmaps.yaml); "{{.Namespace}}" in it stands for the
// namespace the object goes to.
//
//go:embed templates/*.yaml
var templates embed.FS

// templateGroups is the API group each embedded template is written for:
// a resource of the same name in another group (a CRD's "jobs") gets the
// generic skeleton instead.
var templateGroups = map[string]string{
	"configmaps": "", "secrets": "", "services": "", "namespaces": "", "serviceaccounts": "",
	"persistentvolumeclaims": "", "deployments": "apps", "statefulsets": "apps", "daemonsets": "apps",
	"jobs": "batch", "cronjobs": "batch", "ingresses": "networking.k8s.io", "poddisruptionbudgets": "policy",
}

// namespaceMark is what an embedded template writes for the namespace.
const namespaceMark = "{{.Namespace}}"

// Template returns the YAML a new object of resource gvr (kind gvk, as the
// API server's discovery maps it) starts from, for a person to edit and
// apply (`:create`): the project's template for the common kinds
// (ConfigMap, Secret, Service, Deployment, StatefulSet, DaemonSet, Job,
// CronJob, Namespace, ServiceAccount, PersistentVolumeClaim, Ingress,
// PodDisruptionBudget), else a skeleton of apiVersion, kind and metadata
// with an empty spec (CRDs and every other kind). namespace is written
// into metadata.namespace when the kind is namespaced, and left out when
// it is not. Errors: a namespaced kind with a namespace that is not a
// DNS-1123 label (Kubernetes' rule for namespace names).
func Template(gvr schema.GroupVersionResource, gvk schema.GroupVersionKind, namespaced bool, namespace string) (string, error) {
	if namespaced {
		if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
			return "", fmt.Errorf("namespace %q: %s", namespace, strings.Join(errs, "; "))
		}
	}
	if group, ok := templateGroups[gvr.Resource]; ok && group == gvr.Group {
		b, err := templates.ReadFile("templates/" + gvr.Resource + ".yaml")
		if err != nil {
			return "", fmt.Errorf("the template of %s: %w", gvr.Resource, err)
		}
		return strings.ReplaceAll(string(b), namespaceMark, namespace), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: %s\nkind: %s\nmetadata:\n  name: my-%s\n", gvk.GroupVersion().String(), gvk.Kind, strings.ToLower(gvk.Kind))
	if namespaced {
		fmt.Fprintf(&b, "  namespace: %s\n", namespace)
	}
	fmt.Fprintf(&b, "# The fields of a %s: `kubectl explain %s` lists them (a CRD's schema, for custom resources).\nspec: {}\n", gvk.Kind, gvr.GroupResource().String())
	return b.String(), nil
}
