package actions

// A CronJob's actions: trigger (a Job now, from its template), suspend and
// unsuspend (spec.suspend). Their rules on the fresh read and their
// requests; the pipeline around them is every action's (operateguards.go).

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/kyyard/kyyard/kube/vocab"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// InstantiateAnnotation marks a Job made by hand from a CronJob; `kubectl
// create job --from=cronjob/X` sets it to "manual"
// (k8s.io/kubectl/pkg/cmd/create/create_job.go, createJobFromCronJob), and
// so does a trigger.
const InstantiateAnnotation = "cronjob.kubernetes.io/instantiate"

// MaxJobNameLength is the longest name the API server takes for a Job
// (63): the Job controller copies the name into its pods' label
// batch.kubernetes.io/job-name, and a label value is at most 63
// characters (k8s.io/apimachinery/pkg/util/validation, IsValidLabelValue).
const MaxJobNameLength = validation.LabelValueMaxLength

// triggeredSuffix is what TriggeredJobName puts between the CronJob's name
// and the minute.
const triggeredSuffix = "-manual-"

// TriggeredJobName is the name of the Job a trigger of CronJob cronJob
// creates at now: "<cronjob>-manual-<minutes since the Unix epoch>"
// ("nightly-manual-29418660"). kubectl asks the person for a name (`kubectl
// create job NAME --from=cronjob/X`); kyyard names it itself:
//   - the minute is the CronJob controller's own stamp (its getJobName:
//     "<cronjob>-<scheduled time in minutes since the epoch>",
//     k8s.io/kubernetes pkg/controller/cronjob/utils.go), so the name says
//     when it ran and sorts with the scheduled runs;
//   - "-manual-" is k9s's marker for a Job it triggers ("<cronjob>-manual-"
//     and 3 random characters, derailed/k9s internal/dao/cronjob.go), and
//     it keeps the name off the controller's own: a Job named as the
//     controller names a run ("<cronjob>-<minute>") would be refused as
//     taken whenever the controller ran that minute (every trigger of an
//     every-minute CronJob), or, made first, be taken by the controller as
//     its scheduled run of that minute (it meets AlreadyExists, finds the
//     Job its own, and starts no other).
//
// A second trigger in the same minute finds the name taken (the trigger is
// refused, name_taken). The name is never over MaxJobNameLength: a
// CronJob's name may be up to 52 characters (the API server's limit, left
// for the controller's 11), and when the whole is longer the CronJob's part
// is cut, as k9s cuts it, and any '.' or '-' it then ends with dropped (a
// DNS label may not end in one).
func TriggeredJobName(cronJob string, now time.Time) string {
	minute := triggeredSuffix + strconv.FormatInt(now.Unix()/60, 10)
	if keep := MaxJobNameLength - len(minute); len(cronJob) > keep {
		cronJob = strings.TrimRight(cronJob[:max(keep, 0)], ".-")
	}
	return cronJob + minute
}

// jobNameProblem says why the API server would refuse name as a Job's
// name ("" when it would not): a DNS subdomain, and a valid label value
// (at most 63 characters), as the Job's validation requires.
func jobNameProblem(name string) string {
	problems := append(validation.IsDNS1123Subdomain(name), validation.IsValidLabelValue(name)...)
	if len(problems) == 0 {
		return ""
	}
	return fmt.Sprintf("metadata.name: Invalid value: %q: %s", name, strings.Join(problems, "; "))
}

// JobFromCronJob builds the Job a trigger creates, exactly as `kubectl
// create job name --from=cronjob/X` builds it (createJobFromCronJob in
// k8s.io/kubectl/pkg/cmd/create/create_job.go): the template's labels, its
// annotations over cronjob.kubernetes.io/instantiate: manual (a template's
// own value of that key wins, as in kubectl), one ownerReference to the
// CronJob with controller=true (and, as kubectl, no blockOwnerDeletion,
// which would need update of cronjobs/finalizers), and a copy of the
// template's spec, in the CronJob's namespace.
func JobFromCronJob(cj *batchv1.CronJob, name string) *batchv1.Job {
	tmpl := cj.Spec.JobTemplate
	annotations := map[string]string{InstantiateAnnotation: "manual"}
	maps.Copy(annotations, tmpl.Annotations)
	controller := true
	job := &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: batchv1.SchemeGroupVersion.String(), Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: cj.Namespace, Annotations: annotations, Labels: maps.Clone(tmpl.Labels),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: batchv1.SchemeGroupVersion.String(), Kind: "CronJob",
				Name: cj.Name, UID: cj.UID, Controller: &controller}},
		},
	}
	tmpl.Spec.DeepCopyInto(&job.Spec)
	return job
}

