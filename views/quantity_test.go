package views_test

import (
	"fmt"
	"math"
	"regexp"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kyyard/kyyard/views"
)

func TestParseQuantity(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		// casebook C11
		{"500m", 0.5, true},
		{"1.5Gi", 1610612736, true},
		{"1e3", 1000, true},
		{"129M", 129000000, true},
		{"8349Mi", 8349 << 20, true},
		{"22Gi", 22 << 30, true},
		{"3", 3, true},
		{"-2", -2, true},
		{"+.5", 0.5, true},
		{"5.", 5, true},
		{"100n", 100e-9, true},
		{"2E-2", 0.02, true},
		{"1Ki", 1024, true},
		{"", 0, false},
		{"-", 0, false},
		{".", 0, false},
		{"1K", 0, false}, // kilo is lower-case k; Ki is binary
		{"1.5.2", 0, false},
		{"web-1", 0, false},
		{"3 (5m ago)", 0, false},
		{"1e", 0, false},
		{"1e400", 0, false},
		{"1/2", 0, false},
	} {
		got, ok := views.ParseQuantity(c.in)
		if ok != c.ok || (ok && math.Abs(got-c.want) > 1e-12*math.Max(1, math.Abs(c.want))) {
			t.Errorf("ParseQuantity(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// grammar is the documented quantity grammar (apimachinery's
// resource.Quantity doc comment) with exponents of at most three digits.
var grammar = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]{1,3})?$`)

// FuzzParseQuantity holds ParseQuantity to apimachinery's parser: what it
// accepts, Kubernetes accepts with the same value (to a nano, the
// precision Kubernetes keeps), and every string of the documented grammar
// is accepted.
func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{"500m", "1.5Gi", "1e3", "129M", "-0.25Ki", ".5", "5.", "1E-9", "7n", "12u", "+3k", "2Ei", "0", "abc", "1.G", "1e+300"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := views.ParseQuantity(s)
		if m := grammar.FindStringSubmatch(s); m != nil && !ok {
			exp := m[2]
			if len(exp) > 1 && (exp[0] == 'e' || exp[0] == 'E') {
				return // may exceed ±300
			}
			t.Fatalf("ParseQuantity(%q) refused a quantity of the documented grammar", s)
		}
		if !ok {
			return
		}
		q, err := resource.ParseQuantity(s)
		if err != nil {
			t.Fatalf("ParseQuantity(%q) = %v, but Kubernetes refuses it: %v", s, got, err)
		}
		want := q.AsApproximateFloat64()
		if math.IsInf(got, 0) || math.IsInf(want, 0) {
			return
		}
		if diff := math.Abs(got - want); diff > 1e-9+1e-9*math.Abs(want) {
			t.Fatalf("ParseQuantity(%q) = %v, Kubernetes says %v", s, got, want)
		}
	})
}

// TestC11QuantitiesCompareAsQuantities is casebook C11: quantities compare
// as quantities, never as bare numbers.
func TestC11QuantitiesCompareAsQuantities(t *testing.T) {
	used, ok1 := views.ParseQuantity("8349Mi")
	hard, ok2 := views.ParseQuantity("22Gi")
	if !ok1 || !ok2 {
		t.Fatal("8349Mi or 22Gi did not parse")
	}
	if pct := fmt.Sprintf("%.1f%%", 100*used/hard); pct != "37.1%" {
		t.Errorf("8349Mi of 22Gi = %s, want 37.1%%", pct)
	}
	for in, want := range map[string]float64{"500m": 0.5, "1.5Gi": 1610612736, "1e3": 1000, "129M": 129000000} {
		if got, ok := views.ParseQuantity(in); !ok || got != want {
			t.Errorf("%s = %v (ok %v), want %v", in, got, ok, want)
		}
	}
	// As bare numbers 500 > 1 and 129 < 1.5: as quantities the order flips.
	a, _ := views.ParseQuantity("500m")
	b, _ := views.ParseQuantity("1")
	c, _ := views.ParseQuantity("129M")
	d, _ := views.ParseQuantity("1.5Gi")
	if !(a < b) || !(c < d) {
		t.Errorf("500m < 1 and 129M < 1.5Gi must hold as quantities")
	}
}
