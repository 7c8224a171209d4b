package kube_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// cronJob creates the CronJob name in e's namespace: a schedule that does
// not come during the test (03:00 on 1 January), a template with a label
// and an annotation whose one container runs on the fake nodes.
func (e *opEnv) cronJob(name string) kube.ObjectRef {
	e.t.Helper()
	spec := kwokPodSpec("busybox:1.36")
	spec.RestartPolicy = corev1.RestartPolicyNever
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: batchv1.CronJobSpec{Schedule: "0 3 1 1 *",
		JobTemplate: batchv1.JobTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}, Annotations: map[string]string{"owner": "e2e"}},
			Spec:       batchv1.JobSpec{Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}}, Spec: spec}},
		}}}
	got, err := e.cs.BatchV1().CronJobs(e.ns).Create(context.Background(), cj, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return kube.ObjectRef{Kind: kube.KindCronJobs, Namespace: e.ns, Name: name, UID: string(got.UID)}
}

// podsOf polls the snapshot of what opening kind/name shows (DrillDown),
// every 200 ms for at most 60 s, until it holds a pod row, and returns the
// rows' names.
func podsOf(t *testing.T, c *kube.Client, kind kube.Kind, namespace, name string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		req, err := c.DrillDown(ctx, kind, namespace, name)
		if err != nil {
			t.Fatalf("open %s/%s: %v", kind, name, err)
		}
		if tbl, ok := c.Snapshot(ctx, req).Table(kube.KindPods); ok && len(tbl.Rows) > 0 {
			var out []string
			for _, r := range tbl.Rows {
				out = append(out, r.Name)
			}
			return out
		}
		select {
		case <-ctx.Done():
			t.Fatalf("opening %s/%s shows no pod", kind, name)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// TestE2ECronJobTriggerSuspendUnsuspend: a trigger creates one Job (one
// create of jobs in the audit log) named <cronjob>-manual-<minute>, built
// as `kubectl create job --from=cronjob/` builds it (the template's label,
// its annotation and instantiate: manual, the CronJob as controller); the
// Job's pods run (kwok) and show both when the Job and when the CronJob is
// opened. A second trigger whose name is taken is refused (name_taken),
// writing nothing. Suspend and unsuspend patch spec.suspend once each; a
// second suspend sends nothing. With the read-only kubeconfig the trigger
// is forbidden and creates nothing; with --readonly it sends no request at
// all.
func TestE2ECronJobTriggerSuspendUnsuspend(t *testing.T) {
	e := newOpEnv(t)
	ctx := context.Background()
	c, agent := e.client(e.cfg, kube.Options{Policy: kube.PolicyStrict})
	ref := e.cronJob("report")

	since := time.Now()
	out := e.operate(c, kube.Operation{Ref: ref, Action: kube.ActionTrigger})
	w := oneWrite(t, agent, since, "create", "jobs")
	name := out.Created.Name
	if out.Created.Kind != kube.KindJobs || out.Created.Namespace != e.ns || w.ObjectRef.Name != name && w.ObjectRef.Name != "" ||
		!strings.HasPrefix(name, "report-manual-") || !strings.Contains(out.Detail, name) {
		t.Fatalf("outcome %+v, audit %+v", out, w)
	}
	if stamp := strings.TrimPrefix(name, "report-manual-"); stamp != strings.TrimPrefix(kube.TriggeredJobName("report", since), "report-manual-") &&
		stamp != strings.TrimPrefix(kube.TriggeredJobName("report", time.Now()), "report-manual-") {
		t.Fatalf("Job %s is not named for the minute of the trigger", name)
	}
	job, err := e.cs.BatchV1().Jobs(e.ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owner := metav1.GetControllerOf(job)
	if job.Labels["app"] != "report" || job.Annotations[kube.InstantiateAnnotation] != "manual" || job.Annotations["owner"] != "e2e" ||
		owner == nil || owner.Kind != "CronJob" || owner.Name != "report" || string(owner.UID) != ref.UID || owner.APIVersion != "batch/v1" {
		t.Fatalf("Job labels %v, annotations %v, controller %+v", job.Labels, job.Annotations, owner)
	}
	jobPods := podsOf(t, c, kube.KindJobs, e.ns, name)
	cronPods := podsOf(t, c, kube.KindCronJobs, e.ns, "report")
	if len(jobPods) == 0 || !strings.HasPrefix(jobPods[0], name+"-") || !strings.Contains(strings.Join(cronPods, ","), jobPods[0]) {
		t.Fatalf("the Job's pods %v; the CronJob's %v", jobPods, cronPods)
	}

	// Taken whether or not the minute turns before the second trigger:
	// this minute's and the next one's names are made too, when they are
	// not the Job's (suspended Jobs: no pods).
	now := time.Now()
	for _, blocked := range []string{kube.TriggeredJobName("report", now), kube.TriggeredJobName("report", now.Add(time.Minute))} {
		if blocked == name {
			continue
		}
		blocker := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: blocked}, Spec: *job.Spec.DeepCopy()}
		blocker.Spec.Suspend, blocker.Spec.Selector, blocker.Spec.ManualSelector = ptr(true), nil, nil
		blocker.Spec.Template.Labels = map[string]string{"app": "blocker"}
		if _, err := e.cs.BatchV1().Jobs(e.ns).Create(ctx, blocker, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	since = time.Now()
	taken := e.refused(c, kube.Operation{Ref: ref, Action: kube.ActionTrigger}, kube.ReasonNameTaken)
	if !strings.Contains(taken.Detail, "exists already") {
		t.Fatalf("name_taken detail %q", taken.Detail)
	}
	if ws := auditWrites(t, agent, since); len(ws) != 0 {
		t.Fatalf("a trigger whose name is taken wrote %+v", ws)
	}

	since = time.Now()
	e.operate(c, kube.Operation{Ref: ref, Action: kube.ActionSuspend})
	oneWrite(t, agent, since, "patch", "cronjobs")
	cj, err := e.cs.BatchV1().CronJobs(e.ns).Get(ctx, "report", metav1.GetOptions{})
	if err != nil || cj.Spec.Suspend == nil || !*cj.Spec.Suspend {
		t.Fatalf("after suspend: %+v, %v", cj.Spec.Suspend, err)
	}
	since = time.Now()
	again := e.operate(c, kube.Operation{Ref: ref, Action: kube.ActionSuspend})
	if again.Written || !strings.Contains(again.Detail, "already suspended") {
		t.Fatalf("a second suspend: %+v", again)
	}
	if ws := auditWrites(t, agent, since); len(ws) != 0 {
		t.Fatalf("a second suspend wrote %+v", ws)
	}
	since = time.Now()
	e.operate(c, kube.Operation{Ref: ref, Action: kube.ActionUnsuspend})
	oneWrite(t, agent, since, "patch", "cronjobs")
	if cj, err = e.cs.BatchV1().CronJobs(e.ns).Get(ctx, "report", metav1.GetOptions{}); err != nil || cj.Spec.Suspend == nil || *cj.Spec.Suspend {
		t.Fatalf("after unsuspend: %+v, %v", cj.Spec.Suspend, err)
	}

	viewer, viewerAgent := e.client(kubetest.LocalReadOnly(t), kube.Options{})
	since = time.Now()
	for _, a := range []kube.Action{kube.ActionTrigger, kube.ActionSuspend} {
		out := e.refused(viewer, kube.Operation{Ref: ref, Action: a}, kube.ReasonForbidden)
		if !strings.Contains(out.Detail, "you may not") {
			t.Fatalf("%s forbidden detail %q", a, out.Detail)
		}
	}
	if ws := auditWrites(t, viewerAgent, since); len(ws) != 0 {
		t.Fatalf("the read-only user's refused trigger wrote %+v", ws)
	}
	ro, roAgent := e.client(e.cfg, kube.Options{ReadOnly: true})
	since = time.Now()
	for _, a := range []kube.Action{kube.ActionTrigger, kube.ActionSuspend, kube.ActionUnsuspend} {
		e.refused(ro, kube.Operation{Ref: ref, Action: a}, kube.ReasonReadOnly)
	}
	time.Sleep(500 * time.Millisecond)
	if evs := readAuditAfter(t, os.Getenv(kubetest.AuditLogEnv), roAgent, since); len(evs) != 0 {
		t.Fatalf("read-only sent %d requests, first %s %+v", len(evs), evs[0].Verb, evs[0].ObjectRef)
	}
	jobs, err := e.cs.BatchV1().Jobs(e.ns).List(ctx, metav1.ListOptions{LabelSelector: "app=report"})
	if err != nil || len(jobs.Items) != 1 {
		t.Fatalf("Jobs of the CronJob: %d, %v; want the one triggered", len(jobs.Items), err)
	}
}
