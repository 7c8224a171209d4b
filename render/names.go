package render

// The names of the objects a request renders to. Every name starts with
// the instance, so that two instances in one namespace never share one;
// Validate checks that each is a name the API server accepts.

// WorkloadName is the name of a service's Deployment and Service:
// "<instance>-<service>". Validate keeps it a DNS-1123 label (at most 63
// characters) and, for a service with ports, a DNS-1035 label (a Service's
// name; see Validate).
func WorkloadName(instance, service string) string { return instance + "-" + service }

// ConfigMapName is the name of a service's ConfigMap:
// "<instance>-<service>-config".
func ConfigMapName(instance, service string) string { return instance + "-" + service + "-config" }

// SecretName is the name of a service's Secret: "<instance>-<service>-secret".
func SecretName(instance, service string) string { return instance + "-" + service + "-secret" }

// ClaimName is the name of a volume's PersistentVolumeClaim:
// "<instance>-<service>-<volume>". Validate refuses two volumes of a
// request whose claims would share a name ("a" + "b-c" and "a-b" + "c").
func ClaimName(instance, service, volume string) string {
	return instance + "-" + service + "-" + volume
}

// Labels returns the recommended labels kyyard puts on every object of a
// service (and on its pods): managed-by kyyard, the instance and the
// service's name. A fresh map each call.
func Labels(instance, service string) map[string]string {
	return map[string]string{LabelManagedBy: ManagedBy, LabelInstance: instance, LabelName: service}
}

// SelectorLabels returns the labels a service's Deployment and Service
// select its pods by: the instance and the service's name (not
// managed-by, so that a selector never changes if that label does).
func SelectorLabels(instance, service string) map[string]string {
	return map[string]string{LabelInstance: instance, LabelName: service}
}

// configVolume is the pod volume that holds the config file; Validate
// refuses a claim volume of this name when a service has a config file.
const configVolume = "config"

// secretKey is the key of a secret value in the service's Secret: the
// variable's name (Validate makes it a valid Secret key).
func secretKey(name string) string { return name }
