package render

import (
	"path"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Rendered is one object of a request for package kube: a typed client-go
// object (*corev1.Service, *corev1.PersistentVolumeClaim,
// *corev1.ConfigMap, *corev1.Secret or *appsv1.Deployment) with its
// TypeMeta (apiVersion, kind), name, namespace and labels set.
type Rendered struct {
	// Service is the request's service the object belongs to.
	Service string
	// Object is the object; each call of Objects makes new ones.
	Object runtime.Object
}

// InvalidError is the error Render, Objects and RecordOf return for a
// request Validate rejects: it wraps ErrInvalid (errors.Is) and carries
// every FieldError.
type InvalidError struct {
	Fields []FieldError
}

// Error is ErrInvalid's text, then each field's "path: reason".
func (e *InvalidError) Error() string {
	s := ErrInvalid.Error()
	for i, f := range e.Fields {
		if i == 0 {
			s += ": "
		} else {
			s += "; "
		}
		s += f.Error()
	}
	return s
}

// Unwrap is ErrInvalid.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// check validates req; an *InvalidError when it is not valid.
func check(req Request) error {
	if errs := Validate(req); len(errs) > 0 {
		return &InvalidError{Fields: errs}
	}
	return nil
}

// Objects renders a valid request to its objects, in the order Deploy
// applies them, service by service in the request's order: the Service
// (when it has ports), a PersistentVolumeClaim per volume (in order), the
// ConfigMap (when it has a config file), the Secret (when it has secret
// values), the Deployment. The same request always gives the same objects.
// Errors: an *InvalidError wrapping ErrInvalid when Validate rejects req.
func Objects(req Request) ([]Rendered, error) {
	if err := check(req); err != nil {
		return nil, err
	}
	var out []Rendered
	for _, s := range req.Services {
		add := func(o runtime.Object) { out = append(out, Rendered{Service: s.Name, Object: o}) }
		if len(s.Ports) > 0 {
			add(service(req, s))
		}
		for _, v := range s.Volumes {
			add(claim(req, s, v))
		}
		if s.ConfigFile != nil {
			add(configMap(req, s))
		}
		if len(s.Secrets) > 0 {
			add(secret(req, s))
		}
		add(deployment(req, s))
	}
	return out, nil
}

// objectMeta is an object's metadata: name, namespace and the labels.
func objectMeta(req Request, s Service, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: req.Namespace, Labels: Labels(req.Instance, s.Name)}
}

// service is a ClusterIP Service selecting the service's pods, one port
// per container port (named as servicePortNames says, targetPort the
// container port's name when it has one, else its number).
func service(req Request, s Service) *corev1.Service {
	names := servicePortNames(s.Ports)
	ports := make([]corev1.ServicePort, len(s.Ports))
	for i, p := range s.Ports {
		target := intstr.FromInt32(p.Port)
		if p.Name != "" {
			target = intstr.FromString(p.Name)
		}
		ports[i] = corev1.ServicePort{Name: names[i], Protocol: corev1.Protocol(protocol(p)), Port: p.Port, TargetPort: target}
	}
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: objectMeta(req, s, WorkloadName(req.Instance, s.Name)),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: SelectorLabels(req.Instance, s.Name),
			Ports:    ports,
		},
	}
}

// claim is a ReadWriteOnce PersistentVolumeClaim of the volume's size, of
// its storage class when one is named.
func claim(req Request, s Service, v Volume) *corev1.PersistentVolumeClaim {
	pvc := &corev1.PersistentVolumeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: objectMeta(req, s, ClaimName(req.Instance, s.Name, v.Name)),
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(v.Size)},
			},
		},
	}
	if v.StorageClass != "" {
		sc := v.StorageClass
		pvc.Spec.StorageClassName = &sc
	}
	return pvc
}

// configMap holds the config file under its base name.
func configMap(req Request, s Service) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: objectMeta(req, s, ConfigMapName(req.Instance, s.Name)),
		Data:       map[string]string{path.Base(s.ConfigFile.Path): s.ConfigFile.Content},
	}
}

// secret is an Opaque Secret holding each secret value under its name
// (data, the bytes of the value).
func secret(req Request, s Service) *corev1.Secret {
	data := make(map[string][]byte, len(s.Secrets))
	for _, e := range s.Secrets {
		data[secretKey(e.Name)] = []byte(e.Value)
	}
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: objectMeta(req, s, SecretName(req.Instance, s.Name)),
		Type:       corev1.SecretTypeOpaque,
		Data:       data,
	}
}
