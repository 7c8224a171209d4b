package seed

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/kyyard/kyyard/hack/cluster/internal/cluster"
	"github.com/kyyard/kyyard/hack/cluster/internal/kwokconf"
)

// Namespace is where the demo data lives.
const Namespace = "demo"

// Replica counts of the demo workloads; wait.go checks them.
const (
	webReplicas      = 3
	crashyReplicas   = 2
	badimageReplicas = 1
	helmReplicas     = 2
	dbReplicas       = 2
)

// StorageClassName is the demo StorageClass; its PersistentVolumes are
// pre-created (no provisioner runs in the local cluster).
const StorageClassName = "kyyard-demo"

func objectMeta(name string, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: Namespace, Labels: labels}
}

func appLabels(app string) map[string]string {
	return map[string]string{"app.kubernetes.io/name": app, "app.kubernetes.io/part-of": "kyyard-demo"}
}

func withLabel(m map[string]string, k, v string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for mk, mv := range m {
		out[mk] = mv
	}
	out[k] = v
	return out
}

// podSpec places pods on the fake nodes: node selector type=kwok and a
// toleration of the kwok taint.
func podSpec(containers ...corev1.Container) corev1.PodSpec {
	return corev1.PodSpec{
		Containers:   containers,
		NodeSelector: map[string]string{cluster.NodeTypeLabel: "kwok"},
		Tolerations: []corev1.Toleration{{
			Key: cluster.NodeTaintKey, Operator: corev1.TolerationOpEqual, Value: "fake", Effect: corev1.TaintEffectNoSchedule,
		}},
		TerminationGracePeriodSeconds: ptr.To[int64](30),
	}
}

func container(name, image string, cpu, memory string) corev1.Container {
	return corev1.Container{
		Name:  name,
		Image: image,
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse(cpu),
				corev1.ResourceMemory: resource.MustParse(memory),
			},
			Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(memory)},
		},
		ImagePullPolicy: corev1.PullIfNotPresent,
	}
}

// usage returns pod annotations that set the base of the usage the local
// cluster's metrics emulate for each container (kwokconf's
// ClusterResourceUsage): cpu like "60m", memory like "90Mi".
func usage(cpu, memory string) map[string]string {
	return map[string]string{kwokconf.UsageAnnotationPrefix + "cpu": cpu, kwokconf.UsageAnnotationPrefix + "memory": memory}
}

// demoUsage is each demo workload's base usage, chosen so that the metrics
// columns show a spread: some pods above their CPU requests, some near
// them, some nearly idle, and memory below every limit (the emulation
// varies the base by up to about 2.2 times: see kwokconf's usage).
var demoUsage = map[string]map[string]string{
	"web":          usage("60m", "50Mi"),
	"helm-chart":   usage("150m", "110Mi"),
	"db":           usage("200m", "220Mi"),
	"node-agent":   usage("5m", "12Mi"),
	"sidecar-demo": usage("40m", "28Mi"),
	"multi":        usage("15m", "12Mi"),
}

func deployment(name string, replicas int32, labels, podLabels map[string]string, spec corev1.PodSpec) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: objectMeta(name, labels),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: appLabels(name)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels, Annotations: demoUsage[name]},
				Spec:       spec,
			},
		},
	}
}

// workloads returns the demo Deployments, StatefulSet, DaemonSet, Job, CronJob
// and standalone Pods.
func workloads() []runtime.Object {
	web := container("web", "nginx:1.27.3", "100m", "128Mi")
	web.Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
	web.Env = []corev1.EnvVar{
		{Name: "APP_MODE", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}, Key: "APP_MODE"}}},
		{Name: "DB_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "db-credentials"}, Key: "POSTGRES_PASSWORD"}}},
		{Name: "LOG_LEVEL", Value: "info"},
	}
	web.VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/nginx/conf.d", ReadOnly: true}}
	web.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")}}, PeriodSeconds: 10}
	webSpec := podSpec(web)
	webSpec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}}}}}

	crashy := container("crashy", "ghcr.io/kyyard/demo-crashy:0.3.1", "50m", "64Mi")
	crashy.Args = []string{"--fail-after=2s"}
	badimage := container("badimage", "registry.invalid/kyyard/does-not-exist:1.0", "50m", "64Mi")

	helmLabels := withLabel(withLabel(appLabels("helm-chart"), "app.kubernetes.io/managed-by", "Helm"), "helm.sh/chart", "demo-cache-1.4.2")
	helmLabels["app.kubernetes.io/instance"] = "demo-cache"
	helmLabels["app.kubernetes.io/version"] = "7.4.1"
	helm := deployment("helm-chart", helmReplicas, helmLabels, appLabels("helm-chart"), podSpec(container("redis", "redis:7.4.1", "100m", "256Mi")))
	helm.Annotations = map[string]string{"meta.helm.sh/release-name": "demo-cache", "meta.helm.sh/release-namespace": Namespace}

	return []runtime.Object{
		deployment("web", webReplicas, appLabels("web"), appLabels("web"), webSpec),
		deployment("crashy", crashyReplicas, appLabels("crashy"),
			withLabel(appLabels("crashy"), kwokconf.DemoStateLabel, kwokconf.DemoStateCrashLoop), podSpec(crashy)),
		deployment("badimage", badimageReplicas, appLabels("badimage"),
			withLabel(appLabels("badimage"), kwokconf.DemoStateLabel, kwokconf.DemoStateImagePull), podSpec(badimage)),
		helm,
		statefulSet(),
		daemonSet(),
		job(),
		cronJob(),
		sidecarPod(),
		multiPod(),
	}
}

