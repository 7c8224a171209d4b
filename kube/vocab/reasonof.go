package vocab

import (
	"context"
	"errors"
	"net"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ErrInvalid marks a request kyyard refuses before sending it (wrap it:
// fmt.Errorf("%w: ...", ErrInvalid)); ReasonOf classifies it as
// ReasonInvalid.
var ErrInvalid = errors.New("invalid request")

// ReasonOf classifies an error returned by client-go into a Reason. A nil
// error has no reason (""); the classification follows the HTTP status the
// API server answered (403, 401, 404, 5xx/429, 504) and, without one, the
// transport error (connection refused or reset, DNS, context deadline). A
// *Refusal answers its own Reason.
func ReasonOf(err error) Reason {
	var refusal *Refusal
	switch {
	case err == nil:
		return ""
	case errors.As(err, &refusal):
		return refusal.Reason
	case errors.Is(err, ErrInvalid):
		return ReasonInvalid
	case errors.Is(err, ErrCopyNotFound):
		return ReasonNotFound
	case apierrors.IsForbidden(err):
		return ReasonForbidden
	case apierrors.IsUnauthorized(err):
		return ReasonUnauthorized
	case apierrors.IsNotFound(err):
		return ReasonNotFound
	case IsFieldConflict(err):
		return ReasonFieldConflict
	case apierrors.IsConflict(err):
		return ReasonConflict
	case apierrors.IsBadRequest(err), apierrors.IsInvalid(err):
		return ReasonInvalid
	case errors.Is(err, context.DeadlineExceeded), apierrors.IsTimeout(err), apierrors.IsServerTimeout(err):
		return ReasonTimeout
	case apierrors.IsServiceUnavailable(err), apierrors.IsInternalError(err), apierrors.IsTooManyRequests(err),
		apierrors.IsUnexpectedServerError(err):
		return ReasonUnavailable
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return ReasonTimeout
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) {
		return ReasonUnavailable
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return ReasonUnavailable
	}
	return ReasonError
}

// IsFieldConflict reports whether err is a server-side apply's conflict
// with another field manager: a 409 whose causes are
// metav1.CauseTypeFieldManagerConflict (apimachinery's
// managedfields NewConflictError), not a resourceVersion precondition's.
func IsFieldConflict(err error) bool {
	return apierrors.IsConflict(err) && apierrors.HasStatusCause(err, metav1.CauseTypeFieldManagerConflict)
}
