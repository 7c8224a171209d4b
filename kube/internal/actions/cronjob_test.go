package actions

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/vocab"
)

// triggerNow is the clock of the CronJob tests: minute 29418660 since the
// Unix epoch.
var triggerNow = time.Unix(29418660*60+17, 0)

// cronJob is demo/nightly: a template with labels, annotations and one
// container; suspend as given (nil: unset).
func cronJob(suspend *bool) *batchv1.CronJob {
	backoff := int32(2)
	return &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "demo", UID: "uid-cj", ResourceVersion: "40", Generation: 2,
			Labels: map[string]string{"team": "data"}},
		Spec: batchv1.CronJobSpec{Schedule: "0 3 * * *", Suspend: suspend,
			JobTemplate: batchv1.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "report"},
					Annotations: map[string]string{"owner": "data-team"}},
				Spec: batchv1.JobSpec{BackoffLimit: &backoff, Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "report"}},
					Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
						Containers: []corev1.Container{{Name: "report", Image: "report:1"}}}}},
			}},
	}
}

// cronActor is an Actor over a fake clientset holding objs and the demo
// namespace (Pod Security baseline enforced), at triggerNow, whose access
// reviews are answered by review; CronJobs have their plugin's actions.
func cronActor(readOnly bool, review k8stesting.ReactionFunc, objs ...runtime.Object) (Actor, *fake.Clientset) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "demo",
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}}}
	cs := fake.NewClientset(append([]runtime.Object{ns}, objs...)...)
	cs.PrependReactor("create", "selfsubjectaccessreviews", review)
	info := vocab.KindInfo{ID: vocab.KindCronJobs, Group: "batch", Version: "v1", Resource: "cronjobs", Namespaced: true,
		Capabilities: vocab.CanTrigger | vocab.CanSuspend}
	return Actor{CS: cs, Guards: guards.New(cs, vocab.PolicyInteractive, readOnly),
		KindInfo: func(vocab.Kind) vocab.KindInfo { return info }, Now: func() time.Time { return triggerNow }}, cs
}

var nightly = vocab.ObjectRef{Kind: vocab.KindCronJobs, Namespace: "demo", Name: "nightly", UID: "uid-cj"}

