package validate

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/distribution/reference"
	"github.com/kyyard/kyyard/kube/vocab"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Pure validation of what the workload form edits: the same rules the API
// server (and the container runtime, for images) apply, checked as the
// person types so that nothing malformed is sent (casebook C26-C28). Each
// error's message is a short reason fit to show beside the field.

// ValidateImage checks an image reference the way the container runtime
// parses it (github.com/distribution/reference, normalized: "nginx" is
// docker.io/library/nginx). A registry port is not a tag
// ("localhost:5000/team/app:v2" is valid); a digest must name its
// algorithm ("app@sha256:<64 hex>"); upper case in the repository is
// refused. Errors: empty, or the reason the reference does not parse.
func ValidateImage(s string) error {
	if s == "" {
		return errors.New("an image is required")
	}
	if strings.TrimSpace(s) != s || strings.ContainsAny(s, " \t\r\n") {
		return errors.New("no spaces in an image reference")
	}
	_, err := reference.ParseNormalizedNamed(s)
	if err == nil {
		return nil
	}
	name, digest, hasDigest := strings.Cut(s, "@")
	switch {
	case hasDigest && !strings.Contains(digest, ":"):
		return errors.New("a digest names its algorithm: @sha256:<64 hex digits>")
	case hasDigest && strings.HasPrefix(digest, "sha256:") && len(digest) != len("sha256:")+64:
		return errors.New("a sha256 digest has 64 hex digits")
	case errors.Is(err, reference.ErrNameContainsUppercase), strings.Contains(err.Error(), "must be lowercase"):
		return errors.New("the repository name must be lower case")
	case errors.Is(err, reference.ErrNameTooLong):
		return fmt.Errorf("the name is longer than %d characters", reference.NameTotalLengthMax)
	case errors.Is(err, reference.ErrDigestInvalidFormat):
		return errors.New("the digest is malformed")
	case strings.HasSuffix(s, ":") || strings.HasSuffix(name, ":"):
		return errors.New("an empty tag after ':'")
	case errors.Is(err, reference.ErrTagInvalidFormat):
		return errors.New("a tag is letters, digits, '_', '.' and '-', at most 128, not starting with '.' or '-'")
	case strings.Contains(err.Error(), "64-byte hexadecimal"):
		return errors.New("a 64-hex-digit name looks like an image ID; name the repository")
	}
	return errors.New("not an image reference (e.g. registry:5000/team/app:v2)")
}

// ValidateEnvName checks an env variable's name by the API server's rule:
// since Kubernetes 1.34 (RelaxedEnvironmentVariableValidation, GA) any
// printable ASCII character but '=' (apimachinery's
// validation.IsRelaxedEnvVarName), so "MY VAR" and "1abc" are names the
// server accepts and the form must not refuse. The error joins that rule's
// messages.
func ValidateEnvName(s string) error {
	msgs := validation.IsRelaxedEnvVarName(s)
	if s == "" {
		return errors.New("a name is required")
	}
	return joinMessages(msgs)
}

// joinMessages makes one error of the validation package's messages,
// each cut before its " (e.g. ..." examples; nil when there are none.
func joinMessages(msgs []string) error {
	if len(msgs) == 0 {
		return nil
	}
	for i, m := range msgs {
		if at := strings.Index(m, " (e.g."); at > 0 {
			msgs[i] = m[:at]
		}
	}
	return errors.New(strings.Join(msgs, "; "))
}

// maxQuantity bounds the quantities the form accepts: 2^63-1, below which
// every cpu and memory amount lies. ParseQuantity accepts far larger ones
// ("1e400") and silently caps some to this very value
// ("100000000000000000000000Ki"), so it is excluded too.
var maxQuantity = resource.MustParse("9223372036854775807")

// ValidateQuantity checks a cpu or memory quantity by resource.ParseQuantity
// ("500m", "0.5", "256Mi", "1Gi", "524288e3"). "" is allowed: the field is
// unset. Refused, with the reason: a malformed number or suffix ("1GB",
// "0.5.1", "12 Mi"), a negative value ("-1") and a value too large to
// hold ("1e400", casebook C27).
func ValidateQuantity(s string) error {
	if s == "" {
		return nil
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return errors.New("no spaces in a quantity (256Mi, not 256 Mi)")
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return quantityReason(s)
	}
	if q.Sign() < 0 {
		return errors.New("must not be negative")
	}
	if q.Cmp(maxQuantity) >= 0 {
		return errors.New("too large")
	}
	return nil
}

