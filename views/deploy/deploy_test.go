package deploy_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/render"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/deploy"
	"github.com/kyyard/kyyard/views/viewtest"
)

// recorded is a two-service app as its record holds it.
func recorded() render.Request {
	return render.Request{Instance: "shop", Namespace: "demo", Services: []render.Service{
		{Name: "web", Image: "registry.local:5000/shop/web:1.4.2", Ports: []render.Port{{Name: "http", Port: 8080}}, Replicas: 2,
			Env:        []render.EnvVar{{Name: "LOG_LEVEL", Value: "debug"}, {Name: "MODE", Value: "prod"}},
			ConfigFile: &render.ConfigFile{Path: "/etc/web/config.yaml", Content: "listen: 8080\nworkers: 4\n"},
			Resources:  render.Resources{CPURequest: "250m", MemoryLimit: "512Mi"}},
		{Name: "db", Image: "postgres:17", Ports: []render.Port{{Port: 5432}}, Replicas: 1,
			Secrets: []render.EnvVar{{Name: "POSTGRES_PASSWORD", Value: "s3cret"}},
			Volumes: []render.Volume{{Name: "data", MountPath: "/var/lib/postgresql", Size: "1Gi"}}},
	}}
}

func steps(outcome kube.StepOutcome) []kube.DeployStep {
	return []kube.DeployStep{
		{Service: "web", Kind: "Service", Name: "shop-web", Action: kube.StepCreate, Outcome: outcome},
		{Service: "web", Kind: "ConfigMap", Name: "shop-web-config", Action: kube.StepCreate, Outcome: outcome},
		{Service: "web", Kind: "Deployment", Name: "shop-web", Action: kube.StepCreate, Outcome: outcome},
		{Service: "web", Kind: "Deployment", Name: "shop-web", Action: kube.StepRollout, Outcome: outcome},
		{Service: "db", Kind: "PersistentVolumeClaim", Name: "shop-db-data", Action: kube.StepCreate, Outcome: outcome},
		{Service: "db", Kind: "Deployment", Name: "shop-db", Action: kube.StepCreate, Outcome: outcome},
		{Kind: "Secret", Name: "kyyard-app-shop", Action: kube.StepRecord, Outcome: outcome},
	}
}

// plan is PlanDeploy's answer: access passes, Pod Security warns.
func plan() kube.DeployPlan {
	return kube.DeployPlan{
		Steps: steps(kube.StepPending),
		Verdicts: kube.Verdicts{
			{Guard: kube.GuardAccess, Outcome: kube.OutcomePass, Sentence: "may create and update deployments, services, configmaps, secrets, persistentvolumeclaims in demo"},
			{Guard: kube.GuardPodSecurity, Outcome: kube.OutcomeWarn, Reason: kube.ReasonPodSecurity, Sentence: "namespace demo enforces no Pod Security level"},
		},
		Diff: map[string]string{"Deployment/shop-web": "--- deployed\n+++ planned\n@@ spec @@\n-  replicas: 1\n+  replicas: 2", "Service/shop-web": kube.DiffUnchanged,
			"ConfigMap/shop-web-config": ""},
		DryRun:           map[string]string{"Deployment/shop-web": "", "Service/shop-web": "", "ConfigMap/shop-web-config": ""},
		RecordVersion:    "4711",
		RecordGeneration: 7,
	}
}

// fixedClock stops time: a running step shows 0:00.
func fixedClock() time.Time { return time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC) }

func openNew(t *testing.T, f *fakeDeployer, w, h int) *harness {
	return newHarness(t, deploy.New(viewtest.Context(nil, w, h), f, "demo", "", deploy.WithClock(fixedClock)), w, h)
}

func openRecord(t *testing.T, f *fakeDeployer, w, h int) *harness {
	f.record = kube.RecordedRequest{Request: recorded(), Version: "4711"}
	hs := newHarness(t, deploy.New(viewtest.Context(nil, w, h), f, "demo", "shop", deploy.WithClock(fixedClock)), w, h)
	hs.until("the form filled from the record", func() bool { return hs.has("registry.local:5000") })
	return hs
}

