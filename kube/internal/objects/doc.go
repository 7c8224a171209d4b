// Package objects reads the typed objects behind kyyard's workload kinds:
// a Deployment, StatefulSet, DaemonSet, ReplicaSet or Job fetched by kind
// and seen as one PodOwner (its metadata, pod template, selector,
// replicas), a pod's containers as kubectl picks them, and the
// Deployment controller's annotations and conditions. It is the one copy
// of the "get this workload by kind, read its selector" switch that the
// form, the guards, logs, port-forward, rollout and inspect share. It
// imports the vocabulary (kube/vocab) and client-go, never package kube.
package objects
