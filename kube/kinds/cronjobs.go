package kinds

import (
	"context"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// CronJobs serves cronjobs: NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST
// SCHEDULE AGE, and with -o wide CONTAINERS IMAGES SELECTOR, as `kubectl get
// cronjobs` prints them (printCronJob in k8s.io/kubernetes
// pkg/printers/internalversion).
type CronJobs struct{}

// Info describes cronjobs: they are triggered now (a Job from the
// CronJob's template, CanTrigger) and suspended and unsuspended
// (spec.suspend, CanSuspend) and deleted (CanDelete), and opening one shows the pods of the Jobs
// it owns (those whose ownerReferences name it: its scheduled runs and the
// ones triggered, which name it as their controller too).
func (CronJobs) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "cronjobs", Group: "batch", Version: "v1", Resource: "cronjobs", Namespaced: true,
		Aliases: []string{"cronjob", "cj"},
		Columns: []vocab.Column{
			{Name: "NAME"}, {Name: "SCHEDULE"}, {Name: "TIMEZONE"}, {Name: "SUSPEND"}, {Name: "ACTIVE"},
			{Name: "LAST SCHEDULE"}, {Name: "AGE"},
			{Name: "CONTAINERS", Wide: true}, {Name: "IMAGES", Wide: true}, {Name: "SELECTOR", Wide: true},
		},
		Capabilities: vocab.CanTrigger | vocab.CanSuspend | vocab.CanDelete,
		DrillDown:    "pods",
	}
}

// List lists cronjobs in namespace ("" for all) as *batchv1.CronJob.
func (CronJobs) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.BatchV1().CronJobs(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *batchv1.CronJob into its row (CronJobRow).
func (CronJobs) Row(obj any) (vocab.Row, bool) {
	cj, ok := obj.(*batchv1.CronJob)
	if !ok {
		return vocab.Row{}, false
	}
	return CronJobRow(cj), true
}

// DrillSelector selects the pods of the Jobs the CronJob owns (a CronJob
// owns Jobs, a Job owns its pods): the API server cannot select on
// ownerReferences, so the selector names the CronJob's UID and the kind in
// between, and the Client matches rows' Owners. ok is false for a CronJob
// without a UID (never stored).
func (CronJobs) DrillSelector(obj any) (vocab.Selector, bool) {
	cj, ok := obj.(*batchv1.CronJob)
	if !ok || cj.UID == "" {
		return vocab.Selector{}, false
	}
	return vocab.Selector{Owner: string(cj.UID), Via: "jobs"}, true
}

// CronJobRow turns a CronJob into its row, as kubectl's printCronJob:
// TIMEZONE is spec.timeZone or "<none>"; SUSPEND is True, False, or
// "<unset>"; ACTIVE counts status.active; LAST SCHEDULE is the age of
// status.lastScheduleTime or "<none>".
//
// Status and Health (kyyard's, kubectl prints none): suspended is Suspended
// (warning: nothing will run); a Job running is Active (progressing); a
// last scheduled run with no successful finish since (lastSuccessfulTime
// unset or before lastScheduleTime, and no Job active) is LastRunFailed
// (warning); else Scheduled (ok).
func CronJobRow(cj *batchv1.CronJob) vocab.Row {
	tz := "<none>"
	if cj.Spec.TimeZone != nil {
		tz = *cj.Spec.TimeZone
	}
	suspend := "<unset>"
	if cj.Spec.Suspend != nil {
		suspend = "False"
		if *cj.Spec.Suspend {
			suspend = "True"
		}
	}
	last := vocab.Text("<none>")
	if cj.Status.LastScheduleTime != nil {
		last = vocab.Age(cj.Status.LastScheduleTime.Time)
	}
	tmpl := cj.Spec.JobTemplate.Spec
	names, images := containerCells(tmpl.Template.Spec.Containers)
	row := identity(&cj.ObjectMeta)
	row.Status, row.Health = cronJobState(cj)
	row.Cells = []vocab.Cell{
		vocab.Text(cj.Name), vocab.Text(cj.Spec.Schedule), vocab.Text(tz), vocab.Text(suspend),
		vocab.Text(strconv.Itoa(len(cj.Status.Active))), last, vocab.Age(cj.CreationTimestamp.Time),
		vocab.Text(names), vocab.Text(images), vocab.Text(metav1.FormatLabelSelector(tmpl.Selector)),
	}
	return row
}

func cronJobState(cj *batchv1.CronJob) (string, vocab.Health) {
	st := cj.Status
	switch {
	case cj.Spec.Suspend != nil && *cj.Spec.Suspend:
		return "Suspended", vocab.HealthWarning
	case len(st.Active) > 0:
		return "Active", vocab.HealthProgressing
	case st.LastScheduleTime != nil && (st.LastSuccessfulTime == nil || st.LastSuccessfulTime.Before(st.LastScheduleTime)):
		return "LastRunFailed", vocab.HealthWarning
	default:
		return "Scheduled", vocab.HealthOK
	}
}
