package kube_test

import (
	"context"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// TestPermissionsEdit: a user who may not patch Deployments may not apply
// the workload form either (ApplyWorkload's access review is that patch):
// Permissions reports ActionEdit with the reviewer's sentence beside the
// other patches, for the kinds the form edits and not for pods.
func TestPermissionsEdit(t *testing.T) {
	c, cs := kubetest.FakeClient(t)
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if action.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).Spec.ResourceAttributes.Verb == "patch" {
			return kubetest.DenyAccessReviews(action)
		}
		return kubetest.AllowAccessReviews(action)
	})
	for _, kind := range []kube.Kind{kube.KindDeployments, kube.KindStatefulSets, kube.KindDaemonSets} {
		off := c.Permissions(context.Background(), kind, "demo")
		if why := off[kube.ActionEdit]; !strings.Contains(why, "you may not patch "+string(kind)+" in demo") {
			t.Errorf("%s: edit %q (off: %v)", kind, why, off)
		}
		if off[kube.ActionRestart] == "" || off[kube.ActionDelete] != "" {
			t.Errorf("%s: off %v", kind, off)
		}
	}
	if off := c.Permissions(context.Background(), kube.KindPods, "demo"); off[kube.ActionEdit] != "" {
		t.Errorf("pods: edit %q: the form edits the pod's owner, not the pod", off[kube.ActionEdit])
	}
}

// TestPermissionsShellAndPortForward: a user who may read pods but not
// create pods/exec or pods/portforward (the readonly kubeconfig's role):
// on pods, ActionShell and ActionPortForward are reported and scale is
// not asked about (s on a pod is its shell); a user who may exec and
// forward but not update pods/scale sees no action of pods off but delete.
func TestPermissionsShellAndPortForward(t *testing.T) {
	deny := func(sub ...string) *kube.Client {
		c, cs := kubetest.FakeClient(t)
		cs.PrependReactor("create", "selfsubjectaccessreviews", func(action k8stesting.Action) (bool, runtime.Object, error) {
			ra := action.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).Spec.ResourceAttributes
			for _, s := range sub {
				if ra.Subresource == s || ra.Verb == s {
					return kubetest.DenyAccessReviews(action)
				}
			}
			return kubetest.AllowAccessReviews(action)
		})
		return c
	}
	off := deny("exec", "portforward").Permissions(context.Background(), kube.KindPods, "demo")
	if !strings.Contains(off[kube.ActionShell], "pods/exec") || !strings.Contains(off[kube.ActionPortForward], "pods/portforward") {
		t.Errorf("pods, exec and portforward denied: off %v", off)
	}
	off = deny("scale", "delete").Permissions(context.Background(), kube.KindPods, "demo")
	if _, ok := off[kube.ActionScale]; ok || off[kube.ActionShell] != "" || off[kube.ActionDelete] == "" {
		t.Errorf("pods, exec allowed: off %v", off)
	}
	if off := deny("portforward").Permissions(context.Background(), kube.KindDeployments, "demo"); off[kube.ActionPortForward] == "" || off[kube.ActionShell] != "" {
		t.Errorf("deployments: off %v", off)
	}
}
