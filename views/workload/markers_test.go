package workload

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube"
)

// agree fails the test unless the form's change count is the number of
// changes kube.Changes lists (what the preview lists and an apply writes),
// and every field marked changed (*) is part of one of them.
func agree(t *testing.T, h *harness, want int) {
	t.Helper()
	f := h.m.form
	changes := kube.Changes(f.base, f.workload())
	if n := f.changeCount(); n != len(changes) || n != want {
		t.Fatalf("the form counts %d changes, kube.Changes lists %d (%v), want %d", n, len(changes), changes, want)
	}
	for i := range f.fields {
		fd := &f.fields[i]
		if !fd.changed || fd.kind.placeholder() {
			continue
		}
		container, name := f.fieldName(fd)
		found := false
		for _, c := range changes {
			found = found || c.Container == container && (c.Field == name || strings.HasPrefix(c.Field, name+" (was "))
		}
		if !found {
			t.Fatalf("%s is marked changed, but kube.Changes lists %v", f.fieldLabel(fd), changes)
		}
	}
	if want == 0 && strings.Contains(h.view(), "change") {
		t.Fatalf("the help line counts a change:\n%s", h.view())
	}
}

// TestMarkersAgreeWithChanges: the form's * markers and its change count
// say what kube.Changes (the preview) says will be written: a number
// typed with a leading zero is the same number, a quantity spelt another
// way is the same quantity (compared by value, as kube does), an env
// entry is one change however many of its cells were edited, and a list
// (command, args) is one change however many of its lines moved.
func TestMarkersAgreeWithChanges(t *testing.T) {
	h := open(t, newFake(webWorkload()), 120, 30)

	h.focusOn(fkReplicas, -1, 0)
	h.replace("03")
	if v := h.view(); strings.Contains(v, "[03]*") || strings.Contains(v, "03 ]*") {
		t.Fatalf("03 over 3 is marked changed:\n%s", v)
	}
	agree(t, h, 0)
	h.press("ctrl+s")
	if !strings.Contains(h.m.note, "nothing changed") {
		t.Fatalf("note %q", h.m.note)
	}
	h.replace("4")
	agree(t, h, 1)
	h.replace("3")
	agree(t, h, 0)

	// Quantities by value.
	h.focusOn(fkCPURequest, 0, 0)
	h.replace("0.25")
	h.focusOn(fkMemRequest, 0, 0)
	h.replace("0.25Gi")
	h.focusOn(fkCPULimit, 0, 0)
	h.replace("1000m")
	agree(t, h, 0)
	h.press("ctrl+s")
	if len(h.ed.dry) != 0 || !strings.Contains(h.m.note, "nothing changed") {
		t.Fatalf("the same quantities were previewed: %d dry runs, note %q", len(h.ed.dry), h.m.note)
	}
	h.replace("2")
	agree(t, h, 1)
	h.replace("1")
	agree(t, h, 0)

	// A Secret reference's name alone: one change, one marked cell.
	h.focusOn(fkEnvRef, 0, 1)
	h.replace("dbx")
	agree(t, h, 1)
	for i := range h.m.form.fields {
		fd := &h.m.form.fields[i]
		if fd.c == 0 && fd.i == 1 && (fd.kind == fkEnvKey || fd.kind == fkEnvOptional || fd.kind == fkEnvName) && fd.changed {
			t.Fatalf("%s is marked changed", h.m.form.fieldLabel(fd))
		}
	}
	// Renamed and its reference changed: still one entry changed.
	h.focusOn(fkEnvName, 0, 1)
	h.replace("DB_PASSWORD")
	agree(t, h, 1)
	h.focusOn(fkEnvName, 0, 1)
	h.replace("DB_PASS")
	h.focusOn(fkEnvRef, 0, 1)
	h.replace("db")
	agree(t, h, 0)

	// An args line removed: the list is one change.
	h.focusOn(fkArgs, 0, 0)
	h.press("ctrl+d")
	agree(t, h, 1)
	if !strings.Contains(h.view(), "1 change") {
		t.Fatalf("no change counted:\n%s", h.view())
	}
}
