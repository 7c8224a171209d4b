package release

// The instance record: one Secret per instance, "kyyard-app-<instance>" in
// the instance's namespace, type kyyard.dev/app-record, labelled
// app.kubernetes.io/managed-by: kyyard, app.kubernetes.io/instance:
// <instance> and kyyard.dev/record: "true". It holds
//
//   - data "request": the request of the last successful deploy
//     (render.RecordOf), and data "objects": that deploy's rendered objects
//     as JSON [{"service","kind","name"}], read by prune, restore, Apps and
//     the form's "edit this app";
//   - data "pending": the request of the deploy in progress, if any;
//   - annotation kyyard.dev/generation: the deploy generation, raised by
//     one by every deploy before it writes any object;
//   - annotation kyyard.dev/state: "deploying" while a deploy runs,
//     "deployed" after;
//   - annotation kyyard.dev/deployed-at: when the last successful deploy
//     was recorded (RFC 3339).
//
// The protocol that makes two deploys of one instance at once safe (the
// record is a lock taken with the API server's optimistic concurrency,
// never a silent overwrite):
//
//  1. PlanDeploy reads the record: its resourceVersion RV and generation G
//     go into DeployPlan (RecordVersion, RecordGeneration), and Deploy is
//     given them back (DeployOptions).
//  2. After every precondition passed and before any object is written,
//     Deploy claims the record: an Update to state "deploying",
//     generation G+1, with RV as the precondition (a Create when there was
//     no record: a record found then is a conflict too).
//  3. On a conflict (409, or 409 AlreadyExists on the Create) the record is
//     read once more. A record that is not this instance's (other labels)
//     or whose generation is above G (another deploy claimed it: a later
//     deploy) is a conflict: this deploy stops, having written no object.
//     Anything else (the record moved without a deploy: a label added) is
//     retried once, against the version read. A record of another instance
//     is never overwritten.
//  4. After the objects are written, rolled out and pruned, the record is
//     written against the version the claim returned: state "deployed",
//     the new request and objects; the same conflict rule applies.
//  5. When a step fails after the claim, the claim is released against
//     the claim's version: the record keeps the previous deploy's request
//     and objects with state "deployed" (the generation stays raised: a
//     deploy planned before the failed one is a conflict), or it is
//     deleted when there was no successful deploy before.
//
// Of two deploys planned against the same record, the one whose claim
// reaches the API server first wins; the other's claim fails with 409 and
// it writes nothing at all.

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/vocab"
	"github.com/kyyard/kyyard/render"
)

// Record annotations and data keys.
const (
	recordGenerationAnnotation = "kyyard.dev/generation"
	recordStateAnnotation      = "kyyard.dev/state"
	recordDeployedAtAnnotation = "kyyard.dev/deployed-at"
	recordRequestKey           = "request"
	recordObjectsKey           = "objects"
	recordPendingKey           = "pending"
	recordStateDeploying       = "deploying"
	recordStateDeployed        = "deployed"
)

// recordedObject is one object of a recorded deploy.
type recordedObject struct {
	Service string `json:"service"`
	Kind    string `json:"kind"`
	Name    string `json:"name"`
}

// instanceRecord is a record Secret read (zero when there is none).
type instanceRecord struct {
	// exists says a Secret of the record's name exists; mine that it is
	// this instance's record (its labels).
	exists, mine bool
	uid          string
	version      string
	generation   int64
	state        string
	// request is the last successful deploy's request (render.RecordOf),
	// nil before the first; objects its objects; pending the request of
	// a deploy in progress.
	request, pending []byte
	objects          []recordedObject
	deployedAt       time.Time
}

// recordName is the record Secret's name of an instance.
func recordName(instance string) string { return RecordPrefix + instance }

// recordLabels are the labels of an instance's record.
func recordLabels(instance string) map[string]string {
	return map[string]string{render.LabelManagedBy: render.ManagedBy, render.LabelInstance: instance, RecordLabel: "true"}
}

// instanceLabelled reports whether labels mark an object of instance made by kyyard.
func instanceLabelled(labels map[string]string, instance string) bool {
	return labels[render.LabelManagedBy] == render.ManagedBy && labels[render.LabelInstance] == instance
}

