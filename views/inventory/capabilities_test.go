package inventory_test

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/views"
)

// TestCapabilitiesAreWhatTheKeysOffer: on every kind of a row here, each
// action key opens its action exactly when the kind's plugin declares it
// (KindInfo.Capabilities) and otherwise says it is not offered: the keys
// keep no list of kinds of their own (the ReplicaSet plugin's CanScale,
// never offered, cannot come back unnoticed).
func TestCapabilitiesAreWhatTheKeysOffer(t *testing.T) {
	labels := map[string]string{"app": "web"}
	sel := &metav1.LabelSelector{MatchLabels: labels}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: "demo", Name: name, UID: types.UID("uid-" + name), Labels: labels}
	}
	one := int32(1)
	objs := map[kube.Kind]runtime.Object{
		"pods":         testPod("demo", "web-1-a", time.Hour, run, true, 0),
		"deployments":  &appsv1.Deployment{ObjectMeta: meta("web"), Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: sel}},
		"statefulsets": &appsv1.StatefulSet{ObjectMeta: meta("db"), Spec: appsv1.StatefulSetSpec{Replicas: &one, Selector: sel}},
		"daemonsets":   &appsv1.DaemonSet{ObjectMeta: meta("agent"), Spec: appsv1.DaemonSetSpec{Selector: sel}},
		"replicasets":  &appsv1.ReplicaSet{ObjectMeta: meta("web-1"), Spec: appsv1.ReplicaSetSpec{Replicas: &one, Selector: sel}},
		"jobs":         &batchv1.Job{ObjectMeta: meta("batch"), Spec: batchv1.JobSpec{Selector: sel}},
		"services":     &corev1.Service{ObjectMeta: meta("web"), Spec: corev1.ServiceSpec{Selector: labels}},
		"configmaps":   &corev1.ConfigMap{ObjectMeta: meta("settings")},
		"nodes":        &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "kwok-node-0", UID: "uid-node"}},
		"secrets":      &corev1.Secret{ObjectMeta: meta("db"), Data: map[string][]byte{"password": []byte("x")}},
	}
	var all []runtime.Object
	for _, o := range objs {
		all = append(all, o)
	}
	client, _ := kubetest.FakeClient(t, all...)
	// Each key, the capability it needs and the message it opens.
	keys := []struct {
		key    string
		offers func(kube.KindInfo) bool
		opens  func(tea.Msg) bool
	}{
		{"r", func(k kube.KindInfo) bool { return k.Supports(kube.ActionRestart) }, isOperate(kube.ActionRestart)},
		{"ctrl+d", func(k kube.KindInfo) bool { return k.Supports(kube.ActionDelete) }, isOperate(kube.ActionDelete)},
		{"z", func(k kube.KindInfo) bool { return k.Supports(kube.ActionPause) }, isOperate(kube.ActionPause)},
		{"Z", func(k kube.KindInfo) bool { return k.Supports(kube.ActionResume) }, isOperate(kube.ActionResume)},
		{"B", func(k kube.KindInfo) bool { return k.Supports(kube.ActionUndo) }, isOperate(kube.ActionUndo)},
		{"s", func(k kube.KindInfo) bool { return k.Supports(kube.ActionScale) || k.Supports(kube.ActionShell) },
			func(m tea.Msg) bool {
				_, shell := m.(views.OpenShellMsg)
				return shell || isOperate(kube.ActionScale)(m)
			}},
		{"l", func(k kube.KindInfo) bool { return k.Capabilities.Has(kube.CanLogs) }, func(m tea.Msg) bool { _, ok := m.(views.OpenLogsMsg); return ok }},
		{"F", func(k kube.KindInfo) bool { return k.Supports(kube.ActionPortForward) }, func(m tea.Msg) bool { _, ok := m.(views.OpenPortForwardMsg); return ok }},
		{"R", func(k kube.KindInfo) bool { return k.Capabilities.Has(kube.CanRollout) }, func(m tea.Msg) bool { _, ok := m.(views.OpenRolloutMsg); return ok }},
		// e: the workload form where the kind has it, else the YAML edit;
		// E: the YAML edit of any kind.
		{"e", func(kube.KindInfo) bool { return true }, func(m tea.Msg) bool {
			_, form := m.(views.OpenWorkloadMsg)
			_, yaml := m.(views.OpenYAMLEditMsg)
			return form || yaml
		}},
		{"E", func(kube.KindInfo) bool { return true }, func(m tea.Msg) bool { _, ok := m.(views.OpenYAMLEditMsg); return ok }},
		{"c", func(k kube.KindInfo) bool { return k.Supports(kube.ActionCordon) }, isOperate(kube.ActionCordon)},
		{"C", func(k kube.KindInfo) bool { return k.Supports(kube.ActionUncordon) }, isOperate(kube.ActionUncordon)},
		{"D", func(k kube.KindInfo) bool { return k.Capabilities.Has(kube.CanCordon) }, func(m tea.Msg) bool { _, ok := m.(views.OpenDrainMsg); return ok }},
		{"x", func(k kube.KindInfo) bool { return k.Capabilities.Has(kube.CanDecode) }, func(m tea.Msg) bool { _, ok := m.(views.OpenSecretMsg); return ok }},
	}
	for kind := range objs {
		p, ok := kinds.Builtin().Lookup(string(kind))
		if !ok {
			t.Fatalf("no plugin %s", kind)
		}
		info := p.Info()
		m, _ := load(t, client, kind, "demo", 120, 10)
		for _, k := range keys {
			cmd := press(m, k.key)
			if cmd == nil {
				t.Errorf("%s: %s did nothing", kind, k.key)
				continue
			}
			msg := cmd()
			switch offered := k.offers(info); {
			case offered && !k.opens(msg):
				t.Errorf("%s declares what %s needs, but it answered %#v", kind, k.key, msg)
			case !offered:
				st, ok := msg.(views.StatusMsg)
				if !ok || !strings.Contains(st.Text, "not offered on "+string(kind)) {
					t.Errorf("%s does not declare what %s needs, but it answered %#v", kind, k.key, msg)
				}
			}
		}
		// The action list offers what the kind declares.
		if msg, ok := press(m, "a")().(views.ActionsMsg); !ok || msg.Kind.ID != kind || msg.Kind.Capabilities != info.Capabilities {
			t.Errorf("%s: a answered %#v", kind, msg)
		}
	}
}

// isOperate matches the confirmation of action a.
func isOperate(a kube.Action) func(tea.Msg) bool {
	return func(m tea.Msg) bool { o, ok := m.(views.OperateMsg); return ok && o.Action == a }
}