func TestFormGoldens(t *testing.T) {
	for _, s := range sizes {
		h := openNew(t, &fakeDeployer{}, s[0], s[1])
		h.golden("form-empty")
		h.typ("Shop_1")
		h.press("tab", "tab")
		h.typ("web")
		h.press("tab")
		h.typ("app@342538af")
		h.press("tab")
		h.typ("http:0")
		h.golden("form-errors")
		found := false
		for _, st := range rootMsgs[views.StatusMsg](h) {
			found = found || st.Error && strings.HasPrefix(st.Text, "instance: must be a DNS-1123 label")
		}
		if !found || !h.has("✗ 3 field errors: instance: must be") {
			t.Fatalf("the first error (the instance's) is not on the status line: %#v", rootMsgs[views.StatusMsg](h))
		}
		h = openRecord(t, &fakeDeployer{}, s[0], s[1])
		h.golden("form-filled")
	}
}

// The form's fields become the request: typed values, parsed lines,
// secret and volume rows added with ctrl+n.
func TestFormTyping(t *testing.T) {
	f := &fakeDeployer{plan: plan()}
	h := openNew(t, f, 200, 50)
	h.typ("shop")
	h.press("tab", "tab")
	h.typ("web")
	h.press("tab")
	h.typ("nginx:1.27")
	h.press("tab")
	h.typ("http:8080, 53/udp")
	h.press("tab", "backspace")
	h.typ("3")
	h.press("tab", "tab", "tab", "tab", "tab")
	h.typ("A=1")
	h.press("enter")
	h.typ("B=2")
	h.press("tab")
	h.typ("/etc/app/app.conf")
	h.press("tab")
	h.typ("x = 1")
	h.press("tab", "ctrl+n")
	h.typ("TOKEN")
	h.press("tab")
	h.typ("hush")
	if h.has("hush") {
		t.Fatalf("a secret value is shown:\n%s", h.view())
	}
	h.press("tab", "ctrl+n")
	h.typ("data")
	h.press("tab")
	h.typ("/data")
	h.press("tab")
	h.typ("2Gi")
	h.press("ctrl+s")
	h.until("the plan", func() bool { return h.has("dry run  ✓") })
	want := render.Request{Instance: "shop", Namespace: "demo", Services: []render.Service{{Name: "web", Image: "nginx:1.27",
		Ports: []render.Port{{Name: "http", Port: 8080}, {Port: 53, Protocol: "UDP"}}, Replicas: 3,
		Env:        []render.EnvVar{{Name: "A", Value: "1"}, {Name: "B", Value: "2"}},
		ConfigFile: &render.ConfigFile{Path: "/etc/app/app.conf", Content: "x = 1"},
		Secrets:    []render.EnvVar{{Name: "TOKEN", Value: "hush"}},
		Volumes:    []render.Volume{{Name: "data", MountPath: "/data", Size: "2Gi"}}}}}
	if len(f.planned) != 1 || !reflect.DeepEqual(f.planned[0], want) {
		t.Fatalf("planned %#v\nwant %#v", f.planned, want)
	}
}

// ctrl+n on a service's field adds a service, ctrl+d removes it; an app
// keeps one.
func TestFormServices(t *testing.T) {
	h := openRecord(t, &fakeDeployer{}, 200, 50)
	if !h.has("service web (1 of 2)") || h.has("(1 of 3)") {
		t.Fatalf("%s", h.view())
	}
	h.press("ctrl+n")
	if !h.has("service 2 of 3") {
		t.Fatalf("no service added:\n%s", h.view())
	}
	// The new, empty service goes at once; db, filled, after a y.
	h.press("ctrl+d")
	if !h.has("service db (2 of 2)") || !h.has("service 2 removed from the form") {
		t.Fatalf("the empty service was not removed:\n%s", h.view())
	}
	h.press("ctrl+d")
	if !h.has("remove service db from the form") || !h.has("service db (2 of 2)") {
		t.Fatalf("a filled service went without asking:\n%s", h.view())
	}
	h.press("n")
	if !h.has("the service was kept") || !h.has("service db (2 of 2)") {
		t.Fatalf("n did not keep the service:\n%s", h.view())
	}
	h.press("ctrl+d", "y")
	if !h.has("service web (1 of 1)") || h.has("── service db") {
		t.Fatalf("after two removes:\n%s", h.view())
	}
	h.press("ctrl+d")
	if !h.has("an app has at least one service") {
		t.Fatalf("the last service went:\n%s", h.view())
	}
}

