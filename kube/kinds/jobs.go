package kinds

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// Jobs serves jobs: NAME STATUS COMPLETIONS DURATION AGE, and with -o wide
// CONTAINERS IMAGES SELECTOR, as `kubectl get jobs` prints them (printJob in
// k8s.io/kubernetes pkg/printers/internalversion).
type Jobs struct{}

// Info describes jobs: their pods have logs, they are deleted, and opening
// one shows the pods its selector matches.
func (Jobs) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "jobs", Group: "batch", Version: "v1", Resource: "jobs", Namespaced: true,
		Aliases: []string{"job"},
		Columns: []vocab.Column{
			{Name: "NAME"}, {Name: "STATUS"}, {Name: "COMPLETIONS"}, {Name: "DURATION"}, {Name: "AGE"},
			{Name: "CONTAINERS", Wide: true}, {Name: "IMAGES", Wide: true}, {Name: "SELECTOR", Wide: true},
		},
		Capabilities: vocab.CanLogs | vocab.CanDelete,
		DrillDown:    "pods",
	}
}

// List lists jobs in namespace ("" for all) as *batchv1.Job.
func (Jobs) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.BatchV1().Jobs(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *batchv1.Job into its row (JobRow).
func (Jobs) Row(obj any) (vocab.Row, bool) {
	j, ok := obj.(*batchv1.Job)
	if !ok {
		return vocab.Row{}, false
	}
	return JobRow(j), true
}

// DrillSelector selects the pods the Job's spec.selector matches (the API
// server sets it to the Job's controller-uid label).
func (Jobs) DrillSelector(obj any) (vocab.Selector, bool) {
	j, ok := obj.(*batchv1.Job)
	if !ok {
		return vocab.Selector{}, false
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
func JobRow(j *batchv1.Job) vocab.Row {
	var completions string
	switch {
	case j.Spec.Completions != nil:
		completions = fmt.Sprintf("%d/%d", j.Status.Succeeded, *j.Spec.Completions)
	case j.Spec.Parallelism != nil && *j.Spec.Parallelism > 1:
		completions = fmt.Sprintf("%d/1 of %d", j.Status.Succeeded, *j.Spec.Parallelism)
	default:
		completions = fmt.Sprintf("%d/1", j.Status.Succeeded)
	}
	var took vocab.Cell
	switch st := j.Status; {
	case st.StartTime == nil:
	case st.CompletionTime == nil:
		took = sinceCell(st.StartTime.Time)
	default:
		took = vocab.Text(duration.HumanDuration(st.CompletionTime.Sub(st.StartTime.Time)))
	}
	status, health := jobState(j)
	names, images := containerCells(j.Spec.Template.Spec.Containers)
	row := identity(&j.ObjectMeta)
	row.Status, row.Health = status, health
	row.Cells = []vocab.Cell{
		vocab.Text(j.Name), vocab.Text(status), vocab.Text(completions), took,
		vocab.Age(j.CreationTimestamp.Time),
		vocab.Text(names), vocab.Text(images), vocab.Text(metav1.FormatLabelSelector(j.Spec.Selector)),
	}
	return row
}

func jobState(j *batchv1.Job) (string, vocab.Health) {
	conds := j.Status.Conditions
	switch {
	case jobCondition(conds, batchv1.JobComplete):
		return "Complete", vocab.HealthOK
	case jobCondition(conds, batchv1.JobFailed):
		return "Failed", vocab.HealthFailed
	case j.DeletionTimestamp != nil:
		return "Terminating", vocab.HealthWarning
	case jobCondition(conds, batchv1.JobSuspended):
		return "Suspended", vocab.HealthWarning
	case jobCondition(conds, batchv1.JobFailureTarget):
		return "FailureTarget", vocab.HealthFailed
	case jobCondition(conds, batchv1.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet", vocab.HealthOK
	case j.Status.Failed > 0:
		return "Running", vocab.HealthWarning
	default:
		return "Running", vocab.HealthProgressing
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