func statefulSet() *appsv1.StatefulSet {
	pg := container("postgres", "postgres:16.4", "250m", "512Mi")
	pg.Ports = []corev1.ContainerPort{{Name: "postgres", ContainerPort: 5432, Protocol: corev1.ProtocolTCP}}
	pg.EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "db-credentials"}}}}
	pg.VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/postgresql/data"}}
	return &appsv1.StatefulSet{
		ObjectMeta: objectMeta("db", appLabels("db")),
		Spec: appsv1.StatefulSetSpec{
			Replicas:    ptr.To[int32](dbReplicas),
			ServiceName: "db",
			Selector:    &metav1.LabelSelector{MatchLabels: appLabels("db")},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: appLabels("db"), Annotations: demoUsage["db"]},
				Spec:       podSpec(pg),
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					StorageClassName: ptr.To(StorageClassName),
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceStorage: resource.MustParse("1Gi"),
					}},
				},
			}},
		},
	}
}

func daemonSet() *appsv1.DaemonSet {
	agent := container("agent", "ghcr.io/kyyard/node-agent:1.2.0", "20m", "32Mi")
	return &appsv1.DaemonSet{
		ObjectMeta: objectMeta("node-agent", appLabels("node-agent")),
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: appLabels("node-agent")},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: appLabels("node-agent"), Annotations: demoUsage["node-agent"]},
				Spec:       podSpec(agent),
			},
		},
	}
}

func jobPodSpec(name, image string, args ...string) corev1.PodSpec {
	c := container(name, image, "100m", "128Mi")
	c.Args = args
	spec := podSpec(c)
	spec.RestartPolicy = corev1.RestartPolicyNever
	return spec
}

func job() *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: objectMeta("migrate", appLabels("migrate")),
		Spec: batchv1.JobSpec{
			Completions:  ptr.To[int32](1),
			BackoffLimit: ptr.To[int32](2),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: appLabels("migrate")},
				Spec:       jobPodSpec("migrate", "migrate/migrate:v4.17.1", "-path=/migrations", "-database=$(DATABASE_URL)", "up"),
			},
		},
	}
}

func cronJob() *batchv1.CronJob {
	return &batchv1.CronJob{
		ObjectMeta: objectMeta("nightly-report", appLabels("nightly-report")),
		Spec: batchv1.CronJobSpec{
			Schedule:                   "30 2 * * *",
			ConcurrencyPolicy:          batchv1.ForbidConcurrent,
			SuccessfulJobsHistoryLimit: ptr.To[int32](3),
			FailedJobsHistoryLimit:     ptr.To[int32](1),
			JobTemplate: batchv1.JobTemplateSpec{
				Spec: batchv1.JobSpec{
					BackoffLimit: ptr.To[int32](1),
					Template: corev1.PodTemplateSpec{
						ObjectMeta: metav1.ObjectMeta{Labels: appLabels("nightly-report")},
						Spec:       jobPodSpec("report", "ghcr.io/kyyard/reporter:2.0.0", "--since=24h"),
					},
				},
			},
		},
	}
}

// sidecarPod has a native sidecar: an init container with restartPolicy
// Always that keeps running next to the main container (READY 2/2).
func sidecarPod() *corev1.Pod {
	shipper := container("log-shipper", "fluent/fluent-bit:3.1.9", "20m", "64Mi")
	shipper.RestartPolicy = ptr.To(corev1.ContainerRestartPolicyAlways)
	spec := podSpec(container("app", "nginx:1.27.3", "100m", "128Mi"))
	spec.InitContainers = []corev1.Container{shipper}
	meta := objectMeta("sidecar-demo", appLabels("sidecar-demo"))
	meta.Annotations = demoUsage["sidecar-demo"]
	return &corev1.Pod{ObjectMeta: meta, Spec: spec}
}

// multiPod has two ordinary containers.
func multiPod() *corev1.Pod {
	exporter := container("metrics-exporter", "prom/statsd-exporter:v0.27.1", "20m", "32Mi")
	exporter.Ports = []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9102, Protocol: corev1.ProtocolTCP}}
	meta := objectMeta("multi", appLabels("multi"))
	meta.Annotations = demoUsage["multi"]
	return &corev1.Pod{
		ObjectMeta: meta,
		Spec:       podSpec(container("app", "busybox:1.36", "50m", "32Mi"), exporter),
	}
}
