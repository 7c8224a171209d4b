package kube_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// capabilityFixtures holds one object of each built-in kind that declares
// an action, named by kind: a Deployment web whose ReplicaSet web-1 makes
// the pod web-1-a, a StatefulSet, a DaemonSet, a Job, a CronJob, a Service
// selecting the pod.
func capabilityFixtures() (map[kube.Kind]string, []runtime.Object) {
	yes := true
	labels := map[string]string{"app": "web"}
	sel := &metav1.LabelSelector{MatchLabels: labels}
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "app", Image: "app:1", Ports: []corev1.ContainerPort{{ContainerPort: 8080}}}}}}
	meta := func(name string, owner ...metav1.OwnerReference) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: "demo", UID: types.UID("uid-" + name), OwnerReferences: owner}
	}
	owner := func(kind, name string) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: "apps/v1", Kind: kind, Name: name, UID: types.UID("uid-" + name), Controller: &yes}
	}
	one := int32(1)
	pod := &corev1.Pod{ObjectMeta: meta("web-1-a", owner("ReplicaSet", "web-1")), Spec: tmpl.Spec,
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
	pod.Labels = labels
	objs := []runtime.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "demo"}},
		&appsv1.Deployment{ObjectMeta: meta("web"), Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: sel, Template: tmpl}},
		&appsv1.ReplicaSet{ObjectMeta: meta("web-1", owner("Deployment", "web")), Spec: appsv1.ReplicaSetSpec{Replicas: &one, Selector: sel, Template: tmpl}},
		&appsv1.StatefulSet{ObjectMeta: meta("db"), Spec: appsv1.StatefulSetSpec{Replicas: &one, Selector: sel, Template: tmpl}},
		&appsv1.DaemonSet{ObjectMeta: meta("agent"), Spec: appsv1.DaemonSetSpec{Selector: sel, Template: tmpl}},
		&batchv1.Job{ObjectMeta: meta("batch"), Spec: batchv1.JobSpec{Selector: sel, Template: tmpl}},
		&batchv1.CronJob{ObjectMeta: meta("nightly"), Spec: batchv1.CronJobSpec{Schedule: "0 3 * * *",
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: tmpl}}}},
		&corev1.Service{ObjectMeta: meta("web"), Spec: corev1.ServiceSpec{Selector: labels,
			Ports: []corev1.ServicePort{{Port: 80}}}},
		pod,
	}
	names := map[kube.Kind]string{
		kube.KindDeployments: "web", kube.KindReplicaSets: "web-1", kube.KindStatefulSets: "db", kube.KindDaemonSets: "agent",
		kube.KindJobs: "batch", kube.KindCronJobs: "nightly", "services": "web", kube.KindPods: "web-1-a", kube.KindContainers: "web-1-a",
		kube.KindNamespaces: "demo",
	}
	// One object "x" of every other kind that declares delete.
	x, cluster := meta("x"), metav1.ObjectMeta{Name: "x", UID: "uid-x"}
	for kind, obj := range map[kube.Kind]runtime.Object{
		"configmaps": &corev1.ConfigMap{ObjectMeta: x}, "secrets": &corev1.Secret{ObjectMeta: x},
		"serviceaccounts": &corev1.ServiceAccount{ObjectMeta: x}, "events": &corev1.Event{ObjectMeta: x},
		"persistentvolumeclaims": &corev1.PersistentVolumeClaim{ObjectMeta: x},
		"persistentvolumes":      &corev1.PersistentVolume{ObjectMeta: cluster}, "nodes": &corev1.Node{ObjectMeta: cluster},
		"horizontalpodautoscalers": &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: x},
		"ingresses":                &networkingv1.Ingress{ObjectMeta: x}, "networkpolicies": &networkingv1.NetworkPolicy{ObjectMeta: x},
		"poddisruptionbudgets": &policyv1.PodDisruptionBudget{ObjectMeta: x},
		"roles":                &rbacv1.Role{ObjectMeta: x}, "rolebindings": &rbacv1.RoleBinding{ObjectMeta: x},
		"clusterroles": &rbacv1.ClusterRole{ObjectMeta: cluster}, "clusterrolebindings": &rbacv1.ClusterRoleBinding{ObjectMeta: cluster},
		"storageclasses": &storagev1.StorageClass{ObjectMeta: cluster}, "endpointslices": &discoveryv1.EndpointSlice{ObjectMeta: x},
	} {
		names[kind] = "x"
		objs = append(objs, obj)
	}
	return names, objs
}

type discard struct{}

func (discard) Write(kube.LogBatch) {}

// operateActions are the actions of Operate (the action list's).
var operateActions = []kube.Action{kube.ActionRestart, kube.ActionScale, kube.ActionDelete, kube.ActionPause, kube.ActionResume, kube.ActionUndo,
	kube.ActionTrigger, kube.ActionSuspend, kube.ActionUnsuspend}

