package helm

import (
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"helm.sh/helm/v4/pkg/chart/common/util"
	rspb "helm.sh/helm/v4/pkg/release/v1"
	"sigs.k8s.io/yaml"
)

// coalesce is rel's values over its chart's defaults (`helm get values
// --all`).
func coalesce(rel *rspb.Release) (map[string]any, error) {
	v, err := util.CoalesceValues(rel.Chart, rel.Config)
	if err != nil {
		return nil, fmt.Errorf("values of %s revision %d with the chart's defaults: %w", rel.Name, rel.Version, err)
	}
	return v, nil
}

// doc is one document of a manifest: its comment lines ("# Source: ...")
// and its YAML, as Helm wrote them.
type doc struct {
	text string
	obj  map[string]any // nil when the YAML does not parse as an object
}

// docs cuts a manifest at its "---" lines.
func docs(manifest string) []doc {
	var out []doc
	var cur []string
	flush := func() {
		text := strings.Join(cur, "")
		cur = cur[:0]
		if strings.TrimSpace(text) == "" {
			return
		}
		d := doc{text: text}
		var obj map[string]any
		if yaml.Unmarshal([]byte(text), &obj) == nil && obj != nil {
			d.obj = obj
		}
		out = append(out, d)
	}
	for _, line := range strings.SplitAfter(manifest, "\n") {
		if strings.TrimRight(line, "\r\n") == "---" {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return out
}

// secretKey names a Secret document ("<namespace>/<name>"); "" for
// another kind.
func secretKey(obj map[string]any) string {
	if obj == nil || obj["kind"] != "Secret" {
		return ""
	}
	md, _ := obj["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	ns, _ := md["namespace"].(string)
	return ns + "/" + name
}

// secretValues are the data and stringData values of a Secret document,
// by "data.<key>" and "stringData.<key>".
func secretValues(obj map[string]any) map[string]string {
	out := map[string]string{}
	for _, field := range []string{"data", "stringData"} {
		m, _ := obj[field].(map[string]any)
		for k, v := range m {
			out[field+"."+k] = fmt.Sprint(v)
		}
	}
	return out
}

// maskManifest returns manifest with each Secret document's data and
// stringData values replaced by their sizes ("(12 bytes)"; data's are
// base64, so its decoded size is given). other, when not "", is the
// manifest this one is compared with: a value that differs from the
// same Secret's same key there (or is not there) names whose value it is
// ("(10 bytes, revision 2's value)", own names the revision), so a diff
// shows that a value changed without showing either. The other
// documents are kept as Helm wrote them, comments and all.
func maskManifest(manifest, other, own string) string {
	before := map[string]map[string]string{}
	if other != "" {
		for _, d := range docs(other) {
			if k := secretKey(d.obj); k != "" {
				before[k] = secretValues(d.obj)
			}
		}
	}
	var b strings.Builder
	for _, d := range docs(manifest) {
		b.WriteString("---\n")
		k := secretKey(d.obj)
		if k == "" {
			b.WriteString(trimEnd(d.text))
			continue
		}
		for _, line := range strings.SplitAfter(d.text, "\n") {
			if strings.HasPrefix(line, "#") {
				b.WriteString(line)
			}
		}
		prev, compared := before[k]
		for _, field := range []string{"data", "stringData"} {
			m, _ := d.obj[field].(map[string]any)
			for key, v := range m {
				s := fmt.Sprint(v)
				size := len(s)
				if field == "data" {
					size = len(s) * 3 / 4
					size -= strings.Count(s[max(len(s)-2, 0):], "=")
				}
				text := fmt.Sprintf("(%d bytes)", size)
				if p, ok := prev[field+"."+key]; compared && (!ok || p != s) {
					text = fmt.Sprintf("(%d bytes, %s's value)", size, own)
				}
				m[key] = text
			}
		}
		out, err := yaml.Marshal(d.obj)
		if err != nil {
			b.WriteString("# (a Secret kyyard could not show)\n")
			continue
		}
		b.WriteString(string(out))
	}
	return b.String()
}

// diff is the unified diff of a's values and manifest against b's,
// Secret values masked; "" when both are the same.
func diff(a, b *rspb.Release) (string, error) {
	va, err := valuesYAML(a, false)
	if err != nil {
		return "", err
	}
	vb, err := valuesYAML(b, false)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	for _, p := range []struct{ what, x, y string }{
		{"values", va, vb},
		{"manifest", maskManifest(a.Manifest, b.Manifest, fmt.Sprintf("revision %d", a.Version)), maskManifest(b.Manifest, a.Manifest, fmt.Sprintf("revision %d", b.Version))},
	} {
		if p.x == p.y {
			continue
		}
		d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: lines(p.x), B: lines(p.y), Context: 3,
			FromFile: p.what + " of " + title(a), ToFile: p.what + " of " + title(b),
		})
		if err != nil {
			return "", err
		}
		out.WriteString(d)
	}
	return out.String(), nil
}

// lines cuts s into its lines, each with its "\n".
func lines(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.SplitAfter(s, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// object is one object of a manifest: its apiVersion, kind, namespace
// ("" when the manifest names none) and name.
type object struct {
	APIVersion, Kind, Namespace, Name string
}

// objects are the objects of manifest, in order, each once.
func objects(manifest string) []object {
	var out []object
	seen := map[object]bool{}
	for _, d := range docs(manifest) {
		if d.obj == nil {
			continue
		}
		md, _ := d.obj["metadata"].(map[string]any)
		o := object{}
		o.APIVersion, _ = d.obj["apiVersion"].(string)
		o.Kind, _ = d.obj["kind"].(string)
		o.Name, _ = md["name"].(string)
		o.Namespace, _ = md["namespace"].(string)
		if o.Kind == "" || o.Name == "" || seen[o] {
			continue
		}
		seen[o] = true
		out = append(out, o)
	}
	return out
}
