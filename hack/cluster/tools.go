//go:build tools

// Package tools pins the control-plane commands that the cluster manager builds
// from this module: kube-apiserver, kube-controller-manager, kube-scheduler and
// kubectl from k8s.io/kubernetes, and etcd from go.etcd.io/etcd/server/v3.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
