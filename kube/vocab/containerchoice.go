package vocab

import (
	"errors"
	"fmt"
	"strings"
)

// ErrLogContainerRequired: the pod has several containers and none was
// named (a log read or an exec); errors.As finds a *ContainerChoiceError
// with their names.
var ErrLogContainerRequired = errors.New("the pod has several containers: choose one")

// ContainerChoiceError is returned when a container must be chosen: it
// lists the pod's containers in spec order (init containers and native
// sidecars first; for exec only the containers that run for the pod's
// life) and the default one, kubectl's (podcmd.FindOrDefaultContainerByName):
// the one the kubectl.kubernetes.io/default-container annotation names,
// else the first of spec.containers, never an init container or a native
// sidecar ("" only when it is not among Containers). errors.Is(err,
// ErrLogContainerRequired) holds.
type ContainerChoiceError struct {
	Namespace, Pod   string
	Containers       []string
	DefaultContainer string
}

// Error lists the names, as kubectl does.
func (e *ContainerChoiceError) Error() string {
	return fmt.Sprintf("pod %s/%s has several containers, choose one of: %s", e.Namespace, e.Pod, strings.Join(e.Containers, ", "))
}

// Unwrap makes errors.Is(err, ErrLogContainerRequired) hold.
func (e *ContainerChoiceError) Unwrap() error { return ErrLogContainerRequired }
