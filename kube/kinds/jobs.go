package kinds

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube"
)

// Jobs serves jobs: NAME STATUS COMPLETIONS DURATION AGE, and with -o wide
// CONTAINERS IMAGES SELECTOR, as `kubectl get jobs` prints them (printJob in
// k8s.io/kubernetes pkg/printers/internalversion).
type Jobs struct{}

// Info describes jobs: their pods have logs, they are deleted, and opening
// one shows the pods its selector matches.
func (Jobs) Info() kube.KindInfo {
	return kube.KindInfo{
		ID: "jobs", Group: "batch", Version: "v1", Resource: "jobs", Namespaced: true,
		Aliases: []string{"job"},
		Columns: []kube.Column{
			{Name: "NAME"}, {Name: "STATUS"}, {Name: "COMPLETIONS"}, {Name: "DURATION"}, {Name: "AGE"},
			{Name: "CONTAINERS", Wide: true}, {Name: "IMAGES", Wide: true}, {Name: "SELECTOR", Wide: true},
		},
		Capabilities: kube.CanLogs,
		DrillDown:    "pods",
	}
}

// List lists jobs in namespace ("" for all) as *batchv1.Job.
func (Jobs) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel kube.Selector) ([]any, error) {
	list, err := cs.BatchV1().Jobs(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *batchv1.Job into its row (JobRow).
func (Jobs) Row(obj any) (kube.Row, bool) {
	j, ok := obj.(*batchv1.Job)
	if !ok {
		return kube.Row{}, false
	}
	return JobRow(j), true
}

// DrillSelector selects the pods the Job's spec.selector matches (the API
// server sets it to the Job's controller-uid label).
func (Jobs) DrillSelector(obj any) (kube.Selector, bool) {
	j, ok := obj.(*batchv1.Job)
	if !ok {
		return kube.Selector{}, false
	}
	return labelSelector(j.Spec.Selector)
}

// JobRow turns a Job into its row, as kubectl's printJob: COMPLETIONS is
// succeeded/spec.completions, or succeeded/1 when completions is unset
// ("succeeded/1 of <parallelism>" when parallelism is above 1); DURATION is
// completionTime minus startTime, or the time since startTime while the Job
// runs (a Cell with Since, rendered when drawn), empty before it starts.
// STATUS is the first of: Complete, Failed (conditions True), Terminating
// (deletionTimestamp set), Suspended, FailureTarget, SuccessCriteriaMet,
// else Running. Row.Owners holds the owning CronJob's UID.
//
// Health: Complete and SuccessCriteriaMet (about to complete) are ok;
// Failed and FailureTarget (about to fail) are failed; Terminating and
// Suspended are warnings; Running is progressing, or a warning once some of
// its pods failed (status.failed > 0: it is retrying within backoffLimit).
func JobRow(j *batchv1.Job) kube.Row {
	var completions string
	switch {
	case j.Spec.Completions != nil:
		completions = fmt.Sprintf("%d/%d", j.Status.Succeeded, *j.Spec.Completions)
	case j.Spec.Parallelism != nil && *j.Spec.Parallelism > 1:
		completions = fmt.Sprintf("%d/1 of %d", j.Status.Succeeded, *j.Spec.Parallelism)
	default:
		completions = fmt.Sprintf("%d/1", j.Status.Succeeded)
	}
	var took kube.Cell
	switch st := j.Status; {
	case st.StartTime == nil:
	case st.CompletionTime == nil:
		took = sinceCell(st.StartTime.Time)
	default:
		took = kube.Text(duration.HumanDuration(st.CompletionTime.Sub(st.StartTime.Time)))
	}
	status, health := jobState(j)
	names, images := containerCells(j.Spec.Template.Spec.Containers)
	row := identity(&j.ObjectMeta)
	row.Status, row.Health = status, health
	row.Cells = []kube.Cell{
		kube.Text(j.Name), kube.Text(status), kube.Text(completions), took,
		kube.Age(j.CreationTimestamp.Time),
		kube.Text(names), kube.Text(images), kube.Text(metav1.FormatLabelSelector(j.Spec.Selector)),
	}
	return row
}

func jobState(j *batchv1.Job) (string, kube.Health) {
	conds := j.Status.Conditions
	switch {
	case jobCondition(conds, batchv1.JobComplete):
		return "Complete", kube.HealthOK
	case jobCondition(conds, batchv1.JobFailed):
		return "Failed", kube.HealthFailed
	case j.DeletionTimestamp != nil:
		return "Terminating", kube.HealthWarning
	case jobCondition(conds, batchv1.JobSuspended):
		return "Suspended", kube.HealthWarning
	case jobCondition(conds, batchv1.JobFailureTarget):
		return "FailureTarget", kube.HealthFailed
	case jobCondition(conds, batchv1.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet", kube.HealthOK
	case j.Status.Failed > 0:
		return "Running", kube.HealthWarning
	default:
		return "Running", kube.HealthProgressing
	}
}

// jobCondition reports whether the first condition of type t is True (as
// kubectl's hasJobCondition).
func jobCondition(conds []batchv1.JobCondition, t batchv1.JobConditionType) bool {
	for _, c := range conds {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
