package views_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kyyard/kyyard/views"
)

func TestSanitize(t *testing.T) {
	tests := map[string]string{
		"plain-name":                  "plain-name",
		"数据库":                         "数据库",
		"\x1b]52;c;aGk=\x07x":         "\uFFFD]52;c;aGk=\uFFFDx",
		"a\x1b[2Jb\r\nc\x9bd\x7fe\tf": "a\uFFFD[2Jb\uFFFD\uFFFDc\uFFFDd\uFFFDe\uFFFDf",
		"bad\xd5utf8":                 "bad\uFFFDutf8",
		// Bidirectional overrides would show "txt.exe" as "exe.txt".
		"web\u202Eexe.txt\u202C": "web\uFFFDexe.txt\uFFFD",
		"a\u2066b\u2069\u200fc":  "a\uFFFDb\uFFFD\uFFFDc",
	}
	for in, want := range tests {
		if got := views.Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzSanitize: whatever the cluster sends, no control character survives
// and every other character is kept in place.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "ok", "\x1b[31mred", "\x9b2J", "数据库\x07"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := views.Sanitize(s)
		if strings.IndexFunc(got, func(r rune) bool {
			return r < 0x20 || (r >= 0x7f && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
		}) >= 0 {
			t.Fatalf("control character left in %q", got)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("Sanitize(%q) = %q is not UTF-8", s, got)
		}
		if utf8.ValidString(s) && utf8.RuneCountInString(got) != utf8.RuneCountInString(s) {
			t.Fatalf("Sanitize(%q) = %q changed the number of characters", s, got)
		}
	})
}