// guardsOf lists the verdicts as "guard:outcome[:reason]".
func guardsOf(vs vocab.Verdicts) string {
	var out []string
	for _, v := range vs {
		s := string(v.Guard) + ":" + string(v.Outcome)
		if v.Reason != "" {
			s += ":" + string(v.Reason)
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

// writes lists the requests cs was sent other than reads and access
// reviews, "verb resource".
func writes(cs *fake.Clientset) []string {
	var out []string
	for _, a := range cs.Actions() {
		switch a.GetVerb() {
		case "get", "list", "watch":
			continue
		}
		if a.GetResource().Resource == "selfsubjectaccessreviews" {
			continue
		}
		out = append(out, a.GetVerb()+" "+a.GetResource().Resource)
	}
	return out
}

// TestTriggerCreatesTheJobKubectlWould: the plan's verdicts in the
// pipeline's order (read-only, the action's rule, the access review of
// create jobs in batch, the CronJob read fresh, another tool's markers,
// Pod Security: the Job makes pods), then one create: the Job named
// <cronjob>-manual-<minute>, with the template's labels, its annotations
// over cronjob.kubernetes.io/instantiate: manual, one ownerReference to the
// CronJob (controller, no blockOwnerDeletion) and the template's spec, as
// `kubectl create job --from=cronjob/nightly` builds it. The outcome names
// the Job.
func TestTriggerCreatesTheJobKubectlWould(t *testing.T) {
	a, cs := cronActor(false, answer(true), cronJob(nil))
	op := Operation{Ref: nightly, Action: vocab.ActionTrigger}
	vs, err := a.Plan(context.Background(), op)
	want := "read_only:pass action:pass access:pass fresh:pass managed:pass pod_security:pass"
	if err != nil || guardsOf(vs) != want {
		t.Fatalf("plan: %s, err %v; want %s", guardsOf(vs), err, want)
	}
	if got := strings.Join(reviews(cs), ","); got != "create jobs" {
		t.Fatalf("access reviews %q", got)
	}
	for _, act := range cs.Actions() {
		if act.GetResource().Resource == "selfsubjectaccessreviews" {
			ra := act.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).Spec.ResourceAttributes
			if ra.Group != "batch" || ra.Namespace != "demo" {
				t.Fatalf("access review %+v", ra)
			}
		}
	}
	if w := writes(cs); len(w) != 0 {
		t.Fatalf("the plan wrote %v", w)
	}
	cs.ClearActions()
	out, err := a.Operate(context.Background(), op)
	if err != nil || !out.OK() || !out.Written {
		t.Fatalf("operate: %+v, %v", out, err)
	}
	if w := strings.Join(writes(cs), ","); w != "create jobs" {
		t.Fatalf("writes %q", w)
	}
	name := "nightly-manual-29418660"
	if out.Created != (vocab.ObjectRef{Kind: vocab.KindJobs, Namespace: "demo", Name: name}) || !strings.Contains(out.Detail, "demo/jobs/"+name) {
		t.Fatalf("outcome %+v", out)
	}
	job, err := cs.BatchV1().Jobs("demo").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tmpl := cronJob(nil).Spec.JobTemplate
	if !reflect.DeepEqual(job.Labels, map[string]string{"app": "report"}) ||
		!reflect.DeepEqual(job.Annotations, map[string]string{InstantiateAnnotation: "manual", "owner": "data-team"}) {
		t.Fatalf("labels %v, annotations %v", job.Labels, job.Annotations)
	}
	if len(job.OwnerReferences) != 1 {
		t.Fatalf("ownerReferences %+v", job.OwnerReferences)
	}
	or := job.OwnerReferences[0]
	if or.APIVersion != "batch/v1" || or.Kind != "CronJob" || or.Name != "nightly" || or.UID != "uid-cj" ||
		or.Controller == nil || !*or.Controller || or.BlockOwnerDeletion != nil {
		t.Fatalf("ownerReference %+v", or)
	}
	if !reflect.DeepEqual(job.Spec, tmpl.Spec) {
		t.Fatalf("spec %+v, want the template's %+v", job.Spec, tmpl.Spec)
	}
}

// TestTriggerRefusals: each refusal stops the pipeline where it belongs
// and writes nothing: read-only before any request; forbidden (create
// jobs) before the CronJob is read; a CronJob gone (not_found) or made
// again under its name (its UID changed: conflict); a template without a
// container (invalid, a clear sentence); the Job's name taken (name_taken).
func TestTriggerRefusals(t *testing.T) {
	noContainers := cronJob(nil)
	noContainers.Spec.JobTemplate.Spec.Template.Spec.Containers = nil
	again := cronJob(nil)
	again.UID = "uid-other"
	taken := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "nightly-manual-29418660", Namespace: "demo"}}
	for _, tc := range []struct {
		name     string
		readOnly bool
		allowed  bool
		objs     []runtime.Object
		verdicts string
		sentence string
		requests int // every request, reads and reviews too; -1: not counted
	}{
		{"read-only", true, true, []runtime.Object{cronJob(nil)}, "read_only:refuse:read_only", "", 0},
		{"forbidden", false, false, []runtime.Object{cronJob(nil)},
			"read_only:pass action:pass access:refuse:forbidden", "create jobs", 1},
		{"gone", false, true, nil, "read_only:pass action:pass access:pass fresh:refuse:not_found", "no longer exists", -1},
		{"conflict", false, true, []runtime.Object{again}, "read_only:pass action:pass access:pass fresh:refuse:conflict", "UID changed", -1},
		{"no template", false, true, []runtime.Object{noContainers},
			"read_only:pass action:pass access:pass fresh:pass action:refuse:invalid", "has no container in spec.jobTemplate.spec.template", -1},
		{"name taken", false, true, []runtime.Object{cronJob(nil), taken},
			"read_only:pass action:pass access:pass fresh:pass action:refuse:name_taken", "demo/jobs/nightly-manual-29418660 exists already", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, cs := cronActor(tc.readOnly, answer(tc.allowed), tc.objs...)
			cs.ClearActions()
			out, err := a.Operate(context.Background(), Operation{Ref: nightly, Action: vocab.ActionTrigger})
			if err == nil || out.OK() || out.Written || guardsOf(out.Verdicts) != tc.verdicts {
				t.Fatalf("outcome %+v (%s), err %v; want %s", out, guardsOf(out.Verdicts), err, tc.verdicts)
			}
			if !strings.Contains(out.Detail, tc.sentence) {
				t.Fatalf("detail %q does not say %q", out.Detail, tc.sentence)
			}
			if w := writes(cs); len(w) != 0 {
				t.Fatalf("wrote %v", w)
			}
			if tc.requests >= 0 && len(cs.Actions()) != tc.requests {
				t.Fatalf("requests %v, want %d", cs.Actions(), tc.requests)
			}
		})
	}
}

