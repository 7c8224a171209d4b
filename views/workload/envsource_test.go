package workload

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube"
)

// sourceWorkload is webWorkload with a resourceFieldRef (MEM) and a
// fileKeyRef (CFG), a source kyyard does not write, after its env.
func sourceWorkload() kube.Workload {
	w := webWorkload()
	c := &w.Containers[0]
	c.Env = append(c.Env,
		kube.EnvVar{Name: "MEM", Source: kube.EnvResource, Resource: "limits.memory", Divisor: "1Mi"},
		kube.EnvVar{Name: "CFG", Source: kube.EnvOther, Path: "file cfg/app.env key CFG"})
	return w
}

// envOf returns the env entry named name of the first container the
// editor was sent last.
func envOf(t *testing.T, ed *fake, name string) (kube.EnvVar, bool) {
	t.Helper()
	if len(ed.dry) == 0 {
		t.Fatal("nothing was previewed")
	}
	for _, e := range ed.dry[len(ed.dry)-1].after.Containers[0].Env {
		if e.Name == name {
			return e, true
		}
	}
	return kube.EnvVar{}, false
}

// TestEnvEverySourceEditable: a fieldRef and a resourceFieldRef are edited
// in their own fields, ctrl+t cycles any row through a value, a Secret, a
// ConfigMap, a field and a resource (the tester's dead end: a fieldRef
// could be neither replaced by a literal nor removed, and a literal of its
// name was refused as a duplicate), each source sending only its own
// fields, and ctrl+d removes a row of any source, a fileKeyRef's too.
func TestEnvEverySourceEditable(t *testing.T) {
	ed := newFake(sourceWorkload())
	h := open(t, ed, 80, 24)

	// The fieldRef POD_NAME becomes a literal.
	h.focusOn(fkEnvFieldPath, 0, 2)
	if v := h.m.form.fields[h.m.focus].in.Value(); v != "metadata.name" {
		t.Fatalf("POD_NAME's field path reads %q", v)
	}
	h.press("ctrl+t", "ctrl+t") // field -> resource -> value
	if k := h.m.form.fields[h.m.focus].kind; k != fkEnvValue {
		t.Fatalf("two ctrl+t from a field land on field kind %d, not the value", k)
	}
	h.typ("web-0")
	// The literal LOG_LEVEL becomes a fieldRef.
	h.focusOn(fkEnvValue, 0, 0)
	h.press("ctrl+t", "ctrl+t", "ctrl+t") // value -> secret -> configmap -> field
	if k := h.m.form.fields[h.m.focus].kind; k != fkEnvFieldPath {
		t.Fatalf("three ctrl+t from a value land on field kind %d, not the field path", k)
	}
	h.typ("status.phase")
	if v := h.view(); !strings.Contains(v, "✗ container web env LOG_LEVEL field path: not a field env can read") {
		t.Fatalf("status.phase (volume-only) is not refused beside the field:\n%s", v)
	}
	h.press("ctrl+u")
	h.typ("metadata.labels['app']")
	// The resourceFieldRef MEM: another resource, a divisor the API
	// refuses for cpu, then one it takes.
	h.focusOn(fkEnvResource, 0, 4)
	h.press("ctrl+u")
	h.typ("limits.cpu")
	h.focusOn(fkEnvDivisor, 0, 4)
	if v := h.view(); !strings.Contains(v, "a cpu divisor is 1m or 1") {
		t.Fatalf("divisor 1Mi for limits.cpu is not refused:\n%s", v)
	}
	h.press("ctrl+u")
	h.typ("1m")
	h.focusOn(fkEnvContainer, 0, 4)
	h.typ("nope")
	if h.m.form.fields[h.m.focus].err == "" {
		t.Fatal("a container the pod template lacks is taken")
	}
	h.press("ctrl+u")
	h.goldens("env_sources")
	// The fileKeyRef CFG is a stop of its own: ctrl+d removes it.
	h.focusOn(fkEnvFixed, 0, 5)
	h.press("ctrl+d")
	h.press("ctrl+s")

	if e, _ := envOf(t, ed, "POD_NAME"); e != (kube.EnvVar{Name: "POD_NAME", Source: kube.EnvLiteral, Value: "web-0", Read: 3}) {
		t.Errorf("POD_NAME sent as %+v", e)
	}
	if e, _ := envOf(t, ed, "LOG_LEVEL"); e != (kube.EnvVar{Name: "LOG_LEVEL", Source: kube.EnvField, FieldPath: "metadata.labels['app']", APIVersion: "v1", Read: 1}) {
		t.Errorf("LOG_LEVEL sent as %+v", e)
	}
	if e, _ := envOf(t, ed, "MEM"); e != (kube.EnvVar{Name: "MEM", Source: kube.EnvResource, Resource: "limits.cpu", Divisor: "1m", Read: 5}) {
		t.Errorf("MEM sent as %+v", e)
	}
	if _, ok := envOf(t, ed, "CFG"); ok {
		t.Error("CFG was not removed")
	}

	// A fieldRef row is removed.
	h.press("esc")
	h.focusOn(fkEnvName, 0, 2)
	h.press("ctrl+t", "ctrl+t", "ctrl+t", "ctrl+t") // POD_NAME: value -> secret -> configmap -> field -> resource
	h.focusOn(fkEnvResource, 0, 2)
	h.press("ctrl+d")
	h.press("ctrl+s")
	if _, ok := envOf(t, ed, "POD_NAME"); ok {
		t.Error("POD_NAME was not removed")
	}
}

// TestEnvOtherSourceCycle: a row of a source kyyard does not write comes
// back to it after the resource, unchanged: no change is left.
func TestEnvOtherSourceCycle(t *testing.T) {
	h := open(t, newFake(sourceWorkload()), 80, 24)
	h.focusOn(fkEnvFixed, 0, 5)
	if v, help := h.view(), h.m.formHelp(); !strings.Contains(v, "other file cfg/app.env key CFG  (read-only)") ||
		!strings.Contains(help, "ctrl+d remove env") || !strings.Contains(help, "ctrl+t value/secret/configmap/field/resource") {
		t.Fatalf("CFG is not shown as replaceable and removable (help %q):\n%s", help, v)
	}
	h.press("ctrl+t")
	if k := h.m.form.fields[h.m.focus].kind; k != fkEnvValue || h.m.form.changeCount() != 1 {
		t.Fatalf("ctrl+t on CFG: field kind %d, %d changes", k, h.m.form.changeCount())
	}
	h.press("ctrl+t", "ctrl+t", "ctrl+t", "ctrl+t", "ctrl+t") // secret, configmap, field, resource, other
	if k := h.m.form.fields[h.m.focus].kind; k != fkEnvFixed || h.m.form.changeCount() != 0 {
		t.Fatalf("the cycle does not come back to CFG as read: field kind %d, %d changes", k, h.m.form.changeCount())
	}
}
