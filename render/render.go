package render

import "errors"

// ErrInvalid is returned (wrapped, with every FieldError) by Render and
// Objects for a request that Validate rejects.
var ErrInvalid = errors.New("the deployment request is not valid")