// TestTriggerNameTakenAtCreate: a Job made under the name between the plan
// and the create (the API server answers AlreadyExists) is name_taken too,
// not a bare error.
func TestTriggerNameTakenAtCreate(t *testing.T) {
	a, cs := cronActor(false, answer(true), cronJob(nil))
	cs.PrependReactor("create", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewAlreadyExists(schema.GroupResource{Group: "batch", Resource: "jobs"}, "nightly-manual-29418660")
	})
	out, err := a.Operate(context.Background(), Operation{Ref: nightly, Action: vocab.ActionTrigger})
	if vocab.ReasonOf(err) != vocab.ReasonNameTaken || out.Reason != vocab.ReasonNameTaken || out.Written {
		t.Fatalf("outcome %+v, err %v", out, err)
	}
}

// TestSuspendAndUnsuspend: suspend patches spec.suspend true with the
// resourceVersion read as precondition (a strategic merge patch), and
// unsuspend false (after a Pod Security check: the schedule makes pods
// again); a CronJob already as asked gets no request and says so.
func TestSuspendAndUnsuspend(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name     string
		suspend  *bool
		action   vocab.Action
		body     string // "" when nothing is sent
		verdicts string
		detail   string
	}{
		{"suspend", nil, vocab.ActionSuspend, `{"metadata":{"resourceVersion":"40"},"spec":{"suspend":true}}`,
			"read_only:pass action:pass access:pass fresh:pass managed:pass", "suspended demo/cronjobs/nightly"},
		{"suspend a suspended one", &yes, vocab.ActionSuspend, "",
			"read_only:pass action:pass access:pass fresh:pass action:pass", "demo/cronjobs/nightly is already suspended"},
		{"unsuspend", &yes, vocab.ActionUnsuspend, `{"metadata":{"resourceVersion":"40"},"spec":{"suspend":false}}`,
			"read_only:pass action:pass access:pass fresh:pass managed:pass pod_security:pass", "unsuspended demo/cronjobs/nightly"},
		{"unsuspend one not suspended", &no, vocab.ActionUnsuspend, "",
			"read_only:pass action:pass access:pass fresh:pass action:pass", "demo/cronjobs/nightly is not suspended"},
		{"unsuspend one never suspended", nil, vocab.ActionUnsuspend, "",
			"read_only:pass action:pass access:pass fresh:pass action:pass", "is not suspended"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, cs := cronActor(false, answer(true), cronJob(tc.suspend))
			cs.ClearActions()
			out, err := a.Operate(context.Background(), Operation{Ref: nightly, Action: tc.action})
			if err != nil || !out.OK() || guardsOf(out.Verdicts) != tc.verdicts || !strings.Contains(out.Detail, tc.detail) {
				t.Fatalf("outcome %+v (%s), err %v", out, guardsOf(out.Verdicts), err)
			}
			if got := strings.Join(reviews(cs), ","); got != "patch cronjobs" {
				t.Fatalf("access reviews %q", got)
			}
			var bodies []string
			for _, act := range cs.Actions() {
				if p, ok := act.(k8stesting.PatchAction); ok {
					if p.GetPatchType() != "application/strategic-merge-patch+json" {
						t.Fatalf("patch type %s", p.GetPatchType())
					}
					bodies = append(bodies, string(p.GetPatch()))
				}
			}
			switch {
			case tc.body == "" && (len(bodies) != 0 || out.Written):
				t.Fatalf("sent %v for nothing to do", bodies)
			case tc.body != "" && (len(bodies) != 1 || !sameJSON(bodies[0], tc.body) || !out.Written):
				t.Fatalf("sent %v, want %s", bodies, tc.body)
			}
		})
	}
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// TestSuspendConflict: a CronJob changed since the person saw it (another
// resourceVersion and generation) is refused as a conflict, unpatched.
func TestSuspendConflict(t *testing.T) {
	a, cs := cronActor(false, answer(true), cronJob(nil))
	seen := nightly
	seen.ResourceVersion, seen.Generation = "39", 1
	out, err := a.Operate(context.Background(), Operation{Ref: seen, Action: vocab.ActionSuspend})
	if err == nil || out.Reason != vocab.ReasonConflict || len(writes(cs)) != 0 {
		t.Fatalf("outcome %+v, err %v, writes %v", out, err, writes(cs))
	}
}

