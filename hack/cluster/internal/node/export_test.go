package node

// NoHostCleanup turns off Stop's host steps (unmounts, the bridge, cgroups)
// for the test binary, so tests never touch a real node's bridge.
func NoHostCleanup() { hostCleanup = false }
