// Package guards is kyyard's one guard pipeline: the checks every write,
// exec and debug container passes before a request is sent (design:
// "Guards, and two policies"). Run takes what a write asks (its own rule,
// its access reviews, its fresh read, its risks) and runs the stages in
// one order with one stop rule; Checker holds the guards on plain inputs
// (a clientset, a policy, read-only), so a concern package asks them
// without the Client. It imports the vocabulary (kube/vocab) and
// kube/internal/objects, never package kube.
package guards
