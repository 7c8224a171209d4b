package release

// Apps and AppRecord: the kyyard-managed instances :apps lists, and an
// instance's recorded request for the form's "edit this app".

import (
	"context"
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	"github.com/kyyard/kyyard/render"
)

// Apps lists the kyyard-managed instances in namespace ("" = all
// namespaces), sorted by namespace and instance: those found by label
// (Deployments with app.kubernetes.io/managed-by: kyyard, grouped by
// app.kubernetes.io/instance), those found by their record Secret and
// those found by their PersistentVolumeClaims (same labels): an instance
// with only claims left (after a failed first deploy or a Remove) is
// listed with no services. Retained names every instance's claims,
// sorted.
// Services are the recorded deploy's services (its Deployments) and those
// found by label, by name; each with its Deployment's status
// (deploymentStatus), "missing" (HealthFailed) when the record names a
// Deployment that does not exist. Recorded and Deployed come from the
// record. Errors: a list failed (forbidden, unavailable, ...).
func (c Deployer) Apps(ctx context.Context, namespace string) ([]App, error) {
	sel := labels.SelectorFromSet(labels.Set{render.LabelManagedBy: render.ManagedBy}).String()
	deps, err := c.CS.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, err
	}
	recs, err := c.CS.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{LabelSelector: recordSelector()})
	if err != nil {
		return nil, err
	}
	claims, err := c.CS.CoreV1().PersistentVolumeClaims(namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, err
	}
	return appsOf(deps.Items, recs.Items, claims.Items, c.stuckDeployments(ctx, namespace, deps.Items)), nil
}

// stuckDeployments maps the UIDs of those of deps whose Pods cannot start
// to the first such Pod's reason (c.Stuck, from the caches: no request
// per Deployment), when any of them is progressing or a warning; nil
// otherwise, or when c.Stuck is nil.
func (c Deployer) stuckDeployments(ctx context.Context, namespace string, deps []appsv1.Deployment) map[string]string {
	if c.Stuck == nil {
		return nil
	}
	for i := range deps {
		if _, h := deploymentStatus(&deps[i], ""); h == vocab.HealthProgressing || h == vocab.HealthWarning {
			return c.Stuck(ctx, namespace)
		}
	}
	return nil
}

// appsOf groups Deployments and record Secrets into Apps (see Apps);
// stuck maps a Deployment's UID to the reason its Pods cannot start.
func appsOf(deps []appsv1.Deployment, recs []corev1.Secret, claims []corev1.PersistentVolumeClaim, stuck map[string]string) []App {
	type key struct{ ns, instance string }
	apps := map[key]*App{}
	services := map[key]map[string]AppService{}
	get := func(k key) *App {
		if apps[k] == nil {
			apps[k] = &App{Namespace: k.ns, Instance: k.instance}
			services[k] = map[string]AppService{}
		}
		return apps[k]
	}
	byName := map[key]*appsv1.Deployment{}
	for i := range deps {
		d := &deps[i]
		instance := d.Labels[render.LabelInstance]
		if instance == "" {
			continue
		}
		k := key{d.Namespace, instance}
		get(k)
		byName[key{d.Namespace, d.Name}] = d
		name := d.Labels[render.LabelName]
		if name == "" {
			name = d.Name
		}
		status, health := deploymentStatus(d, stuck[string(d.UID)])
		services[k][name] = AppService{Name: name, Status: status, Health: health}
	}
	for i := range recs {
		s := &recs[i]
		instance := s.Labels[render.LabelInstance]
		if instance == "" || s.Name != recordName(instance) {
			continue
		}
		k := key{s.Namespace, instance}
		app := get(k)
		rec := parseRecord(s, instance)
		app.Recorded, app.Deployed = true, rec.deployedAt
		for _, o := range rec.objects {
			if o.Kind != kindDeployment {
				continue
			}
			if _, ok := services[k][o.Service]; ok {
				continue
			}
			if d := byName[key{s.Namespace, o.Name}]; d != nil {
				st, h := deploymentStatus(d, stuck[string(d.UID)])
				services[k][o.Service] = AppService{Name: o.Service, Status: st, Health: h}
			} else {
				services[k][o.Service] = AppService{Name: o.Service, Status: "missing", Health: vocab.HealthFailed}
			}
		}
	}
	for i := range claims {
		pvc := &claims[i]
		instance := pvc.Labels[render.LabelInstance]
		if instance == "" || pvc.Labels[render.LabelManagedBy] != render.ManagedBy {
			continue
		}
		app := get(key{pvc.Namespace, instance})
		app.Retained = append(app.Retained, pvc.Name)
	}
	out := make([]App, 0, len(apps))
	for k, app := range apps {
		sort.Strings(app.Retained)
		for _, s := range services[k] {
			app.Services = append(app.Services, s)
		}
		sort.Slice(app.Services, func(i, j int) bool { return app.Services[i].Name < app.Services[j].Name })
		out = append(out, *app)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Instance < out[j].Instance
	})
	return out
}

