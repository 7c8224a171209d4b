package detail_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/detail"
	"github.com/kyyard/kyyard/views/viewtest"
)

// BenchmarkView measures drawing one 200x50 frame of a YAML text with a
// search active; it must stay flat in the number of lines, since only the
// visible lines are drawn.
func BenchmarkView(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			var text strings.Builder
			for i := range n {
				fmt.Fprintf(&text, "  - name: item-%06d\n    value: %q\n", i, strings.Repeat("x", i%150))
			}
			src := &source{yaml: func(kube.YAMLOptions) string { return text.String() }}
			m := detail.New(viewtest.Context(src, 200, 50), views.OpenObjectMsg{View: views.YAMLView, Kind: "configmaps", Namespace: "demo", Name: "big"})
			m.Update(m.Init()())
			for _, k := range []string{"/", "i", "t", "e", "m", "enter", "G"} {
				m.Update(viewtest.Key(k))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				_ = m.View()
			}
		})
	}
}
