package deploy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/render"
)

// ParsePorts parses the form's ports field: entries separated by commas or
// spaces, each "[name:]port[/protocol]" ("8080", "http:8080", "53/udp",
// "dns:53/UDP"). The protocol is TCP or UDP in any case (the Service
// protocols a container port takes; SCTP is left out) and is returned
// upper-cased, "" when not given (render defaults it to TCP). The port is a
// decimal number 1..65535 (Kubernetes' containerPort range). Names are
// checked by render.Validate (IANA_SVC_NAME). Errors name the entry.
func ParsePorts(s string) ([]render.Port, error) {
	var out []render.Port
	for _, e := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		p, err := parsePort(e)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func parsePort(e string) (render.Port, error) {
	var p render.Port
	rest := e
	if name, num, ok := strings.Cut(rest, ":"); ok {
		if name == "" {
			return p, fmt.Errorf("%q: the name before ':' is empty (want 8080, http:8080 or 53/udp)", e)
		}
		p.Name, rest = name, num
	}
	if num, proto, ok := strings.Cut(rest, "/"); ok {
		switch strings.ToUpper(proto) {
		case "TCP", "UDP":
			p.Protocol = strings.ToUpper(proto)
		default:
			return p, fmt.Errorf("%q: protocol %q is not tcp or udp", e, proto)
		}
		rest = num
	}
	if rest == "" || strings.TrimLeft(rest, "0123456789") != "" {
		return p, fmt.Errorf("%q is not a port (want 8080, http:8080 or 53/udp)", e)
	}
	n, err := strconv.ParseInt(rest, 10, 32)
	if err != nil || n < 1 || n > 65535 {
		return p, fmt.Errorf("%q: the port must be 1..65535", e)
	}
	p.Port = int32(n)
	return p, nil
}

// FormatPorts is the ports field showing ps: "http:8080, 53/udp" (the
// inverse of ParsePorts; TCP, the default, is not written).
func FormatPorts(ps []render.Port) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		s := strconv.Itoa(int(p.Port))
		if p.Name != "" {
			s = p.Name + ":" + s
		}
		if p.Protocol != "" && !strings.EqualFold(p.Protocol, "TCP") {
			s += "/" + strings.ToLower(p.Protocol)
		}
		parts[i] = s
	}
	return strings.Join(parts, ", ")
}

// ParseEnv parses NAME=value lines (the env field): the name is what
// precedes the first '=' (spaces around it trimmed), the value everything
// after it, kept as typed (a trailing \r dropped). Empty lines and lines
// starting with '#' are skipped. Names are checked by render.Validate.
// Errors name the line (1-based).
func ParseEnv(text string) ([]render.EnvVar, error) {
	var out []render.EnvVar
	for i, l := range strings.Split(text, "\n") {
		l = strings.TrimSuffix(l, "\r")
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		name, value, ok := strings.Cut(l, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("line %d: want NAME=value", i+1)
		}
		out = append(out, render.EnvVar{Name: name, Value: value})
	}
	return out, nil
}

// FormatEnv is the env field showing vs, one NAME=value line each (the
// inverse of ParseEnv for values without a line break).
func FormatEnv(vs []render.EnvVar) string {
	lines := make([]string, len(vs))
	for i, v := range vs {
		lines[i] = v.Name + "=" + v.Value
	}
	return strings.Join(lines, "\n")
}

// ParseReplicas parses the replicas field: blank is 1 (a new
// Deployment's default), else kube.ParseReplicas, the one replicas parser
// of every screen (spaces trimmed, a whole number 0..kube.MaxReplicas,
// render's bound too), its errors in its words.
func ParseReplicas(s string) (int32, error) {
	if strings.TrimSpace(s) == "" {
		return 1, nil
	}
	return kube.ParseReplicas(s)
}
