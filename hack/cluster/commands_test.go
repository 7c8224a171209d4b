package main

import "testing"

func TestNamesKubeconfig(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"get", "pods"}, false},
		{[]string{"--kubeconfig", "/x", "get", "pods"}, true},
		{[]string{"--context", "kyyard-fleet-2", "--kubeconfig=/x", "get", "deploy"}, true},
		{[]string{"exec", "p", "--", "sh", "--kubeconfig=/x"}, false},
	} {
		if got := namesKubeconfig(tc.args); got != tc.want {
			t.Errorf("namesKubeconfig(%q) = %t", tc.args, got)
		}
	}
}
