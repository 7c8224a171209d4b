package oracle

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
)

// coverage names, per kind and column, the shapes of kubectl's cell that the
// generator must reach within 3000 objects: a generator that stops drawing
// an input class would otherwise pass the oracle silently.
var coverage = map[string]map[string][]string{
	"pods": {
		"STATUS": {`^Running$`, `^Pending$`, `^Completed$`, `^Succeeded$`, `^Failed$`, `^Terminating$`, `^Unknown$`, `^NotReady$`,
			`^SchedulingGated$`, `^Init:\d+/\d+$`, `^Init:ExitCode:-?\d+$`, `^Init:Signal:\d+$`, `^Init:(Error|OOMKilled|CrashLoopBackOff)$`,
			`^Signal:\d+$`, `^ExitCode:-?\d+$`, `^CrashLoopBackOff$`, `^Error$`, `^OOMKilled$`, `^ContainerCreating$`, `^PodInitializing$`},
		"READY":           {`^0/0$`, `^1/1$`, `^[1-9]/[2-9]$`, `^0/[1-9]$`},
		"RESTARTS":        {`^0$`, `^\d+ \(.+ ago\)$`, `^[1-9]\d*$`},
		"AGE":             {`^<unknown>$`, `^\d+s$`, `^\d+m`, `^\d+h`, `^\d+d`, `^\d+y`, `^<invalid>$`},
		"NOMINATED NODE":  {`^<none>$`, `^node-2$`},
		"READINESS GATES": {`^<none>$`, `^0/\d$`, `^1/\d$`},
		"IP":              {`^<none>$`, `^10\.0\.0\.1$`},
	},
	"nodes": {
		"STATUS": {`^Ready$`, `^NotReady$`, `^Unknown$`, `,SchedulingDisabled$`},
		"ROLES":  {`^<none>$`, `,`, `^control-plane$`},
	},
	"jobs": {
		"STATUS":      {`^Complete$`, `^Failed$`, `^Terminating$`, `^Suspended$`, `^FailureTarget$`, `^SuccessCriteriaMet$`, `^Running$`},
		"COMPLETIONS": {`^-?\d+/-?\d+$`, ` of `},
		"DURATION":    {`^$`, `^292y$`, `\d`},
	},
	"horizontalpodautoscalers": {
		"TARGETS": {`<unknown>`, `\(avg\)`, `<auto>`, `%`, `more\.\.\.`, `^<none>$`},
	},
	"endpointslices": {
		"PORTS":     {`^<unset>$`, `\*`, `more\.\.\.`, `http`},
		"ENDPOINTS": {`^<unset>$`, `more\.\.\.`},
	},
	"services": {
		"EXTERNAL-IP": {`^<none>$`, `^<pending>$`, `^<unknown>$`, `,`, `lb\.example\.com`},
		"PORT(S)":     {`^<none>$`, `:\d+/`},
	},
	"events": {
		"LAST SEEN": {`^<unknown>$`, `\d`},
		"COUNT":     {`^1$`, `^[2-9]$`, `^0$`},
	},
	"persistentvolumeclaims": {
		"CAPACITY":     {`^$`, `Gi`},
		"ACCESS MODES": {`RWOP`, `,`},
	},
	"storageclasses": {"NAME": {`\(default\)$`}},
}

// TestGeneratorCoverage: the generator reaches every shape of cell listed in
// coverage.
func TestGeneratorCoverage(t *testing.T) {
	p := NewPrinter()
	for _, s := range Subjects() {
		want, ok := coverage[string(s.ID)]
		if !ok {
			continue
		}
		seen := map[string]map[string]bool{}
		for i := range 3000 {
			obj := s.Gen(newGen(1, uint64(i), time.Now()))
			for _, o := range []runtime.Object{obj, Default(obj)} {
				cols, cells, err := p.Table(o)
				if err != nil {
					t.Fatalf("%s #%d: %v", s.ID, i, err)
				}
				for j, c := range cols {
					name := strings.ToUpper(c.Name)
					if seen[name] == nil {
						seen[name] = map[string]bool{}
					}
					seen[name][cells[j]] = true
				}
			}
		}
		for col, patterns := range want {
			if seen[col] == nil {
				t.Errorf("%s: no column %s", s.ID, col)
				continue
			}
			for _, pat := range patterns {
				re := regexp.MustCompile(pat)
				found := false
				for cell := range seen[col] {
					if re.MatchString(cell) {
						found = true
						break
					}
				}
				if !found {
					t.Errorf("%s %s: no generated object prints a cell matching %s", s.ID, col, pat)
				}
			}
		}
	}
}
