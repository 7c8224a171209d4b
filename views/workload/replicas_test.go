package workload

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/views/viewtest"
)

// TestReplicasInputs: the form reads replicas with the one parser the
// scale dialog reads them with (kube.ParseReplicas), tested with the same
// table (viewtest.ReplicasInputs): " 3" is 3 here as " 4" is 4 there, and
// an empty field says "required" beside it, not "a whole number".
func TestReplicasInputs(t *testing.T) {
	for _, in := range viewtest.ReplicasInputs {
		h := open(t, newFake(webWorkload()), 80, 24)
		h.focusOn(fkReplicas, -1, 0)
		h.press("ctrl+u")
		h.paste(in.Typed)
		fd := h.m.form.fields[h.m.focus]
		v := h.view()
		if in.Err != "" {
			if fd.err != in.Err || !strings.Contains(v, "✗ "+in.Err) {
				t.Errorf("%q: field error %q, want %q beside the field:\n%s", in.Typed, fd.err, in.Err, v)
			}
			h.press("ctrl+s")
			if len(h.ed.dry) != 0 {
				t.Errorf("%q: previewed %+v", in.Typed, h.ed.dry)
			}
			continue
		}
		if fd.err != "" || h.m.form.workload().Replicas != in.Want {
			t.Errorf("%q: field error %q, replicas %d, want %d", in.Typed, fd.err, h.m.form.workload().Replicas, in.Want)
		}
	}
}
