package kube

import (
	"slices"
	"sort"
)

// AccessScope is where an AccessRule's grant lives in the manifest.
type AccessScope string

// Access scopes.
const (
	// ScopeNamespace rules are granted in each namespace the manifest
	// names (a Role and a RoleBinding per namespace), or in every
	// namespace with --all-namespaces (the ClusterRole).
	ScopeNamespace AccessScope = "namespace"
	// ScopeCluster rules name cluster-scoped resources (nodes, the list of
	// namespaces, PersistentVolumes, ClusterRoles): RBAC can grant them only
	// with a ClusterRole, so the manifest grants them only with
	// --all-namespaces. Without them kyyard degrades as it does for any
	// forbidden kind: the kind's screen says it is forbidden, the namespace
	// picker (ctrl+n) asks for a typed name, and the header's node count is
	// unknown.
	ScopeCluster AccessScope = "cluster"
	// ScopeNamespaceObject is get of the Namespace objects the manifest
	// names (their Pod Security labels): in namespaced mode a ClusterRole
	// rule limited to those names (resourceNames), with --all-namespaces
	// part of the cluster-wide read.
	ScopeNamespaceObject AccessScope = "namespace-object"
	// ScopeAlways rules are cluster-scoped requests every user makes
	// (SelfSubjectAccessReview, SelfSubjectReview): a small ClusterRole in
	// both modes. Kubernetes' default system:basic-user role grants them to
	// every authenticated user already; the manifest names them so that a
	// cluster without that binding still works.
	ScopeAlways AccessScope = "always"
)

// AccessRule is one rule of kyyard's least-privilege manifest (`kyyard
// manifest`): the verbs on the resources of one API group that one feature
// needs, and the file whose requests need them.
type AccessRule struct {
	// Feature names what needs the rule ("browse", "scale", "exec").
	Feature string
	// Source is the file (kube/…, or a library kyyard calls) that makes
	// the requests.
	Source string
	// Group is the API group ("" for the core group).
	Group string
	// Resources are resource names, a subresource after a slash
	// ("pods/log", "deployments/scale"), sorted.
	Resources []string
	// Verbs are RBAC verbs (get, list, watch, create, update, patch,
	// delete), sorted.
	Verbs []string
	// Scope is where the grant lives.
	Scope AccessScope
	// Write marks a rule only the full manifest grants; the read-only one
	// (--readonly) grants the others.
	Write bool
}

// readVerbs are the verbs of browsing.
var readVerbs = []string{"get", "list", "watch"}

