package app

import (
	"bytes"
	"strings"
	"testing"
)

// TestParseFileSpec: kubectl cp's reading of an argument: local unless a
// pod comes before the first colon; a path starting /, ./ or ../ is local
// even with a colon.
func TestParseFileSpec(t *testing.T) {
	for _, c := range []struct {
		arg  string
		want fileSpec
		bad  bool
	}{
		{arg: "web.conf", want: fileSpec{path: "web.conf"}},
		{arg: "./a:b", want: fileSpec{path: "./a:b"}},
		{arg: "/tmp/x:y", want: fileSpec{path: "/tmp/x:y"}},
		{arg: "../x:y", want: fileSpec{path: "../x:y"}},
		{arg: "web-1:/etc/hosts", want: fileSpec{pod: "web-1", path: "/etc/hosts"}},
		{arg: "demo/web-1:logs", want: fileSpec{namespace: "demo", pod: "web-1", path: "logs"}},
		{arg: ":/etc", bad: true},
		{arg: "web-1:", bad: true},
		{arg: "a/b/c:/x", bad: true},
		{arg: "/web-1:x", want: fileSpec{path: "/web-1:x"}},
		{arg: "", bad: true},
	} {
		got, err := parseFileSpec(c.arg)
		if (err != nil) != c.bad || !c.bad && got != c.want {
			t.Errorf("parseFileSpec(%q) = %+v, %v", c.arg, got, err)
		}
	}
}

// TestCpCommandFlags: cp's flags merge with the root's persistent ones
// (-c is the root's start screen) and its help says the syntax.
func TestCpCommandFlags(t *testing.T) {
	var out, errOut bytes.Buffer
	cmd := NewCommand(&out, &errOut)
	cmd.SetArgs([]string{"cp", "--help"})
	if err := cmd.Execute(); err != nil || !strings.Contains(out.String(), "[namespace/]pod:path") || !strings.Contains(out.String(), "--container") {
		t.Fatalf("cp --help: %v\n%s", err, out.String())
	}
	cmd = NewCommand(&out, &errOut)
	cmd.SetArgs([]string{"cp", "a", "b"})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "one side must be a pod's path") {
		t.Fatalf("cp of two local paths: %v", err)
	}
}
