package seed

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func namespace() *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name:   Namespace,
		Labels: map[string]string{"app.kubernetes.io/part-of": "kyyard-demo"},
	}}
}

// configAndServices returns the demo ConfigMaps, Secrets and Services.
func configAndServices() []runtime.Object {
	return []runtime.Object{
		&corev1.ConfigMap{
			ObjectMeta: objectMeta("web-config", appLabels("web")),
			Data: map[string]string{
				"APP_MODE": "production",
				"default.conf": "server {\n  listen 8080;\n  location /healthz { return 200 'ok'; }\n" +
					"  location / { root /usr/share/nginx/html; }\n}\n",
			},
		},
		&corev1.ConfigMap{
			ObjectMeta: objectMeta("db-config", appLabels("db")),
			Data: map[string]string{
				"postgresql.conf": "max_connections = 100\nshared_buffers = 128MB\nlog_min_duration_statement = 250\n",
			},
		},
		&corev1.Secret{
			ObjectMeta: objectMeta("web-credentials", appLabels("web")),
			Type:       corev1.SecretTypeOpaque,
			Data: map[string][]byte{
				"username": []byte("web"),
				"password": []byte("s3cr3t-demo-password"),
				"api-key":  []byte("demo-0123456789abcdef"),
			},
		},
		&corev1.Secret{
			ObjectMeta: objectMeta("db-credentials", appLabels("db")),
			Type:       corev1.SecretTypeOpaque,
			Data: map[string][]byte{
				"POSTGRES_USER":     []byte("app"),
				"POSTGRES_PASSWORD": []byte("another-demo-password"),
			},
		},
		&corev1.Service{
			ObjectMeta: objectMeta("web", appLabels("web")),
			Spec: corev1.ServiceSpec{
				Type:     corev1.ServiceTypeClusterIP,
				Selector: appLabels("web"),
				Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP}},
			},
		},
		&corev1.Service{
			ObjectMeta: objectMeta("db", appLabels("db")),
			Spec: corev1.ServiceSpec{
				ClusterIP: corev1.ClusterIPNone,
				Selector:  appLabels("db"),
				Ports:     []corev1.ServicePort{{Name: "postgres", Port: 5432, TargetPort: intstr.FromString("postgres"), Protocol: corev1.ProtocolTCP}},
			},
		},
	}
}

// storage returns the demo StorageClass and one hostPath PersistentVolume per
// StatefulSet replica. Nothing provisions volumes in the local cluster: the
// controller-manager's PV controller binds the StatefulSet's claims to these
// (binding mode Immediate), then the scheduler places the pods.
func storage(hostDir string) []runtime.Object {
	objs := []runtime.Object{&storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: StorageClassName, Labels: map[string]string{"app.kubernetes.io/part-of": "kyyard-demo"}},
		Provisioner:       "kubernetes.io/no-provisioner",
		ReclaimPolicy:     ptr.To(corev1.PersistentVolumeReclaimRetain),
		VolumeBindingMode: ptr.To(storagev1.VolumeBindingImmediate),
	}}
	for i := 0; i < dbReplicas; i++ {
		objs = append(objs, &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{
				Name:   fmt.Sprintf("kyyard-demo-pv-%d", i),
				Labels: map[string]string{"app.kubernetes.io/part-of": "kyyard-demo"},
			},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				StorageClassName:              StorageClassName,
				PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
					Path: fmt.Sprintf("%s/pv-%d", hostDir, i),
					Type: ptr.To(corev1.HostPathDirectoryOrCreate),
				}},
			},
		})
	}
	return objs
}