// parseRecord reads a record Secret (nil: none) of instance. A malformed
// generation counts as 0 and a malformed objects list as empty: the
// record then only blocks, never misleads, a deploy.
func parseRecord(s *corev1.Secret, instance string) instanceRecord {
	if s == nil {
		return instanceRecord{}
	}
	r := instanceRecord{exists: true, uid: string(s.UID), version: s.ResourceVersion,
		mine: instanceLabelled(s.Labels, instance) && s.Labels[RecordLabel] == "true"}
	r.generation, _ = strconv.ParseInt(s.Annotations[recordGenerationAnnotation], 10, 64)
	r.state = s.Annotations[recordStateAnnotation]
	r.deployedAt, _ = time.Parse(time.RFC3339, s.Annotations[recordDeployedAtAnnotation])
	r.request, r.pending = s.Data[recordRequestKey], s.Data[recordPendingKey]
	if err := json.Unmarshal(s.Data[recordObjectsKey], &r.objects); err != nil {
		r.objects = nil
	}
	return r
}

// recordSecret builds the record Secret of r for instance in ns, at r's
// version (the write's precondition; "" for a Create).
func recordSecret(ns, instance string, r instanceRecord) *corev1.Secret {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: recordName(instance), Namespace: ns, Labels: recordLabels(instance),
			ResourceVersion: r.version, UID: types.UID(r.uid),
			Annotations: map[string]string{
				recordGenerationAnnotation: strconv.FormatInt(r.generation, 10),
				recordStateAnnotation:      r.state,
			}},
		Type: RecordType,
		Data: map[string][]byte{},
	}
	if !r.deployedAt.IsZero() {
		s.Annotations[recordDeployedAtAnnotation] = r.deployedAt.UTC().Format(time.RFC3339)
	}
	if r.request != nil {
		s.Data[recordRequestKey] = r.request
		objs, _ := json.Marshal(r.objects)
		s.Data[recordObjectsKey] = objs
	}
	if r.pending != nil {
		s.Data[recordPendingKey] = r.pending
	}
	return s
}

// readRecord reads instance's record in ns (zero when there is none).
func (c Deployer) readRecord(ctx context.Context, ns, instance string) (instanceRecord, error) {
	s, err := c.CS.CoreV1().Secrets(ns).Get(ctx, recordName(instance), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return instanceRecord{}, nil
	}
	if err != nil {
		return instanceRecord{}, err
	}
	return parseRecord(s, instance), nil
}

// writeRecord writes r (Create when r.version is "", else Update against
// it) and returns r at the version written.
func (c Deployer) writeRecord(ctx context.Context, ns, instance string, r instanceRecord) (instanceRecord, error) {
	s := recordSecret(ns, instance, r)
	secrets := c.CS.CoreV1().Secrets(ns)
	var out *corev1.Secret
	var err error
	if r.version == "" {
		s.UID = ""
		out, err = secrets.Create(ctx, s, metav1.CreateOptions{FieldManager: FieldManager})
	} else {
		out, err = secrets.Update(ctx, s, metav1.UpdateOptions{FieldManager: FieldManager})
	}
	if err != nil {
		return r, err
	}
	r.exists, r.mine, r.version, r.uid = true, true, out.ResourceVersion, string(out.UID)
	return r, nil
}

// recordConflict decides, on a record read after a write answered 409,
// whether the write is retried: it is not (a *Refusal conflict) when the
// record is another instance's or a deploy after generation gen claimed
// it.
func recordConflict(fresh instanceRecord, instance string, gen int64) *vocab.Refusal {
	switch {
	case fresh.exists && !fresh.mine:
		return &vocab.Refusal{Reason: vocab.ReasonConflict,
			Detail: "Secret " + recordName(instance) + " is not the record of instance " + instance + " (its labels say otherwise); it is never overwritten"}
	case fresh.generation > gen:
		what := "another deploy of " + instance + " is running"
		if fresh.state != recordStateDeploying {
			what = "another deploy of " + instance + " was recorded"
			if !fresh.deployedAt.IsZero() {
				what += " at " + fresh.deployedAt.UTC().Format(time.RFC3339)
			}
		}
		return &vocab.Refusal{Reason: vocab.ReasonConflict,
			Detail: fmt.Sprintf("%s since you planned (record generation %d is now %d): it wins; plan again", what, gen, fresh.generation)}
	}
	return nil
}

