package cluster

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"sync"
	"testing"

	"github.com/kyyard/kyyard/hack/cluster/internal/fleet"
	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
)

// TestPrefixWriter: lines of parts started side by side come out whole,
// each after its part's prefix, even when written in pieces.
func TestPrefixWriter(t *testing.T) {
	var mu sync.Mutex
	var b bytes.Buffer
	one, two := prefixed(&mu, &b, "[1] "), prefixed(&mu, &b, "[2] ")
	fmt.Fprint(one, "up: sta")
	fmt.Fprint(two, "up: started x\nup: ready\n")
	fmt.Fprint(one, "rted y\n")
	want := "[2] up: started x\n[2] up: ready\n[1] up: started y\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// TestMemberAPIServerAsUp: the API server `fleet restart-apiserver` starts
// (the member's Cluster's) is the one `fleet up` starts (the member's first
// component): same binary, flags (PKI, etcd prefix, audit log, ports) and
// readiness probe.
func TestMemberAPIServerAsUp(t *testing.T) {
	l, err := layout.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &Fleet{L: l, Out: io.Discard}
	for i := 1; i <= fleet.MaxClusters; i++ {
		m := fleet.NewMember(l, i)
		got, want := f.Member(m, io.Discard).apiServer(), m.Components()[0]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: restart starts %+v, up starts %+v", m.Name, got, want)
		}
		if want.Name != fleet.MemberComponents[0] {
			t.Errorf("%s: first component %s, want %s", m.Name, want.Name, fleet.MemberComponents[0])
		}
	}
}
