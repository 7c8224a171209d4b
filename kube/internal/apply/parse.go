package apply

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Doc is one object parsed from YAML or JSON.
type Doc struct {
	// Source names where it came from: a file's path, or what a person
	// edited ("the edited text").
	Source string
	// Index is its place among Source's documents, from 1.
	Index int
	// Object is the object as written.
	Object *unstructured.Unstructured
}

// Where says where d came from for people: "web.yaml, document 2".
func (d Doc) Where() string { return fmt.Sprintf("%s, document %d", d.Source, d.Index) }

// ParseError is a document that is not an object kyyard can apply: not
// YAML or JSON, or without apiVersion, kind or metadata.name.
type ParseError struct {
	// Source and Index name the document (Doc's fields).
	Source string
	Index  int
	// Problem says what is wrong, for people.
	Problem string
}

// Error returns "web.yaml, document 2: kind is missing".
func (e *ParseError) Error() string {
	return fmt.Sprintf("%s, document %d: %s", e.Source, e.Index, e.Problem)
}

// maxInput bounds one file's or the standard input's size: 64 documents
// of the API server's 3 MiB request-body bound.
const maxInput = 64 * 3 << 20

// Parse reads every object of data, documents separated by `---` lines
// (YAML) or concatenated (JSON), as kubectl's -f reads a file. Empty
// documents are skipped; a List's items become documents of their own.
// Errors: a *ParseError for the first document that is not an object to
// apply (malformed YAML or JSON with the decoder's line, a missing
// apiVersion, kind or metadata.name — generateName is not taken: an apply
// needs a name), and an error when data holds no object at all. Nothing
// is returned with an error: one bad document refuses them all, so a
// half-applied file never happens.
func Parse(source string, data []byte) ([]Doc, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []Doc
	for i := 1; ; i++ {
		var raw map[string]any
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, &ParseError{Source: source, Index: i, Problem: "not YAML or JSON: " + err.Error()}
		}
		if len(raw) == 0 {
			i--
			continue
		}
		objs, err := objectsOf(raw)
		if err != nil {
			return nil, &ParseError{Source: source, Index: i, Problem: err.Error()}
		}
		for _, o := range objs {
			out = append(out, Doc{Source: source, Index: i, Object: o})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no object", source)
	}
	return out, nil
}

// objectsOf checks raw is an object to apply (or a List of them) and
// returns it. Errors: what is missing or wrong.
func objectsOf(raw map[string]any) ([]*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{Object: raw}
	if u.GetAPIVersion() == "" {
		return nil, errors.New("apiVersion is missing")
	}
	if u.GetKind() == "" {
		return nil, errors.New("kind is missing")
	}
	if u.IsList() {
		var out []*unstructured.Unstructured
		err := u.EachListItem(func(o runtime.Object) error {
			item, ok := o.(*unstructured.Unstructured)
			if !ok {
				return errors.New("a List item is not an object")
			}
			got, err := objectsOf(item.Object)
			out = append(out, got...)
			return err
		})
		return out, err
	}
	md, ok := raw["metadata"].(map[string]any)
	if !ok && raw["metadata"] != nil {
		return nil, errors.New("metadata is not a mapping")
	}
	if md["name"] != nil {
		if _, ok := md["name"].(string); !ok {
			return nil, fmt.Errorf("metadata.name is not a string (%v): quote it, as YAML reads y, no, on or 123 as other types", md["name"])
		}
	}
	if u.GetName() == "" {
		if u.GetGenerateName() != "" {
			return nil, errors.New("metadata.name is missing (generateName cannot be applied: server-side apply needs a name)")
		}
		return nil, errors.New("metadata.name is missing")
	}
	return []*unstructured.Unstructured{u}, nil
}

// ReadPaths reads every object of the files and folders named, as
// `kubectl apply -f` takes them: a folder's .yaml, .yml and .json files in
// name order (its sub-folders too when recursive, kubectl's -R), "-" the
// standard input in. Errors: a path that cannot be read, a folder with no
// such file, a document Parse refuses (nothing is returned then).
func ReadPaths(paths []string, recursive bool, stdin io.Reader) ([]Doc, error) {
	var out []Doc
	for _, p := range paths {
		if p == "-" {
			data, err := io.ReadAll(io.LimitReader(stdin, maxInput+1))
			if err != nil {
				return nil, fmt.Errorf("read the standard input: %w", err)
			}
			if len(data) > maxInput {
				return nil, fmt.Errorf("the standard input is larger than kyyard applies (%d bytes)", maxInput)
			}
			docs, err := Parse("the standard input", data)
			if err != nil {
				return nil, err
			}
			out = append(out, docs...)
			continue
		}
		files, err := filesOf(p, recursive)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			data, err := readFile(f)
			if err != nil {
				return nil, err
			}
			docs, err := Parse(f, data)
			if err != nil {
				return nil, err
			}
			out = append(out, docs...)
		}
	}
	return out, nil
}

// readFile reads f, refusing one larger than 64 documents' bound.
func readFile(f string) ([]byte, error) {
	st, err := os.Stat(f)
	if err != nil {
		return nil, err
	}
	if st.Size() > maxInput {
		return nil, fmt.Errorf("%s is %d bytes: larger than kyyard applies (%d)", f, st.Size(), maxInput)
	}
	return os.ReadFile(f)
}

// manifestFile reports whether name is a file kubectl's -f reads from a
// folder.
func manifestFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// filesOf returns p itself when it is a file, else its manifest files.
func filesOf(p string, recursive bool) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != p && !recursive {
				return filepath.SkipDir
			}
			return nil
		}
		if manifestFile(d.Name()) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no .yaml, .yml or .json file", p)
	}
	sort.Strings(files)
	return files, nil
}
