package config

// Where things are in the configuration file: the file parsed as YAML
// nodes (go.yaml.in/yaml/v3, which keeps each node's line and column),
// the place a path names in it, and the errors that name that place's
// line. Every fault Parse reports goes through errorAt (or, in the
// decoder, faultAt), so that each names its line the same way.

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// document is the configuration file as YAML nodes: what Parse decodes
// the File from, and where every fault's line is read.
type document struct {
	// name is the file, as messages name it.
	name string
	// root is the top-level node of the file's first document; nil for a
	// file with no document (empty, or comments only).
	root *yaml.Node
}

// parseDocument parses the file's first document into nodes. Errors: the
// YAML is malformed, with the parser's line when it gives one.
func parseDocument(name string, data []byte) (*document, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, syntaxError(name, data, err)
	}
	d := &document{name: name}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		d.root = doc.Content[0]
	}
	// A second document (after ---) would be silently unread: say so.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first, second yaml.Node
	if dec.Decode(&first) == nil && dec.Decode(&second) == nil && !emptyDocument(&second) {
		return nil, &fault{name: name, line: max(second.Line, 1), msg: "a second YAML document (after ---): kyyard reads one; join them into one"}
	}
	return d, nil
}

// emptyDocument reports whether n, a document node, holds nothing (a
// trailing --- with nothing after it).
func emptyDocument(n *yaml.Node) bool {
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode || c.Tag != "!!null" || c.Value != "" {
			return false
		}
	}
	return true
}

// syntaxLine is the line a YAML parser names in its error ("yaml: line 3:
// did not find expected key").
var syntaxLine = regexp.MustCompile(`(?s)^yaml: line (\d+): (.*)$`)

