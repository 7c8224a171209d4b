package kube_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/internal/kubetest"
)

func event(name, kind, obj, uid, reason string, last time.Time, count int32) *corev1.Event {
	return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name, UID: k8stypes.UID("e-" + name)},
		InvolvedObject: corev1.ObjectReference{Kind: kind, Namespace: "demo", Name: obj, UID: k8stypes.UID(uid)},
		Reason:         reason, Type: corev1.EventTypeWarning, Message: reason + " of " + obj, Count: count,
		FirstTimestamp: metav1.NewTime(last.Add(-time.Hour)), LastTimestamp: metav1.NewTime(last)}
}

// TestObjectEvents: a Deployment's events are its own and its
// ReplicaSet's and Pods', newest first, once each with their count; an
// event naming no UID matches by kind and name; another object's and a
// stray Pod's are left out; a Pod's are its own only.
func TestObjectEvents(t *testing.T) {
	now := time.Now()
	objs := ownedWeb(2, true)
	objs = append(objs,
		event("a", "Deployment", "web", "d1", "ScalingReplicaSet", now.Add(-3*time.Minute), 1),
		event("b", "Pod", "web-1-0000", "p0", "BackOff", now.Add(-time.Minute), 42),
		event("c", "ReplicaSet", "web-1", "", "SuccessfulCreate", now.Add(-2*time.Minute), 2),
		event("d", "Pod", "stray", "stray", "Scheduled", now, 1),
		event("e", "Pod", "web-1-0001", "p1", "Pulled", now.Add(-30*time.Second), 1))
	c, _ := kubetest.FakeClient(t, objs...)
	ev, err := c.Events(context.Background(), "deploy", "demo", "web")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range ev.Rows {
		got = append(got, r.Name+":"+r.Cells[8].Text)
	}
	if fmt.Sprint(got) != "[e:1 b:42 c:2 a:1]" || ev.Objects != 4 {
		t.Fatalf("events %v over %d objects", got, ev.Objects)
	}
	ev, err = c.Events(context.Background(), "pods", "demo", "web-1-0000")
	if err != nil || len(ev.Rows) != 1 || ev.Rows[0].Name != "b" {
		t.Fatalf("a pod's events: %+v, %v", ev.Rows, err)
	}
}
