package kube_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// TestManifestApplyOption: --apply adds the rules of kyyard apply to the
// printed manifest, and is refused with --readonly.
func TestManifestApplyOption(t *testing.T) {
	reg := kinds.Builtin()
	b, err := kube.Manifest(reg, kube.ManifestOptions{Namespaces: []string{"team-a"}, Apply: true})
	if err != nil || !bytes.Contains(b, []byte("server-side apply")) || !bytes.Contains(b, []byte("full (with kyyard apply)")) {
		t.Fatalf("--apply: %v\n%s", err, b)
	}
	plain, err := kube.Manifest(reg, kube.ManifestOptions{Namespaces: []string{"team-a"}})
	if err != nil || bytes.Contains(plain, []byte("server-side apply")) {
		t.Fatalf("without --apply: %v", err)
	}
	if _, err := kube.Manifest(reg, kube.ManifestOptions{Namespaces: []string{"team-a"}, Apply: true, ReadOnly: true}); !errors.Is(err, kube.ErrInvalidManifest) {
		t.Fatalf("--apply --readonly: %v", err)
	}
}

// applyRequests are the access reviews a server-side apply's plan
// (kube/internal/apply/plan.go, computed from each document's resource)
// can make for the built-in kinds: patch of every kind, and create when
// the object is new.
func applyRequests() []kube.AccessRequest {
	var out []kube.AccessRequest
	for _, info := range kinds.Builtin().Kinds() {
		if info.Resource == "" {
			continue
		}
		for _, verb := range []string{"patch", "create"} {
			out = append(out, kube.AccessRequest{Verb: verb, Group: info.Group, Resource: info.Resource})
		}
	}
	return out
}

// TestManifestCoversApply: every access review a server-side apply of a
// built-in kind makes is granted by the full manifest with ApplyRules (the
// manifest's --apply), by neither the full one without them nor a
// read-only one, and the scope follows the kind's (a Node's rule is
// cluster-wide).
func TestManifestCoversApply(t *testing.T) {
	reg := kinds.Builtin()
	plain, ro := kube.AccessRules(reg, false), kube.AccessRules(reg, true)
	full := append(kube.AccessRules(reg, false), kube.ApplyRules(reg)...)
	for _, req := range []kube.AccessRequest{{Verb: "patch", Resource: "configmaps"}, {Verb: "create", Resource: "pods"},
		{Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}} {
		if kube.Grants(plain, req) {
			t.Errorf("the full manifest without --apply grants %s", req)
		}
	}
	reqs := applyRequests()
	if len(reqs) < 20 {
		t.Fatalf("only %d apply requests: the registry lost its kinds", len(reqs))
	}
	for _, req := range reqs {
		if !kube.Grants(full, req) {
			t.Errorf("server-side apply needs %s: not granted", req)
		}
		if kube.Grants(ro, req) {
			t.Errorf("the read-only manifest grants %s", req)
		}
	}
	scopes := map[string]kube.AccessScope{}
	for _, r := range kube.ApplyRules(reg) {
		for _, res := range r.Resources {
			scopes[res] = r.Scope
		}
	}
	if scopes["nodes"] != kube.ScopeCluster || scopes["configmaps"] != kube.ScopeNamespace {
		t.Errorf("scopes: nodes %v, configmaps %v; want cluster, namespace", scopes["nodes"], scopes["configmaps"])
	}
}

// TestManifestCoversYAMLEdit: the one access review of a YAML edit
// (kube/internal/objedit, editAccess: patch of the object's resource,
// computed from the kind edited) is granted for every built-in kind by the
// full manifest with ApplyRules (the manifest's --apply, whose rules patch
// every kind), never by a read-only manifest.
func TestManifestCoversYAMLEdit(t *testing.T) {
	reg := kinds.Builtin()
	full, ro := append(kube.AccessRules(reg, false), kube.ApplyRules(reg)...), kube.AccessRules(reg, true)
	n := 0
	for _, info := range reg.Kinds() {
		if info.Resource == "" {
			continue
		}
		n++
		req := kube.AccessRequest{Verb: "patch", Group: info.Group, Resource: info.Resource}
		if !kube.Grants(full, req) || kube.Grants(ro, req) {
			t.Errorf("YAML edit of %s: --apply manifest grants %v, read-only grants %v", info.ID, kube.Grants(full, req), kube.Grants(ro, req))
		}
	}
	if n < 10 {
		t.Fatalf("only %d kinds: the registry lost its kinds", n)
	}
}

// TestManifestCoversHelmRollback: a Helm rollback's reviews of its
// objects (PlanHelmRollback: patch of an object in both revisions, create
// of one only in the revision rolled back to, delete of one only in the
// current one, each of the object's own resource) are granted for every
// built-in kind by the full manifest with ApplyRules, as the YAML edit's;
// its reviews of Helm's storage (list, create, update Secrets) by the
// full manifest alone; none by the read-only manifest.
func TestManifestCoversHelmRollback(t *testing.T) {
	reg := kinds.Builtin()
	plain, ro := kube.AccessRules(reg, false), kube.AccessRules(reg, true)
	full := append(kube.AccessRules(reg, false), kube.ApplyRules(reg)...)
	for _, verb := range []string{"list", "create", "update"} {
		req := kube.AccessRequest{Verb: verb, Resource: "secrets"}
		if !kube.Grants(plain, req) || kube.Grants(ro, req) {
			t.Errorf("%s: full grants %v, read-only grants %v", req, kube.Grants(plain, req), kube.Grants(ro, req))
		}
	}
	n := 0
	for _, info := range reg.Kinds() {
		if info.PartOf != "" {
			continue
		}
		for _, verb := range []string{"patch", "create", "delete"} {
			req := kube.AccessRequest{Verb: verb, Group: info.Group, Resource: info.Resource}
			if !kube.Grants(full, req) {
				t.Errorf("a Helm rollback needs %s: not granted", req)
			}
			if kube.Grants(ro, req) {
				t.Errorf("the read-only manifest grants %s", req)
			}
			n++
		}
	}
	if n < 30 {
		t.Fatalf("only %d requests: the registry lost its kinds", n)
	}
}
