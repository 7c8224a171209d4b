package shells

import (
	"crypto/rand"
	"fmt"
	"strings"

	"github.com/kyyard/kyyard/kube/internal/guards"
	corev1 "k8s.io/api/core/v1"
	psapi "k8s.io/pod-security-admission/api"
	pspolicy "k8s.io/pod-security-admission/policy"
)

// The pure part of ephemeral debug containers (debug.go): the container's
// name and spec, the securityContext a Pod Security level admits, the
// strategic merge patch that adds it, and what its status says.

// debugNameAlphabet is the alphabet of the name's random suffix, the one
// apimachinery's utilrand.String draws from (consonants and digits, so a
// name never spells a word), which kubectl debug uses.
const debugNameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// debugName returns "debugger-" and 5 random characters, the name kubectl
// debug gives a debug container (k8s.io/kubectl/pkg/cmd/debug:
// fmt.Sprintf("debugger-%s", nameSuffixFunc(5))), unique among taken.
func debugName(taken map[string]bool) string {
	for {
		var b [5]byte
		if _, err := rand.Read(b[:]); err != nil {
			panic(err) // crypto/rand never fails on supported platforms
		}
		for i := range b {
			b[i] = debugNameAlphabet[int(b[i])%len(debugNameAlphabet)]
		}
		if name := "debugger-" + string(b[:]); !taken[name] {
			return name
		}
	}
}

// debugNonRootUser is the runAsUser a debug container gets under the
// restricted level when neither the pod nor the target container names
// one: 65534, the "nobody" user of busybox and most base images.
const debugNonRootUser int64 = 65534

// debugLevel is the Pod Security level a debug container must meet, from
// the namespace's pod-security.kubernetes.io/enforce label: "restricted"
// for restricted and for any value Pod Security Admission does not know
// (the safe reading), else "baseline" or "privileged" ("" is privileged,
// the level of a namespace without the label).
func debugLevel(enforce string) string {
	switch strings.TrimSpace(enforce) {
	case "", "privileged":
		return "privileged"
	case guards.PodSecurityBaseline:
		return guards.PodSecurityBaseline
	}
	return guards.PodSecurityRestricted
}

