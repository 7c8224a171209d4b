package inventory_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/viewtest"
)

// eventSnapshot is n events of every namespace, as :timeline all reads
// them: a warning in three, repeated counts, a thousand objects.
func eventSnapshot(n int) kube.Snapshot {
	info := kinds.Events{}.Info()
	rows := make([]kube.Row, n)
	for i := range rows {
		typ, reason := corev1.EventTypeNormal, "Pulled"
		if i%3 == 0 {
			typ, reason = corev1.EventTypeWarning, "BackOff"
		}
		rows[i] = kinds.EventRow(&corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Namespace: fmt.Sprintf("ns-%d", i%20), Name: fmt.Sprintf("web-%04d.%x", i%1000, i)},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: fmt.Sprintf("web-%04d", i%1000)},
			Type:           typ, Reason: reason, Message: "Back-off restarting failed container app in pod web", Count: int32(1 + i%7),
			LastTimestamp: metav1.NewTime(viewtest.Now.Add(-time.Duration(i) * time.Second)), Source: corev1.EventSource{Component: "kubelet"}})
	}
	return kube.Snapshot{Generation: 1, Tables: []kube.Table{{Kind: info.ID, Columns: info.Columns, Rows: rows}}}
}

// BenchmarkTimeline: :timeline all at 10,000 events (the events kind's
// screen): a 200x50 frame (budget 2 ms) and a filter keystroke that
// searches every row (budget 20 ms).
func BenchmarkTimeline(b *testing.B) {
	src := staticSource{snap: eventSnapshot(10_000), reg: kinds.Builtin()}
	m, err := inventory.New(viewtest.Context(src, 200, 50), "events", "")
	if err != nil {
		b.Fatal(err)
	}
	m.SetClock(func() time.Time { return viewtest.Now })
	m.Update(m.Init()())
	b.Run("frame", func(b *testing.B) {
		for b.Loop() {
			_ = m.View()
		}
	})
	b.Run("keystroke", func(b *testing.B) {
		for range b.N {
			b.StopTimer()
			m.Update(viewtest.Key("esc"))
			m.Update(viewtest.Key("/"))
			b.StartTimer()
			typeKey(m, 'B') // the first letter: every row searched
		}
	})
}