// writeRecordOnce writes the record built by build from base (the record
// as last read or written) against base's version. On a conflict the
// record is read once more: recordConflict decides, and anything else is
// retried once against the version read. gen is the generation the
// writer holds (planned, or claimed). Errors are *Refusal.
func (c Deployer) writeRecordOnce(ctx context.Context, ns, instance string, base instanceRecord, gen int64,
	build func(base instanceRecord) instanceRecord) (instanceRecord, error) {
	for attempt := 0; ; attempt++ {
		out, err := c.writeRecord(ctx, ns, instance, build(base))
		if err == nil {
			return out, nil
		}
		if !apierrors.IsConflict(err) && !apierrors.IsAlreadyExists(err) {
			return base, guards.WriteRefusal(err)
		}
		if attempt == 1 {
			return base, &vocab.Refusal{Reason: vocab.ReasonConflict, Detail: "the record " + recordName(instance) + " changed again while it was written: " + apiMessage(err)}
		}
		fresh, rerr := c.readRecord(ctx, ns, instance)
		if rerr != nil {
			return base, guards.WriteRefusal(rerr)
		}
		if r := recordConflict(fresh, instance, gen); r != nil {
			return base, r
		}
		base = fresh
	}
}

// claimRecord is step 2 of the protocol: the record written as
// "deploying", generation planned+1, pending the new request, keeping the
// last successful deploy's request and objects. base is the record as
// read by the preconditions, at the version the person planned with.
func (c Deployer) claimRecord(ctx context.Context, ns, instance string, base instanceRecord, plannedVersion string,
	plannedGen int64, pending []byte) (instanceRecord, error) {
	base.version = plannedVersion
	return c.writeRecordOnce(ctx, ns, instance, base, plannedGen, func(b instanceRecord) instanceRecord {
		b.generation = max(b.generation, plannedGen) + 1
		b.state, b.pending = recordStateDeploying, pending
		return b
	})
}

// finishRecord is step 4: the record written as "deployed" with the new
// request and objects, against the claim's version.
func (c Deployer) finishRecord(ctx context.Context, ns, instance string, claimed instanceRecord, request []byte,
	objects []recordedObject, now time.Time) (instanceRecord, error) {
	gen := claimed.generation
	return c.writeRecordOnce(ctx, ns, instance, claimed, gen, func(b instanceRecord) instanceRecord {
		b.generation, b.state, b.pending = gen, recordStateDeployed, nil
		b.request, b.objects, b.deployedAt = request, objects, now
		return b
	})
}

// releaseRecord is step 5: after a failure, the record goes back to the
// last successful deploy (state "deployed", the raised generation kept),
// or is deleted (with its UID and version as preconditions) when there
// was none. It returns what it did, for the step's detail.
func (c Deployer) releaseRecord(ctx context.Context, ns, instance string, claimed instanceRecord) (string, error) {
	if claimed.request == nil {
		uid, rv := types.UID(claimed.uid), claimed.version
		err := c.CS.CoreV1().Secrets(ns).Delete(ctx, recordName(instance), metav1.DeleteOptions{
			Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}})
		if err != nil && !apierrors.IsNotFound(err) {
			return "", guards.WriteRefusal(err)
		}
		return "deleted: no deploy of " + instance + " had succeeded before", nil
	}
	gen := claimed.generation
	_, err := c.writeRecordOnce(ctx, ns, instance, claimed, gen, func(b instanceRecord) instanceRecord {
		b.generation, b.state, b.pending = gen, recordStateDeployed, nil
		return b
	})
	if err != nil {
		return "", err
	}
	return "released: the record keeps the last successful deploy", nil
}

// apiMessage is the API server's message of err, or err's text.
func apiMessage(err error) string {
	if status, ok := err.(apierrors.APIStatus); ok && status.Status().Message != "" {
		return status.Status().Message
	}
	return err.Error()
}
