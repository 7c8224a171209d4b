package kinds_test

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

func jobWithSelector(s *metav1.LabelSelector) any {
	return &batchv1.Job{Spec: batchv1.JobSpec{Selector: s}}
}

func job(conds ...batchv1.JobConditionType) *batchv1.Job {
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "migrate", Namespace: "demo", UID: "uid-job", CreationTimestamp: metav1.NewTime(created),
			OwnerReferences: []metav1.OwnerReference{{Kind: "CronJob", Name: "nightly", UID: "uid-cron"}}},
		Spec: batchv1.JobSpec{
			Completions: int32p(1), Parallelism: int32p(1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": "uid-job"}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "migrate", Image: "migrate:4"}}}},
		},
	}
	for _, c := range conds {
		j.Status.Conditions = append(j.Status.Conditions, batchv1.JobCondition{Type: c, Status: corev1.ConditionTrue})
	}
	return j
}

func TestJobRow(t *testing.T) {
	start := metav1.NewTime(created.Add(10 * time.Minute))
	finish := metav1.NewTime(created.Add(12*time.Minute + 30*time.Second))
	complete := job(batchv1.JobSuccessCriteriaMet, batchv1.JobComplete)
	complete.Status = batchv1.JobStatus{Conditions: complete.Status.Conditions, Succeeded: 1, StartTime: &start, CompletionTime: &finish}
	runningJob := job()
	runningJob.Status.StartTime = &start
	runningJob.Status.Active = 1
	retrying := job()
	retrying.Status.Failed = 1
	deleting := job()
	deleting.DeletionTimestamp = &finish
	failedBeingDeleted := job(batchv1.JobFailureTarget, batchv1.JobFailed)
	failedBeingDeleted.DeletionTimestamp = &finish
	notRunningCondition := job()
	notRunningCondition.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionFalse}}

	tests := []struct {
		name   string
		j      *batchv1.Job
		status string
		health kube.Health
		cells  []string
	}{
		{"complete", complete, "Complete", kube.HealthOK,
			[]string{"migrate", "Complete", "1/1", "2m30s", "90m", "migrate", "migrate:4", "batch.kubernetes.io/controller-uid=uid-job"}},
		{"running: duration grows", runningJob, "Running", kube.HealthProgressing,
			[]string{"migrate", "Running", "0/1", "80m", "90m", "migrate", "migrate:4", "batch.kubernetes.io/controller-uid=uid-job"}},
		{"not started", job(), "Running", kube.HealthProgressing,
			[]string{"migrate", "Running", "0/1", "", "90m", "migrate", "migrate:4", "batch.kubernetes.io/controller-uid=uid-job"}},
		{"retrying after a failed pod", retrying, "Running", kube.HealthWarning, nil},
		{"failed", job(batchv1.JobFailureTarget, batchv1.JobFailed), "Failed", kube.HealthFailed, nil},
		{"failed is shown before terminating", failedBeingDeleted, "Failed", kube.HealthFailed, nil},
		{"terminating", deleting, "Terminating", kube.HealthWarning, nil},
		{"suspended", job(batchv1.JobSuspended), "Suspended", kube.HealthWarning, nil},
		{"failure target", job(batchv1.JobFailureTarget), "FailureTarget", kube.HealthFailed, nil},
		{"success criteria met", job(batchv1.JobSuccessCriteriaMet), "SuccessCriteriaMet", kube.HealthOK, nil},
		{"a False condition does not count", notRunningCondition, "Running", kube.HealthProgressing, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row, ok := kinds.Jobs{}.Row(tt.j)
			if !ok {
				t.Fatal("Row refused a Job")
			}
			check(t, row, tt.status, tt.health, tt.cells)
			if len(row.Owners) != 1 || row.Owners[0] != "uid-cron" {
				t.Errorf("Owners %v, want the CronJob's UID", row.Owners)
			}
		})
	}
}

func TestJobCompletions(t *testing.T) {
	tests := []struct {
		name                     string
		completions, parallelism *int32
		want                     string
	}{
		{"fixed completions", int32p(5), int32p(2), "3/5"},
		{"work queue, parallel", nil, int32p(4), "3/1 of 4"},
		{"work queue, one at a time", nil, int32p(1), "3/1"},
		{"nothing set", nil, nil, "3/1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := job()
			j.Spec.Completions, j.Spec.Parallelism = tt.completions, tt.parallelism
			j.Status.Succeeded = 3
			if got := texts(kinds.JobRow(j))[2]; got != tt.want {
				t.Fatalf("COMPLETIONS %q, want %q", got, tt.want)
			}
		})
	}
}

