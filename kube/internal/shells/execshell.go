package shells

// The choice of a shell (pure code): the probe that runs in the container
// once, without a TTY and without stdin, and the reading of what it
// printed. The probe relies on its output alone: the local cluster's kwok
// loses exit codes and never closes a non-TTY stdin (reference section 8),
// and a container runtime reports a missing sh as a failed exec, not as an
// exit code.

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kyyard/kyyard/kube/vocab"
)

// shellMarker starts each line the probe prints.
const shellMarker = "kyyard-shell "

// defaultShells are tried after the configured shell, in order: bash when
// the image has it, else sh (what kubectl's documentation runs).
var defaultShells = []string{"bash", "sh"}

// shellCandidates returns the shells the probe looks for: the configured
// shell's program (argv[0]) first when set, then bash and sh, each once.
func shellCandidates(configured []string) []string {
	var out []string
	if len(configured) > 0 && strings.TrimSpace(configured[0]) != "" {
		out = append(out, configured[0])
	}
	for _, s := range defaultShells {
		if len(out) == 0 || out[0] != s {
			out = append(out, s)
		}
	}
	return out
}

// shellQuote quotes s for a POSIX shell: single quotes, with each single
// quote written as '\”.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellProbe returns the argv of the probe: one sh that prints, for each
// candidate, `kyyard-shell <name> <path>` with the path `command -v`
// found, or `kyyard-shell <name> ` when none. sh itself must exist for the
// probe to run: when it does not, the exec fails (ErrExecNoShell).
func shellProbe(configured []string) []string {
	var b strings.Builder
	for _, c := range shellCandidates(configured) {
		q := shellQuote(c)
		fmt.Fprintf(&b, "printf '%%s%%s ' %s %s; command -v %s || echo; ", shellQuote(shellMarker), q, q)
	}
	return []string{"sh", "-c", strings.TrimSuffix(b.String(), " ")}
}

// errProbeOutput: the probe printed no line for a candidate.
var errProbeOutput = errors.New("the shell probe's output is not understood")

// chooseShell reads the probe's output and returns the argv of the shell
// to run: the configured shell (its path, then its own arguments) when
// found, else bash, else sh, each by the path `command -v` printed. note
// says what was skipped ("bash not found, using sh"), "" when the first
// candidate was found. Errors: ErrExecNoShell when no candidate was found
// (wrapped with what the probe printed), errProbeOutput when a candidate's
// line is missing (the output was cut or is not the probe's).
func chooseShell(configured []string, output string) (argv []string, note string, err error) {
	cands := shellCandidates(configured)
	// Longest names first, so that a configured "sh -x"-like name is not
	// taken for sh's line.
	byLength := slices.Clone(cands)
	slices.SortStableFunc(byLength, func(a, b string) int { return len(b) - len(a) })
	found := map[string]string{}
	for _, line := range strings.Split(output, "\n") {
		line = strings.TrimRight(line, "\r")
		rest, ok := strings.CutPrefix(line, shellMarker)
		if !ok {
			continue
		}
		for _, c := range byLength {
			if path, ok := strings.CutPrefix(rest, c+" "); ok {
				if _, seen := found[c]; !seen {
					found[c] = strings.TrimSpace(path)
				}
				break
			}
		}
	}
	var missing []string
	for i, c := range cands {
		path, ok := found[c]
		if !ok {
			return nil, "", fmt.Errorf("%w: no line for %s", errProbeOutput, c)
		}
		if path == "" {
			missing = append(missing, c)
			continue
		}
		argv = []string{path}
		if i == 0 && len(configured) > 0 && configured[0] == c {
			argv = append(argv, configured[1:]...)
		}
		if len(missing) > 0 {
			note = strings.Join(missing, " and ") + " not found, using " + c
		}
		return argv, note, nil
	}
	return nil, "", fmt.Errorf("%w: none of %s found", vocab.ErrExecNoShell, strings.Join(cands, ", "))
}

// noShellText reports whether an exec's error text says its program does
// not exist in the container: what containerd and CRI-O answer for a
// missing sh ("executable file not found in $PATH", "no such file or
// directory"), and a shell's exit status 127 text.
func noShellText(msg string) bool {
	msg = strings.ToLower(msg)
	for _, s := range []string{"executable file not found", "no such file or directory", "exit code 127", "exit status 127", "not found in $path"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
