// Package validate checks what a person types into kyyard's forms before
// anything is sent: image references, environment variable names, resource
// quantities, field paths, replicas, and a workload form as a whole
// (ValidateWorkload). Each rule names its source in Kubernetes (the API
// server's validation, apimachinery's). It imports the vocabulary
// (kube/vocab), never package kube.
package validate
