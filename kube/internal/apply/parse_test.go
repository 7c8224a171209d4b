package apply

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		names []string // names of the objects parsed
		err   string   // substring of the error; "" for none
	}{
		{"two documents", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n", []string{"a", "b"}, ""},
		{"empty documents skipped", "---\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n", []string{"a"}, ""},
		{"json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"j"}}`, []string{"j"}, ""},
		{"list items", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: cx}\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: sy}\n", []string{"cx", "sy"}, ""},
		{"kind missing", "apiVersion: v1\nmetadata: {name: a}\n", nil, "t.yaml, document 1: kind is missing"},
		{"apiVersion missing second", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nkind: ConfigMap\nmetadata: {name: b}\n", nil, "document 2: apiVersion is missing"},
		{"name missing", "apiVersion: v1\nkind: ConfigMap\n", nil, "metadata.name is missing"},
		{"generateName refused", "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: a-}\n", nil, "generateName cannot be applied"},
		{"malformed", "apiVersion: v1\nkind: [ConfigMap\n", nil, "not YAML or JSON"},
		{"metadata not a mapping", "apiVersion: v1\nkind: ConfigMap\nmetadata: 3\n", nil, "metadata is not a mapping"},
		{"name read as a boolean", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: y}\n", nil, "metadata.name is not a string (true)"},
		{"nothing", "\n---\n", nil, "no object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			docs, err := Parse("t.yaml", []byte(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one containing %q", err, c.err)
				}
				if docs != nil {
					t.Fatalf("docs returned with an error: %v", docs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range docs {
				got = append(got, d.Object.GetName())
			}
			if strings.Join(got, ",") != strings.Join(c.names, ",") {
				t.Fatalf("names = %v, want %v", got, c.names)
			}
		})
	}
}

func TestParseErrorIsTyped(t *testing.T) {
	_, err := Parse("web.yaml", []byte("apiVersion: v1\nmetadata: {name: a}\n"))
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Source != "web.yaml" || pe.Index != 1 {
		t.Fatalf("err = %#v, want a *ParseError for web.yaml document 1", err)
	}
}

func TestReadPathsFolder(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(p, name string) {
		body := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + "}\n"
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "b.yaml"), "b")
	write(filepath.Join(dir, "a.yml"), "a")
	write(filepath.Join(sub, "c.json"), "c")
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a manifest"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, rec := range []bool{false, true} {
		docs, err := ReadPaths([]string{dir}, rec, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range docs {
			got = append(got, d.Object.GetName())
		}
		want := "a,b"
		if rec {
			want = "a,b,c"
		}
		if strings.Join(got, ",") != want {
			t.Fatalf("recursive=%v: names = %v, want %s", rec, got, want)
		}
	}
	if _, err := ReadPaths([]string{filepath.Join(dir, "missing.yaml")}, false, nil); err == nil {
		t.Fatal("a missing file read without an error")
	}
	if _, err := ReadPaths([]string{"-"}, false, strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\n")); err != nil {
		t.Fatalf("stdin: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n{}\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: [3]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := Parse("f", data)
		if err != nil && docs != nil {
			t.Fatal("docs with an error")
		}
		for _, d := range docs {
			if d.Object.GetName() == "" || d.Object.GetKind() == "" || d.Object.GetAPIVersion() == "" {
				t.Fatalf("document without name, kind or apiVersion: %v", d.Object.Object)
			}
		}
	})
}

// TestReadPathsStdinTooLarge: standard input past the bound is refused,
// not cut short (a cut document could parse as a smaller object).
func TestReadPathsStdinTooLarge(t *testing.T) {
	big := strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\ndata: {k: \"" + strings.Repeat("x", maxInput) + "\"}\n")
	if _, err := ReadPaths([]string{"-"}, false, big); err == nil || !strings.Contains(err.Error(), "larger than kyyard applies") {
		t.Fatalf("err = %v, want the input refused as too large", err)
	}
}
