package render

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Limits Validate applies besides the per-field rules.
const (
	// MaxReplicas bounds Service.Replicas (0..MaxReplicas).
	MaxReplicas = 10000
	// MaxDataBytes bounds a ConfigMap's and a Secret's data (keys and
	// values together): the API server refuses more than 1 MiB
	// (core/v1 validation, MaxSecretSize and the ConfigMap's 1 MiB).
	MaxDataBytes = 1 << 20
)

// Validate checks a request by the rules the API server applies to the
// objects it renders to (k8s.io/apimachinery/pkg/util/validation, the
// Service and Pod rules of core/v1) and kyyard's own (unique names, no
// clashing objects), and returns one FieldError per field that breaks one,
// in the order of the request's fields; nil when the request is valid.
// Render and Objects succeed exactly when it returns nothing.
//
// Paths: "instance", "namespace", "services", "services[i].name",
// ".image", ".ports[j].port|name|protocol", ".env[j].name|value",
// ".secrets[j].name|value", ".configFile.path|content", ".replicas",
// ".resources.cpuRequest|cpuLimit|memoryRequest|memoryLimit",
// ".volumes[j].name|mountPath|size|storageClass".
func Validate(req Request) []FieldError {
	v := &validator{claims: map[string]string{}}
	if v.label("instance", req.Instance, "an instance name") {
		v.serviceNames(req)
	}
	v.label("namespace", req.Namespace, "a namespace")
	if len(req.Services) == 0 {
		v.add("services", "at least one service is required")
	}
	names := map[string]int{}
	for i, s := range req.Services {
		p := fmt.Sprintf("services[%d]", i)
		if v.label(p+".name", s.Name, "a service name") {
			if _, dup := names[s.Name]; dup {
				v.add(p+".name", fmt.Sprintf("the service name %s is already used", s.Name))
			} else {
				names[s.Name] = i
				v.workloadName(p+".name", req.Instance, s)
			}
		}
		v.service(p, req.Instance, s)
	}
	return v.errs
}

// validator collects FieldErrors; claims maps each claim name to the path
// of the volume that makes it, across the request.
type validator struct {
	errs   []FieldError
	claims map[string]string
}

func (v *validator) add(p, reason string) {
	v.errs = append(v.errs, FieldError{Path: p, Reason: reason})
}

// label checks a DNS-1123 label (what needs one is named by what); false
// when it is not one.
func (v *validator) label(p, s, what string) bool {
	if s == "" {
		v.add(p, what+" is required")
		return false
	}
	if msgs := validation.IsDNS1123Label(s); len(msgs) > 0 {
		v.add(p, "must be a DNS-1123 label: "+reasons(msgs))
		return false
	}
	return true
}

// serviceNames checks, for a valid instance name, that the Service
// objects' names "<instance>-<service>" are DNS-1035 labels (they start
// with the instance): a Service's name must start with a letter (core/v1
// ValidateServiceName) on API servers before the relaxed rule of KEP-5311
// (RelaxedServiceNameValidation, GA in Kubernetes 1.37); kyyard keeps to
// the rule every version accepts. One error, at "instance", when a
// service has ports.
func (v *validator) serviceNames(req Request) {
	for _, s := range req.Services {
		if len(s.Ports) == 0 {
			continue
		}
		if n := WorkloadName(req.Instance, s.Name); len(validation.IsDNS1035Label(req.Instance)) > 0 {
			v.add("instance", fmt.Sprintf("must start with a letter: it starts the Service name %s, a DNS-1035 label (as API servers before Kubernetes 1.37 require)", n))
		}
		return
	}
}