// ctrl+s on an invalid form stays on the form and says what to fix.
func TestPreviewNeedsAValidForm(t *testing.T) {
	f := &fakeDeployer{plan: plan()}
	h := openNew(t, f, 80, 24)
	h.press("ctrl+s")
	if !h.has("fix 3 fields first") || len(f.planned) != 0 {
		t.Fatalf("planned %v:\n%s", f.planned, h.view())
	}
}

func TestPreviewGoldens(t *testing.T) {
	for _, s := range sizes {
		f := &fakeDeployer{plan: plan()}
		h := openRecord(t, f, s[0], s[1])
		h.press("ctrl+s")
		h.until("the plan", func() bool { return h.has("dry run  ✓") })
		h.golden("preview-yaml")
		h.typ("y")
		h.press("tab")
		h.golden("preview-diff")
		h.press("tab", "/")
		h.typ("replicas")
		h.press("enter", "n")
		h.golden("preview-search")
		// The server refuses the dry run; a guard refuses: no deploy.
		f = &fakeDeployer{plan: plan()}
		f.plan.DryRun["Deployment/shop-web"] = `admission webhook "policy.example" denied the request: image registry not allowed`
		f.plan.Verdicts = append(f.plan.Verdicts, kube.Verdict{Guard: kube.GuardManaged, Outcome: kube.OutcomeRefuse, Reason: kube.ReasonNameTaken,
			Sentence: "Service shop-db exists and is not this instance's"})
		h = openRecord(t, f, s[0], s[1])
		h.press("ctrl+s")
		h.until("the plan", func() bool { return h.has("dry run") && !h.has("running…") })
		h.press("enter")
		h.golden("preview-refused")
		if len(f.deployed) != 0 {
			t.Fatal("deployed despite the refusals")
		}
	}
}

// The warnings need confirming (a typed name for application_managed);
// esc goes back to the form, kept.
func TestPreviewConfirmAndBack(t *testing.T) {
	f := &fakeDeployer{plan: plan(), result: kube.DeployResult{Steps: steps(kube.StepDone)}}
	f.plan.Verdicts = append(f.plan.Verdicts, kube.Verdict{Guard: kube.GuardManaged, Outcome: kube.OutcomeWarn, Reason: kube.ReasonApplicationManaged,
		Confirm: "shop", Sentence: "managed by Helm (release shop): Helm may undo this on its next sync"})
	h := openRecord(t, f, 200, 50)
	h.press("ctrl+s")
	h.until("the plan", func() bool { return h.has("dry run  ✓") })
	h.press("esc")
	if !h.has("registry.local:5000/shop/web:1.4.2") || !h.has("· edit") && h.scr.Title() != "deploy shop (demo) · edit" {
		t.Fatalf("esc lost the form (%s):\n%s", h.scr.Title(), h.view())
	}
	h.press("ctrl+s")
	h.until("the plan", func() bool { return h.has("dry run  ✓") })
	h.press("enter")
	if len(f.deployed) != 0 || !h.has("confirm 2 warnings first") {
		t.Fatalf("deployed unconfirmed:\n%s", h.view())
	}
	h.typ("y")
	h.typ("sho")
	h.press("enter")
	if len(f.deployed) != 0 {
		t.Fatal("deployed with a wrong name")
	}
	h.typ("p")
	h.press("enter")
	h.until("the deploy's end", func() bool { return h.has("✓ deployed shop") })
	if len(f.opts) != 1 || f.opts[0].RecordVersion != "4711" || f.opts[0].RecordGeneration != 7 ||
		!reflect.DeepEqual(f.opts[0].Confirmed, []kube.Reason{kube.ReasonPodSecurity, kube.ReasonApplicationManaged}) {
		t.Fatalf("options %#v", f.opts)
	}
	ro := rootMsgs[views.OpenRolloutMsg](h)
	if len(ro) != 1 || ro[0].Ref != (kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: "demo", Name: "shop-web"}) {
		t.Fatalf("rollout %#v", ro)
	}
}

