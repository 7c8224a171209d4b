package apply

import (
	"errors"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Conflict is one field another manager owns that the apply sets to
// another value.
type Conflict struct {
	// Field is the field's path as the API server names it
	// (".spec.replicas", `.metadata.labels.app`).
	Field string
	// Manager is the field manager that owns it ("kubectl-client-side-apply",
	// "kube-controller-manager", "helm").
	Manager string
	// Detail is the server's whole sentence for it (`conflict with
	// "kubectl" using apps/v1`).
	Detail string
}

// ConflictsOf returns the field conflicts of a server-side apply's 409
// (metav1.CauseTypeFieldManagerConflict causes, as apimachinery's
// managedfields NewConflictError writes them: `conflict with "<manager>"
// [with subresource "<s>"] [using <apiVersion> [at <time>]]`), nil for any
// other error.
func ConflictsOf(err error) []Conflict {
	var status apierrors.APIStatus
	if err == nil || !errors.As(err, &status) || !apierrors.IsConflict(err) {
		return nil
	}
	details := status.Status().Details
	if details == nil {
		return nil
	}
	var out []Conflict
	for _, c := range details.Causes {
		if c.Type != metav1.CauseTypeFieldManagerConflict {
			continue
		}
		out = append(out, Conflict{Field: c.Field, Manager: managerOf(c.Message), Detail: c.Message})
	}
	return out
}

// managerOf returns the quoted manager name of a conflict cause's
// message, or the message after "conflict with " when it holds no quoted
// name.
func managerOf(msg string) string {
	rest := strings.TrimPrefix(msg, "conflict with ")
	if strings.HasPrefix(rest, `"`) {
		if q, err := strconv.QuotedPrefix(rest); err == nil {
			if name, err := strconv.Unquote(q); err == nil {
				return name
			}
		}
	}
	return rest
}