// workloadName checks "<instance>-<service>", the Deployment's and the
// Service's name, once both parts are valid labels: a DNS-1123 label (at
// most 63 characters; kyyard keeps the workload's name usable as the
// Service's DNS name, and a Service's name is at most 63).
func (v *validator) workloadName(p, instance string, s Service) {
	if validation.IsDNS1123Label(instance) != nil {
		return
	}
	if n := WorkloadName(instance, s.Name); len(n) > validation.DNS1123LabelMaxLength {
		v.add(p, fmt.Sprintf("the object name %s is %d characters, more than 63: shorten the instance or the service name", n, len(n)))
	}
}

// service checks one service's fields but its name.
func (v *validator) service(p, instance string, s Service) {
	if reason := imageReason(s.Image); reason != "" {
		v.add(p+".image", reason)
	}
	v.ports(p, s.Ports)
	envs := v.env(p+".env", s.Env, nil, false)
	v.env(p+".secrets", s.Secrets, envs, true)
	if s.ConfigFile != nil {
		v.configFile(p+".configFile", s.ConfigFile)
	}
	if s.Replicas < 0 || s.Replicas > MaxReplicas {
		v.add(p+".replicas", fmt.Sprintf("must be 0..%d", MaxReplicas))
	}
	v.resources(p+".resources", s.Resources)
	v.volumes(p, instance, s)
}

// ports checks each port's number, protocol and name: numbers 1..65535,
// each (number, protocol) once (the Service refuses duplicates), names
// IANA_SVC_NAME (validation.IsValidPortName) and unique, also against the
// names given to unnamed ports of a multi-port Service (see servicePortNames).
func (v *validator) ports(p string, ports []Port) {
	seen := map[string]int{}
	names := map[string]int{}
	for j, pt := range ports {
		q := fmt.Sprintf("%s.ports[%d]", p, j)
		if pt.Port < 1 || pt.Port > 65535 {
			v.add(q+".port", "must be 1..65535")
		}
		proto := protocol(pt)
		if proto != "TCP" && proto != "UDP" {
			v.add(q+".protocol", `must be "TCP" or "UDP"`)
		} else if pt.Port >= 1 && pt.Port <= 65535 {
			key := strconv.Itoa(int(pt.Port)) + "/" + proto
			if _, dup := seen[key]; dup {
				v.add(q+".port", fmt.Sprintf("port %s is listed twice", key))
			} else {
				seen[key] = j
			}
		}
		if pt.Name == "" {
			continue
		}
		if msgs := validation.IsValidPortName(pt.Name); len(msgs) > 0 {
			v.add(q+".name", "must be an IANA_SVC_NAME: "+reasons(msgs))
		} else if _, dup := names[pt.Name]; dup {
			v.add(q+".name", fmt.Sprintf("the port name %s is already used", pt.Name))
		} else {
			names[pt.Name] = j
		}
	}
	if len(ports) < 2 {
		return
	}
	for j, n := range servicePortNames(ports) {
		if ports[j].Name != "" {
			continue
		}
		if k, clash := names[n]; clash {
			v.add(fmt.Sprintf("%s.ports[%d].name", p, k),
				fmt.Sprintf("%s is the name the Service gives the unnamed port %d (a Service with several ports names each): choose another", n, ports[j].Port))
		}
	}
}