func TestStepsGoldens(t *testing.T) {
	for _, s := range sizes {
		// Running: the first steps done, one running, the rest pending.
		f := &fakeDeployer{plan: plan(), gate: make(chan struct{})}
		f.progress = []kube.DeployStep{steps(kube.StepDone)[0], steps(kube.StepDone)[1], steps(kube.StepRunning)[2]}
		h := openRecord(t, f, s[0], s[1])
		h.press("ctrl+s")
		h.until("the plan", func() bool { return h.has("dry run  ✓") })
		h.typ("y")
		h.press("enter")
		h.until("the running step", func() bool { return h.has("running") && strings.Count(h.view(), "✓") >= 2 })
		h.golden("steps-running")
		h.press("esc")
		if !h.has("the deploy is running") {
			t.Fatalf("esc while running:\n%s", h.view())
		}
		close(f.gate)
		h.until("the end", func() bool { return h.has("deployed shop") })

		// Failed: the rollout timed out, the rest skipped.
		failed := steps(kube.StepSkipped)
		for i := range 3 {
			failed[i].Outcome = kube.StepDone
		}
		failed[3].Outcome, failed[3].Reason, failed[3].Detail = kube.StepFailed, kube.ReasonRolloutTimeout, "1 of 2 pods available after 3m0s; the previous objects were restored"
		for i := 4; i < len(failed); i++ {
			failed[i].Reason = kube.ReasonRolloutTimeout
		}
		f = &fakeDeployer{plan: plan(), result: kube.DeployResult{Steps: failed, Reason: kube.ReasonRolloutTimeout}}
		h = openRecord(t, f, s[0], s[1])
		h.press("ctrl+s")
		h.until("the plan", func() bool { return h.has("dry run  ✓") })
		h.typ("y")
		h.press("enter")
		h.until("the failure", func() bool { return h.has("stopped") })
		h.golden("steps-failed")
		if len(rootMsgs[views.OpenRolloutMsg](h)) != 0 {
			t.Fatal("a failed deploy opened the rollout")
		}
		h.press("esc")
		if !h.has("postgres:17") {
			t.Fatalf("the form was not kept after the failure:\n%s", h.view())
		}

		f = &fakeDeployer{plan: plan(), result: kube.DeployResult{Steps: steps(kube.StepDone)}}
		h = openRecord(t, f, s[0], s[1])
		h.press("ctrl+s")
		h.until("the plan", func() bool { return h.has("dry run  ✓") })
		h.typ("y")
		h.press("enter")
		h.until("the end", func() bool { return h.has("✓ deployed shop") })
		h.golden("steps-done")
	}
}

// A record that cannot be read says so; esc goes back.
func TestRecordError(t *testing.T) {
	f := &fakeDeployer{recErr: &kube.Refusal{Reason: kube.ReasonForbidden, Detail: "may not get secrets in demo"}}
	h := newHarness(t, deploy.New(viewtest.Context(nil, 80, 24), f, "demo", "shop"), 80, 24)
	h.until("the error", func() bool { return h.has("could not be read") })
	if !h.has("forbidden") {
		t.Fatalf("%s", h.view())
	}
	h.press("esc")
	if len(rootMsgs[views.BackMsg](h)) != 1 {
		t.Fatal("esc did not go back")
	}
}

// A changed new form asks before esc discards it, as the workload form:
// a second esc (or n) keeps the form, y leaves.
func TestDiscardAsks(t *testing.T) {
	h := openNew(t, &fakeDeployer{}, 80, 24)
	h.typ("shop")
	h.press("esc")
	if len(rootMsgs[views.BackMsg](h)) != 0 || !h.has("discard your edits? y/n") {
		t.Fatalf("%s", h.view())
	}
	if u, ok := h.scr.(views.Unsaved); !ok || u.Unsaved() == "" {
		t.Fatal("no unsaved work reported")
	}
	h.press("esc")
	if len(rootMsgs[views.BackMsg](h)) != 0 || !h.has("the form is kept") {
		t.Fatalf("a second esc did not keep the form:\n%s", h.view())
	}
	h.typ("x")
	if !h.has("[shopx") {
		t.Fatalf("the form does not take keys after keeping it:\n%s", h.view())
	}
	h.press("esc", "n")
	if len(rootMsgs[views.BackMsg](h)) != 0 {
		t.Fatal("n discarded the form")
	}
	h.press("esc", "y")
	if len(rootMsgs[views.BackMsg](h)) != 1 {
		t.Fatal("y did not discard the form")
	}
}

