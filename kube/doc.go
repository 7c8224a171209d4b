// Package kube is kyyard's cluster adapter: client-go goes in, kyyard's own
// types come out. No client-go, apimachinery or k8s.io/api type is returned by
// an exported function or method of this package, nor is one a field of an
// exported type; constructors may take a *rest.Config, a clientset or a
// kubeconfig loader (see the design, "The adapter").
//
// Reads are snapshots: Client.Snapshot lists every kind a screen asks for at
// once, turns objects into rows through the kind plugins of a Registry
// (package kube/kinds holds the built-in ones), and names the kinds it could
// not read in Snapshot.Truncated instead of failing the whole read.
package kube