// TestTriggeredJobName: <cronjob>-manual-<minutes since the epoch>; a
// CronJob name as long as the API server allows (52) is cut so the Job's
// name is 63, without a trailing '.' or '-'; every name is one the API
// server takes.
func TestTriggeredJobName(t *testing.T) {
	long := strings.Repeat("a", 52)
	dotted := strings.Repeat("b", 46) + ".c"
	for _, tc := range []struct{ cron, want string }{
		{"nightly", "nightly-manual-29418660"},
		{long, strings.Repeat("a", 47) + "-manual-29418660"},
		{dotted, strings.Repeat("b", 46) + "-manual-29418660"},
		{strings.Repeat("d", 46) + "-x", strings.Repeat("d", 46) + "-manual-29418660"},
	} {
		got := TriggeredJobName(tc.cron, triggerNow)
		if got != tc.want || len(got) > MaxJobNameLength || jobNameProblem(got) != "" {
			t.Errorf("%s: got %q (%d, %q), want %q", tc.cron, got, len(got), jobNameProblem(got), tc.want)
		}
	}
	if p := jobNameProblem(strings.Repeat("x", 64)); !strings.Contains(p, "must be no more than 63") {
		t.Errorf("a 64-character name: %q", p)
	}
	if !regexp.MustCompile(`^nightly-manual-\d{8}$`).MatchString(TriggeredJobName("nightly", time.Now())) {
		t.Errorf("now: %q", TriggeredJobName("nightly", time.Now()))
	}
}

// TestCronJobPermissions: Permissions asks about a CronJob's actions with
// the reviews the actions send (create jobs; patch cronjobs, once for
// suspend and unsuspend) and reports each denied.
func TestCronJobPermissions(t *testing.T) {
	a, cs := cronActor(false, answer(false))
	off := a.Permissions(context.Background(), vocab.KindCronJobs, "demo")
	got := strings.Join(reviews(cs), ",")
	if off[vocab.ActionTrigger] == "" || off[vocab.ActionSuspend] == "" || off[vocab.ActionUnsuspend] == "" ||
		!strings.Contains(got, "create jobs") || !strings.Contains(got, "patch cronjobs") {
		t.Fatalf("denied %v, reviews %v", off, got)
	}
}

// TestTriggerPodSecurity: in a namespace that enforces no Pod Security
// level a trigger warns (the Job's pods go unchecked): interactive asks
// for the warning to be confirmed, strict refuses; neither creates a Job
// unconfirmed.
func TestTriggerPodSecurity(t *testing.T) {
	for _, policy := range []vocab.Policy{vocab.PolicyInteractive, vocab.PolicyStrict} {
		a, cs := cronActor(false, answer(true), cronJob(nil))
		ns, _ := cs.CoreV1().Namespaces().Get(context.Background(), "demo", metav1.GetOptions{})
		ns.Labels = nil
		if _, err := cs.CoreV1().Namespaces().Update(context.Background(), ns, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		a.Guards = guards.New(cs, policy, false)
		op := Operation{Ref: nightly, Action: vocab.ActionTrigger}
		out, err := a.Operate(context.Background(), op)
		if err == nil || out.Reason != vocab.ReasonPodSecurity || len(writes(cs)) != 1 { // the namespace's update above
			t.Fatalf("%s: %+v, %v, writes %v", policy, out, err, writes(cs))
		}
		op.Confirmed = []vocab.Reason{vocab.ReasonPodSecurity}
		out, err = a.Operate(context.Background(), op)
		if ok := err == nil && out.Written; ok != (policy == vocab.PolicyInteractive) {
			t.Fatalf("%s, confirmed: %+v, %v", policy, out, err)
		}
	}
}
