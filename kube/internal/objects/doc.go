// Package objects reads (and patches) the typed objects behind kyyard's
// workload kinds: a Deployment, StatefulSet, DaemonSet, ReplicaSet or Job
// fetched by kind and seen as one PodOwner (its metadata, pod template,
// selector, replicas), the strategic merge patch of an editable one
// (Patch), the HorizontalPodAutoscaler that targets one (AutoscalerOf), a
// pod's containers as kubectl picks them, the Deployment controller's
// annotations and conditions, and the retry count of a write that met a
// status-only conflict (StatusRaceRetries). It is the one copy of the "get
// this workload by kind, read its selector" switch that every concern
// under kube/internal shares. It imports the vocabulary (kube/vocab) and
// client-go, never package kube.
package objects
