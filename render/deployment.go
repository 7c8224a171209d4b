package render

import (
	"crypto/sha256"
	"encoding/hex"
	"path"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// RunAsUser is the user (and group, and fsGroup) a pod runs as: a
// non-root id, so that an image without a USER still meets Pod Security
// restricted (runAsNonRoot needs a non-zero user to be known) and a claim
// is writable by it (fsGroup).
const RunAsUser int64 = 10001

// deployment is the service's Deployment: its replicas, a selector on the
// instance and name labels, a pod template with the three labels and one
// container named after the service (image, ports, env, mounts,
// resources) with a securityContext meeting Pod Security restricted. The
// config file is mounted alone (subPath) at its path, and its content's
// checksum annotates the template (ConfigChecksumAnnotation).
//
// Strategy: RollingUpdate with Kubernetes' defaults (25% surge and
// unavailable); Recreate for a service with volumes, whose ReadWriteOnce
// claims a second pod on another node could not attach while the old one
// holds them (a rolling update would never finish: Multi-Attach error).
func deployment(req Request, s Service) *appsv1.Deployment {
	replicas := s.Replicas
	quarter := intstr.FromString("25%")
	strategy := appsv1.DeploymentStrategy{
		Type:          appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: &quarter, MaxSurge: &quarter},
	}
	if len(s.Volumes) > 0 {
		strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: objectMeta(req, s, WorkloadName(req.Instance, s.Name)),
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: SelectorLabels(req.Instance, s.Name)},
			Strategy: strategy,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: Labels(req.Instance, s.Name), Annotations: templateAnnotations(s)},
				Spec:       podSpec(req, s),
			},
		},
	}
}

// ConfigChecksumAnnotation is the pod template annotation holding the
// SHA-256 (lower-case hex) of the service's config file content, set
// when the service has one. The file is mounted with subPath, and a
// subPath mount never sees a ConfigMap update (kubelet: "A container
// using a ConfigMap as a subPath volume mount will not receive ConfigMap
// updates", kubernetes.io/docs/concepts/configuration/configmap), so a
// change of content changes the template and rolls the pods, as Helm
// charts do with a checksum/config annotation.
const ConfigChecksumAnnotation = "kyyard.dev/config-sha256"

// templateAnnotations are the pod template's annotations: the config
// checksum when the service has a config file, else none.
func templateAnnotations(s Service) map[string]string {
	if s.ConfigFile == nil {
		return nil
	}
	sum := sha256.Sum256([]byte(s.ConfigFile.Content))
	return map[string]string{ConfigChecksumAnnotation: hex.EncodeToString(sum[:])}
}

// podSpec is the pod of a service: one container, its volumes, and the
// restricted securityContext.
func podSpec(req Request, s Service) corev1.PodSpec {
	yes, no := true, false
	uid := RunAsUser
	c := corev1.Container{
		Name:      s.Name,
		Image:     s.Image,
		Ports:     containerPorts(s.Ports),
		Env:       env(req, s),
		Resources: resources(s.Resources),
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: &no,
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			RunAsNonRoot:             &yes,
		},
	}
	var vols []corev1.Volume
	if f := s.ConfigFile; f != nil {
		key := path.Base(f.Path)
		// Only the file is mounted (subPath): its directory keeps what
		// the image has there (/etc/passwd, CA certificates).
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: configVolume, MountPath: f.Path, SubPath: key, ReadOnly: true})
		vols = append(vols, corev1.Volume{Name: configVolume, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: ConfigMapName(req.Instance, s.Name)},
			Items:                []corev1.KeyToPath{{Key: key, Path: key}},
		}}})
	}
	for _, v := range s.Volumes {
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: v.Name, MountPath: v.MountPath})
		vols = append(vols, corev1.Volume{Name: v.Name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: ClaimName(req.Instance, s.Name, v.Name)},
		}})
	}
	return corev1.PodSpec{
		Containers: []corev1.Container{c},
		Volumes:    vols,
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot:   &yes,
			RunAsUser:      &uid,
			RunAsGroup:     &uid,
			FSGroup:        &uid,
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
	}
}

// containerPorts are the container's ports, with their names and
// protocols.
func containerPorts(ports []Port) []corev1.ContainerPort {
	if len(ports) == 0 {
		return nil
	}
	out := make([]corev1.ContainerPort, len(ports))
	for i, p := range ports {
		out[i] = corev1.ContainerPort{Name: p.Name, ContainerPort: p.Port, Protocol: corev1.Protocol(protocol(p))}
	}
	return out
}

// env is the plain variables in order, then one secretKeyRef per secret
// value to its key in the service's Secret.
func env(req Request, s Service) []corev1.EnvVar {
	var out []corev1.EnvVar
	for _, e := range s.Env {
		out = append(out, corev1.EnvVar{Name: e.Name, Value: e.Value})
	}
	for _, e := range s.Secrets {
		out = append(out, corev1.EnvVar{Name: e.Name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: SecretName(req.Instance, s.Name)},
			Key:                  secretKey(e.Name),
		}}})
	}
	return out
}

// resources are the requests and limits, defaults for empty fields.
func resources(r Resources) corev1.ResourceRequirements {
	e := effectiveResources(r)
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(e.CPURequest), corev1.ResourceMemory: resource.MustParse(e.MemoryRequest)},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(e.CPULimit), corev1.ResourceMemory: resource.MustParse(e.MemoryLimit)},
	}
}
