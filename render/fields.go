package render

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/distribution/reference"
	"k8s.io/apimachinery/pkg/api/resource"
)

// maxQuantity bounds the quantities Validate accepts: 2^63-1, below which
// every cpu, memory and storage amount lies. resource.ParseQuantity
// accepts far larger ones ("1e400") and silently caps some to this value.
var maxQuantity = resource.MustParse("9223372036854775807")

// quantityReason says why s is not a usable quantity, "" when it is one
// (resource.ParseQuantity: "500m", "0.5", "256Mi", "1Gi", "524288e3";
// casebook C27: "1GB", "0.5.1", "-1", "1e400", "12 Mi" are refused).
func quantityReason(s string) string {
	if strings.ContainsAny(s, " \t\r\n") {
		return "no spaces in a quantity (256Mi, not 256 Mi)"
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return "not a quantity (e.g. 500m, 0.5, 256Mi, 1Gi): a number and one of m, k, M, G, T, Ki, Mi, Gi, Ti or e<n>"
	}
	if q.Sign() < 0 {
		return "must not be negative"
	}
	if q.Cmp(maxQuantity) >= 0 {
		return "too large"
	}
	return ""
}

// bytesReason says why s is not a usable amount of bytes (memory, a
// claim's size), "" when it is one: a valid quantity (quantityReason)
// that is a whole number of bytes. "64m" is 64 millibytes (m is milli,
// not mega: resource.Quantity), which the API server takes and rounds up
// to 1 byte: refused, with the likely meaning as a hint.
func bytesReason(s string) string {
	if reason := quantityReason(s); reason != "" {
		return reason
	}
	q := resource.MustParse(s)
	if q.MilliValue()%1000 == 0 && !strings.HasSuffix(s, "m") {
		return ""
	}
	if strings.HasSuffix(s, "m") {
		return "m is milli (a thousandth of a byte): did you mean " + strings.TrimSuffix(s, "m") + "Mi?"
	}
	return "must be a whole number of bytes (256Mi, 1Gi, 500M)"
}

// isZero reports whether a valid quantity is 0.
func isZero(s string) bool {
	q, err := resource.ParseQuantity(s)
	return err == nil && q.Sign() == 0
}

// effectiveResources returns r with each empty field set to its default.
func effectiveResources(r Resources) Resources {
	def := func(s, d string) string {
		if s == "" {
			return d
		}
		return s
	}
	return Resources{
		CPURequest:    def(r.CPURequest, DefaultCPURequest),
		CPULimit:      def(r.CPULimit, DefaultCPULimit),
		MemoryRequest: def(r.MemoryRequest, DefaultMemoryRequest),
		MemoryLimit:   def(r.MemoryLimit, DefaultMemoryLimit),
	}
}

// resources checks each quantity (memory a whole number of bytes:
// bytesReason) and that a request is at most its limit
// (the API server's rule: "must be less than or equal to cpu limit"),
// with the defaults standing in for empty fields; a limit must be more
// than 0.
func (v *validator) resources(p string, r Resources) {
	eff := effectiveResources(r)
	pairs := []struct {
		what                 string
		req, lim, effR, effL string
		reqField, limField   string
	}{
		{"cpu", r.CPURequest, r.CPULimit, eff.CPURequest, eff.CPULimit, "cpuRequest", "cpuLimit"},
		{"memory", r.MemoryRequest, r.MemoryLimit, eff.MemoryRequest, eff.MemoryLimit, "memoryRequest", "memoryLimit"},
	}
	for _, pr := range pairs {
		okR, okL := true, true
		check := quantityReason
		if pr.what == "memory" {
			check = bytesReason
		}
		if pr.req != "" {
			if reason := check(pr.req); reason != "" {
				v.add(p+"."+pr.reqField, reason)
				okR = false
			}
		}
		if pr.lim != "" {
			if reason := check(pr.lim); reason != "" {
				v.add(p+"."+pr.limField, reason)
				okL = false
			} else if isZero(pr.lim) {
				v.add(p+"."+pr.limField, "must be more than 0 (leave it empty for the default "+map[string]string{"cpu": DefaultCPULimit, "memory": DefaultMemoryLimit}[pr.what]+")")
				okL = false
			}
		}
		if !okR || !okL {
			continue
		}
		rq, lq := resource.MustParse(pr.effR), resource.MustParse(pr.effL)
		if rq.Cmp(lq) > 0 {
			lim := pr.effL
			if pr.lim == "" {
				lim += " (the default)"
			}
			v.add(p+"."+pr.reqField, fmt.Sprintf("must be at most the %s limit %s", pr.what, lim))
		}
	}
}

// imageReason says why s is not an image reference the container runtime
// accepts (github.com/distribution/reference, normalized: "nginx" is
// docker.io/library/nginx; a registry port is not a tag; a digest names
// its algorithm; casebook C28), "" when it is one.
func imageReason(s string) string {
	if s == "" {
		return "an image is required"
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return "no spaces in an image reference"
	}
	_, err := reference.ParseNormalizedNamed(s)
	if err == nil {
		return ""
	}
	name, digest, hasDigest := strings.Cut(s, "@")
	switch {
	case hasDigest && !strings.Contains(digest, ":"):
		return "a digest names its algorithm: @sha256:<64 hex digits>"
	case hasDigest && strings.HasPrefix(digest, "sha256:") && len(digest) != len("sha256:")+64:
		return "a sha256 digest has 64 hex digits"
	case errors.Is(err, reference.ErrNameContainsUppercase), strings.Contains(err.Error(), "must be lowercase"):
		return "the repository name must be lower case"
	case errors.Is(err, reference.ErrNameTooLong):
		return fmt.Sprintf("the name is longer than %d characters", reference.NameTotalLengthMax)
	case errors.Is(err, reference.ErrDigestInvalidFormat):
		return "the digest is malformed"
	case strings.HasSuffix(name, ":"):
		return "an empty tag after ':'"
	case errors.Is(err, reference.ErrTagInvalidFormat):
		return "a tag is letters, digits, '_', '.' and '-', at most 128, not starting with '.' or '-'"
	case strings.Contains(err.Error(), "64-byte hexadecimal"):
		return "a 64-hex-digit name looks like an image ID; name the repository"
	}
	return "not an image reference (e.g. registry:5000/team/app:v2)"
}

// protocol is a port's protocol, "TCP" when empty.
func protocol(p Port) string {
	if p.Protocol == "" {
		return "TCP"
	}
	return p.Protocol
}

// servicePortNames are the names of the Service's ports, one per port: a
// port's own name, or, for an unnamed port of a Service with several
// ports (which must name each: core/v1 Service validation), "port-<n>"
// with n its 1-based position, as `kubectl expose` names them.
func servicePortNames(ports []Port) []string {
	out := make([]string, len(ports))
	for i, p := range ports {
		switch {
		case p.Name != "":
			out[i] = p.Name
		case len(ports) > 1:
			out[i] = "port-" + strconv.Itoa(i+1)
		}
	}
	return out
}