// The root's bottom line: the form's own keys (it captures ?, : and q);
// the status line follows the form with every key, cleared once valid.
func TestFormHintAndStatus(t *testing.T) {
	f := &fakeDeployer{plan: plan()}
	h := openRecord(t, f, 80, 24)
	hint, ok := h.scr.(views.Hinter)
	if !ok || hint.Hint() != "ctrl+s preview · esc back · ctrl+c quit" {
		t.Fatalf("no form hint")
	}
	h.press("tab") // the image
	h.press("ctrl+u")
	h.typ("Bad Image")
	last := func() views.StatusMsg {
		st := rootMsgs[views.StatusMsg](h)
		return st[len(st)-1]
	}
	if st := last(); !st.Error || !strings.Contains(st.Text, "web: image") {
		t.Fatalf("status %#v", st)
	}
	for range len("Bad Image") {
		h.press("backspace")
	}
	h.typ("nginx:1.27")
	if st := last(); st.Error || st.Text != "" || !h.has("✓ the form is valid") {
		t.Fatalf("the status lags behind the form: %#v\n%s", st, h.view())
	}
	n := len(rootMsgs[views.StatusMsg](h))
	h.press("tab")
	if len(rootMsgs[views.StatusMsg](h)) == n {
		t.Fatal("a move does not recompute the status")
	}
	h.press("ctrl+s")
	h.until("the plan", func() bool { return h.has("dry run  ✓") })
	if hint.Hint() != "" {
		t.Fatalf("the preview keeps the form's hint %q", hint.Hint())
	}
	for _, b := range h.scr.Bindings() {
		if b.Help().Key == "ctrl+n" {
			t.Fatal("the preview's help lists the form's ctrl+n (the root's namespace picker there)")
		}
	}
}

// / starts an empty search; n repeats the last one.
func TestPreviewSearchStartsEmpty(t *testing.T) {
	f := &fakeDeployer{plan: plan()}
	f.plan.Verdicts = f.plan.Verdicts[:1]
	h := openRecord(t, f, 200, 50)
	h.press("ctrl+s")
	h.until("the plan", func() bool { return h.has("dry run  ✓") })
	h.press("/")
	h.typ("secretKeyRef")
	h.press("enter", "/")
	h.typ("replicas")
	if !h.has("/replicas ") || h.has("/secretKeyRefreplicas") {
		t.Fatalf("the new search is not empty:\n%s", h.view())
	}
	h.press("enter")
	if !h.has("· /replicas ─") {
		t.Fatalf("%s", h.view())
	}
}

// A plan that fails is shown and blocks the deploy.
func TestPlanError(t *testing.T) {
	f := &fakeDeployer{planErr: errors.New("the API server cannot be reached")}
	h := openRecord(t, f, 80, 24)
	h.press("ctrl+s")
	h.until("the error", func() bool { return h.has("✗ plan") })
	h.press("enter")
	if len(f.deployed) != 0 || !h.has("cannot deploy") {
		t.Fatalf("%s", h.view())
	}
}

// Objects removed from the form are listed before the YAML (deleted and
// kept), and deploying needs the instance name typed.
func TestPreviewPruneConfirm(t *testing.T) {
	for _, s := range sizes {
		f := &fakeDeployer{plan: plan(), result: kube.DeployResult{Steps: steps(kube.StepDone)}}
		f.plan.Verdicts = f.plan.Verdicts[:1]
		f.plan.Prune = []string{"Deployment/shop-db", "Service/shop-db", "Secret/shop-db-secret"}
		f.plan.Keep = []string{"PersistentVolumeClaim/shop-db-data"}
		h := openRecord(t, f, s[0], s[1])
		h.press("ctrl+s")
		h.until("the plan", func() bool { return h.has("dry run") && !h.has("running…") })
		v := h.view()
		del, yaml := strings.Index(v, "will delete: Deployment/shop-db, Service/shop-db,"), strings.Index(v, "── objects (YAML)")
		if del < 0 || yaml < del || !strings.Contains(v, "keeps PersistentVolumeClaim/shop-db-data") {
			t.Fatalf("the prune is not shown before the YAML:\n%s", v)
		}
		h.golden("preview-prune")
		h.press("enter")
		if len(f.deployed) != 0 || !h.has(`type "shop" to confirm deleting 3 objects first`) {
			t.Fatalf("deployed without confirming the prune:\n%s", h.view())
		}
		h.typ("sho")
		h.press("enter")
		if len(f.deployed) != 0 {
			t.Fatal("deployed with a wrong name")
		}
		h.typ("p")
		h.press("enter")
		h.until("the deploy's end", func() bool { return h.has("✓ deployed shop") })
		if len(f.opts) != 1 || len(f.opts[0].Confirmed) != 0 {
			t.Fatalf("options %#v", f.opts)
		}
	}
}

