package kube

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// DefaultManifestName is the ServiceAccount's name when ManifestOptions.Name
// is empty.
const DefaultManifestName = "kyyard"

// ErrInvalidManifest is wrapped by Manifest's and TokenSecretName's errors
// about their options.
var ErrInvalidManifest = errors.New("invalid manifest options")

// ManifestOptions say whom `kyyard manifest` gives access, and to what.
type ManifestOptions struct {
	// Name is the ServiceAccount's name (DefaultManifestName when empty);
	// it also names the Roles, the bindings and the token Secret.
	Name string
	// Namespaces are the namespaces granted, the ServiceAccount and its
	// token Secret living in the first. At least one; no duplicates.
	Namespaces []string
	// ReadOnly grants browsing only (AccessRules(reg, true)).
	ReadOnly bool
	// Apply grants `kyyard apply` too: ApplyRules, patch and create of
	// every kind of the registry. Not with ReadOnly.
	Apply bool
	// AllNamespaces grants the namespaced rules in every namespace and the
	// cluster-scoped kinds with one ClusterRole instead of a Role per
	// namespace.
	AllNamespaces bool
}

// TokenSecretName is the name of the ServiceAccount token Secret of the
// ServiceAccount name: "<name>-token".
func TokenSecretName(name string) string { return name + "-token" }

// ClusterObjectName names the manifest's cluster-scoped objects (the
// ClusterRoles and ClusterRoleBindings), which must not collide between
// two ServiceAccounts of the same name in different namespaces:
// "kyyard:<namespace>:<name>" (namespace is the ServiceAccount's).
func ClusterObjectName(namespace, name string) string {
	return "kyyard:" + namespace + ":" + name
}

// rules are the manifest's rules: AccessRules(reg, o.ReadOnly), then
// ApplyRules(reg) when o.Apply.
func (o *ManifestOptions) rules(reg *Registry) []AccessRule {
	out := AccessRules(reg, o.ReadOnly)
	if o.Apply {
		out = append(out, ApplyRules(reg)...)
	}
	return out
}

// manifestLabels mark every object of the manifest.
var manifestLabels = map[string]string{"app.kubernetes.io/managed-by": "kyyard-manifest", "app.kubernetes.io/name": "kyyard"}

// validate checks o and fills its default name. Errors wrap
// ErrInvalidManifest: a name or namespace that is not a DNS-1123 label (a
// ServiceAccount name may be a subdomain, but its token Secret's
// "-token" suffix and the ClusterRole name keep it simpler to require a
// label), no namespace, a namespace named twice.
func (o *ManifestOptions) validate() error {
	if o.Name == "" {
		o.Name = DefaultManifestName
	}
	if errs := validation.IsDNS1123Label(o.Name); len(errs) > 0 {
		return fmt.Errorf("%w: --name %q: %s", ErrInvalidManifest, o.Name, strings.Join(errs, "; "))
	}
	if len(TokenSecretName(o.Name)) > validation.DNS1123SubdomainMaxLength {
		return fmt.Errorf("%w: --name %q is too long", ErrInvalidManifest, o.Name)
	}
	if o.ReadOnly && o.Apply {
		return fmt.Errorf("%w: --apply grants writes, --readonly none: choose one", ErrInvalidManifest)
	}
	if len(o.Namespaces) == 0 {
		return fmt.Errorf("%w: no namespace", ErrInvalidManifest)
	}
	seen := map[string]bool{}
	for _, ns := range o.Namespaces {
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return fmt.Errorf("%w: --namespace %q: %s", ErrInvalidManifest, ns, strings.Join(errs, "; "))
		}
		if seen[ns] {
			return fmt.Errorf("%w: --namespace %q is named twice", ErrInvalidManifest, ns)
		}
		seen[ns] = true
	}
	return nil
}

