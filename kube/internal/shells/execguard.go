package shells

// The guards of an exec (design: "Guards, and two policies"): the pod read
// back against the UID the person chose, the container chosen and
// running, and Pod Security: the namespace enforcing baseline or
// restricted and the pod itself meeting baseline. Read-only and the
// access review are kube/internal/guards'.

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	psapi "k8s.io/pod-security-admission/api"
	pspolicy "k8s.io/pod-security-admission/policy"
)

// execContainer returns the container a request runs in: the named one,
// or the pod's only container (init containers that are not native
// sidecars do not count). A pod with several and none named is a
// *ContainerChoiceError listing them (the default-container annotation
// named in it); a named container the pod does not have is a conflict
// verdict's sentence (the pod changed since it was listed).
func execContainer(pod *corev1.Pod, name string) (string, *vocab.ContainerChoiceError, string) {
	if name != "" {
		if slices.Contains(objects.PodContainers(pod), name) {
			return name, nil, ""
		}
		return "", nil, fmt.Sprintf("pod %s/%s has no container %s", pod.Namespace, pod.Name, name)
	}
	runnable := objects.RunningContainers(pod)
	if len(runnable) == 1 {
		return runnable[0], nil, ""
	}
	def := objects.DefaultContainer(pod)
	if !slices.Contains(runnable, def) {
		def = ""
	}
	return "", &vocab.ContainerChoiceError{Namespace: pod.Namespace, Pod: pod.Name, Containers: runnable, DefaultContainer: def}, ""
}

// guardPodUID refuses (conflict) a pod read back with another UID than the
// one the person saw ("" skips), or being deleted.
func guardPodUID(pod *corev1.Pod, uid string) vocab.Verdict {
	name := "pod " + pod.Namespace + "/" + pod.Name
	switch {
	case uid != "" && string(pod.UID) != uid:
		return vocab.Verdict{Guard: vocab.GuardFresh, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonConflict,
			Sentence: name + " was deleted and created again since it was listed (its UID changed)"}
	case pod.DeletionTimestamp != nil:
		return vocab.Verdict{Guard: vocab.GuardFresh, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonNotRunning,
			Sentence: name + " is being deleted"}
	}
	return vocab.Verdict{Guard: vocab.GuardFresh, Outcome: vocab.OutcomePass, Sentence: name + " is the one listed"}
}

// guardContainerRunning refuses a pod that is not Running, or a container
// without a running state (waiting: its reason is given; terminated).
func guardContainerRunning(pod *corev1.Pod, container string) vocab.Verdict {
	name := "pod " + pod.Namespace + "/" + pod.Name
	if pod.Status.Phase != corev1.PodRunning {
		phase := string(pod.Status.Phase)
		if phase == "" {
			phase = "not yet scheduled"
		}
		return vocab.Verdict{Guard: vocab.GuardRunning, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonNotRunning,
			Sentence: name + " is " + phase + ", not Running"}
	}
	statuses := slices.Concat(pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses, pod.Status.EphemeralContainerStatuses)
	for _, st := range statuses {
		if st.Name != container {
			continue
		}
		switch {
		case st.State.Running != nil:
			return vocab.Verdict{Guard: vocab.GuardRunning, Outcome: vocab.OutcomePass, Sentence: "container " + container + " is running"}
		case st.State.Waiting != nil:
			why := st.State.Waiting.Reason
			if why == "" {
				why = "waiting"
			}
			return vocab.Verdict{Guard: vocab.GuardRunning, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonNotRunning,
				Sentence: "container " + container + " is not running (" + why + ")"}
		case st.State.Terminated != nil:
			return vocab.Verdict{Guard: vocab.GuardRunning, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonNotRunning,
				Sentence: fmt.Sprintf("container %s has terminated (%s, exit code %d)", container, st.State.Terminated.Reason, st.State.Terminated.ExitCode)}
		}
	}
	return vocab.Verdict{Guard: vocab.GuardRunning, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonNotRunning,
		Sentence: "container " + container + " has not started"}
}

// podSecurityEvaluator is the official Pod Security Admission evaluator
// (k8s.io/pod-security-admission/policy) with its default checks, built
// once.
var podSecurityEvaluator = sync.OnceValues(func() (pspolicy.Evaluator, error) {
	return pspolicy.NewEvaluator(pspolicy.DefaultChecks(), nil)
})

// PodSecurityStandards is the page that defines the levels the guard
// checks.
const PodSecurityStandards = "https://kubernetes.io/docs/concepts/security/pod-security-standards/"

// podMeetsBaseline reports whether a pod meets the Pod Security Standards'
// baseline level at the latest version, as the API server's Pod Security
// Admission evaluates it (privileged containers, host namespaces, hostPath
// volumes, capabilities beyond the baseline list, host ports, ...); why
// lists what it does not meet ("privileged (container "x" must not set
// securityContext.privileged=true)").
func podMeetsBaseline(pod *corev1.Pod) (ok bool, why string) {
	ev, err := podSecurityEvaluator()
	if err != nil {
		return false, "the Pod Security evaluator could not be built: " + err.Error()
	}
	lv := psapi.LevelVersion{Level: psapi.LevelBaseline, Version: psapi.LatestVersion()}
	res := pspolicy.AggregateCheckResults(ev.EvaluatePod(lv, &pod.ObjectMeta, &pod.Spec))
	return res.Allowed, res.ForbiddenDetail()
}

// execPodSecurity is the Pod Security verdict of a session in pod, given
// the namespace's enforce label (level, "" for none, read=false when the
// namespace could not be read): a pass only when the namespace enforces
// baseline or restricted and the pod meets baseline (a pod admitted before
// the label was set may not); otherwise a warning the caller passes through Checker.Warn (strict:
// refusal) saying which, cause first, in words for a shell (it creates no
// pod): "namespace demo enforces no Pod Security level: a shell here is
// not bounded by baseline", "pod web does not meet baseline: privileged
// (container "x" must not set securityContext.privileged=true)", then the
// standards' address.
func execPodSecurity(pod *corev1.Pod, level string, read bool) vocab.Verdict {
	ns := pod.Namespace
	var problems []string
	const unbounded = ": a shell here is not bounded by baseline"
	switch {
	case !read:
		problems = append(problems, "the Pod Security level of namespace "+ns+" cannot be read"+unbounded)
	case level == "":
		problems = append(problems, "namespace "+ns+" enforces no Pod Security level"+unbounded)
	case level != guards.PodSecurityBaseline && level != guards.PodSecurityRestricted:
		problems = append(problems, "namespace "+ns+" enforces Pod Security "+level+unbounded)
	}
	if ok, why := podMeetsBaseline(pod); !ok {
		problems = append(problems, "pod "+pod.Name+" does not meet baseline: "+why)
	}
	if len(problems) == 0 {
		return vocab.Verdict{Guard: vocab.GuardPodSecurity, Outcome: vocab.OutcomePass,
			Sentence: "namespace " + ns + " enforces Pod Security " + level + " and the pod meets baseline"}
	}
	return vocab.Verdict{Guard: vocab.GuardPodSecurity, Reason: vocab.ReasonPodSecurity, Outcome: vocab.OutcomeWarn,
		Sentence: strings.Join(problems, "; ") + " (" + PodSecurityStandards + ")"}
}
