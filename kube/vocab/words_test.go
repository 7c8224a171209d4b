package vocab_test

import (
	"testing"

	"github.com/kyyard/kyyard/kube/vocab"
)

// TestPlural: counts in words agree with their number ("scale to 1
// replicas" was the fault).
func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int64
		noun string
		want string
	}{
		{1, "replica", "1 replica"}, {0, "replica", "0 replicas"}, {3, "pod", "3 pods"},
		{2, "entry", "2 entries"}, {2, "key", "2 keys"}, {2, "process", "2 processes"}, {1, "byte", "1 byte"},
	} {
		if got := vocab.Plural(c.n, c.noun); got != c.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
	if got := vocab.Plural(int32(1), "replica"); got != "1 replica" {
		t.Errorf("Plural(int32(1)) = %q", got)
	}
}
