package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// The shell run (make bench-shell): how long a person waits from `s` on a
// pod's row to the shell's prompt, and beside it, driven the same way in a
// pane of the same size, `kubectl exec -it POD -- sh` from the key that
// starts it to the same prompt. Both panes are read by polling tmux, so
// both figures carry the same polling error (a few milliseconds).

// busyboxPrompt is the prompt of busybox's sh as root in / (PS1 '\w \$ '),
// at the end of the pane's last written line; tmux trims its trailing
// space.
var busyboxPrompt = regexp.MustCompile(`(?m)^/ #\s*$`)

// confirmPrompt is the help line of kyyard's question before a shell with
// warnings (views/exec).
var confirmPrompt = regexp.MustCompile(`y go on · esc cancel`)

// shellOptions are the shell run's inputs.
type shellOptions struct {
	kyyard, kubectl, kubeconfig string
	namespace, pod              string
	runs                        int
}

// shellPoll is how often the panes are read while a prompt is awaited.
const shellPoll = 5 * time.Millisecond

// shellRun opens a shell in opts.pod opts.runs times through kyyard (its
// `s` key, then `y` when kyyard asks to confirm a warning) and as many
// times through kubectl exec, alternately, and prints each time, its best
// and median. Errors: tmux's, or a prompt not shown within 30 seconds.
func shellRun(opts shellOptions) error {
	const ky, kc = "kyyard-shell-run", "kyyard-shell-kubectl"
	defer func() { _ = exec.Command("tmux", "kill-session", "-t", ky).Run() }()
	defer func() { _ = exec.Command("tmux", "kill-session", "-t", kc).Run() }()
	if out, err := exec.Command("tmux", "new-session", "-d", "-s", ky, "-x", "200", "-y", "50",
		opts.kyyard, "--kubeconfig", opts.kubeconfig, "--namespace", opts.namespace).CombinedOutput(); err != nil {
		return fmt.Errorf("tmux: %v: %s", err, out)
	}
	row := regexp.MustCompile(`(?m)^>\S*\s+` + regexp.QuoteMeta(opts.pod) + `\s.*Running`)
	if _, err := waitScreen(ky, regexp.MustCompile(regexp.QuoteMeta(opts.pod)+`\s.*Running`), time.Minute); err != nil {
		return fmt.Errorf("kyyard: %w", err)
	}
	if err := tmuxKeys(ky, "/", opts.pod, "Enter"); err != nil {
		return err
	}
	if _, err := waitScreen(ky, row, 30*time.Second); err != nil {
		return fmt.Errorf("kyyard: the filtered row is not selected: %w", err)
	}
	// kubectl runs from a plain shell whose prompt the run recognises.
	if out, err := exec.Command("tmux", "new-session", "-d", "-s", kc, "-x", "200", "-y", "50",
		"env", "PS1=ready> ", "sh").CombinedOutput(); err != nil {
		return fmt.Errorf("tmux: %v: %s", err, out)
	}
	ready := regexp.MustCompile(`(?m)^ready>\s*$`)
	kubectlLine := strings.Join([]string{opts.kubectl, "--kubeconfig", opts.kubeconfig, "exec", "-it",
		"-n", opts.namespace, opts.pod, "--", "sh"}, " ")

	var kyTimes, kyConfirm, kcTimes []time.Duration
	confirmed := false
	for i := 0; i < opts.runs; i++ {
		// kyyard: s (and y if it asks), then the prompt.
		start := time.Now()
		if err := tmuxKeys(ky, "s"); err != nil {
			return err
		}
		waited, askedThisRun := time.Duration(0), false
		_, err := pollPane(ky, shellPoll, 30*time.Second, func(screen string) (bool, error) {
			if busyboxPrompt.MatchString(screen) {
				return true, nil
			}
			if !askedThisRun && confirmPrompt.MatchString(screen) {
				askedThisRun = true
				// A warning to confirm: the time to it is kyyard's, the
				// person's reading is not; time from the y on.
				if !confirmed {
					confirmed = true
					fmt.Printf("shell: kyyard asks to confirm a warning first:\n%s\n", lastLines(screen, 6))
				}
				kyConfirm = append(kyConfirm, time.Since(start))
				waited += time.Since(start)
				start = time.Now()
				return false, tmuxKeys(ky, "y")
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("kyyard: no prompt: %w", err)
		}
		kyTimes = append(kyTimes, waited+time.Since(start))
		if err := tmuxKeys(ky, "exit", "Enter"); err != nil {
			return err
		}
		if _, err := waitScreen(ky, row, 30*time.Second); err != nil {
			return fmt.Errorf("kyyard: the table did not come back after exit: %w", err)
		}

		// kubectl exec -it, typed into the plain shell.
		if err := tmuxKeys(kc, "clear", "Enter"); err != nil {
			return err
		}
		if _, err := waitScreen(kc, ready, 10*time.Second); err != nil {
			return fmt.Errorf("kubectl pane: %w", err)
		}
		if err := tmuxKeys(kc, kubectlLine); err != nil {
			return err
		}
		start = time.Now()
		if err := tmuxKeys(kc, "Enter"); err != nil {
			return err
		}
		if _, err := pollPane(kc, shellPoll, 30*time.Second, func(screen string) (bool, error) {
			return busyboxPrompt.MatchString(screen), nil
		}); err != nil {
			return fmt.Errorf("kubectl: no prompt: %w", err)
		}
		kcTimes = append(kcTimes, time.Since(start))
		if err := tmuxKeys(kc, "exit", "Enter"); err != nil {
			return err
		}
		if _, err := waitScreen(kc, ready, 30*time.Second); err != nil {
			return fmt.Errorf("kubectl pane after exit: %w", err)
		}
	}
	fmt.Printf("shell: %s/%s, %d runs each, alternately, panes 200x50\n", opts.namespace, opts.pod, opts.runs)
	fmt.Printf("  kyyard s -> prompt:          %s\n", spread(kyTimes))
	if len(kyConfirm) > 0 {
		fmt.Printf("    of which s -> confirmation: %s\n", spread(kyConfirm))
	}
	fmt.Printf("  kubectl exec -it -> prompt:  %s\n", spread(kcTimes))
	fmt.Printf("  ratio of medians kyyard/kubectl: %.2f\n", float64(median(kyTimes))/float64(median(kcTimes)))
	return nil
}

// capture reads the pane's visible text.
func capture(session string) (string, error) {
	screen, err := exec.Command("tmux", "capture-pane", "-p", "-t", session).Output()
	if err != nil {
		return "", fmt.Errorf("capture-pane: %w", err)
	}
	return string(screen), nil
}

// lastLines is the last n non-empty lines of screen.
func lastLines(screen string, n int) string {
	var lines []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
