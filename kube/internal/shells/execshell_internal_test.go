package shells

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube/vocab"
)

func TestChooseShell(t *testing.T) {
	cases := []struct {
		name       string
		configured []string
		output     string
		want       []string
		note       string
		err        error
	}{
		{name: "bash", output: "kyyard-shell bash /bin/bash\nkyyard-shell sh /bin/sh\n", want: []string{"/bin/bash"}},
		{name: "only sh", output: "kyyard-shell bash \nkyyard-shell sh /bin/sh\n", want: []string{"/bin/sh"}, note: "bash not found, using sh"},
		{name: "crlf", output: "kyyard-shell bash \r\nkyyard-shell sh /bin/sh\r\n", want: []string{"/bin/sh"}, note: "bash not found, using sh"},
		{name: "configured with args", configured: []string{"zsh", "-l"},
			output: "kyyard-shell zsh /usr/bin/zsh\nkyyard-shell bash /bin/bash\nkyyard-shell sh /bin/sh\n", want: []string{"/usr/bin/zsh", "-l"}},
		{name: "configured missing", configured: []string{"zsh", "-l"},
			output: "kyyard-shell zsh \nkyyard-shell bash /bin/bash\nkyyard-shell sh /bin/sh\n", want: []string{"/bin/bash"}, note: "zsh not found, using bash"},
		{name: "configured sh", configured: []string{"sh"}, output: "kyyard-shell sh /bin/sh\nkyyard-shell bash /bin/bash\n", want: []string{"/bin/sh"}},
		{name: "noise around", output: "motd\nkyyard-shell bash /bin/bash\nkyyard-shell sh /bin/sh\nbye\n", want: []string{"/bin/bash"}},
		{name: "none", output: "kyyard-shell bash \nkyyard-shell sh \n", err: vocab.ErrExecNoShell},
		{name: "cut output", output: "kyyard-shell bash \n", err: errProbeOutput},
		{name: "empty", output: "", err: errProbeOutput},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			argv, note, err := chooseShell(tc.configured, tc.output)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("chooseShell error %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(argv, tc.want) || note != tc.note {
				t.Fatalf("chooseShell = %q, %q, %v; want %q, %q", argv, note, err, tc.want, tc.note)
			}
		})
	}
}

// TestShellProbeRuns runs the probe with this machine's sh: it prints a
// line per candidate that chooseShell reads (a configured name with a
// quote and a space in it included).
func TestShellProbeRuns(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on this machine")
	}
	for _, configured := range [][]string{nil, {"no-such-shell-'x y", "-i"}} {
		argv := shellProbe(configured)
		out, err := exec.Command(argv[0], argv[1:]...).Output()
		if err != nil {
			t.Fatalf("probe %q: %v", argv, err)
		}
		got, note, err := chooseShell(configured, string(out))
		if err != nil || len(got) != 1 || !strings.HasSuffix(got[0], "sh") {
			t.Fatalf("probe output %q chose %q, %v", out, got, err)
		}
		if configured != nil && !strings.HasPrefix(note, configured[0]+" not found") {
			t.Fatalf("note %q does not say the configured shell is missing", note)
		}
	}
}

func TestNoShellText(t *testing.T) {
	yes := []string{
		`OCI runtime exec failed: exec failed: unable to start container process: exec: "sh": executable file not found in $PATH: unknown`,
		`exec: "sh": stat sh: no such file or directory`,
		"command terminated with exit code 127",
	}
	for _, s := range yes {
		if !noShellText(s) {
			t.Errorf("noShellText(%q) = false", s)
		}
	}
	if noShellText("connection refused") {
		t.Error("noShellText(connection refused) = true")
	}
}

func FuzzChooseShell(f *testing.F) {
	f.Add("zsh", "kyyard-shell zsh \nkyyard-shell bash /bin/bash\nkyyard-shell sh /bin/sh\n")
	f.Add("", "kyyard-shell bash \nkyyard-shell sh \n")
	f.Fuzz(func(t *testing.T, configured, output string) {
		var conf []string
		if configured != "" {
			conf = []string{configured}
		}
		argv, _, err := chooseShell(conf, output)
		if err == nil && (len(argv) == 0 || argv[0] == "") {
			t.Fatalf("chooseShell(%q, %q) chose an empty argv", configured, output)
		}
		if err != nil && argv != nil {
			t.Fatalf("chooseShell returned an argv with an error")
		}
	})
}

// FuzzShellQuote: a quoted string is read back by sh as itself.
func FuzzShellQuote(f *testing.F) {
	f.Add("it's")
	f.Add(`a "b" $c \d`)
	f.Fuzz(func(t *testing.T, s string) {
		q := shellQuote(s)
		if !strings.HasPrefix(q, "'") || !strings.HasSuffix(q, "'") {
			t.Fatalf("shellQuote(%q) = %q", s, q)
		}
		// Outside the quotes only \' may appear.
		inner := strings.ReplaceAll(q[1:len(q)-1], `'\''`, "")
		if strings.Contains(inner, "'") {
			t.Fatalf("shellQuote(%q) = %q leaves a bare quote", s, q)
		}
	})
}
