// Package vocab is the shared vocabulary of kyyard's cluster adapter: the
// kinds (Kind, KindInfo, the Plugin contract and its Registry), the rows and
// tables a Snapshot is made of, what each kind supports (Capability,
// Action), the references to objects (ObjectRef, WorkloadRef) and the closed
// codes of guards and reasons (Guard, Outcome, Reason). It is a leaf: it
// imports no kyyard package, so the kind plugins (kube/kinds) and the
// adapter's parts depend on it and not on the facade, package kube, which
// re-exports every name here (type aliases) for the screens.
package vocab
