package release

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestCutTo(t *testing.T) {
	for _, tc := range []struct{ name, live, shape, want string }{
		{"drops keys the plan lacks", `{"a":1,"b":2}`, `{"a":5}`, `{"a":1}`},
		{"nested", `{"spec":{"x":1,"dnsPolicy":"ClusterFirst"}}`, `{"spec":{"x":2}}`, `{"spec":{"x":1}}`},
		{"list by index, extra kept whole", `{"l":[{"a":1,"d":1},{"a":2,"d":2}]}`, `{"l":[{"a":0}]}`, `{"l":[{"a":1},{"a":2,"d":2}]}`},
		{"key only in plan stays absent", `{}`, `{"a":1}`, `{}`},
		{"type mismatch kept", `{"a":[1]}`, `{"a":{"b":1}}`, `{"a":[1]}`},
	} {
		var live, shape, want any
		for i, s := range []string{tc.live, tc.shape, tc.want} {
			if err := json.Unmarshal([]byte(s), []*any{&live, &shape, &want}[i]); err != nil {
				t.Fatal(err)
			}
		}
		if got := cutTo(live, shape); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: cutTo = %v, want %v", tc.name, got, want)
		}
	}
}

// FuzzCutTo: cutTo never panics, and cutting a value to itself keeps it.
func FuzzCutTo(f *testing.F) {
	f.Add(`{"a":{"b":[1,{"c":2}]}}`, `{"a":{"b":[0]}}`)
	f.Fuzz(func(t *testing.T, l, s string) {
		var live, shape any
		if json.Unmarshal([]byte(l), &live) != nil || json.Unmarshal([]byte(s), &shape) != nil {
			return
		}
		_ = cutTo(live, shape)
		if got := cutTo(live, live); !reflect.DeepEqual(got, live) {
			t.Errorf("cutTo(v, v) = %v, want %v", got, live)
		}
	})
}