// Manifest returns the multi-document YAML an administrator applies
// (`kubectl apply -f`) to give a ServiceAccount least-privilege access for
// kyyard: the ServiceAccount o.Name and its token Secret (type
// kubernetes.io/service-account-token, annotation
// kubernetes.io/service-account.name; the token controller fills in its
// token and ca.crt) in the first namespace; a Role and a RoleBinding per
// namespace with the namespaced rules, and a ClusterRole and binding with
// the ScopeAlways and ScopeNamespaceObject rules (the latter limited to the
// namespaces by resourceNames); or, with o.AllNamespaces, one ClusterRole
// and ClusterRoleBinding with every rule. The rules are AccessRules(reg,
// o.ReadOnly), and ApplyRules(reg) with o.Apply. Errors wrap
// ErrInvalidManifest.
func Manifest(reg *Registry, o ManifestOptions) ([]byte, error) {
	objs, err := manifestObjects(reg, o)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	mode := "full"
	if o.Apply {
		mode = "full (with kyyard apply)"
	}
	if o.ReadOnly {
		mode = "read-only"
	}
	scope := "namespaces " + strings.Join(o.Namespaces, ", ")
	if o.AllNamespaces {
		scope = "all namespaces"
	}
	fmt.Fprintf(&b, "# kyyard manifest: %s access for ServiceAccount %s/%s in %s.\n", mode, o.Namespaces[0], o.nameOrDefault(), scope)
	fmt.Fprintf(&b, "# Apply with kubectl apply -f; then: kyyard manifest --kubeconfig-for %s -n %s > kyyard.kubeconfig\n", o.nameOrDefault(), o.Namespaces[0])
	b.WriteString("# The rules, and what needs them:\n")
	for _, r := range o.rules(reg) {
		if r.Scope == ScopeCluster && !o.AllNamespaces {
			continue
		}
		group := r.Group
		if group == "" {
			group = "core"
		}
		what := group + " " + strings.Join(r.Resources, ",")
		if r.Scope == ScopeNamespaceObject && !o.AllNamespaces {
			what += " (named " + strings.Join(o.Namespaces, ",") + ")"
		}
		fmt.Fprintf(&b, "#   %s %s: %s (%s)\n", strings.Join(r.Verbs, ","), what, r.Feature, r.Source)
	}
	if !o.AllNamespaces {
		b.WriteString("# Cluster-scoped kinds (nodes, the namespace list, persistentvolumes, storageclasses, clusterroles)\n" +
			"# need --all-namespaces: without it kyyard shows them as forbidden and asks for namespaces by name.\n")
	}
	for _, obj := range objs {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, err
		}
		if meta, ok := u["metadata"].(map[string]any); ok {
			delete(meta, "creationTimestamp")
		}
		out, err := yaml.Marshal(u)
		if err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(out)
	}
	return b.Bytes(), nil
}

// nameOrDefault is Name, or DefaultManifestName when empty.
func (o ManifestOptions) nameOrDefault() string {
	if o.Name == "" {
		return DefaultManifestName
	}
	return o.Name
}

// manifestObjects builds Manifest's objects, in apply order.
func manifestObjects(reg *Registry, o ManifestOptions) ([]runtime.Object, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	home, name := o.Namespaces[0], o.Name
	meta := func(n, ns string) metav1.ObjectMeta {
		labels := map[string]string{}
		for k, v := range manifestLabels {
			labels[k] = v
		}
		return metav1.ObjectMeta{Name: n, Namespace: ns, Labels: labels}
	}
	sa := &corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: meta(name, home)}
	token := &corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: meta(TokenSecretName(name), home),
		Type: corev1.SecretTypeServiceAccountToken}
	token.Annotations = map[string]string{corev1.ServiceAccountNameKey: name}
	objs := []runtime.Object{sa, token}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: home}}
	rbacType := func(kind string) metav1.TypeMeta {
		return metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: kind}
	}
	clusterName := ClusterObjectName(home, name)
	var namespaced, cluster []rbacv1.PolicyRule
	for _, r := range o.rules(reg) {
		pr := rbacv1.PolicyRule{APIGroups: []string{r.Group}, Resources: r.Resources, Verbs: r.Verbs}
		switch {
		case r.Scope == ScopeNamespace && !o.AllNamespaces:
			namespaced = append(namespaced, pr)
		case r.Scope == ScopeCluster && !o.AllNamespaces:
			// Not grantable without a ClusterRole: see ScopeCluster.
		case r.Scope == ScopeNamespaceObject && !o.AllNamespaces:
			pr.ResourceNames = append([]string(nil), o.Namespaces...)
			cluster = append(cluster, pr)
		default:
			cluster = append(cluster, pr)
		}
	}
	cr := &rbacv1.ClusterRole{TypeMeta: rbacType("ClusterRole"), ObjectMeta: meta(clusterName, ""), Rules: cluster}
	crb := &rbacv1.ClusterRoleBinding{TypeMeta: rbacType("ClusterRoleBinding"), ObjectMeta: meta(clusterName, ""), Subjects: subject,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterName}}
	objs = append(objs, cr, crb)
	if o.AllNamespaces {
		return objs, nil
	}
	for _, ns := range o.Namespaces {
		role := &rbacv1.Role{TypeMeta: rbacType("Role"), ObjectMeta: meta(name, ns), Rules: namespaced}
		rb := &rbacv1.RoleBinding{TypeMeta: rbacType("RoleBinding"), ObjectMeta: meta(name, ns), Subjects: subject,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}}
		objs = append(objs, role, rb)
	}
	return objs, nil
}
