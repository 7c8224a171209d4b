package vocab

// NotSet marks a request, a limit or an allocatable amount that the object
// does not set (Usage fields are otherwise never negative).
const NotSet int64 = -1

// Usage is an amount of CPU and memory: a usage sample, or a container's
// requests or limits, or a node's allocatable resources.
type Usage struct {
	// CPU is in millicores (1000 = one core), rounded up as
	// resource.Quantity.MilliValue does; NotSet when not set.
	CPU int64
	// Memory is in bytes, rounded up as resource.Quantity.Value does;
	// NotSet when not set.
	Memory int64
}

// ContainerResources are one container's resources as its spec sets them.
type ContainerResources struct {
	// Name is the container's name.
	Name string
	// Requests and Limits are spec.resources.requests and .limits of cpu
	// and memory; a field is NotSet when the spec leaves it out. A limit
	// without a request is reported as the spec says (not the API server's
	// defaulting of the request to the limit, which the object already
	// carries when it was defaulted).
	Requests, Limits Usage
	// NativeSidecar is set on a container row's resources when the
	// container is a native sidecar (an init container with restartPolicy
	// Always, KEP-753): metrics-server reports no usage of it (`kubectl top
	// pod --containers` leaves it out too), so its metrics cells say "n/a",
	// never "-" (no sample yet). Unset in a Pod's resources.
	NativeSidecar bool
}

// RowResources are what a Row carries for the metrics columns: the containers'
// requests and limits of a Pod (and of a container row), or a Node's
// allocatable resources. Rows of other kinds have none (Row.Resources nil).
type RowResources struct {
	// Containers are a Pod's containers that metrics-server reports: the
	// spec.containers, then the restartable init containers (native
	// sidecars), in spec order. Empty for a Node.
	Containers []ContainerResources
	// Allocatable is a Node's status.allocatable cpu and memory (NotSet
	// when missing); zero for a Pod.
	Allocatable Usage
}
