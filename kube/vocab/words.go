package vocab

import (
	"errors"
	"fmt"
	"strings"
)

// Noun returns the English noun for n of a thing, given its singular:
// "replica" for 1, "replicas" for 0, 2 or more; a noun ending in a
// consonant and y takes "ies" ("entry", "entries"), one ending in s, x,
// ch or sh takes "es" ("process", "processes"). Every count kyyard writes
// in words (its messages, titles and the screens' lines) goes through Noun
// or Plural, so that no line says "1 replicas".
func Noun(n int64, singular string) string {
	if n == 1 || n == -1 || singular == "" {
		return singular
	}
	switch {
	case strings.HasSuffix(singular, "y") && len(singular) > 1 && !strings.ContainsAny(singular[len(singular)-2:len(singular)-1], "aeiou"):
		return singular[:len(singular)-1] + "ies"
	case strings.HasSuffix(singular, "s"), strings.HasSuffix(singular, "x"),
		strings.HasSuffix(singular, "ch"), strings.HasSuffix(singular, "sh"):
		return singular + "es"
	}
	return singular + "s"
}

// Plural returns n and the noun for n of a thing (Noun): "1 replica",
// "3 replicas", "0 pods".
func Plural[N int | int32 | int64](n N, singular string) string {
	return fmt.Sprintf("%d %s", n, Noun(int64(n), singular))
}

// Bytes is n bytes as people read them, in binary units: "512 B",
// "1.5 KiB", "3.2 MiB" (one decimal from KiB on, up to PiB).
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for v := n / unit; v >= unit && exp < 4; v /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// ErrSelectsNothing is wrapped by the error of a drill-down (kube's
// DrillDown) or a stream (logs of a workload) for an object whose selector
// is absent or empty (a Service without one): it opens no rows, which is
// a fact about the object, not a failure.
var ErrSelectsNothing = errors.New("it selects nothing to open")
