package kube

// The forms' input checks live in kube/internal/validate; kube re-exports
// each one (the screens validate through kube).

import "github.com/kyyard/kyyard/kube/internal/validate"

type (
	// FieldError is validate.FieldError.
	FieldError = validate.FieldError
)

// ParseReplicas is validate.ParseReplicas.
func ParseReplicas(s string) (int32, error) { return validate.ParseReplicas(s) }

// ValidateDivisor is validate.ValidateDivisor.
func ValidateDivisor(resourceName string, divisor string) error {
	return validate.ValidateDivisor(resourceName, divisor)
}

// ValidateEnvContainer is validate.ValidateEnvContainer.
func ValidateEnvContainer(w Workload, name string) error {
	return validate.ValidateEnvContainer(w, name)
}

// ValidateEnvName is validate.ValidateEnvName.
func ValidateEnvName(s string) error { return validate.ValidateEnvName(s) }

// ValidateFieldAPIVersion is validate.ValidateFieldAPIVersion.
func ValidateFieldAPIVersion(s string) error { return validate.ValidateFieldAPIVersion(s) }

// ValidateFieldPath is validate.ValidateFieldPath.
func ValidateFieldPath(s string) error { return validate.ValidateFieldPath(s) }

// ValidateImage is validate.ValidateImage.
func ValidateImage(s string) error { return validate.ValidateImage(s) }

// ValidateNewDuplicates is validate.ValidateNewDuplicates.
func ValidateNewDuplicates(before Workload, after Workload) []FieldError {
	return validate.ValidateNewDuplicates(before, after)
}

// ValidateQuantity is validate.ValidateQuantity.
func ValidateQuantity(s string) error { return validate.ValidateQuantity(s) }

// ValidateRefKey is validate.ValidateRefKey.
func ValidateRefKey(s string) error { return validate.ValidateRefKey(s) }

// ValidateRefName is validate.ValidateRefName.
func ValidateRefName(s string) error { return validate.ValidateRefName(s) }

// ValidateResourceName is validate.ValidateResourceName.
func ValidateResourceName(s string) error { return validate.ValidateResourceName(s) }

// ValidateResources is validate.ValidateResources.
func ValidateResources(r Resources) []FieldError { return validate.ValidateResources(r) }

// ValidateWorkload is validate.ValidateWorkload.
func ValidateWorkload(w Workload) []FieldError { return validate.ValidateWorkload(w) }