// featureRules are the rules of every feature but browsing (whose kinds
// come from the Registry: BrowseRules). A request kube makes that no rule
// grants fails TestManifestCoversKubeRequests, which reads kube's source.
var featureRules = []AccessRule{
	// Reads beyond the browsed kinds, in the read-only manifest too.
	{Feature: "logs", Source: "kube/internal/logstream/logs.go (GetLogs)",
		Resources: []string{"pods/log"}, Verbs: []string{"get"}, Scope: ScopeNamespace},
	{Feature: "rollout of a StatefulSet or DaemonSet (revisions)", Source: "kube/internal/rollouts/sets.go",
		Group: "apps", Resources: []string{"controllerrevisions"}, Verbs: []string{"list"}, Scope: ScopeNamespace},
	{Feature: "describe a namespace (quotas and limit ranges)", Source: "k8s.io/kubectl/pkg/describe NamespaceDescriber, via kube/describe.go",
		Resources: []string{"limitranges", "resourcequotas"}, Verbs: []string{"list"}, Scope: ScopeNamespace},
	{Feature: "Pod Security guard, describe a namespace", Source: "kube/internal/guards Checker.PodSecurity, kube/internal/shells/exec.go, kube/internal/shells/debug.go",
		Resources: []string{"namespaces"}, Verbs: []string{"get"}, Scope: ScopeNamespaceObject},
	{Feature: "access reviews (every guard, the cache's watch check)", Source: "kube/internal/guards Checker.Access, kube/cache.go mayWatch",
		Group: "authorization.k8s.io", Resources: []string{"selfsubjectaccessreviews"}, Verbs: []string{"create"}, Scope: ScopeAlways},
	{Feature: "the header's user name", Source: "kube/facts.go",
		Group: "authentication.k8s.io", Resources: []string{"selfsubjectreviews"}, Verbs: []string{"create"}, Scope: ScopeAlways},
	// The metrics API (metrics-server, through the aggregation layer) is
	// polled, never watched: kube/internal/usage reads it with list, or
	// get for one pod or node (a describe view).
	{Feature: "CPU and memory of pods (metrics columns, trends, the workload form)", Source: "kube/internal/usage/metricsread.go (metrics.k8s.io)",
		Group: "metrics.k8s.io", Resources: []string{"pods"}, Verbs: []string{"get", "list"}, Scope: ScopeNamespace},
	{Feature: "CPU and memory of nodes (metrics columns, trends)", Source: "kube/internal/usage/metricsread.go (metrics.k8s.io)",
		Group: "metrics.k8s.io", Resources: []string{"nodes"}, Verbs: []string{"get", "list"}, Scope: ScopeCluster},

	// Writes: the full manifest only.
	{Feature: "restart, pause, resume, undo; the workload form's apply and dry run", Source: "kube/internal/actions/operatewrite.go patchOp, kube/internal/workloadform/workloadapply.go",
		Group: "apps", Resources: []string{"daemonsets", "deployments", "statefulsets"}, Verbs: []string{"patch"}, Scope: ScopeNamespace, Write: true},
	{Feature: "scale", Source: "kube/internal/actions/operatewrite.go (UpdateScale)",
		Group: "apps", Resources: []string{"deployments/scale", "statefulsets/scale"}, Verbs: []string{"update"}, Scope: ScopeNamespace, Write: true},
	// Delete of any kind: DeleteRules, from the registry.
	// A trigger creates a Job from the CronJob's template (its pods are the
	// Job controller's, not kyyard's: no create of pods); suspend and
	// unsuspend patch spec.suspend.
	{Feature: "trigger a CronJob", Source: "kube/internal/actions/operatecronjob.go createJob",
		Group: "batch", Resources: []string{"jobs"}, Verbs: []string{"create"}, Scope: ScopeNamespace, Write: true},
	{Feature: "suspend, unsuspend a CronJob", Source: "kube/internal/actions/operatewrite.go patchOp",
		Group: "batch", Resources: []string{"cronjobs"}, Verbs: []string{"patch"}, Scope: ScopeNamespace, Write: true},
	{Feature: "cordon, uncordon a Node", Source: "kube/internal/actions/operatenode.go prepareCordon",
		Resources: []string{"nodes"}, Verbs: []string{"patch"}, Scope: ScopeCluster, Write: true},
	{Feature: "drain a Node (its pods evicted)", Source: "kube/drain.go, kube/internal/drain/evict.go",
		Resources: []string{"pods/eviction"}, Verbs: []string{"create"}, Scope: ScopeNamespace, Write: true},
	// The WebSocket upgrade is an HTTP GET, which API servers before 1.31
	// (or without AuthorizePodWebsocketUpgradeCreatePermission, KEP-4006)
	// authorize as get; SPDY's POST and newer servers ask for create.
	{Feature: "shell (exec)", Source: "kube/internal/shells/exec.go, kube/internal/shells/execsession.go",
		Resources: []string{"pods/exec"}, Verbs: []string{"create", "get"}, Scope: ScopeNamespace, Write: true},
	{Feature: "port-forward", Source: "kube/internal/forwarding/portforwardstart.go, kube/internal/forwarding/portforwardconn.go",
		Resources: []string{"pods/portforward"}, Verbs: []string{"create", "get"}, Scope: ScopeNamespace, Write: true},
	{Feature: "debug container", Source: "kube/internal/shells/debug.go (ephemeralcontainers patch)",
		Resources: []string{"pods/ephemeralcontainers"}, Verbs: []string{"patch"}, Scope: ScopeNamespace, Write: true},
	{Feature: "debug container (attach)", Source: "kube/internal/shells/debug.go, kube/internal/shells/debugattach.go",
		Resources: []string{"pods/attach"}, Verbs: []string{"create", "get"}, Scope: ScopeNamespace, Write: true},
	// Deploy and Remove (issue 11; kube/internal/release/deploy*.go and
	// remove.go, first written on branch deploy): deployAccess reviews
	// get, list, create and update of every kind a deploy writes (Secrets always: the instance record) and
	// list of the five kinds (prune finds the instance's objects by label);
	// prepareDeploy and Remove review delete of the kinds they delete,
	// never of claims (prune, restore and Remove keep them). RBAC cannot
	// limit create (or list) by name, so get, list and update of Secrets
	// in the namespace come with it: the full manifest lets its user read
	// the namespace's Secrets, as Kubernetes' edit role does.
	{Feature: "deploy, remove (Deployments)", Source: "kube/internal/release/deploy*.go, kube/internal/release/remove.go",
		Group: "apps", Resources: []string{"deployments"}, Verbs: []string{"create", "delete", "get", "list", "update"}, Scope: ScopeNamespace, Write: true},
	{Feature: "deploy, remove (Services, ConfigMaps, Secrets: the service's and the instance record)", Source: "kube/internal/release/deploy*.go, kube/internal/release/remove.go",
		Resources: []string{"configmaps", "secrets", "services"}, Verbs: []string{"create", "delete", "get", "list", "update"}, Scope: ScopeNamespace, Write: true},
	{Feature: "the secrets view", Source: "kube/kinds/config.go, kube/cache.go",
		Resources: []string{"secrets"}, Verbs: []string{"watch"}, Scope: ScopeNamespace, Write: true},
	// deployAccess reviews update of claims too, though an existing claim
	// is kept as it is: without update the deploy is refused forbidden.
	{Feature: "deploy (claims; never deleted)", Source: "kube/internal/release/deploy*.go",
		Resources: []string{"persistentvolumeclaims"}, Verbs: []string{"create", "get", "list", "update"}, Scope: ScopeNamespace, Write: true},
}

