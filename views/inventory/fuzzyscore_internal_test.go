package inventory

import (
	"slices"
	"testing"

	"github.com/sahilm/fuzzy"
)

// libraryScore is sahilm/fuzzy's answer for one string.
func libraryScore(pattern, s string) (int, bool) {
	m := fuzzy.Find(pattern, []string{s})
	if len(m) == 0 {
		return 0, false
	}
	return m[0].Score, true
}

func TestFuzzyScoreEqualsTheLibrary(t *testing.T) {
	for _, c := range []struct{ pattern, s string }{
		{"p", "pod-000001"}, {"p", "web-7d9f-abcde"}, {"wb", "web"}, {"wb", "w-e-b"}, {"web", "xwxexb"},
		{"ab", "aXbYab"}, {"zz", "pod"}, {"W", "web"}, {"é", "CAFÉ"}, {"k", "ſ"}, {"a", "a\x00b"}, {"ab", "ba"},
		{"cr", "crashy-5c4b-xyz12"}, {"pd", "my_pod.Done"}, {"mD", "myDone"},
	} {
		got, ok := fuzzyScore([]rune(c.pattern), c.s)
		want, wantOK := libraryScore(c.pattern, c.s)
		if ok != wantOK || (ok && got != want) {
			t.Errorf("fuzzyScore(%q, %q) = %d %v, want %d %v", c.pattern, c.s, got, ok, want, wantOK)
		}
	}
}

// FuzzFuzzyScore holds fuzzyScore to sahilm/fuzzy's scores and matches.
func FuzzFuzzyScore(f *testing.F) {
	f.Add("wb", "w-e-b")
	f.Add("p", "pod-000001")
	f.Add("aA", "xaAbA_a")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if pattern == "" {
			return
		}
		got, ok := fuzzyScore([]rune(pattern), s)
		want, wantOK := libraryScore(pattern, s)
		if ok != wantOK || (ok && got != want) {
			t.Fatalf("fuzzyScore(%q, %q) = %d %v, want %d %v", pattern, s, got, ok, want, wantOK)
		}
	})
}

func TestSortHitsByScoreIsStable(t *testing.T) {
	hits := []fuzzyHit{{0, 5}, {1, -3}, {2, 5}, {3, 7}, {4, -3}, {5, 0}}
	want := []fuzzyHit{{3, 7}, {0, 5}, {2, 5}, {5, 0}, {1, -3}, {4, -3}}
	if got := sortHitsByScore(slices.Clone(hits)); !slices.Equal(got, want) {
		t.Fatalf("counting sort %v, want %v", got, want)
	}
	wide := []fuzzyHit{{0, 1 << 20}, {1, 0}, {2, 1 << 20}, {3, -5}}
	wantWide := []fuzzyHit{{0, 1 << 20}, {2, 1 << 20}, {1, 0}, {3, -5}}
	if got := sortHitsByScore(wide); !slices.Equal(got, wantWide) {
		t.Fatalf("stable sort %v, want %v", got, wantWide)
	}
}
