package kinds_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/kube/vocab"
)

func event(name string, mutate func(*corev1.Event)) *corev1.Event {
	e := &corev1.Event{
		ObjectMeta:     demoMeta(name),
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web-1", Namespace: "demo", UID: "pod-uid", FieldPath: "spec.containers{app}"},
		Type:           corev1.EventTypeNormal, Reason: "Pulled", Message: "  Container image pulled\n",
		Source:         corev1.EventSource{Component: "kubelet", Host: "node-1"},
		FirstTimestamp: metav1.NewTime(created.Add(10 * time.Minute)),
		LastTimestamp:  metav1.NewTime(created.Add(80 * time.Minute)),
		Count:          4,
	}
	if mutate != nil {
		mutate(e)
	}
	return e
}

// Columns: LAST SEEN TYPE REASON OBJECT SUBOBJECT SOURCE MESSAGE FIRST SEEN COUNT NAME.
func TestEventRow(t *testing.T) {
	tests := []struct {
		name   string
		event  *corev1.Event
		cells  []string
		health kube.Health
	}{
		{"core event", event("e1", nil),
			[]string{"10m", "Normal", "Pulled", "pod/web-1", "spec.containers{app}", "kubelet, node-1", "Container image pulled", "80m", "4", "e1"}, kube.HealthOK},
		{"warning; no last timestamp: last is first", event("e2", func(e *corev1.Event) {
			e.Type, e.LastTimestamp = corev1.EventTypeWarning, metav1.Time{}
		}), []string{"80m", "Warning", "Pulled", "pod/web-1", "spec.containers{app}", "kubelet, node-1", "Container image pulled", "80m", "4", "e2"}, kube.HealthWarning},
		{"new-API singleton: eventTime, reporting controller and instance, count 1", event("e3", func(e *corev1.Event) {
			e.FirstTimestamp, e.LastTimestamp, e.Count = metav1.Time{}, metav1.Time{}, 0
			e.EventTime = metav1.NewMicroTime(created.Add(85 * time.Minute))
			e.Source, e.ReportingController, e.ReportingInstance = corev1.EventSource{}, "default-scheduler", "sched-0"
		}), []string{"5m", "Normal", "Pulled", "pod/web-1", "spec.containers{app}", "default-scheduler, sched-0", "Container image pulled", "5m", "1", "e3"}, kube.HealthOK},
		{"series: last observed time and series count", event("e4", func(e *corev1.Event) {
			e.Series = &corev1.EventSeries{Count: 12, LastObservedTime: metav1.NewMicroTime(created.Add(88 * time.Minute))}
		}), []string{"2m", "Normal", "Pulled", "pod/web-1", "spec.containers{app}", "kubelet, node-1", "Container image pulled", "80m", "12", "e4"}, kube.HealthOK},
		{"no times at all; object without name; component only", event("e5", func(e *corev1.Event) {
			e.FirstTimestamp, e.LastTimestamp = metav1.Time{}, metav1.Time{}
			e.InvolvedObject = corev1.ObjectReference{Kind: "Node"}
			e.Source = corev1.EventSource{Component: "kubelet"}
		}), []string{"<unknown>", "Normal", "Pulled", "node", "", "kubelet", "Container image pulled", "<unknown>", "4", "e5"}, kube.HealthOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := kinds.EventRow(tt.event)
			equal(t, texts(row), tt.cells)
			if row.Health != tt.health || row.Status != tt.event.Type {
				t.Errorf("got %s/%v, want %s/%v", row.Status, row.Health, tt.event.Type, tt.health)
			}
		})
	}
}

// TestEventLastSeenIsAMoment: LAST SEEN keeps the moment, so a view can
// sort events by it.
func TestEventLastSeenIsAMoment(t *testing.T) {
	row := kinds.EventRow(event("e1", nil))
	if got := row.Cells[0].Since; !got.Equal(created.Add(80 * time.Minute)) {
		t.Errorf("LAST SEEN moment %v", got)
	}
	info := kinds.Events{}.Info()
	if info.SortColumn != "LAST SEEN" || !info.SortDescending || info.Columns[0].Name != "LAST SEEN" || info.Capabilities != vocab.CanDelete {
		t.Errorf("info %+v", info)
	}
}

// TestEventsOfAnObject: the involvedObject fields select the same events
// from the informer's cache as the API server would.
func TestEventsOfAnObject(t *testing.T) {
	other := event("e2", func(e *corev1.Event) { e.InvolvedObject.Name = "web-2" })
	node := event("e3", func(e *corev1.Event) { e.InvolvedObject = corev1.ObjectReference{Kind: "Node", Name: "web-1"} })
	c, _ := kubetest.FakeClient(t, event("e1", nil), other, node)
	snap := c.Snapshot(context.Background(), kube.SnapshotRequest{
		Kinds: []kube.Kind{"events"}, Namespace: "demo",
		Selector: kube.Selector{Fields: "involvedObject.kind=Pod,involvedObject.name=web-1,involvedObject.namespace=demo"},
	})
	table, ok := snap.Table("events")
	if !ok {
		t.Fatalf("no events: %+v", snap.Truncated)
	}
	if len(table.Rows) != 1 || table.Rows[0].Name != "e1" {
		t.Fatalf("got %d rows %+v, want e1", len(table.Rows), table.Rows)
	}
}
