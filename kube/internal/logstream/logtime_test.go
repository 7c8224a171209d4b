package logstream

import (
	"testing"
	"time"
)

// TestC36LogTimestamps: the API server's prefixes, with microseconds and
// Z or nanoseconds and an offset, parse to the right instant.
func TestC36LogTimestamps(t *testing.T) {
	for _, tc := range []struct {
		line, rest string
		want       time.Time
		ok         bool
	}{
		{"2026-01-02T03:04:05.331385Z m", "m", time.Date(2026, 1, 2, 3, 4, 5, 331385000, time.UTC), true},
		{"2026-01-02T03:04:05.953994922+02:00 m", "m", time.Date(2026, 1, 2, 1, 4, 5, 953994922, time.UTC), true},
		{"2026-01-02T03:04:05.000000000Z kubelet", "kubelet", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), true},
		{"2026-01-02T03:04:05-07:30 x y", "x y", time.Date(2026, 1, 2, 10, 34, 5, 0, time.UTC), true},
		{"2026-01-02T03:04:05Z", "", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), true},
		{"2026-01-02T03:04:05Z ", "", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), true},
		{"2024-02-29T23:59:59.5Z leap", "leap", time.Date(2024, 2, 29, 23, 59, 59, 500000000, time.UTC), true},
		{"2026-02-29T00:00:00Z no", "2026-02-29T00:00:00Z no", time.Time{}, false},
		{"2026-01-02 03:04:05Z m", "2026-01-02 03:04:05Z m", time.Time{}, false},
		{"2026-01-02T03:04:05.Z m", "2026-01-02T03:04:05.Z m", time.Time{}, false},
		{"2026-01-02T03:04:05.1234567891Z m", "2026-01-02T03:04:05.1234567891Z m", time.Time{}, false},
		{"plain text line", "plain text line", time.Time{}, false},
		{"", "", time.Time{}, false},
	} {
		got, rest, ok := parseLogPrefix([]byte(tc.line))
		if ok != tc.ok || !got.Equal(tc.want) || string(rest) != tc.rest {
			t.Errorf("%q: got %v %q %v, want %v %q %v", tc.line, got, rest, ok, tc.want, tc.rest, tc.ok)
		}
		if ok && got.Location() != time.UTC {
			t.Errorf("%q: location %v, want UTC", tc.line, got.Location())
		}
	}
}

// FuzzParseLogTime holds the hand-written parser to time.Parse: what it
// accepts, RFC3339Nano accepts as the same instant, and every instant
// formatted as the kubelet or RFC3339Nano does, in any zone, parses back.
func FuzzParseLogTime(f *testing.F) {
	for _, s := range []string{"2026-01-02T03:04:05.331385Z", "2026-01-02T03:04:05.953994922+02:00", "2026-01-02T03:04:05Z",
		"0000-01-01T00:00:00-23:59", "9999-12-31T23:59:59.999999999+14:00", "2026-13-01T00:00:00Z"} {
		f.Add(s, int64(0), int(0))
	}
	f.Add("", int64(1767323045331385123), 7200)
	f.Fuzz(func(t *testing.T, s string, nanos int64, offset int) {
		if got, ok := parseLogTime([]byte(s)); ok {
			want, err := time.Parse(time.RFC3339Nano, s)
			if err != nil || !want.Equal(got) {
				t.Fatalf("%q: parsed %v, time.Parse says %v %v", s, got, want, err)
			}
		}
		offset %= 24 * 3600
		offset -= offset % 60
		zone := time.FixedZone("", offset)
		in := time.Unix(0, nanos).In(zone)
		if in.Year() < 0 || in.Year() > 9999 {
			return
		}
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.000000000Z07:00", time.RFC3339} {
			text := in.Format(layout)
			got, ok := parseLogTime([]byte(text))
			want, _ := time.Parse(layout, text)
			if !ok || !got.Equal(want) {
				t.Fatalf("%q: got %v %v, want %v", text, got, ok, want)
			}
		}
	})
}