// env checks a list of variables: names by the API server's rule
// (validation.IsRelaxedEnvVarName: since Kubernetes 1.34,
// RelaxedEnvironmentVariableValidation GA, any printable ASCII but '='),
// unique in the list and, for secrets, not a plain variable's too and a
// valid Secret key (validation.IsConfigMapKey: the name is the key);
// values UTF-8 text, and a Secret's data at most MaxDataBytes. It returns
// the names it saw, each with its index.
func (v *validator) env(p string, vars []EnvVar, plain map[string]int, secret bool) map[string]int {
	seen := map[string]int{}
	size := 0
	for j, e := range vars {
		q := fmt.Sprintf("%s[%d]", p, j)
		switch {
		case e.Name == "":
			v.add(q+".name", "a name is required")
		case len(validation.IsRelaxedEnvVarName(e.Name)) > 0:
			v.add(q+".name", "must be printable ASCII characters other than '=' (the API server's rule for env names)")
		case secret && len(validation.IsConfigMapKey(e.Name)) > 0:
			v.add(q+".name", "a secret value's name is its key in the Secret: "+reasons(validation.IsConfigMapKey(e.Name)))
		default:
			if _, dup := seen[e.Name]; dup {
				what := "env"
				if secret {
					what = "secret"
				}
				v.add(q+".name", fmt.Sprintf("the %s name %s is already used", what, e.Name))
			} else if _, dup := plain[e.Name]; dup {
				v.add(q+".name", fmt.Sprintf("%s is already a plain env variable: a name is set once", e.Name))
			} else {
				seen[e.Name] = j
			}
		}
		if !utf8.ValidString(e.Value) {
			v.add(q+".value", "must be UTF-8 text")
		} else if !secret && !yamlText(e.Value) {
			v.add(q+".value", "must be printable text: no control characters but tab and newline")
		}
		size += len(e.Name) + len(e.Value)
	}
	if secret && size > MaxDataBytes {
		v.add(p, fmt.Sprintf("the secret values are %d bytes; a Secret holds at most %d", size, MaxDataBytes))
	}
	return seen
}

// configFile checks the file's path (absolute, clean, not "/", its base
// name a valid ConfigMap key) and content
// (UTF-8, at most MaxDataBytes with its key).
func (v *validator) configFile(p string, f *ConfigFile) {
	if reason := filePathReason(f.Path); reason != "" {
		v.add(p+".path", reason)
	}
	if !utf8.ValidString(f.Content) {
		v.add(p+".content", "must be UTF-8 text")
	} else if !yamlText(f.Content) {
		v.add(p+".content", "must be printable text: no control characters but tab and newline")
	} else if n := len(f.Content) + len(path.Base(f.Path)); n > MaxDataBytes {
		v.add(p+".content", fmt.Sprintf("is %d bytes; a ConfigMap holds at most %d", n, MaxDataBytes))
	}
}

// filePathReason says why a config file's path is not usable, "" when it is.
func filePathReason(p string) string {
	switch {
	case p == "":
		return "a path is required"
	case !strings.HasPrefix(p, "/"):
		return "must be an absolute path (/etc/app/config.yaml)"
	case path.Clean(p) != p:
		return "must be a clean path: no '.', '..', '//' or trailing '/' (" + path.Clean(p) + ")"
	case p == "/":
		return "must name a file, not / (/etc/app/config.yaml)"
	}
	if msgs := validation.IsConfigMapKey(path.Base(p)); len(msgs) > 0 {
		return "the file name is the ConfigMap's key: " + reasons(msgs)
	}
	return ""
}

// configOverlap says why a volume mounted at mountPath would clash with
// the config file f (nil: none), "" when it does not: at the file's path,
// at a directory that holds it (the volume would hide it, or the file be
// mounted into the volume), or below the file (a file is no directory).
func configOverlap(mountPath string, f *ConfigFile) string {
	if f == nil || f.Path == "" {
		return ""
	}
	switch {
	case mountPath == f.Path:
		return mountPath + " is where the config file is mounted: choose another path"
	case strings.HasPrefix(f.Path, strings.TrimSuffix(mountPath, "/")+"/"):
		return mountPath + " holds the config file " + f.Path + ": mount the volume elsewhere or move the file"
	case strings.HasPrefix(mountPath, f.Path+"/"):
		return mountPath + " is inside the config file " + f.Path + ": choose another path"
	}
	return ""
}

// mountPathReason says why a volume's mount path is not usable.
func mountPathReason(p string) string {
	switch {
	case p == "":
		return "a mount path is required"
	case !strings.HasPrefix(p, "/"):
		return "must be an absolute path (/var/lib/data)"
	case path.Clean(p) != p:
		return "must be a clean path: no '.', '..', '//' or trailing '/' (" + path.Clean(p) + ")"
	case p == "/":
		return "must not be / (the container's whole file system)"
	}
	return ""
}

