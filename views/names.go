package views

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kyyard/kyyard/kube"
)

// maxDNS1123Label is the longest DNS-1123 label, in bytes (RFC 1123, and
// k8s.io/apimachinery/pkg/util/validation.DNS1123LabelMaxLength).
const maxDNS1123Label = 63

// ValidateNamespaceName checks that name may be a Namespace's name, by the
// rule the API server applies (k8s.io/apimachinery/pkg/api/validation
// ValidateNamespaceName, which is validation.IsDNS1123Label): 1 to 63
// characters, each a lower-case ASCII letter, a digit or '-', starting and
// ending with a letter or digit. It returns nil for a valid name, else an
// error whose text says what is wrong, for the status line.
func ValidateNamespaceName(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("%s is not a valid namespace name: %s", strconv.Quote(Echo(name, 0)), why)
	}
	switch {
	case name == "":
		return fmt.Errorf("type a namespace name")
	case len(name) > maxDNS1123Label:
		return bad(fmt.Sprintf("it is %d characters long, the limit is %d", len(name), maxDNS1123Label))
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return bad("use only lower-case letters, digits and '-'")
		}
	}
	if name[0] == '-' || name[len(name)-1] == '-' {
		return bad("it must start and end with a lower-case letter or digit")
	}
	return nil
}

// ParseNamespaces reads a namespace argument that may name several
// namespaces joined by commas (-n shop,web, `:pods shop,web`; issue 27):
// each must be a valid name (ValidateNamespaceName). It returns them as
// one SnapshotRequest.Namespace (kube.JoinNamespaces: sorted, repeats
// dropped), or the first bad name's error; an empty name between commas
// ("shop,,web", a trailing comma) is an error too.
func ParseNamespaces(arg string) (string, error) {
	names := strings.Split(arg, ",")
	for _, n := range names {
		if n == "" && len(names) > 1 {
			return "", fmt.Errorf("%s: a namespace name is missing between the commas", strconv.Quote(Echo(arg, 0)))
		}
		if err := ValidateNamespaceName(n); err != nil {
			return "", err
		}
	}
	return kube.JoinNamespaces(names), nil
}
