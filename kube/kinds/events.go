package kinds

import (
	"context"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// Events serves core/v1 events: LAST SEEN TYPE REASON OBJECT MESSAGE, and
// with -o wide SUBOBJECT and SOURCE (before MESSAGE) and FIRST SEEN COUNT
// NAME (after it), in the order `kubectl get events` prints them. Rows sort
// by LAST SEEN, newest first. Events are read only: they have no
// capabilities.
type Events struct{}

// Info describes events.
func (Events) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "events", Version: "v1", Resource: "events", Namespaced: true,
		Capabilities: vocab.CanDelete,
		Aliases:      []string{"event", "ev"},
		Columns: []vocab.Column{
			{Name: "LAST SEEN"}, {Name: "TYPE"}, {Name: "REASON"}, {Name: "OBJECT"},
			{Name: "SUBOBJECT", Wide: true}, {Name: "SOURCE", Wide: true},
			{Name: "MESSAGE"},
			{Name: "FIRST SEEN", Wide: true}, {Name: "COUNT", Wide: true}, {Name: "NAME", Wide: true},
		},
		SortColumn:     "LAST SEEN",
		SortDescending: true,
	}
}

// List lists events in namespace ("" for all) as *corev1.Event. The API
// server accepts field selectors on involvedObject.kind, .name, .namespace
// and .uid, type and reason, among others.
func (Events) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.CoreV1().Events(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *corev1.Event into its row (EventRow).
func (Events) Row(obj any) (vocab.Row, bool) {
	e, ok := obj.(*corev1.Event)
	if !ok {
		return vocab.Row{}, false
	}
	return EventRow(e), true
}

// EventRow turns an Event into its row, following kubectl's printEvent
// (k8s.io/kubernetes v1.37 pkg/printers/internalversion):
//   - FIRST SEEN is firstTimestamp, else eventTime (events.k8s.io-style
//     events set only eventTime);
//   - LAST SEEN is series.lastObservedTime for an event series, else
//     lastTimestamp, else FIRST SEEN;
//   - both are ages (vocab.Age): a view sorts on the moment, and shows
//     "<unknown>" when it is not set;
//   - COUNT is series.count for a series, else count, and 1 when count is 0
//     (singleton events of the new API carry no count);
//   - OBJECT is the lower-cased involvedObject.kind, "/" and its name (the
//     kind alone when the name is empty); SUBOBJECT its fieldPath;
//   - SOURCE is source.component (else reportingController), then ", " and
//     source.host (else reportingInstance) when there is one;
//   - MESSAGE is trimmed of surrounding white space.
//
// Status is the event's type; a Warning event's Health is a warning, any
// other ok. Row.Fields holds involvedObject.kind, .name, .namespace and
// .uid, type and reason, which the API server's field selectors for events
// also serve, so that "the events of this object" selects the same rows
// from the cache and from a list.
func EventRow(e *corev1.Event) vocab.Row {
	first := e.FirstTimestamp.Time
	if first.IsZero() {
		first = e.EventTime.Time
	}
	last := e.LastTimestamp.Time
	if last.IsZero() {
		last = first
	}
	count := e.Count
	if e.Series != nil {
		last, count = e.Series.LastObservedTime.Time, e.Series.Count
	} else if count == 0 {
		count = 1
	}
	io := e.InvolvedObject
	object := strings.ToLower(io.Kind)
	if io.Name != "" {
		object += "/" + io.Name
	}
	source := eventFirstSet(e.Source.Component, e.ReportingController)
	if host := eventFirstSet(e.Source.Host, e.ReportingInstance); host != "" {
		source += ", " + host
	}
	health := vocab.HealthOK
	if e.Type == corev1.EventTypeWarning {
		health = vocab.HealthWarning
	}
	row := identity(&e.ObjectMeta)
	row.Status, row.Health = e.Type, health
	row.Fields = map[string]string{
		"involvedObject.kind": io.Kind, "involvedObject.name": io.Name,
		"involvedObject.namespace": io.Namespace, "involvedObject.uid": string(io.UID),
		"type": e.Type, "reason": e.Reason,
	}
	row.Cells = []vocab.Cell{
		vocab.Age(last), vocab.Text(e.Type), vocab.Text(e.Reason), vocab.Text(object),
		vocab.Text(io.FieldPath), vocab.Text(source),
		vocab.Text(strings.TrimSpace(e.Message)),
		vocab.Age(first), vocab.Text(strconv.Itoa(int(count))), vocab.Text(e.Name),
	}
	return row
}

// eventFirstSet returns the first non-empty string of s, or "".
func eventFirstSet(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