// noBrowse lists the browsed resources the read-only manifest must not
// read: listing Secrets returns their data, so the secrets view (and the
// YAML and describe of a Secret) says "forbidden" under it, which kyyard
// shows as it shows any kind it may not read.
var noBrowse = map[string]bool{"/secrets": true}

// BrowseRules derives the reads of browsing from reg: get, list and watch
// of each kind's resource (a kind that is part of another, a pod's
// containers, reads that kind's resource), namespaced kinds in the
// namespaces, cluster-scoped kinds cluster-wide (--all-namespaces), plus
// core events (the events view and the rollout's failure reasons) even
// when reg has no events plugin. Secrets are left out (noBrowse). One
// rule per API group and scope, resources sorted.
func BrowseRules(reg *Registry) []AccessRule {
	type key struct {
		group string
		scope AccessScope
	}
	byKey := map[key]map[string]bool{{"", ScopeNamespace}: {"events": true}}
	if reg != nil {
		for _, info := range reg.Kinds() {
			if info.Resource == "" || noBrowse[info.Group+"/"+info.Resource] {
				continue
			}
			k := key{info.Group, ScopeNamespace}
			if !info.Namespaced {
				k.scope = ScopeCluster
			}
			if byKey[k] == nil {
				byKey[k] = map[string]bool{}
			}
			byKey[k][info.Resource] = true
		}
	}
	var out []AccessRule
	for k, set := range byKey {
		res := make([]string, 0, len(set))
		for r := range set {
			res = append(res, r)
		}
		sort.Strings(res)
		out = append(out, AccessRule{Feature: "browse", Source: "kube/cache.go, kube/snapshot.go, the plugins of kube/kinds",
			Group: k.group, Resources: res, Verbs: slices.Clone(readVerbs), Scope: k.scope})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Scope != out[j].Scope {
			return out[i].Scope > out[j].Scope // namespace before cluster
		}
		return out[i].Group < out[j].Group
	})
	return out
}

