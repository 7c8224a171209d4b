package workload

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube"
)

// longWorkload is the tester's Deployment: container c with 300 env
// entries and 201 args (read as kube reads them: the first 256 and 128,
// the reasons in Unsupported), and a second container d.
func longWorkload() kube.Workload {
	c := kube.Container{Name: "c", Role: kube.RoleContainer, Image: "app:1",
		Resources: kube.Resources{CPURequest: "100m", MemoryRequest: "64Mi"}}
	for i := range kube.MaxFormArgv {
		c.Args = append(c.Args, fmt.Sprintf("--flag-%03d", i))
	}
	for i := range kube.MaxFormEnv {
		c.Env = append(c.Env, kube.EnvVar{Name: fmt.Sprintf("VAR_%03d", i), Source: kube.EnvLiteral, Value: "v"})
	}
	return kube.Workload{Ref: webRef, ResourceVersion: "9", HasReplicas: true, Replicas: 1,
		Containers: []kube.Container{c, {Name: "d", Role: kube.RoleContainer, Image: "side:1"}},
		Unsupported: []kube.Unsupported{
			{Code: kube.UnsupportedArgvTruncated, Container: "c", Detail: "args has 201 entries; the form shows the first 128 and will not change args"},
			{Code: kube.UnsupportedEnvTruncated, Container: "c", Detail: "env has 300 entries; the form shows the first 256 and will not change env"},
		}}
}

var linesShown = regexp.MustCompile(`lines (\d+)-(\d+) of (\d+)`)

// shown returns the form lines the view shows (from 1) and how many there are.
func shown(t *testing.T, v string) (from, to, of int) {
	t.Helper()
	m := linesShown.FindStringSubmatch(v)
	if m == nil {
		t.Fatalf("no lines range:\n%s", v)
	}
	from, _ = strconv.Atoi(m[1])
	to, _ = strconv.Atoi(m[2])
	of, _ = strconv.Atoi(m[3])
	return from, to, of
}

// TestReadOnlyLinesScroll: the read-only lines between two fields (a
// bounded env list and its reason) scroll into view a line at a time with
// ↓ and a page at a time with pgdn, and back with ↑ and pgup; the cursor
// moves on to the next field only once it is in sight, so no line is
// skipped (the tester's item 1: from image, ↓ jumped over 305 lines).
func TestReadOnlyLinesScroll(t *testing.T) {
	for _, tc := range []struct{ down, up string }{{"down", "up"}, {"pgdown", "pgup"}} {
		t.Run(tc.down, func(t *testing.T) {
			h := open(t, newFake(longWorkload()), 80, 24)
			h.focusOn(fkImage, 0, 0)
			seen := map[int]bool{}
			from, to, of := shown(t, h.view())
			last := to
			for range 1000 {
				for l := from; l <= to; l++ {
					seen[l] = true
				}
				if h.m.form.fields[h.m.focus].kind == fkCPURequest {
					break
				}
				h.press(tc.down)
				from, to, of = shown(t, h.view())
				if from > last+1 {
					t.Fatalf("%s skipped lines %d-%d", tc.down, last+1, from-1)
				}
				last = to
			}
			if k := h.m.form.fields[h.m.focus].kind; k != fkCPURequest {
				t.Fatalf("%s never reached cpu request (focus %d)", tc.down, k)
			}
			for range 100 {
				h.press(tc.down)
				from, to, _ = shown(t, h.view())
				for l := from; l <= to; l++ {
					seen[l] = true
				}
			}
			if len(seen) != of {
				for l := 1; l <= of; l++ {
					if !seen[l] {
						t.Fatalf("%s never showed line %d of %d", tc.down, l, of)
					}
				}
			}
			// Back up to the first field, through every line.
			first := from
			for range 1000 {
				if h.m.focus == 0 && first == 1 {
					break
				}
				h.press(tc.up)
				f, _, _ := shown(t, h.view())
				_, to, _ := shown(t, h.view())
				if to < first-1 {
					t.Fatalf("%s skipped lines %d-%d", tc.up, to+1, first-1)
				}
				first = f
			}
			if h.m.focus != 0 || first != 1 {
				t.Fatalf("%s did not get back to the top: focus %d, line %d", tc.up, h.m.focus, first)
			}
		})
	}
}

// TestReadOnlyReasonInSight: ↓ from the image scrolls the args and their
// reason, then the env's reason comes into sight (the golden), while the
// cursor stays on image until the next field shows; typing brings the
// image back into sight.
func TestReadOnlyReasonInSight(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		h := open(t, newFake(longWorkload()), size[0], size[1])
		h.focusOn(fkImage, 0, 0)
		// Wrapped at 80 columns: read whole, never cut.
		reason := "! read-only: env has 300 entries; the form shows the first 256 and will not change env"
		whole := func() bool { return strings.Contains(strings.Join(strings.Fields(h.view()), " "), reason) }
		for range 200 {
			if whole() {
				break
			}
			h.press("down")
		}
		if !whole() {
			t.Fatalf("the env's reason never came into sight:\n%s", h.view())
		}
		h.golden(sizeName("readonly_reason", size))
		if k := h.m.form.fields[h.m.focus].kind; k != fkImage {
			t.Fatalf("the cursor left image for field kind %d", k)
		}
		h.typ("x")
		if v := h.view(); !strings.Contains(v, ">image    [app:1x") {
			t.Fatalf("typing did not bring the field into sight:\n%s", v)
		}
	}
}
