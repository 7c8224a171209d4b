package kube_test

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube"
)

func TestSelectContexts(t *testing.T) {
	known := []string{"staging", "prod-us", "prod-eu", "dev", "prod-ap-1"}
	for _, tc := range []struct {
		spec, want, err string
	}{
		{spec: "prod-*,staging", want: "prod-ap-1,prod-eu,prod-us,staging"},
		{spec: "staging, prod-eu ,staging,prod-*", want: "staging,prod-eu,prod-ap-1,prod-us"},
		{spec: "prod-??", want: "prod-eu,prod-us"},
		{spec: "[ds]*", want: "dev,staging"},
		{spec: "dev", want: "dev"},
		{spec: "qa", err: `unknown context "qa" (the kubeconfig has dev, prod-ap-1, prod-eu, prod-us, staging)`},
		{spec: "dev,qa-*", err: `context pattern "qa-*" matches no context (the kubeconfig has dev, prod-ap-1`},
		{spec: "[a", err: `context pattern "[a" is not valid`},
		{spec: " , ", err: "no context chosen"},
	} {
		got, err := kube.SelectContexts(known, kube.SplitContextList(tc.spec))
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: %v, want %q", tc.spec, err, tc.err)
		case tc.err == "" && (err != nil || strings.Join(got, ",") != tc.want):
			t.Errorf("%q: %v %v, want %s", tc.spec, got, err, tc.want)
		}
	}
}