// volumes checks each volume: its name (a DNS-1123 label, unique in the
// service, not the config file's volume), its claim's name (a DNS-1123
// subdomain, unique in the request), mount path (absolute, clean, unique
// and neither the config file, a directory holding it nor a path inside
// it: configOverlap), size (a positive
// quantity) and storage class (a DNS-1123 subdomain when set).
func (v *validator) volumes(p, instance string, s Service) {
	names := map[string]int{}
	mounts := map[string]int{}
	for j, vol := range s.Volumes {
		q := fmt.Sprintf("%s.volumes[%d]", p, j)
		if v.label(q+".name", vol.Name, "a volume name") {
			switch _, dup := names[vol.Name]; {
			case dup:
				v.add(q+".name", fmt.Sprintf("the volume name %s is already used", vol.Name))
			case vol.Name == configVolume && s.ConfigFile != nil:
				v.add(q+".name", `"config" is the config file's volume: choose another name`)
			default:
				names[vol.Name] = j
				v.claim(q+".name", instance, s.Name, vol.Name)
			}
		}
		if reason := mountPathReason(vol.MountPath); reason != "" {
			v.add(q+".mountPath", reason)
		} else if _, dup := mounts[vol.MountPath]; dup {
			v.add(q+".mountPath", fmt.Sprintf("another volume is already mounted at %s", vol.MountPath))
		} else if reason := configOverlap(vol.MountPath, s.ConfigFile); reason != "" {
			v.add(q+".mountPath", reason)
		} else {
			mounts[vol.MountPath] = j
		}
		if vol.Size == "" {
			v.add(q+".size", "a size is required (1Gi)")
		} else if reason := bytesReason(vol.Size); reason != "" {
			v.add(q+".size", reason)
		} else if isZero(vol.Size) {
			v.add(q+".size", "must be more than 0")
		}
		if vol.StorageClass != "" {
			if msgs := validation.IsDNS1123Subdomain(vol.StorageClass); len(msgs) > 0 {
				v.add(q+".storageClass", "must be a DNS-1123 subdomain: "+reasons(msgs))
			}
		}
	}
}

// claim checks a claim's name once the instance, service and volume names
// are labels: a DNS-1123 subdomain, made by no other volume of the request.
func (v *validator) claim(p, instance, service, volume string) {
	if validation.IsDNS1123Label(instance) != nil || validation.IsDNS1123Label(service) != nil {
		return
	}
	n := ClaimName(instance, service, volume)
	if len(validation.IsDNS1123Subdomain(n)) > 0 {
		v.add(p, fmt.Sprintf("the claim name %s is not a DNS-1123 subdomain", n))
		return
	}
	if other, dup := v.claims[n]; dup {
		v.add(p, fmt.Sprintf("the claim name %s is also made by %s: choose another name", n, other))
		return
	}
	v.claims[n] = p
}

// reasons joins apimachinery's messages, each cut before its examples.
func reasons(msgs []string) string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		if at := strings.Index(m, " (e.g."); at > 0 {
			m = m[:at]
		}
		out[i] = m
	}
	return strings.Join(out, "; ")
}

// yamlText reports whether s holds only characters YAML can carry, which
// the preview's YAML (Render) needs: tab, line feed, carriage return and
// the printable ranges of YAML 1.2's c-printable (no other C0 control,
// no DEL, no C1 control but NEL, no BOM or non-characters U+FFFE/U+FFFF).
// Secret values are never shown (sizes only) and are not checked.
func yamlText(s string) bool {
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == 0x85:
		case r < 0x20 || (r >= 0x7f && r <= 0x9f), r == 0xfeff, r == 0xfffe, r == 0xffff:
			return false
		}
	}
	return true
}
