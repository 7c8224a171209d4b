package views_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kyyard/kyyard/views"
)

func TestValidateNamespaceName(t *testing.T) {
	tests := []struct {
		name string
		want string // "" for valid, else a part of the error
	}{
		{"demo", ""},
		{"a", ""},
		{"kube-system", ""},
		{"0abc9", ""},
		{strings.Repeat("a", 63), ""},
		{"", "type a namespace name"},
		{strings.Repeat("a", 64), "64 characters long, the limit is 63"},
		{"Demo", "only lower-case letters"},
		{"-demo", "start and end"},
		{"demo-", "start and end"},
		{"my_ns", "only lower-case letters, digits and '-'"},
		{"my.ns", "only lower-case letters, digits and '-'"},
		{"dé", "only lower-case letters"},
		{"-", "start and end"},
		{"a b", "only lower-case"},
	}
	for _, tt := range tests {
		err := views.ValidateNamespaceName(tt.name)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q: %v, want valid", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: %v, want an error mentioning %q", tt.name, err, tt.want)
		}
	}
}

// FuzzValidateNamespaceName: kyyard's check agrees with the API server's
// own rule, apimachinery's IsDNS1123Label, on every input.
func FuzzValidateNamespaceName(f *testing.F) {
	for _, s := range []string{"demo", "", "-a", "a-", "A", "a.b", strings.Repeat("x", 64), "é", "a\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		ours := views.ValidateNamespaceName(name) == nil
		theirs := len(validation.IsDNS1123Label(name)) == 0
		if ours != theirs {
			t.Fatalf("%q: kyyard says valid=%v, Kubernetes says valid=%v", name, ours, theirs)
		}
	})
}

func TestParseNamespaces(t *testing.T) {
	for _, tc := range []struct{ in, want, problem string }{
		{"demo", "demo", ""},
		{"web,shop", "shop,web", ""},
		{"web,shop,web", "shop,web", ""},
		{"web,,shop", "", "missing between the commas"},
		{"web,", "", "missing between the commas"},
		{"web,Shop", "", "not a valid namespace name"},
		{"", "", "type a namespace name"},
	} {
		got, err := views.ParseNamespaces(tc.in)
		switch {
		case tc.problem == "" && (err != nil || got != tc.want):
			t.Errorf("ParseNamespaces(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		case tc.problem != "" && (err == nil || !strings.Contains(err.Error(), tc.problem)):
			t.Errorf("ParseNamespaces(%q) error %v, want one saying %q", tc.in, err, tc.problem)
		}
	}
}
