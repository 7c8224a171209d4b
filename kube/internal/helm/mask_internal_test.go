package helm

import (
	"strings"
	"testing"
)

// A manifest is cluster input (Helm stored what a chart rendered):
// masking never panics, and no value of a Secret that parses shows.
func FuzzMaskManifest(f *testing.F) {
	f.Add("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  k: topsecretvalue\n", "")
	f.Add("---\nkind: Secret\ndata:\n  a: dG9wc2VjcmV0dmFsdWU=\n---\n# c\nkind: ConfigMap\n", "kind: Secret\n")
	f.Add("---\n---\n\n--- \n:\n", "")
	f.Fuzz(func(t *testing.T, manifest, other string) {
		out := maskManifest(manifest, other, "revision 1")
		for _, d := range docs(manifest) {
			if secretKey(d.obj) == "" {
				continue
			}
			for _, v := range secretValues(d.obj) {
				if len(v) >= 12 && strings.Contains(out, v) {
					t.Fatalf("value %q shows:\n%s", v, out)
				}
			}
		}
	})
}