// debugSecurityContext returns the securityContext of a debug container
// joining target in pod under a Pod Security level (debugLevel). For
// restricted it is what the level's checks ask of every container
// (k8s.io/pod-security-admission/policy): runAsNonRoot true,
// allowPrivilegeEscalation false, capabilities drop ALL, seccompProfile
// RuntimeDefault, and a non-root runAsUser: the target container's when it
// sets one, none when the pod sets one (the container inherits it), else
// debugNonRootUser. For baseline and privileged it is nil: a plain
// container, which baseline admits (casebook C44).
func debugSecurityContext(level string, pod *corev1.Pod, target string) *corev1.SecurityContext {
	if level != guards.PodSecurityRestricted {
		return nil
	}
	yes, no := true, false
	sc := &corev1.SecurityContext{
		RunAsNonRoot:             &yes,
		AllowPrivilegeEscalation: &no,
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
	var podUser, targetUser *int64
	if psc := pod.Spec.SecurityContext; psc != nil {
		podUser = psc.RunAsUser
	}
	for _, c := range pod.Spec.Containers {
		if c.Name == target && c.SecurityContext != nil {
			targetUser = c.SecurityContext.RunAsUser
		}
	}
	switch {
	case targetUser != nil && *targetUser != 0:
		u := *targetUser
		sc.RunAsUser = &u
	case podUser != nil && *podUser != 0 && targetUser == nil:
		// inherited from the pod
	default:
		u := debugNonRootUser
		sc.RunAsUser = &u
	}
	return sc
}

// debugContainer returns the ephemeral container kyyard adds: name, image,
// stdin and a TTY (kubectl debug -it), targeting target's process
// namespace (--target), with the securityContext of level.
func debugContainer(name, image, target, level string, pod *corev1.Pod) corev1.EphemeralContainer {
	return corev1.EphemeralContainer{
		EphemeralContainerCommon: corev1.EphemeralContainerCommon{
			Name:                     name,
			Image:                    image,
			Stdin:                    true,
			TTY:                      true,
			ImagePullPolicy:          corev1.PullIfNotPresent,
			TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			SecurityContext:          debugSecurityContext(level, pod, target),
		},
		TargetContainerName: target,
	}
}

// ephemeralNames returns the names taken in pod: containers, init
// containers and ephemeral containers share one name space.
func ephemeralNames(pod *corev1.Pod) map[string]bool {
	taken := map[string]bool{}
	for _, c := range pod.Spec.Containers {
		taken[c.Name] = true
	}
	for _, c := range pod.Spec.InitContainers {
		taken[c.Name] = true
	}
	for _, c := range pod.Spec.EphemeralContainers {
		taken[c.Name] = true
	}
	return taken
}

// debugStart is what a debug container's status says about its start.
type debugStart struct {
	// running: the container runs; attach now.
	running bool
	// ended: it terminated (with reason and exit code in why).
	ended bool
	// hopeless: its waiting reason will not change by waiting.
	hopeless bool
	// why says what it waits for, "" before any status is reported.
	why string
}

// hopelessWaits are the waiting reasons the kubelet reports for a
// container that will not start however long one waits (the image name is
// malformed, the pull policy forbids pulling, the config cannot be made).
var hopelessWaits = map[string]bool{
	"InvalidImageName":           true,
	"ErrImageNeverPull":          true,
	"CreateContainerConfigError": true,
}

// debugStatus reads the status of the ephemeral container name in pod.
func debugStatus(pod *corev1.Pod, name string) debugStart {
	for _, s := range pod.Status.EphemeralContainerStatuses {
		if s.Name != name {
			continue
		}
		switch st := s.State; {
		case st.Running != nil:
			return debugStart{running: true, why: "running"}
		case st.Terminated != nil:
			why := fmt.Sprintf("terminated (exit code %d", st.Terminated.ExitCode)
			if st.Terminated.Reason != "" {
				why += ", " + st.Terminated.Reason
			}
			why += ")"
			if st.Terminated.Message != "" {
				why += ": " + st.Terminated.Message
			}
			return debugStart{ended: true, why: why}
		case st.Waiting != nil:
			why := st.Waiting.Reason
			if why == "" {
				why = "waiting"
			}
			if st.Waiting.Message != "" {
				why += ": " + st.Waiting.Message
			}
			return debugStart{hopeless: hopelessWaits[st.Waiting.Reason], why: why}
		}
		return debugStart{why: "no state reported yet"}
	}
	return debugStart{}
}

// debugAdmitted reports whether the API server's Pod Security admission
// would admit adding ec to pod in a namespace with labels, and if not,
// why. When an ephemeral container is added, the admission evaluates the
// whole pod, not only the new container (k8s.io/pod-security-admission,
// admission.go: isSignificantPodUpdate counts an added ephemeral container
// as significant, and EvaluatePod then checks the pod's spec): a pod
// admitted before its namespace was labelled, or made by a controller the
// label did not stop, may not meet the level, and then no debug container
// is admitted, whatever its own securityContext. The level and version are
// the labels' (pod-security.kubernetes.io/enforce and enforce-version),
// read as the admission reads them (api.PolicyToEvaluate: an unparsable
// level is restricted); a namespace without the label is taken as
// privileged, the API server's default unless its admission configuration
// says otherwise. Exemptions (users, namespaces, runtime classes of the
// admission configuration) cannot be seen from a client.
func debugAdmitted(pod *corev1.Pod, labels map[string]string, ec corev1.EphemeralContainer) (ok bool, level, why string) {
	policy, _ := psapi.PolicyToEvaluate(labels, psapi.Policy{Enforce: psapi.LevelVersion{Level: psapi.LevelPrivileged, Version: psapi.LatestVersion()}})
	if policy.Enforce.Level == psapi.LevelPrivileged {
		return true, string(psapi.LevelPrivileged), ""
	}
	ev, err := podSecurityEvaluator()
	if err != nil {
		return false, string(policy.Enforce.Level), "the Pod Security evaluator could not be built: " + err.Error()
	}
	spec := pod.Spec.DeepCopy()
	spec.EphemeralContainers = append(spec.EphemeralContainers, ec)
	res := pspolicy.AggregateCheckResults(ev.EvaluatePod(policy.Enforce, &pod.ObjectMeta, spec))
	level = string(policy.Enforce.Level)
	if !policy.Enforce.Version.Latest() {
		level += " (version " + policy.Enforce.Version.String() + ")"
	}
	return res.Allowed, level, res.ForbiddenDetail()
}
