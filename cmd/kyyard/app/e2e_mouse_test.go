package app

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
)

// tmuxRun is kyyard drawn in a pane of a tmux server of its own (-L), so
// that the test reads the screen as a person sees it (capture-pane) and
// sends what a terminal sends (send-keys: keys, and mouse events as the
// SGR sequences an xterm writes).
type tmuxRun struct {
	t      *testing.T
	socket string
}

// tmux runs one tmux command on the run's server.
func (r *tmuxRun) tmux(args ...string) string {
	r.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", r.socket}, args...)...).CombinedOutput()
	if err != nil {
		r.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen is the pane's lines as drawn now.
func (r *tmuxRun) screen() []string {
	r.t.Helper()
	return strings.Split(r.tmux("capture-pane", "-p", "-t", "kyyard"), "\n")
}

// waitFor waits (at most 30 s) until ok holds for the screen and returns
// that screen.
func (r *tmuxRun) waitFor(what string, ok func([]string) bool) []string {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := r.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("waiting for %s: the screen is\n%s", what, strings.Join(s, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// click presses and releases the left button on the cell at column x,
// line y of the screen (0-based), as an xterm in SGR mouse mode reports
// it (1-based).
func (r *tmuxRun) click(x, y int) {
	r.tmux("send-keys", "-t", "kyyard", "-l", fmt.Sprintf("\x1b[<0;%d;%dM\x1b[<0;%d;%dm", x+1, y+1, x+1, y+1))
}

// wheelDown turns the wheel one step down over the cell at x, y.
func (r *tmuxRun) wheelDown(x, y int) {
	r.tmux("send-keys", "-t", "kyyard", "-l", fmt.Sprintf("\x1b[<65;%d;%dM", x+1, y+1))
}

// startInTmux builds kyyard and starts it with args in a detached tmux
// session of cols x rows on a server of its own.
func startInTmux(t *testing.T, cols, rows int, args ...string) *tmuxRun {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("tmux is needed to drive kyyard in a terminal (hack/test.sh installs it): %v", err)
	}
	bin := kyyardBinary(t)
	r := &tmuxRun{t: t, socket: fmt.Sprintf("kyyard-e2e-%d", os.Getpid())}
	command := append([]string{"env", "XDG_CONFIG_HOME=" + t.TempDir(), bin}, args...)
	r.tmux(append([]string{"-f", "/dev/null", "new-session", "-d", "-s", "kyyard", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows)}, command...)...)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", r.socket, "kill-server").Run() })
	return r
}

// kyyardBinary returns the kyyard binary the end-to-end tests run:
// $KYYARD_E2E_KYYARD (hack/test.sh builds it before the tests, so that no
// build competes with the other packages' tests for the CPU), else one
// built once for this test binary.
func kyyardBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("KYYARD_E2E_KYYARD"); bin != "" {
		return bin
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kyyard-e2e-bin-")
		if err != nil {
			buildErr = err
			return
		}
		built = filepath.Join(dir, "kyyard")
		if out, err := exec.Command("go", "build", "-o", built, "github.com/kyyard/kyyard/cmd/kyyard").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// rowsOf returns the pod names the screen lists (those starting with
// prefix), top to bottom, and the line each is on.
func rowsOf(screen []string, prefix string) (names []string, lines []int) {
	for i, l := range screen {
		for _, f := range strings.Fields(l) {
			if strings.HasPrefix(f, prefix) {
				names, lines = append(names, f), append(lines, i)
				break
			}
		}
	}
	return names, lines
}

// TestE2EMouseInATerminal is issue 27's mouse in a driven terminal:
// kyyard --mouse on six pods of the local cluster in a 120x30 tmux pane;
// the wheel moves the cursor three rows (d then describes the fourth), a
// click on a row moves it there (d describes that one), a click on the
// NAME header sorts by name and a second click reverses the order.
func TestE2EMouseInATerminal(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := kubetest.TempNamespace(t, cs, "kyyard-mouse")
	for _, n := range []string{"mouse-c", "mouse-a", "mouse-f", "mouse-b", "mouse-e", "mouse-d"} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: n}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.local/app:1"}}}}
		if _, err := cs.CoreV1().Pods(ns).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	r := startInTmux(t, 120, 30, "--kubeconfig", os.Getenv(kubetest.KubeconfigEnv), "--mouse", "-n", ns)
	listed := func(s []string) bool { names, _ := rowsOf(s, "mouse-"); return len(names) == 6 }
	screen := r.waitFor("the six pods", listed)
	names, lines := rowsOf(screen, "mouse-")
	describes := func(name string) func([]string) bool {
		return func(s []string) bool {
			all := strings.Join(s, "\n")
			return strings.Contains(all, "describe") && strings.Contains(all, "Name:") && strings.Contains(all, name)
		}
	}
	back := func() {
		r.tmux("send-keys", "-t", "kyyard", "Escape")
		r.waitFor("the table again", listed)
	}

	r.wheelDown(10, lines[0])
	r.tmux("send-keys", "-t", "kyyard", "d")
	r.waitFor("describe of "+names[3]+" (the wheel moved three rows)", describes(names[3]))
	back()

	r.click(10, lines[1])
	r.tmux("send-keys", "-t", "kyyard", "d")
	r.waitFor("describe of "+names[1]+" (clicked)", describes(names[1]))
	back()

	header := lines[0] - 1
	x := strings.Index(screen[header], "NAME")
	if x < 0 {
		t.Fatalf("no NAME header above the first row:\n%s", strings.Join(screen, "\n"))
	}
	// A click sorts by the column (NAME↑), a second one the other way
	// (NAME↓): the header's arrow says which, the rows follow.
	var orders [][]string
	for range 2 {
		before := r.screen()[header]
		r.click(x+1, header)
		s := r.waitFor("the NAME header's sort arrow to change after a click on it", func(s []string) bool {
			return s[header] != before && strings.ContainsAny(s[header], "↑↓")
		})
		now, _ := rowsOf(s, "mouse-")
		orders = append(orders, now)
	}
	reversed := slices.Clone(orders[0])
	slices.Reverse(reversed)
	if !slices.Equal(orders[1], reversed) || !(slices.IsSorted(orders[0]) || slices.IsSorted(orders[1])) {
		t.Fatalf("clicks on NAME: %v then %v, want sorted by name one way then the other", orders[0], orders[1])
	}
	r.tmux("send-keys", "-t", "kyyard", "q")
}

// TestE2ESplitInATerminal is issue 27's side by side on the local
// cluster, in a 120x40 tmux pane: :split deploy opens demo's Deployments
// below demo's pods (both read from the API server), focused (»); ctrl+w
// moves the focus back up and down again; in the bottom pane, L on a
// Deployment shows its logs (streamed from the API server) in the top
// pane, the focus staying below; :only leaves one.
func TestE2ESplitInATerminal(t *testing.T) {
	kubetest.Local(t)
	r := startInTmux(t, 120, 40, "--kubeconfig", os.Getenv(kubetest.KubeconfigEnv), "-n", kubetest.DemoNamespace)
	has := func(parts ...string) func([]string) bool {
		return func(s []string) bool {
			all := strings.Join(s, "\n")
			for _, p := range parts {
				if !strings.Contains(all, p) {
					return false
				}
			}
			return true
		}
	}
	r.waitFor("demo's pods", has("pods(demo)", "web-"))
	r.tmux("send-keys", "-t", "kyyard", ":split deploy", "Enter")
	s := r.waitFor("the Deployments below the pods", has("pods(demo)", "deployments(demo)", "» deployments(demo)"))
	top, bottom := -1, -1
	for i, l := range s {
		if strings.Contains(l, "pods(demo)") && top < 0 {
			top = i
		}
		if strings.Contains(l, "deployments(demo)") {
			bottom = i
		}
	}
	if top < 0 || bottom <= top {
		t.Fatalf("pods above the Deployments expected:\n%s", strings.Join(s, "\n"))
	}
	r.tmux("send-keys", "-t", "kyyard", "C-w")
	r.waitFor("the focus on the pods (»)", has("» pods(demo)"))
	r.tmux("send-keys", "-t", "kyyard", "C-w")
	r.waitFor("the focus on the Deployments again", has("» deployments(demo)"))
	r.tmux("send-keys", "-t", "kyyard", "/", "web", "Enter")
	r.waitFor("the Deployments filtered to web", has("» deployments(demo)", "/web"))
	r.tmux("send-keys", "-t", "kyyard", "L")
	s = r.waitFor("the logs of the cursor's Deployment in the top pane", has("› logs deployments/", " · following · ", "» deployments(demo)"))
	if !strings.Contains(s[1], "› logs deployments/") {
		t.Fatalf("the logs are not the top pane's screen:\n%s", strings.Join(s, "\n"))
	}
	r.tmux("send-keys", "-t", "kyyard", ":only", "Enter")
	r.waitFor("one pane again", func(s []string) bool { return !strings.Contains(strings.Join(s, "\n"), "» ") })
	r.tmux("send-keys", "-t", "kyyard", "q")
}