// A guard refuses: PlanDeploy does not dry-run, and the preview says so
// instead of "accepted (0 objects)".
func TestPreviewDryRunNotRun(t *testing.T) {
	f := &fakeDeployer{plan: plan()}
	f.plan.DryRun = nil
	f.plan.Verdicts = append(f.plan.Verdicts, kube.Verdict{Guard: kube.GuardOwner, Outcome: kube.OutcomeRefuse, Reason: kube.ReasonNameTaken,
		Sentence: "Service shop-db exists and is not this instance's"})
	h := openRecord(t, f, 80, 24)
	h.press("ctrl+s")
	h.until("the plan", func() bool { return h.has("dry run") && !h.has("running…") })
	if !h.has("dry run  not run (a guard refuses)") || h.has("accepted") {
		t.Fatalf("%s", h.view())
	}
	h.golden("preview-dryrun-not-run")
}

// manyPasses is a plan with 20 passing checks, a name_taken refusal and
// a Pod Security warning, as a real PlanDeploy answers.
func manyPasses() kube.DeployPlan {
	p := plan()
	p.DryRun = nil
	var vs kube.Verdicts
	for i := range 20 {
		g := []kube.Guard{kube.GuardAccess, kube.GuardOwner, kube.GuardClaimSpec}[i%3]
		vs = append(vs, kube.Verdict{Guard: g, Outcome: kube.OutcomePass, Sentence: fmt.Sprintf("you may get, list, create and update check %d in demo", i)})
	}
	vs = append(vs, p.Verdicts[1], kube.Verdict{Guard: kube.GuardOwner, Outcome: kube.OutcomeRefuse, Reason: kube.ReasonNameTaken,
		Sentence: "Service shop-db exists and is not this instance's: it carries no app.kubernetes.io/instance label of shop, so kyyard will not write it"})
	p.Verdicts = vs
	return p
}

// Refusals and warnings come first, whole; the passing checks are one
// line (d lists them); the YAML takes the rest; a head taller than the
// screen scrolls with the body instead of being cut.
func TestPreviewLayout(t *testing.T) {
	for _, s := range sizes {
		f := &fakeDeployer{plan: manyPasses()}
		h := openRecord(t, f, s[0], s[1])
		h.press("ctrl+s")
		h.until("the plan", func() bool { return h.has("dry run") && !h.has("running…") })
		v := h.view()
		refuse, warn, pass := strings.Index(v, "✗ name_taken"), strings.Index(v, "! pod_security"), strings.Index(v, "✓ 20 checks passed: permissions, names, claims — d shows them")
		if refuse < 0 || warn < refuse || pass < warn || !strings.Contains(v, "will not write it") || strings.Contains(v, "check 3 in demo") {
			t.Fatalf("the head is not refusals, warnings, then one passing line:\n%s", v)
		}
		if yaml := strings.Count(v[strings.Index(v, "── objects (YAML)"):], "\n"); yaml < s[1]-12 {
			t.Fatalf("only %d lines left to the YAML:\n%s", yaml, v)
		}
		h.golden("preview-layout")
		h.press("d")
		if !h.has("check 0 in demo") || !h.has("d hides them") {
			t.Fatalf("d does not list the passing checks:\n%s", h.view())
		}
		if s[0] == 80 {
			// 20 more lines do not fit: the page scrolls, nothing is cut.
			if !h.has("✗ name_taken") || h.has("── objects (YAML)") {
				t.Fatalf("%s", h.view())
			}
			for i := 0; i < 40 && !h.has("── objects (YAML)"); i++ {
				h.press("down")
			}
			if !h.has("── objects (YAML)") || !h.has("dry run") {
				t.Fatalf("the body cannot be scrolled to:\n%s", h.view())
			}
		}
	}
}

