package logs

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/views"
)

// JSON lines: shown indented (pretty), or as columns of the fields chosen
// (columns, columnHeader), a field found by its dotted path.

// isJSON reports whether a line is a JSON object.
func isJSON(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 1 && b[0] == '{' && b[len(b)-1] == '}' && json.Valid(b)
}

// pretty indents a JSON object by two spaces per level; escapes in its
// strings stay escapes.
func pretty(b []byte) string {
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(b), "", "  "); err != nil {
		return string(b)
	}
	return out.String()
}

// columns draws a JSON line's chosen fields, each padded to its column's
// width ("-" for a field the line lacks); string values unquoted and
// sanitised, others as JSON.
func (m *Model) columns(b []byte) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(b, &obj) != nil {
		return string(b)
	}
	values := make([]string, len(m.fields))
	for i, f := range m.fields {
		values[i] = fieldValue(obj, f)
	}
	return m.columnRow(values)
}

// columnRow lays values out in the fields' columns: each but the last
// padded (or cut with "…") to its width, two spaces apart.
func (m *Model) columnRow(values []string) string {
	var out strings.Builder
	for i, v := range values {
		if i < len(values)-1 {
			w := m.widths[i]
			if ansi.StringWidth(v) > w {
				v = ansi.Truncate(v, w, "…")
			}
			v += strings.Repeat(" ", w-ansi.StringWidth(v)+2)
		}
		out.WriteString(v)
	}
	return out.String()
}

// columnsShown reports whether JSON lines are drawn as the fields'
// columns (under a header row naming them).
func (m *Model) columnsShown() bool { return len(m.fields) > 0 && !m.json }

// columnHeader is the row above the lines that names the fields, each
// over its column (after the timestamp and label columns).
func (m *Model) columnHeader() string {
	w := 0
	if m.times != timeOff {
		w += m.stampWidth() + 1
	}
	if lw := m.labelWidth(); lw > 0 {
		w += lw + 3
	}
	names := make([]string, len(m.fields))
	for i, f := range m.fields {
		names[i] = strings.ToUpper(views.Sanitize(f))
	}
	row := strings.Repeat(" ", w) + m.columnRow(names)
	return m.vc.Styles.ColumnHeader.Render(ansi.Truncate(row, max(m.vc.Width, 1), "…"))
}

// fieldValue is one field of a JSON object as text: a string unquoted and
// made safe by the raw view's own sanitiser (decoded: an escaped
// "\u001b" shows as ␛, as the byte does in the raw view), anything else as its JSON, "-" when absent. A dotted path
// reaches into nested objects and arrays ("user.name", "items.0.id"); a
// key that itself holds dots ("http.status" as one key) is found first.
func fieldValue(obj map[string]json.RawMessage, f string) string {
	raw, ok := lookupField(obj, f, 0)
	if !ok {
		return "-"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return decoded(s)
	}
	return decoded(string(raw))
}

// maxFieldDepth bounds how deep a dotted path reaches.
const maxFieldDepth = 16

// lookupField finds path in obj: the path as one key, else its first
// dot-separated segment and the rest within that value (an object, or an
// array indexed by a number).
func lookupField(obj map[string]json.RawMessage, path string, depth int) (json.RawMessage, bool) {
	if raw, ok := obj[path]; ok {
		return raw, true
	}
	if depth >= maxFieldDepth {
		return nil, false
	}
	for i := 0; i < len(path); i++ {
		if path[i] != '.' {
			continue
		}
		raw, ok := obj[path[:i]]
		if !ok {
			continue
		}
		if v, ok := lookupIn(raw, path[i+1:], depth+1); ok {
			return v, true
		}
	}
	return nil, false
}

// lookupIn finds path within a JSON value: an object or an array.
func lookupIn(raw json.RawMessage, path string, depth int) (json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, false
	}
	switch raw[0] {
	case '{':
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil, false
		}
		return lookupField(obj, path, depth)
	case '[':
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) != nil {
			return nil, false
		}
		head, rest, more := strings.Cut(path, ".")
		i, err := strconv.Atoi(head)
		if err != nil || i < 0 || i >= len(arr) {
			return nil, false
		}
		if !more {
			return arr[i], true
		}
		return lookupIn(arr[i], rest, depth+1)
	}
	return nil, false
}

// fieldPaths lists the dotted paths of obj's values, nested objects
// walked (at most three levels): "level", "user.name".
func fieldPaths(obj map[string]json.RawMessage, prefix string, depth int, add func(string)) {
	for k, raw := range obj {
		path := prefix + k
		raw = bytes.TrimSpace(raw)
		if depth < 3 && len(raw) > 0 && raw[0] == '{' {
			var inner map[string]json.RawMessage
			if json.Unmarshal(raw, &inner) == nil && len(inner) > 0 {
				fieldPaths(inner, path+".", depth+1, add)
				continue
			}
		}
		add(path)
	}
}
