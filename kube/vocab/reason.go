package vocab

// Sentence returns a short explanation of the reason for people. It states
// what happened only: whether kyyard tries again, and when, is said by the
// screen that does (an inventory's "retrying in 4s").
func (r Reason) Sentence() string {
	switch r {
	case ReasonForbidden:
		return "your account may not do this (RBAC forbids it); ask a cluster admin for access"
	case ReasonUnauthorized:
		return "the API server rejected your credentials; log in again or check the kubeconfig"
	case ReasonUnavailable:
		return "the API server cannot be reached right now"
	case ReasonTimeout:
		return "the API server did not answer in time"
	case ReasonNotFound:
		return "it does not exist on this cluster"
	case ReasonUnknownKind:
		return "the API server does not serve this kind (any more)"
	case ReasonInvalid:
		return "the request is not valid; correct it and try again"
	case ReasonConflict:
		return "the object changed since it was read; read it again and re-apply your edits"
	case ReasonPodSecurity:
		return "the namespace enforces no Pod Security level, so the pods this creates are not checked"
	case ReasonApplicationManaged:
		return "another tool manages this object and may undo the change on its next sync"
	case ReasonConfigurationUnreported:
		return "the form could not show the whole object, so writing it could drop what it did not show; use kubectl edit"
	case ReasonSecretRefRefused:
		return "the change makes the pods read a Secret they did not read before"
	case ReasonPVCRetention:
		return "the change deletes PersistentVolumeClaims and the data on them"
	case ReasonContentsDeleted:
		return "deleting it deletes every object it holds with it"
	case ReasonAutoscaled:
		return "a HorizontalPodAutoscaler sets the replicas and will undo this change; change its minReplicas/maxReplicas instead"
	case ReasonRolloutTimeout:
		return "the rollout did not finish within its deadline"
	case ReasonAdmissionDenied:
		return "an admission webhook or policy refused the change"
	case ReasonReadOnly:
		return "kyyard runs read-only (--readonly): nothing is written"
	case ReasonNameTaken:
		return "an object of that name exists already and is not replaced (another app's, or a Job triggered this minute)"
	case ReasonClaimPending:
		return "the claim names no storage class and the cluster has no default one: it will stay Pending; name a class or ask an admin for a default"
	case ReasonClaimImmutable:
		return "an existing volume claim differs in what a claim cannot change"
	case ReasonPaused:
		return "the Deployment's rollout is paused; resume it first"
	case ReasonDisruptionBudget:
		return "a PodDisruptionBudget allows no disruption now: the pod is evicted once enough of its peers are ready elsewhere"
	case ReasonCancelled:
		return "stopped by you before it ended: what was done stays done"
	case ReasonFieldConflict:
		return "another field manager owns fields this apply sets to other values; apply with force to take them over, or leave them out"
	case ReasonNotRunning:
		return "the pod or the container is not running, so nothing can run in it"
	default:
		return "the request failed"
	}
}