// deploymentStatus is a Deployment's status for :apps: "deleting"
// (warning) while it is deleted; "progressing" while the controller has
// not observed its spec or not every replica runs the new template;
// "failed: <reason>" when its Progressing condition says it gave up
// (ProgressDeadlineExceeded, ReplicaSetCreateError); else "A/D available"
// (ok when every desired replica is available, else warning). While some
// of its Pods cannot start (cannotStart, their reason), a progressing or
// warning one is judged as the inventory judges it (RowWorkload):
// "failed: CrashLoopBackOff" when none is available, else "A/D
// available: CrashLoopBackOff" (warning).
func deploymentStatus(d *appsv1.Deployment, cannotStart string) (string, vocab.Health) {
	text, h := deploymentOwnStatus(d)
	if cannotStart == "" || d.DeletionTimestamp != nil {
		return text, h
	}
	raised, ok := vocab.RaisedHealth(h, d.Status.AvailableReplicas)
	switch {
	case !ok:
		return text, h
	case raised == vocab.HealthFailed:
		return "failed: " + cannotStart, raised
	}
	return fmt.Sprintf("%d/%d available: %s", d.Status.AvailableReplicas, objects.ReplicasOf(d.Spec.Replicas), cannotStart), raised
}

// deploymentOwnStatus is deploymentStatus from the Deployment alone.
func deploymentOwnStatus(d *appsv1.Deployment) (string, vocab.Health) {
	desired := objects.ReplicasOf(d.Spec.Replicas)
	if d.DeletionTimestamp != nil {
		return "deleting", vocab.HealthWarning
	}
	if cond := objects.DeploymentCondition(d, appsv1.DeploymentProgressing); cond != nil && cond.Status == corev1.ConditionFalse {
		return "failed: " + cond.Reason, vocab.HealthFailed
	}
	if d.Generation > d.Status.ObservedGeneration || d.Status.UpdatedReplicas < desired {
		return "progressing", vocab.HealthProgressing
	}
	text := fmt.Sprintf("%d/%d available", d.Status.AvailableReplicas, desired)
	if d.Status.AvailableReplicas < desired {
		return text, vocab.HealthWarning
	}
	return text, vocab.HealthOK
}

// AppRecord reads an instance's record and returns the request its last
// successful deploy applied, and the record's resourceVersion. Errors:
// ErrNoRecord (errors.Is; ReasonOf: not_found) when there is no record, the
// Secret of its name is not the instance's record, or no deploy succeeded
// yet; a record that cannot be read (render.ErrRecord, wrapped; ReasonOf:
// invalid); a failed read.
func (c Deployer) AppRecord(ctx context.Context, namespace, instance string) (RecordedRequest, error) {
	rec, err := c.readRecord(ctx, namespace, instance)
	if err != nil {
		return RecordedRequest{}, err
	}
	if !rec.exists || !rec.mine || rec.request == nil {
		return RecordedRequest{}, fmt.Errorf("%s/%s: %w", namespace, recordName(instance), ErrNoRecord)
	}
	req, err := render.ParseRecord(rec.request)
	if err != nil {
		return RecordedRequest{}, fmt.Errorf("%w: %s/%s: %w", vocab.ErrInvalid, namespace, recordName(instance), err)
	}
	return RecordedRequest{Request: req, Version: rec.version}, nil
}