// prepareCronJob checks a CronJob action's rules on the CronJob read
// (p.target.cj) and sets p's write, or p.noop. A trigger is refused when
// the template has no container (the API server would refuse the Job, and
// nothing is sent), when its Job's name is one the API server refuses, and
// when a Job of that name exists (name_taken; one read of the Job, whose
// refusal for lack of get jobs is left to the create's answer). Errors: that
// read failed for another reason.
func (ac Actor) prepareCronJob(ctx context.Context, op Operation, p *operationPlan) (vocab.Verdicts, error) {
	cj, ref := p.target.cj, op.Ref
	if cj == nil { // a kind whose plugin declares these actions without their code
		return nil, fmt.Errorf("%w: %s: %s is for CronJobs", vocab.ErrInvalid, ref, op.Action)
	}
	refuse := func(reason vocab.Reason, s string) vocab.Verdicts {
		return vocab.Verdicts{{Guard: vocab.GuardAction, Outcome: vocab.OutcomeRefuse, Reason: reason, Sentence: s}}
	}
	suspended := cj.Spec.Suspend != nil && *cj.Spec.Suspend
	switch op.Action {
	case vocab.ActionTrigger:
		if len(cj.Spec.JobTemplate.Spec.Template.Spec.Containers) == 0 {
			return refuse(vocab.ReasonInvalid, fmt.Sprintf("%s has no container in spec.jobTemplate.spec.template: "+
				"a Job made from it would be refused (spec.template.spec.containers: Required value)", ref)), nil
		}
		name := TriggeredJobName(cj.Name, ac.now())
		if problem := jobNameProblem(name); problem != "" {
			return refuse(vocab.ReasonInvalid, "the Job's name would be refused by the API server: "+problem), nil
		}
		switch _, err := ac.CS.BatchV1().Jobs(ref.Namespace).Get(ctx, name, metav1.GetOptions{}); {
		case err == nil:
			return refuse(vocab.ReasonNameTaken, nameTaken(ref.Namespace, name)), nil
		case !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err):
			return nil, err
		}
		job := JobFromCronJob(cj, name)
		p.write = func(ctx context.Context, _ opTarget) (string, error) { return ac.createJob(ctx, job) }
		p.created = vocab.ObjectRef{Kind: vocab.KindJobs, Namespace: ref.Namespace, Name: name}
		p.done = fmt.Sprintf("triggered %s: created Job %s", ref, p.created)
		if suspended {
			p.done += "; the CronJob stays suspended"
		}
	case vocab.ActionSuspend, vocab.ActionUnsuspend:
		want := op.Action == vocab.ActionSuspend
		if suspended == want {
			p.noop = ref.String() + map[bool]string{true: " is already suspended", false: " is not suspended"}[want]
			return nil, nil
		}
		p.write = func(ctx context.Context, t opTarget) (string, error) {
			return ac.patchOp(ctx, ref, specFlagPatch(t.meta.ResourceVersion, "suspend", want))
		}
		p.done = map[bool]string{true: "suspended " + ref.String() + ": no new Job is scheduled (Jobs running go on)",
			false: "unsuspended " + ref.String() + ": its schedule runs again"}[want]
	}
	return nil, nil
}

// nameTaken is the refusal of a trigger whose Job name exists.
func nameTaken(namespace, name string) string {
	return fmt.Sprintf("a Job named %s/jobs/%s exists already (a trigger in this minute, or another's Job): "+
		"trigger it again in the next minute", namespace, name)
}

// now is the Actor's clock.
func (ac Actor) now() time.Time {
	if ac.Now != nil {
		return ac.Now()
	}
	return time.Now()
}

// createJob creates job and returns its resourceVersion. A name taken
// since the plan read it free (AlreadyExists) is a *vocab.Refusal with
// ReasonNameTaken; other errors are the API server's, unwrapped.
func (ac Actor) createJob(ctx context.Context, job *batchv1.Job) (string, error) {
	got, err := ac.CS.BatchV1().Jobs(job.Namespace).Create(ctx, job, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return "", &vocab.Refusal{Reason: vocab.ReasonNameTaken, Detail: nameTaken(job.Namespace, job.Name)}
	}
	if err != nil {
		return "", err
	}
	return got.ResourceVersion, nil
}

// readCronJob reads ref's CronJob fresh. Errors are the API server's.
func (ac Actor) readCronJob(ctx context.Context, ref vocab.ObjectRef) (opTarget, error) {
	cj, err := ac.CS.BatchV1().CronJobs(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil {
		return opTarget{}, err
	}
	return opTarget{cj: cj, meta: &cj.ObjectMeta}, nil
}
