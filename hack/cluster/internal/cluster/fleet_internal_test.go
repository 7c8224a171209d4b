package cluster

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
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
