package kinds

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube"
)

// ParseHumanDuration exposes parseHumanDuration to the external tests.
var ParseHumanDuration = parseHumanDuration

// TableRowOf builds the row a Table answer of these column definitions
// gives, read at answered, and has the plugin p (a *Table) learn the
// columns, as a List or the watch would.
func TableRowOf(p kube.Plugin, defs []metav1.TableColumnDefinition, cells []any, meta metav1.ObjectMeta, answered time.Time) *serverRow {
	p.(*Table).learn(defs)
	row := &serverRow{cells: cells, columns: tableColumns(defs), answered: answered}
	row.meta.ObjectMeta = meta
	return row
}

// InternedCount exposes internedCount (the pod RowResources rows share) to
// the external tests.
var InternedCount = internedCount
