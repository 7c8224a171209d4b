// Package helm reads Helm releases from the Secrets Helm keeps them in
// (type helm.sh/release.v1, labels owner=helm, name=<release>,
// version=<revision>: Helm's "secret" storage driver, its default) and
// rolls one back, both with Helm's own Go SDK (helm.sh/helm/v4): the
// records are decoded by Helm's storage driver and the rollback is Helm's
// action.Rollback, so kyyard never re-implements Helm's format or its
// upgrade logic. It does not import package kube; kube's Client wires it
// (kube/helm.go). Helm never writes to the terminal: every logger it is
// given discards.
package helm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"

	"helm.sh/helm/v4/pkg/release"
	rspb "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/storage"
	"helm.sh/helm/v4/pkg/storage/driver"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/kyyard/kyyard/kube/vocab"
)

// ErrNoRelease is wrapped by the errors about a release or revision that
// is not there.
var ErrNoRelease = errors.New("no such Helm release")

// Reader reads releases through a clientset. Use NewReader.
type Reader struct {
	cs kubernetes.Interface
}

// NewReader returns a Reader over cs.
func NewReader(cs kubernetes.Interface) *Reader { return &Reader{cs: cs} }

// ctxSecrets is a Secrets client whose reads and writes carry ctx: Helm's
// driver passes context.Background(), and a read kyyard starts must end
// with its screen (or its timeout).
type ctxSecrets struct {
	typedcorev1.SecretInterface
	ctx context.Context
}

func (s ctxSecrets) Get(_ context.Context, name string, o metav1.GetOptions) (*corev1.Secret, error) {
	return s.SecretInterface.Get(s.ctx, name, o)
}

func (s ctxSecrets) List(_ context.Context, o metav1.ListOptions) (*corev1.SecretList, error) {
	return s.SecretInterface.List(s.ctx, o)
}

// store is Helm's storage of the releases in namespace ("" every
// namespace), read with ctx.
func (r *Reader) store(ctx context.Context, namespace string) *storage.Storage {
	d := driver.NewSecrets(ctxSecrets{SecretInterface: r.cs.CoreV1().Secrets(namespace), ctx: ctx})
	d.SetLogger(slog.DiscardHandler)
	s := storage.Init(d)
	s.SetLogger(slog.DiscardHandler)
	return s
}

// v1 is rel as Helm's v1 release record (the only kind its Secrets
// driver decodes).
func v1(rel any) (*rspb.Release, bool) {
	switch r := rel.(type) {
	case *rspb.Release:
		return r, r != nil
	case rspb.Release:
		return &r, true
	}
	return nil, false
}

// summary is rel's HelmRelease.
func summary(rel *rspb.Release) vocab.HelmRelease {
	out := vocab.HelmRelease{Namespace: rel.Namespace, Name: rel.Name, Revision: rel.Version}
	if rel.Info != nil {
		out.Updated, out.Status, out.Description = rel.Info.LastDeployed, string(rel.Info.Status), rel.Info.Description
	}
	if rel.Chart != nil && rel.Chart.Metadata != nil {
		out.Chart = rel.Chart.Metadata.Name + "-" + rel.Chart.Metadata.Version
		out.AppVersion = rel.Chart.Metadata.AppVersion
	}
	return out
}

