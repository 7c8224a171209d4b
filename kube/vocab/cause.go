package vocab

import "strings"

// SplitCause splits a server's message at ": " into its innermost cause
// and the rest, outermost first, with each repeated part (compared
// without case) kept once: "Internal error occurred: Internal error
// occurred: error executing command in container: no exec found for
// container "app"" is cause `no exec found for container "app"`, context
// "Internal error occurred: error executing command in container". A
// last part that is one word ("unknown", containerd's gRPC code) takes the
// parts before it while they, or it, are one word, so `exec: "sh":
// executable file not found in $PATH: unknown` stays whole; a last part
// of several words is the cause alone ("/bin/sh: exit status 3" gives
// "exit status 3"), but for a quoted name and its one-word label before it
// (Go's os/exec.Error, `exec: "sh": executable file not found in $PATH`,
// what containerd v2 answers for a missing program). Line breaks become
// spaces.
func SplitCause(msg string) (cause, context string) {
	msg = strings.Join(strings.Fields(msg), " ")
	var parts []string
	seen := map[string]bool{}
	for _, p := range strings.Split(msg, ": ") {
		p = strings.TrimSpace(p)
		key := strings.ToLower(p)
		if p == "" || seen[key] {
			continue
		}
		seen[key] = true
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "", ""
	}
	oneWord := func(s string) bool { return !strings.Contains(s, " ") }
	quoted := func(s string) bool { return len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' && oneWord(s) }
	i := len(parts) - 1
	switch {
	case oneWord(parts[i]):
		for i > 0 && (oneWord(parts[i]) || oneWord(parts[i-1])) {
			i--
		}
	case i >= 2 && quoted(parts[i-1]) && oneWord(parts[i-2]):
		// Go's os/exec.Error names the program before the cause, as
		// containerd v2 passes it on: `exec: "sh": executable file not
		// found in $PATH`.
		i -= 2
	}
	return strings.Join(parts[i:], ": "), strings.Join(parts[:i], ": ")
}