func cronJob(suspend *bool, st batchv1.CronJobStatus) *batchv1.CronJob {
	return &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "demo", UID: "uid-cron", CreationTimestamp: metav1.NewTime(created)},
		Spec: batchv1.CronJobSpec{Schedule: "30 2 * * *", Suspend: suspend, JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "report", Image: "reporter:2"}}}}}}},
		Status: st,
	}
}

func TestCronJobRow(t *testing.T) {
	f := false
	scheduled := metav1.NewTime(created.Add(60 * time.Minute))
	earlier := metav1.NewTime(created.Add(30 * time.Minute))
	later := metav1.NewTime(created.Add(61 * time.Minute))
	tz := cronJob(&f, batchv1.CronJobStatus{LastScheduleTime: &scheduled, LastSuccessfulTime: &later})
	tz.Spec.TimeZone = func() *string { s := "Europe/Berlin"; return &s }()
	tz.Spec.JobTemplate.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}

	tests := []struct {
		name   string
		cj     *batchv1.CronJob
		status string
		health kube.Health
		cells  []string
	}{
		{"never ran", cronJob(&f, batchv1.CronJobStatus{}), "Scheduled", kube.HealthOK,
			[]string{"nightly", "30 2 * * *", "<none>", "False", "0", "<none>", "90m", "report", "reporter:2", "<none>"}},
		{"last run succeeded", tz, "Scheduled", kube.HealthOK,
			[]string{"nightly", "30 2 * * *", "Europe/Berlin", "False", "0", "30m", "90m", "report", "reporter:2", "a=b"}},
		{"suspended", cronJob(truePointer, batchv1.CronJobStatus{}), "Suspended", kube.HealthWarning,
			[]string{"nightly", "30 2 * * *", "<none>", "True", "0", "<none>", "90m", "report", "reporter:2", "<none>"}},
		{"suspend unset", cronJob(nil, batchv1.CronJobStatus{}), "Scheduled", kube.HealthOK,
			[]string{"nightly", "30 2 * * *", "<none>", "<unset>", "0", "<none>", "90m", "report", "reporter:2", "<none>"}},
		{"active", cronJob(&f, batchv1.CronJobStatus{Active: []corev1.ObjectReference{{Name: "a"}, {Name: "b"}}, LastScheduleTime: &scheduled}),
			"Active", kube.HealthProgressing, []string{"nightly", "30 2 * * *", "<none>", "False", "2", "30m", "90m", "report", "reporter:2", "<none>"}},
		{"last run failed", cronJob(&f, batchv1.CronJobStatus{LastScheduleTime: &scheduled, LastSuccessfulTime: &earlier}), "LastRunFailed", kube.HealthWarning, nil},
		{"first run failed", cronJob(&f, batchv1.CronJobStatus{LastScheduleTime: &scheduled}), "LastRunFailed", kube.HealthWarning, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row, ok := kinds.CronJobs{}.Row(tt.cj)
			if !ok {
				t.Fatal("Row refused a CronJob")
			}
			check(t, row, tt.status, tt.health, tt.cells)
		})
	}
}

// TestCronJobDrillSelector: a CronJob opens the pods of the Jobs whose
// ownerReferences name its UID, a selector the API server cannot apply.
func TestCronJobDrillSelector(t *testing.T) {
	if info := (kinds.CronJobs{}).Info(); info.DrillDown != "pods" {
		t.Fatalf("DrillDown %q, want pods", info.DrillDown)
	}
	sel, ok := kinds.CronJobs{}.DrillSelector(cronJob(nil, batchv1.CronJobStatus{}))
	if !ok || sel != (kube.Selector{Owner: "uid-cron", Via: "jobs"}) {
		t.Fatalf("got %+v %v, want Owner uid-cron via jobs", sel, ok)
	}
	if sel, ok := (kinds.CronJobs{}).DrillSelector(&batchv1.CronJob{}); ok {
		t.Errorf("a CronJob without UID opened %+v", sel)
	}
	if _, ok := (kinds.CronJobs{}).DrillSelector(job()); ok {
		t.Error("a Job was accepted")
	}
}
