// Package render turns one deployment request (an instance name, a
// namespace, its services) into the Kubernetes objects Deploy applies: per
// service a Deployment, a Service (when it has ports), a ConfigMap (when it
// has a config file), a Secret (when it has secret values) and a
// PersistentVolumeClaim per volume, all labelled as kyyard's
// (app.kubernetes.io/managed-by: kyyard, app.kubernetes.io/instance,
// app.kubernetes.io/name), with consistent names, selectors and mounts,
// requests and limits set, and a securityContext that meets Pod Security
// restricted by default. Pure functions: no API server is involved.
//
// Screens use Request, Validate and Render (YAML text); package kube uses
// Objects (the typed objects). render never imports kube or views.
package render

// Labels kyyard puts on every object it deploys (the Kubernetes
// recommended labels, https://kubernetes.io/docs/concepts/overview/working-with-objects/common-labels/).
const (
	// LabelManagedBy is set to ManagedBy.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// ManagedBy is kyyard's value of LabelManagedBy.
	ManagedBy = "kyyard"
	// LabelInstance is the instance (Request.Instance).
	LabelInstance = "app.kubernetes.io/instance"
	// LabelName is the service (Service.Name).
	LabelName = "app.kubernetes.io/name"
)

// Request is one deployment request: an app instance in a namespace, made
// of services.
type Request struct {
	// Instance names the app instance (a DNS-1123 label); every object
	// carries it in LabelInstance.
	Instance string `json:"instance"`
	// Namespace is where every object goes (a DNS-1123 label).
	Namespace string `json:"namespace"`
	// Services are the app's parts, at least one, names unique.
	Services []Service `json:"services"`
}

// Service is one part of an app: an image run by a Deployment.
type Service struct {
	// Name is a DNS-1123 label, unique in the request; objects are named
	// "<instance>-<name>".
	Name string `json:"name"`
	// Image is a container image reference (registry/repo:tag or @digest).
	Image string `json:"image"`
	// Ports are the container ports (1..65535, unique per service); a
	// Service object is made when there is at least one.
	Ports []Port `json:"ports,omitempty"`
	// Env are plain environment variables (names as the API server
	// accepts them).
	Env []EnvVar `json:"env,omitempty"`
	// ConfigFile, when set, is mounted from a ConfigMap.
	ConfigFile *ConfigFile `json:"configFile,omitempty"`
	// Secrets are values put in a Secret and given to the container as
	// environment variables (secretKeyRef).
	Secrets []EnvVar `json:"secrets,omitempty"`
	// Replicas is the Deployment's replicas (0..10000).
	Replicas int32 `json:"replicas"`
	// Resources are requests and limits as quantities ("250m", "256Mi");
	// empty takes the defaults DefaultCPURequest etc.
	Resources Resources `json:"resources"`
	// Volumes are PersistentVolumeClaims mounted into the container.
	Volumes []Volume `json:"volumes,omitempty"`
}

// Port is one container port.
type Port struct {
	// Name is an IANA_SVC_NAME (at most 15 characters), optional.
	Name string `json:"name,omitempty"`
	// Port is 1..65535.
	Port int32 `json:"port"`
	// Protocol is "TCP" (default) or "UDP".
	Protocol string `json:"protocol,omitempty"`
}

// EnvVar is a name and a value.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ConfigFile is a file mounted read-only from a ConfigMap.
type ConfigFile struct {
	// Path is the absolute path of the file in the container
	// ("/etc/app/config.yaml"); only the file is mounted there (a
	// subPath mount of its ConfigMap key, the base name), the rest of
	// its directory is the image's. A change of Content rolls the pods
	// (render.ConfigChecksumAnnotation).
	Path string `json:"path"`
	// Content is the file's text.
	Content string `json:"content"`
}

// Resources are a container's requests and limits, as quantities.
type Resources struct {
	CPURequest    string `json:"cpuRequest,omitempty"`
	CPULimit      string `json:"cpuLimit,omitempty"`
	MemoryRequest string `json:"memoryRequest,omitempty"`
	MemoryLimit   string `json:"memoryLimit,omitempty"`
}

// Defaults for Resources fields left empty.
const (
	DefaultCPURequest    = "100m"
	DefaultCPULimit      = "500m"
	DefaultMemoryRequest = "128Mi"
	DefaultMemoryLimit   = "256Mi"
)

// Volume is a PersistentVolumeClaim mounted into the container.
type Volume struct {
	// Name is a DNS-1123 label, unique per service; the claim is named
	// "<instance>-<service>-<name>".
	Name string `json:"name"`
	// MountPath is an absolute path.
	MountPath string `json:"mountPath"`
	// Size is the requested storage ("1Gi").
	Size string `json:"size"`
	// StorageClass is the class name; "" is the cluster's default.
	StorageClass string `json:"storageClass,omitempty"`
}

// FieldError is one invalid field of a Request.
type FieldError struct {
	// Path names the field: "instance", "services[1].ports[0].port".
	Path string
	// Reason says what is wrong, for people ("must be 1..65535").
	Reason string
}

// Error is "path: reason".
func (e FieldError) Error() string { return e.Path + ": " + e.Reason }

// Object is one rendered object, as the screens show it.
type Object struct {
	// Service is the service it belongs to.
	Service string
	// Kind is "Deployment", "Service", "ConfigMap", "Secret" or
	// "PersistentVolumeClaim"; Name its metadata.name.
	Kind, Name string
	// YAML is the object as YAML (a Secret's values shown as sizes, never
	// in clear).
	YAML string
}

// Plan is what a request renders to, for the screens: the objects in the
// order Deploy applies them per service (Service, claims, ConfigMap,
// Secret, Deployment).
type Plan struct {
	Objects []Object
}