// DeleteRules are the rules of delete (ctrl+d): delete of every kind of
// reg whose plugin declares CanDelete, one rule per API group and scope
// (cluster-scoped kinds apart), all write rules. A pod or a workload is
// deleted through the typed clients, any other kind through the metadata
// client; the fresh read before it is browsing's get (a Secret's, the
// deploy rule's).
func DeleteRules(reg *Registry) []AccessRule {
	return kindRules(reg, func(info KindInfo) bool { return info.Capabilities.Has(CanDelete) },
		AccessRule{Feature: "delete", Source: "kube/internal/actions/operatewrite.go (pods, workloads), kube/internal/actions/anykind.go (any other kind)",
			Verbs: []string{"delete"}, Write: true})
}

// ApplyRules are the rules of server-side apply from YAML (`kyyard apply`,
// ApplyManifests): patch and create of every kind of reg that has a
// resource, one rule per API group and scope, all write rules. The API
// server authorizes an apply as patch, and an apply that makes a new
// object as create too (the apiserver's create-on-update check), so both
// are granted; the live read before it is browsing's get. A kind the
// registry does not know (a CRD installed after the manifest was made) is
// not granted: the access review refuses it with the server's answer.
// They give create and patch of Pods, RBAC objects and every other kind,
// which a least-privilege grant should not carry unasked: the manifest
// adds them only with ManifestOptions.Apply (`kyyard manifest --apply`).
func ApplyRules(reg *Registry) []AccessRule {
	return kindRules(reg, func(KindInfo) bool { return true },
		AccessRule{Feature: "server-side apply", Source: "kube/internal/apply/plan.go (dynamic client, apply patch)",
			Verbs: []string{"create", "patch"}, Write: true})
}

// kindRules is rule for every kind of reg with a resource that keep
// keeps, one copy per API group and scope (namespaced first, then by
// group), each with that group's resources sorted.
func kindRules(reg *Registry, keep func(KindInfo) bool, rule AccessRule) []AccessRule {
	type key struct {
		group string
		scope AccessScope
	}
	byKey := map[key][]string{}
	if reg != nil {
		for _, info := range reg.Kinds() {
			if info.Resource == "" || !keep(info) {
				continue
			}
			k := key{info.Group, ScopeNamespace}
			if !info.Namespaced {
				k.scope = ScopeCluster
			}
			byKey[k] = append(byKey[k], info.Resource)
		}
	}
	var out []AccessRule
	for k, res := range byKey {
		sort.Strings(res)
		r := rule
		r.Group, r.Resources, r.Verbs, r.Scope = k.group, slices.Compact(res), slices.Clone(rule.Verbs), k.scope
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Scope != out[j].Scope {
			return out[i].Scope > out[j].Scope // namespace before cluster
		}
		return out[i].Group < out[j].Group
	})
	return out
}

// AccessRules returns the rules of the manifest: BrowseRules(reg), then
// every feature's rule and DeleteRules(reg); readOnly drops the write
// rules. ApplyRules are not among them: the manifest grants them only
// when asked (ManifestOptions.Apply).
func AccessRules(reg *Registry, readOnly bool) []AccessRule {
	out := BrowseRules(reg)
	if !readOnly {
		out = append(out, DeleteRules(reg)...)
	}
	for _, r := range featureRules {
		if readOnly && r.Write {
			continue
		}
		r.Resources, r.Verbs = slices.Clone(r.Resources), slices.Clone(r.Verbs)
		out = append(out, r)
	}
	return out
}

// AccessRequest is one request kyyard makes, as RBAC sees it.
type AccessRequest struct {
	Verb, Group, Resource, Subresource string
}

// String is "verb group/resource/subresource" ("patch apps/deployments",
// "get /pods/log").
func (a AccessRequest) String() string {
	s := a.Verb + " " + a.Group + "/" + a.Resource
	if a.Subresource != "" {
		s += "/" + a.Subresource
	}
	return s
}

// Grants reports whether a rule among rules grants a, anywhere (the
// namespace is not compared: the manifest grants namespaced rules in every
// namespace it names). A resource "pods/log" grants only that subresource,
// "pods" only the object, as in RBAC.
func Grants(rules []AccessRule, a AccessRequest) bool {
	res := a.Resource
	if a.Subresource != "" {
		res += "/" + a.Subresource
	}
	for _, r := range rules {
		if r.Group == a.Group && slices.Contains(r.Resources, res) && slices.Contains(r.Verbs, a.Verb) {
			return true
		}
	}
	return false
}
