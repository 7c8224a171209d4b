// Package forwarding runs port-forwards as kubectl port-forward does: a
// local port on 127.0.0.1 carried to a container port through the API
// server's pods/portforward (SPDY over a WebSocket, plain SPDY as the
// fallback), each local connection on its own error and data streams.
// A forward goes to a pod, or to a ready pod of a Service (its port
// translated to the pod's targetPort) or a workload, and moves to
// another ready pod when that pod is deleted, replaced or not ready; a
// forward to a pod fails then. Forwards live in a Registry until stopped.
//
// A Forwarder starts them from plain inputs: a kubernetes.Interface, a
// *rest.Config, the kinds' plugins (a func returning a vocab.KindInfo)
// and the guard pipeline (a *guards.Checker, for the access review of
// create pods/portforward). The package imports the vocabulary
// (kube/vocab), the guards (kube/internal/guards), the workload reads
// (kube/internal/objects) and client-go, never package kube: the facade,
// kube.Client's PortForwardPorts, StartPortForward, PortForwards,
// StopPortForward and StopAllPortForwards, delegates to it and
// re-exports ForwardPort and the errors under the same names.
package forwarding