// Releases returns the latest revision of every release in namespace
// ("" every namespace), as `helm list --all` does, by namespace then
// name. One list of the Secrets labelled owner=helm; only each release's
// latest record (by its version label) is decoded, so a release with a
// long history costs one decode; a record Helm cannot decode is left out
// (as Helm does). Errors: the list's (forbidden: the account may not list
// Secrets there), wrapped.
func (r *Reader) Releases(ctx context.Context, namespace string) ([]vocab.HelmRelease, error) {
	list, err := r.cs.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{LabelSelector: "owner=helm"})
	if err != nil {
		return nil, err
	}
	latest := map[[2]string]int{} // namespace, release -> index in list.Items
	version := func(s *corev1.Secret) int { n, _ := strconv.Atoi(s.Labels["version"]); return n }
	for i := range list.Items {
		s := &list.Items[i]
		if s.Type != releaseType || s.Labels["name"] == "" {
			continue
		}
		k := [2]string{s.Namespace, s.Labels["name"]}
		if j, ok := latest[k]; !ok || version(s) > version(&list.Items[j]) {
			latest[k] = i
		}
	}
	chosen := make([]corev1.Secret, 0, len(latest))
	for _, i := range latest {
		chosen = append(chosen, list.Items[i])
	}
	d := driver.NewSecrets(listed{items: chosen})
	d.SetLogger(slog.DiscardHandler)
	all, err := d.List(func(release.Releaser) bool { return true })
	if err != nil {
		return nil, unwrapList(err)
	}
	out := make([]vocab.HelmRelease, 0, len(all))
	for _, a := range all {
		if rel, ok := v1(a); ok {
			out = append(out, summary(rel))
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// releaseType is the type of the Secrets Helm's secret driver writes.
const releaseType corev1.SecretType = "helm.sh/release.v1"

// listed serves Helm's driver the Secrets already listed: its List
// returns them whatever it is asked (Releases picked them by label).
type listed struct {
	typedcorev1.SecretInterface
	items []corev1.Secret
}

func (l listed) List(context.Context, metav1.ListOptions) (*corev1.SecretList, error) {
	return &corev1.SecretList{Items: l.items}, nil
}

// unwrapList strips Helm's "list: failed to list: " from err, keeping
// the API server's error (and its reason) inside.
func unwrapList(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

// revisions are every revision of release name in namespace, newest
// first. Errors: the read's; none found (ErrNoRelease).
func (r *Reader) revisions(ctx context.Context, namespace, name string) ([]*rspb.Release, error) {
	got, err := r.store(ctx, namespace).Driver.Query(map[string]string{"name": name, "owner": "helm"})
	if errors.Is(err, driver.ErrReleaseNotFound) || (err == nil && len(got) == 0) {
		return nil, fmt.Errorf("%w: %s/%s", ErrNoRelease, namespace, name)
	}
	if err != nil {
		return nil, unwrapList(err)
	}
	out := make([]*rspb.Release, 0, len(got))
	for _, a := range got {
		if rel, ok := v1(a); ok {
			out = append(out, rel)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version > out[j].Version })
	return out, nil
}

// History returns every revision of release name in namespace, newest
// first, as `helm history` lists them. Errors: the read's (forbidden);
// a release that is not there (ErrNoRelease).
func (r *Reader) History(ctx context.Context, namespace, name string) ([]vocab.HelmRelease, error) {
	revs, err := r.revisions(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	out := make([]vocab.HelmRelease, len(revs))
	for i, rel := range revs {
		out[i] = summary(rel)
	}
	return out, nil
}

// revision is revision n of release name (0: the latest). Errors: as
// revisions; no such revision (ErrNoRelease).
func (r *Reader) revision(ctx context.Context, namespace, name string, n int) (*rspb.Release, error) {
	revs, err := r.revisions(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return revs[0], nil
	}
	for _, rel := range revs {
		if rel.Version == n {
			return rel, nil
		}
	}
	return nil, fmt.Errorf("%w: %s/%s has no revision %d", ErrNoRelease, namespace, name, n)
}

// Values returns the values of revision n (0: the latest) of release
// name as YAML: the values given at install or upgrade, as `helm get
// values` prints them, or with all set the chart's defaults coalesced
// under them (`helm get values --all`). "{}\n" when none were given.
// Errors: as History; values that cannot be shown as YAML.
func (r *Reader) Values(ctx context.Context, namespace, name string, n int, all bool) (string, error) {
	rel, err := r.revision(ctx, namespace, name, n)
	if err != nil {
		return "", err
	}
	return valuesYAML(rel, all)
}

// Manifest returns the manifest of revision n (0: the latest) of release
// name, as `helm get manifest` prints it, but with every Secret's data
// and stringData values shown as their sizes ("(12 bytes)"): kyyard never
// shows a Secret's value (design: "Secrets are never read for display").
// Errors: as History.
func (r *Reader) Manifest(ctx context.Context, namespace, name string, n int) (string, error) {
	rel, err := r.revision(ctx, namespace, name, n)
	if err != nil {
		return "", err
	}
	return maskManifest(rel.Manifest, "", ""), nil
}

// Diff returns what changed from revision from to revision to of release
// name: the unified diff of their values (as given) and of their
// manifests, Secret values masked (a changed one names the revision
// whose value each side is, never the value); ""
// when both are the same. Errors: as History; from == to (ErrNoRelease
// is not it: a plain error).
func (r *Reader) Diff(ctx context.Context, namespace, name string, from, to int) (string, error) {
	if from == to {
		return "", fmt.Errorf("revision %d against itself: choose two revisions", from)
	}
	revs, err := r.revisions(ctx, namespace, name)
	if err != nil {
		return "", err
	}
	var a, b *rspb.Release
	for _, rel := range revs {
		switch rel.Version {
		case from:
			a = rel
		case to:
			b = rel
		}
	}
	for _, p := range []struct {
		rel *rspb.Release
		n   int
	}{{a, from}, {b, to}} {
		if p.rel == nil {
			return "", fmt.Errorf("%w: %s/%s has no revision %d", ErrNoRelease, namespace, name, p.n)
		}
	}
	return diff(a, b)
}

// valuesYAML is rel's values as YAML (all: coalesced with the chart's).
func valuesYAML(rel *rspb.Release, all bool) (string, error) {
	vals := rel.Config
	if all && rel.Chart != nil {
		merged, err := coalesce(rel)
		if err != nil {
			return "", err
		}
		vals = merged
	}
	if len(vals) == 0 {
		return "{}\n", nil
	}
	b, err := yaml.Marshal(vals)
	if err != nil {
		return "", fmt.Errorf("values of %s revision %d as YAML: %w", rel.Name, rel.Version, err)
	}
	return string(b), nil
}

// title is "<name> revision <n>".
func title(rel *rspb.Release) string { return fmt.Sprintf("%s revision %d", rel.Name, rel.Version) }

// trimEnd drops the trailing newlines of s, then ends it with one.
func trimEnd(s string) string { return strings.TrimRight(s, "\n") + "\n" }