// quantityReason says why s is not a quantity: its suffix, else its number.
func quantityReason(s string) error {
	num := strings.TrimLeft(s, "+-")
	end := strings.IndexFunc(num, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	digits, suffix := num, ""
	if end >= 0 {
		digits, suffix = num[:end], num[end:]
	}
	if digits == "" || strings.Count(digits, ".") > 1 || digits == "." {
		return errors.New("not a number (e.g. 500m, 0.5, 256Mi, 1Gi)")
	}
	if suffix != "" {
		return fmt.Errorf("unknown suffix %q: use m, k, M, G, T, Ki, Mi, Gi, Ti or e<n>", suffix)
	}
	return errors.New("not a quantity (e.g. 500m, 0.5, 256Mi, 1Gi)")
}

// ValidateRefName checks the name of a Secret or ConfigMap an env entry
// refers to: a DNS-1123 subdomain, as the API server requires.
func ValidateRefName(s string) error {
	if s == "" {
		return errors.New("a name is required")
	}
	return joinMessages(validation.IsDNS1123Subdomain(s))
}

// ValidateRefKey checks the key of a Secret or ConfigMap reference
// (validation.IsConfigMapKey: letters, digits, '-', '_', '.').
func ValidateRefKey(s string) error {
	if s == "" {
		return errors.New("a key is required")
	}
	return joinMessages(validation.IsConfigMapKey(s))
}

// envFieldPaths are the fieldRef paths the API server accepts for an env
// variable besides the subscripted labels and annotations
// (validEnvDownwardAPIFieldPathExpressions, k8s.io/kubernetes
// pkg/apis/core/validation): a subset of what a downwardAPI volume takes
// (status.phase, bare metadata.labels are volume-only).
var envFieldPaths = []string{
	"metadata.name", "metadata.namespace", "metadata.uid",
	"spec.nodeName", "spec.serviceAccountName",
	"status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs",
}

// ValidateFieldPath checks a fieldRef's fieldPath as the API server checks
// an env variable's: one of envFieldPaths, or metadata.labels['<key>'] /
// metadata.annotations['<key>'] whose key is a qualified name (an
// annotation's compared in lower case), as
// k8s.io/kubernetes/pkg/fieldpath.SplitMaybeSubscriptedPath splits it.
// Errors: empty, a subscript on another path, a malformed key, or a path
// the API server does not offer to env.
func ValidateFieldPath(s string) error {
	if s == "" {
		return errors.New("a field path is required (e.g. metadata.name)")
	}
	if base, key, ok := splitSubscript(s); ok {
		switch base {
		case "metadata.labels":
			return joinMessages(validation.IsQualifiedName(key))
		case "metadata.annotations":
			return joinMessages(validation.IsQualifiedName(strings.ToLower(key)))
		}
		return fmt.Errorf("%s takes no ['key']: only metadata.labels and metadata.annotations do", base)
	}
	if slices.Contains(envFieldPaths, s) {
		return nil
	}
	return fmt.Errorf("not a field env can read: %s, metadata.labels['k'] or metadata.annotations['k']", strings.Join(envFieldPaths, ", "))
}

// splitSubscript splits "base['key']" into base and key (ok false for a
// path without a subscript), as fieldpath.SplitMaybeSubscriptedPath does.
func splitSubscript(s string) (base, key string, ok bool) {
	rest, found := strings.CutSuffix(s, "']")
	if !found {
		return s, "", false
	}
	base, key, found = strings.Cut(rest, "['")
	if !found || base == "" {
		return s, "", false
	}
	return base, key, true
}

// ValidateFieldAPIVersion checks a fieldRef's apiVersion: "" (the API
// server defaults it to v1) or v1, the only version whose pod fields it
// converts (ConvertDownwardAPIFieldLabel).
func ValidateFieldAPIVersion(s string) error {
	if s == "" || s == vocab.FieldRefAPIVersion {
		return nil
	}
	return fmt.Errorf("apiVersion %s: only v1 names pod fields", s)
}

// envResources are the resourceFieldRef resources the API server accepts
// for env (validContainerResourceFieldPathExpressions), besides
// requests.hugepages-<size> and limits.hugepages-<size>.
var envResources = []string{
	"limits.cpu", "limits.memory", "limits.ephemeral-storage",
	"requests.cpu", "requests.memory", "requests.ephemeral-storage",
}

// ValidateResourceName checks a resourceFieldRef's resource by the API
// server's rule: one of envResources or a hugepages-<size> request or
// limit ("limits.hugepages-2Mi"). Errors: empty, or any other name.
func ValidateResourceName(s string) error {
	if s == "" {
		return errors.New("a resource is required (e.g. limits.memory)")
	}
	if slices.Contains(envResources, s) || strings.HasPrefix(s, "requests.hugepages-") || strings.HasPrefix(s, "limits.hugepages-") {
		return nil
	}
	return fmt.Errorf("not a resource env can read: %s, or limits.hugepages-<size>", strings.Join(envResources, ", "))
}

// ValidateDivisor checks a resourceFieldRef's divisor for its resource:
// "" or 0 is unset (the kubelet divides by 1); else a quantity
// (ValidateQuantity) that the API server accepts for that resource
// (validateContainerResourceDivisor, compared in its canonical form, so
// "1000m" is 1): 1m or 1 for cpu, and 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi,
// 1Gi, 1Ti, 1Pi or 1Ei for memory, ephemeral-storage and hugepages.
func ValidateDivisor(resourceName, divisor string) error {
	if divisor == "" {
		return nil
	}
	if err := ValidateQuantity(divisor); err != nil {
		return err
	}
	q := resource.MustParse(divisor)
	if q.IsZero() {
		return nil
	}
	bytes := []string{"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"}
	switch {
	case strings.HasSuffix(resourceName, ".cpu"):
		if c := q.String(); c != "1m" && c != "1" {
			return errors.New("a cpu divisor is 1m or 1")
		}
	case strings.HasSuffix(resourceName, ".memory"), strings.HasSuffix(resourceName, ".ephemeral-storage"),
		strings.Contains(resourceName, ".hugepages-"):
		if !slices.Contains(bytes, q.String()) {
			return errors.New("a divisor of bytes is 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi or 1Ei")
		}
	}
	return nil
}

// ParseReplicas reads a replicas field as every screen that takes one
// does (the workload form, the scale dialog, the deploy form): spaces
// around it trimmed (strings.TrimSpace), then a whole number in
// 0..MaxReplicas. Errors, the same words everywhere: "required" (empty),
// "a whole number" (anything else but digits), "between 0 and 10000".
func ParseReplicas(s string) (int32, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("required")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	var numErr *strconv.NumError
	if err != nil && !(errors.As(err, &numErr) && errors.Is(numErr.Err, strconv.ErrRange)) {
		return 0, errors.New("a whole number")
	}
	if err != nil || n < 0 || n > vocab.MaxReplicas {
		return 0, fmt.Errorf("between 0 and %d", vocab.MaxReplicas)
	}
	return int32(n), nil
}

// FieldError is one field the form must not send as it is.
type FieldError struct {
	// Container is the container's name ("" for replicas and paused).
	Container string
	// Field names the field in Change.Field's vocabulary ("image",
	// "command", "args", "env NAME", "cpu request", "replicas", ...).
	Field string
	// Message is the short reason shown beside the field.
	Message string
}

// Error returns "<container> <field>: <message>".
func (e FieldError) Error() string {
	where := e.Field
	if e.Container != "" {
		where = "container " + e.Container + " " + where
	}
	return where + ": " + e.Message
}

// ValidateResources checks a container's requests and limits: each a
// quantity (ValidateQuantity) and no limit below its request (the API
// server refuses that, casebook C26). Field is "cpu request", "cpu limit",
// "memory request" or "memory limit"; Container is left empty.
func ValidateResources(r vocab.Resources) []FieldError {
	var out []FieldError
	pair := func(name, request, limit string) {
		rerr, lerr := ValidateQuantity(request), ValidateQuantity(limit)
		if rerr != nil {
			out = append(out, FieldError{Field: name + " request", Message: rerr.Error()})
		}
		if lerr != nil {
			out = append(out, FieldError{Field: name + " limit", Message: lerr.Error()})
		}
		if rerr == nil && lerr == nil && request != "" && limit != "" {
			l, r := resource.MustParse(limit), resource.MustParse(request)
			if l.Cmp(r) < 0 {
				out = append(out, FieldError{Field: name + " limit", Message: "limit below request"})
			}
		}
	}
	pair("cpu", r.CPURequest, r.CPULimit)
	pair("memory", r.MemoryRequest, r.MemoryLimit)
	return out
}

// ValidateWorkload checks every editable container of w (read-only ones
// are never written): the image, the argv bounds (MaxFormArgv), the env
// bounds (MaxFormEnv), each editable env entry's name and source (a
// Secret or ConfigMap name and key, a fieldRef's path and apiVersion, a
// resourceFieldRef's resource, container and divisor), and the
// quantities; and replicas within 0..MaxReplicas (ParseReplicas).
//
// Duplicate env names: an object may already carry one name twice (the API
// server accepts it; the last entry wins in the container), so a
// duplicate is not an error by itself (casebook C20). ValidateWorkload has
// no "before" to compare with and reports none; ValidateNewDuplicates does.
func ValidateWorkload(w vocab.Workload) []FieldError {
	var out []FieldError
	if w.HasReplicas {
		if _, err := ParseReplicas(strconv.Itoa(int(w.Replicas))); err != nil {
			out = append(out, FieldError{Field: "replicas", Message: err.Error()})
		}
	}
	for _, c := range w.Containers {
		if c.ReadOnly {
			continue
		}
		add := func(field string, err error) {
			if err != nil {
				out = append(out, FieldError{Container: c.Name, Field: field, Message: err.Error()})
			}
		}
		add("image", ValidateImage(c.Image))
		if len(c.Command) > vocab.MaxFormArgv {
			add("command", fmt.Errorf("at most %d entries", vocab.MaxFormArgv))
		}
		if len(c.Args) > vocab.MaxFormArgv {
			add("args", fmt.Errorf("at most %d entries", vocab.MaxFormArgv))
		}
		if len(c.Env) > vocab.MaxFormEnv {
			add("env", fmt.Errorf("at most %d entries", vocab.MaxFormEnv))
		}
		for _, e := range c.Env {
			if e.ReadOnly() {
				continue
			}
			field := "env " + e.Name
			add(field, ValidateEnvName(e.Name))
			switch e.Source {
			case vocab.EnvSecret, vocab.EnvConfigMap:
				add(field, ValidateRefName(e.Ref))
				add(field, ValidateRefKey(e.Key))
			case vocab.EnvField:
				add(field, ValidateFieldPath(e.FieldPath))
				add(field, ValidateFieldAPIVersion(e.APIVersion))
			case vocab.EnvResource:
				add(field, ValidateResourceName(e.Resource))
				add(field, ValidateEnvContainer(w, e.ContainerName))
				add(field, ValidateDivisor(e.Resource, e.Divisor))
			}
		}
		for _, fe := range ValidateResources(c.Resources) {
			fe.Container = c.Name
			out = append(out, fe)
		}
	}
	return out
}

// ValidateEnvContainer checks a resourceFieldRef's containerName against
// the workload's pod template: "" is the entry's own container; any other
// must name one of its containers or init containers, where the kubelet
// looks for it (a name it cannot find fails the pod's start with
// CreateContainerConfigError).
func ValidateEnvContainer(w vocab.Workload, name string) error {
	if name == "" {
		return nil
	}
	if _, ok := w.Container(name); ok {
		return nil
	}
	return fmt.Errorf("no container %s in the pod template", name)
}

// ValidateNewDuplicates reports the env names that after's containers
// carry more often than before's same-named containers did: a duplicate the
// form introduced ("duplicate name N"), as opposed to one the object
// already had (casebook C20).
func ValidateNewDuplicates(before, after vocab.Workload) []FieldError {
	var out []FieldError
	for _, c := range after.Containers {
		if c.ReadOnly {
			continue
		}
		had := map[string]int{}
		if b, ok := before.Container(c.Name); ok {
			for _, e := range b.Env {
				had[e.Name]++
			}
		}
		has := map[string]int{}
		for _, e := range c.Env {
			has[e.Name]++
		}
		seen := map[string]bool{}
		for _, e := range c.Env {
			if has[e.Name] > 1 && has[e.Name] > had[e.Name] && !seen[e.Name] {
				seen[e.Name] = true
				out = append(out, FieldError{Container: c.Name, Field: "env " + e.Name, Message: "duplicate name " + e.Name})
			}
		}
	}
	return out
}