// syntaxError is the error for YAML that yaml.v3 (err) refuses. Its
// message and line are those of sigs.k8s.io/yaml's parser (yaml.v2), the
// one that read the file before: for a parser error yaml.v3 names the
// line before the one its enclosing block starts on (line 1 for a key
// misindented on line 4, where yaml.v2 says line 3). Only the message is
// taken from it; yaml.v3 alone decides what is valid, and its own message
// is given when yaml.v2 accepts the file.
func syntaxError(name string, data []byte, err error) error {
	if !utf8.Valid(data) {
		// yaml.v3 says "invalid leading UTF-8 octet" without a line.
		at := 0
		for r, size := utf8.DecodeRune(data); r != utf8.RuneError || size > 1; r, size = utf8.DecodeRune(data[at:]) {
			at += size
		}
		line := 1 + bytes.Count(data[:at], []byte("\n"))
		column := at - bytes.LastIndexByte(data[:at], '\n')
		return &fault{name: name, line: line, column: column,
			msg: fmt.Sprintf("not UTF-8 text (byte 0x%02x at column %d); save the file as UTF-8", data[at], column)}
	}
	if _, err2 := sigsyaml.YAMLToJSON(data); err2 != nil {
		err = err2
	}
	msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
	if m := syntaxLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		msg := "not valid YAML: " + m[2]
		if lines := strings.Split(string(data), "\n"); line >= 1 && line <= len(lines) && strings.Contains(lines[line-1], "\t") {
			msg += " (a tab: YAML indents with spaces only)"
		}
		return &fault{name: name, line: line, msg: msg}
	}
	return &fault{name: name, msg: "not valid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// lineOf returns where path is written in the file: the line and column
// of a mapping entry's key or of a list item. A path holds mapping keys
// (string) and list indexes (int), outermost first: {"contexts", "prod"}
// is the key prod under contexts, {"fleets", "prod", 2} the third member
// of the fleet prod, {"themes", "mine", "accent"} the field accent of the
// theme mine; the empty path is the file's top-level node. Keys match
// exactly, else regardless of case (as a field's name is read), and are
// found through aliases (*base) and merge keys (<<: *base). written is
// false when the path is not in the file: line and column are then those
// of the nearest enclosing entry that is, 0 when there is none.
func (d *document) lineOf(path []any) (line, column int, written bool) {
	_, line, column, written = d.find(path)
	return line, column, written
}

// find is lineOf that also returns the node written at path (the value
// of a mapping entry, a list item), nil when the path is not written.
func (d *document) find(path []any) (value *yaml.Node, line, column int, written bool) {
	n := d.root
	if n == nil {
		return nil, 0, 0, len(path) == 0
	}
	line, column = n.Line, n.Column
	for _, step := range path {
		n = resolve(n)
		var at, next *yaml.Node
		switch s := step.(type) {
		case string:
			at, next = lookup(n, s)
		case int:
			if n.Kind == yaml.SequenceNode && s >= 0 && s < len(n.Content) {
				at, next = n.Content[s], n.Content[s]
			}
		}
		if at == nil {
			return nil, line, column, false
		}
		line, column, n = at.Line, at.Column, next
	}
	return n, line, column, true
}

// keysWriting returns the keys of the mapping at path whose values are
// mappings with field written in them (found as lineOf finds a key): one
// pass over the mapping, where lineOf for each of its keys would read it
// once per key (a file of 5,000 contexts took 2.9 s to check that way).
func (d *document) keysWriting(path []any, field string) map[string]bool {
	out := map[string]bool{}
	n, _, _, written := d.find(path)
	if !written {
		return out
	}
	for _, e := range entries(n) {
		k, _ := lookup(e.value, field)
		out[e.key.Value] = k != nil // a later entry of the same key wins
	}
	return out
}

// errorAt returns the fault at path (as lineOf takes it) in the file:
// an error reading "configuration file NAME, line N: PATH: MESSAGE", PATH
// written as pathString writes it and MESSAGE formatted from format and
// args, which should say what is wrong and what would be right. A path
// not written in the file names its nearest enclosing entry's line.
// Every check of Parse reports through it, and a new one should too:
//
//	return d.errorAt([]any{"keys", screen, action}, "%q is not a key kyyard can bind", k)
func (d *document) errorAt(path []any, format string, args ...any) error {
	line, column, _ := d.lineOf(path)
	return &fault{name: d.name, line: line, column: column, path: pathString(path), msg: fmt.Sprintf(format, args...)}
}

// faultAt returns the fault at node n, whose path is path: errorAt's
// error for a node in hand (the decoder's).
func (d *document) faultAt(n *yaml.Node, path []any, format string, args ...any) error {
	return &fault{name: d.name, line: n.Line, column: n.Column, path: pathString(path), msg: fmt.Sprintf(format, args...)}
}

// fault is an error in the configuration file: what is wrong, where.
type fault struct {
	// name is the file.
	name string
	// line and column are where the fault is written, 0 when unknown.
	line, column int
	// path is the entry at fault as pathString writes it; "" for the file
	// itself.
	path string
	// msg says what is wrong.
	msg string
}

// Error reads "configuration file NAME, line N: PATH: MESSAGE", without
// the line or the path when there is none.
func (f *fault) Error() string {
	var b strings.Builder
	b.WriteString("configuration file " + f.name)
	if f.line > 0 {
		fmt.Fprintf(&b, ", line %d", f.line)
	}
	b.WriteString(": ")
	if f.path != "" {
		b.WriteString(f.path + ": ")
	}
	b.WriteString(f.msg)
	return b.String()
}

// joinFaults returns the faults as one error, in the order they are
// written in the file (one a line of its message); nil for none.
func joinFaults(errs []error) error {
	where := func(err error) (int, int) {
		var f *fault
		if errors.As(err, &f) {
			return f.line, f.column
		}
		return 0, 0
	}
	slices.SortStableFunc(errs, func(a, b error) int {
		la, ca := where(a)
		lb, cb := where(b)
		return cmp.Or(cmp.Compare(la, lb), cmp.Compare(ca, cb), strings.Compare(a.Error(), b.Error()))
	})
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// pathString writes a path as messages do: keys joined by dots, indexes
// in brackets (fleets.prod[2]); a key that is empty or holds a dot, a
// bracket, a space or a quote is quoted (contexts."admin@k8s.local").
func pathString(path []any) string {
	var b strings.Builder
	for i, step := range path {
		switch s := step.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", s)
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			k := fmt.Sprint(s)
			if k == "" || strings.ContainsAny(k, ".[] \t\"'") {
				k = strconv.Quote(k)
			}
			b.WriteString(k)
		}
	}
	return b.String()
}

// resolve returns the node an alias (*base) stands for, else n.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// entry is one key and its value in a mapping.
type entry struct {
	key, value *yaml.Node
	// merged is true for an entry of a mapping merged in (<<: *base),
	// which an entry written in the mapping itself overrides.
	merged bool
}

// entries returns mapping n's entries in the order they take effect: the
// entries of the mappings it merges (<<: *base, or <<: [*a, *b], where
// a's win over b's) first, then its own, so that a later entry of the
// same key wins. A mapping
// merged twice is read once (a file cannot grow by merging itself
// repeatedly).
func entries(n *yaml.Node) []entry {
	var out []entry
	seen := map[*yaml.Node]bool{}
	var walk func(m *yaml.Node, merged bool)
	walk = func(m *yaml.Node, merged bool) {
		m = resolve(m)
		if m == nil || m.Kind != yaml.MappingNode || seen[m] {
			return
		}
		seen[m] = true
		var own []entry
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], m.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
				if v = resolve(v); v != nil && v.Kind == yaml.SequenceNode {
					for i := len(v.Content) - 1; i >= 0; i-- { // the first wins
						walk(v.Content[i], true)
					}
				} else {
					walk(v, true)
				}
				continue
			}
			own = append(own, entry{key: k, value: v, merged: merged})
		}
		out = append(out, own...)
	}
	walk(n, false)
	return out
}

// lookup returns the key and value of mapping n's entry for key (the
// one in effect, entries' last); a key written with other letter cases
// is found when none is written exactly. nil, nil when n is no mapping or
// has no such entry.
func lookup(n *yaml.Node, key string) (k, v *yaml.Node) {
	es := entries(n)
	for _, exact := range []bool{true, false} {
		for i := len(es) - 1; i >= 0; i-- {
			if w := es[i].key.Value; exact && w == key || !exact && strings.EqualFold(w, key) {
				return es[i].key, es[i].value
			}
		}
	}
	return nil, nil
}