// The running rollout shows its elapsed time against the deadline
// (WithTimeout) and what holds it (Detail); after a failure the "wait for
// its end" note is gone.
func TestStepsRolloutElapsed(t *testing.T) {
	for _, s := range sizes {
		base := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
		now := base
		f := &fakeDeployer{plan: plan(), gate: make(chan struct{})}
		f.record = kube.RecordedRequest{Request: recorded(), Version: "4711"}
		roll := steps(kube.StepRunning)[3]
		roll.Detail = "1 of 2 pods available; pod shop-web-7d9f: ContainerCreating; claim shop-db-data Pending: waiting for first consumer"
		f.progress = []kube.DeployStep{steps(kube.StepDone)[0], steps(kube.StepDone)[1], steps(kube.StepDone)[2], roll}
		failed := steps(kube.StepSkipped)
		for i := range 3 {
			failed[i].Outcome = kube.StepDone
		}
		failed[3].Outcome, failed[3].Reason, failed[3].Detail = kube.StepFailed, kube.ReasonRolloutTimeout, "1 of 2 pods available after 5m0s; the previous objects were restored"
		f.result = kube.DeployResult{Steps: failed, Reason: kube.ReasonRolloutTimeout}
		h := newHarness(t, deploy.New(viewtest.Context(nil, s[0], s[1]), f, "demo", "shop",
			deploy.WithTimeout(5*time.Minute), deploy.WithClock(func() time.Time { return now })), s[0], s[1])
		h.until("the form", func() bool { return h.has("registry.local:5000") })
		h.press("ctrl+s")
		h.until("the plan", func() bool { return h.has("dry run  ✓") })
		h.typ("y")
		h.press("enter")
		h.until("the rollout running", func() bool { return h.has("running 0:00 of 5:00") })
		now = base.Add(42 * time.Second)
		if !h.has("running 0:42 of 5:00:") || !h.has("pod shop-web-7d9f: ContainerCreating") {
			t.Fatalf("no elapsed time, deadline or detail:\n%s", h.view())
		}
		h.golden("steps-rollout")
		h.press("esc")
		if !h.has("the deploy is running") {
			t.Fatalf("esc while running:\n%s", h.view())
		}
		if len(f.opts) != 1 || f.opts[0].Timeout != 5*time.Minute {
			t.Fatalf("options %#v", f.opts)
		}
		close(f.gate)
		h.until("the failure", func() bool { return h.has("stopped") })
		if h.has("the deploy is running") {
			t.Fatalf("the running note stayed after the end:\n%s", h.view())
		}
	}
}

// The form says under each image that pods run restricted (render's
// securityContext), whole at both sizes.
func TestFormSecurityHint(t *testing.T) {
	for _, s := range sizes {
		h := openRecord(t, &fakeDeployer{}, s[0], s[1])
		want := "non-root uid 10001, no capabilities: an image needing root fails"
		if s[0] == 200 {
			want = "runs as non-root user 10001 with no capabilities (Pod Security restricted): an image that needs root will not start"
		}
		if !h.has(want) {
			t.Fatalf("no security hint %q:\n%s", want, h.view())
		}
	}
}

// TestPreviewNamesTheKeysInForce: the preview's help line names the deploy
// table's keys as the key map binds them, an unbound one not at all (a
// trial: it named the default keys after a rebind).
func TestPreviewNamesTheKeysInForce(t *testing.T) {
	f := &fakeDeployer{plan: plan()}
	f.record = kube.RecordedRequest{Request: recorded(), Version: "4711"}
	vc := viewtest.Context(nil, 200, 50)
	vc.KeyMap = views.KeyMap{deploy.KeyTable: {"back": {"ctrl+b"}, "tab": {"ctrl+t"}, "search": {}}}
	h := newHarness(t, deploy.New(vc, f, "demo", "shop", deploy.WithClock(fixedClock)), 200, 50)
	h.until("the form filled from the record", func() bool { return h.has("registry.local:5000") })
	h.press("ctrl+s")
	h.until("the plan", func() bool { return h.has("dry run  ✓") })
	if !h.has("confirm 1 warning · ↑/↓ scroll · ctrl+b back to the form") || h.has("esc back") {
		t.Fatalf("the preview's question:\n%s", h.view())
	}
	h.typ("y")
	if !h.has("enter deploy · ctrl+b back to the form · ctrl+t YAML/diff · n/N next/previous match") || h.has("/ search") || h.has("esc back") {
		t.Fatalf("the preview's help line:\n%s", h.view())
	}
}