// TestCapabilitiesAreWhatKubeDoes: for every built-in kind, each action
// its plugin declares is one kube's code does (PlanOperation plans it past
// the kind's rule, Logs reads, PortForwardPorts and RolloutStatus answer,
// WorkloadOf finds the workload the form edits, Permissions asks its
// review), and each action it does not declare is refused for the kind
// before any request. A flag without its code (the ReplicaSet plugin's
// CanScale, which nothing offered) fails here; so does code that keeps a
// list of kinds of its own that disagrees with the flags.
func TestCapabilitiesAreWhatKubeDoes(t *testing.T) {
	names, objs := capabilityFixtures()
	for _, info := range kinds.Builtin().Kinds() {
		t.Run(string(info.ID), func(t *testing.T) {
			name, ok := names[info.ID]
			if !ok {
				if info.Capabilities != 0 {
					t.Fatalf("%s declares %s: add an object of it to capabilityFixtures", info.ID, info.Capabilities)
				}
				name = "x"
			}
			c, _ := kubetest.FakeClient(t, objs...)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			target := info.ID
			if info.PartOf != "" {
				target = info.PartOf // a container's actions go to its pod
			}
			uid, ns := "uid-"+name, "demo"
			if !info.Namespaced {
				ns = ""
			}
			for _, a := range operateActions {
				vs, err := c.PlanOperation(ctx, kube.Operation{Ref: kube.ObjectRef{Kind: info.ID, Namespace: ns, Name: name, UID: uid},
					Action: a, Replicas: 2})
				refused := false
				for _, v := range vs {
					refused = refused || v.Guard == kube.GuardAction && v.Outcome == kube.OutcomeRefuse && strings.HasPrefix(v.Sentence, info.NotOffered(a))
				}
				switch want := info.Supports(a); {
				case want && (err != nil || refused || vs.Refusal() != nil && vs.Refusal().Reason == kube.ReasonInvalid):
					t.Errorf("%s declares %s, but kube does not plan it: %v %v", info.ID, a, err, vs)
				case !want && !refused:
					t.Errorf("%s does not declare %s, but kube plans it: %v %v", info.ID, a, err, vs)
				}
			}
			req := kube.LogRequest{Kind: info.ID, Namespace: "demo", Name: name, Options: kube.LogOptions{TailLines: -1}}
			if info.ID == kube.KindContainers {
				req.Container = "app"
			}
			err := c.Logs(ctx, req, discard{})
			if has := info.Capabilities.Has(kube.CanLogs); has == errors.Is(err, kube.ErrLogKind) || has && err != nil {
				t.Errorf("%s: CanLogs %v, Logs: %v", info.ID, has, err)
			}
			_, err = c.PortForwardPorts(ctx, target, "demo", name)
			if has := info.Supports(kube.ActionPortForward); has != (err == nil) {
				t.Errorf("%s: CanPortForward %v, PortForwardPorts(%s): %v", info.ID, has, target, err)
			}
			st, err := c.RolloutStatus(ctx, kube.WorkloadRef{Kind: info.ID, Namespace: "demo", Name: name})
			if has := info.Capabilities.Has(kube.CanRollout); has != (err == nil && !st.Missing) {
				t.Errorf("%s: CanRollout %v, RolloutStatus: %v", info.ID, has, err)
			}
			w, err := c.WorkloadOf(ctx, info.ID, "demo", name)
			if has := info.Capabilities.Has(kube.CanEdit) || info.Capabilities.Has(kube.CanEditOwner); has != (err == nil) {
				t.Errorf("%s: CanEdit or CanEditOwner %v, WorkloadOf: %v", info.ID, has, err)
			} else if err == nil {
				if _, err := c.ReadWorkload(ctx, w); err != nil {
					t.Errorf("%s: the form cannot read %s: %v", info.ID, w, err)
				}
			}
		})
	}
}

// TestCapabilitiesPermissionsAsksDeclaredOnly: Permissions asks one
// review per distinct request of the actions a kind declares, and none for
// a kind that declares none.
func TestCapabilitiesPermissionsAsksDeclaredOnly(t *testing.T) {
	for _, info := range kinds.Builtin().Kinds() {
		c, cs := kubetest.FakeClient(t)
		c.Permissions(context.Background(), info.ID, "demo")
		var asked []string
		for _, ra := range reviewsOf(cs) {
			asked = append(asked, ra.Verb+" "+ra.Resource+"/"+ra.Subresource)
		}
		want := 0
		for _, a := range []kube.Action{kube.ActionRestart, kube.ActionScale, kube.ActionDelete, kube.ActionEdit, kube.ActionShell, kube.ActionPortForward,
			kube.ActionTrigger, kube.ActionSuspend, kube.ActionCordon} {
			if info.Supports(a) {
				want++
			}
		}
		// restart, pause, resume, undo and edit share one review (patch);
		// so do suspend and unsuspend, and cordon and uncordon.
		if (want == 0) != (len(asked) == 0) || len(asked) > want {
			t.Errorf("%s (%s): asked %v", info.ID, info.Capabilities, asked)
		}
		for _, s := range asked {
			switch {
			case strings.HasSuffix(s, "/exec") && !info.Supports(kube.ActionShell),
				strings.HasSuffix(s, "/portforward") && !info.Supports(kube.ActionPortForward),
				strings.HasPrefix(s, "delete ") && !info.Supports(kube.ActionDelete),
				strings.HasSuffix(s, "/scale") && !info.Supports(kube.ActionScale),
				s == "create jobs/" && !info.Supports(kube.ActionTrigger):
				t.Errorf("%s (%s): asked %s", info.ID, info.Capabilities, s)
			}
		}
	}
}
