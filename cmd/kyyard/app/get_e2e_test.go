package app_test

// End-to-end tests of `kyyard get` against the local cluster: its output
// equals the local kubectl's, column by column. Run alone, they skip.

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/cmd/kyyard/app"
	"github.com/kyyard/kyyard/internal/kubetest"
)

// localTools returns the local cluster's kubeconfig and kubectl, skipping
// (or failing under KYYARD_E2E=1) when they are not set.
func localTools(t *testing.T) (kubeconfig, kubectl string) {
	t.Helper()
	kubetest.Local(t) // skips or fails without the cluster; refuses a non-local one
	kubeconfig, kubectl = os.Getenv(kubetest.KubeconfigEnv), os.Getenv(kubetest.KubectlEnv)
	if kubectl == "" {
		if os.Getenv(kubetest.RequireEnv) == "1" {
			t.Fatalf("%s is not set", kubetest.KubectlEnv)
		}
		t.Skipf("%s is not set", kubetest.KubectlEnv)
	}
	return kubeconfig, kubectl
}

// columnGap separates the header's column names: kubectl pads every column
// by at least 3 spaces, and names hold at most one ("NOMINATED NODE").
var columnGap = regexp.MustCompile(`\S+(?: \S+)*`)

// parseTable cuts a `get` output into its header and rows at the offsets
// where the header's column names start.
func parseTable(t *testing.T, out string) (header []string, rows [][]string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < 2 {
		t.Fatalf("no rows in:\n%s", out)
	}
	var starts []int
	for _, loc := range columnGap.FindAllStringIndex(lines[0], -1) {
		starts = append(starts, loc[0])
		header = append(header, lines[0][loc[0]:loc[1]])
	}
	for _, line := range lines[1:] {
		cells := make([]string, len(starts))
		for i, s := range starts {
			end := len(line)
			if i+1 < len(starts) && starts[i+1] < end {
				end = starts[i+1]
			}
			if s < end {
				cells[i] = strings.TrimSpace(line[s:end])
			}
		}
		rows = append(rows, cells)
	}
	return header, rows
}

// restartAge is the moving part of a RESTARTS cell ("3 (5m ago)").
var restartAge = regexp.MustCompile(` \(.* ago\)$`)

// compareGet runs `kyyard get args` in-process and kubectl with the same
// arguments, and compares header and every cell but ages. Pods move (kwok's
// stages, restarts), so a mismatch is retried a few times.
func compareGet(t *testing.T, args ...string) int {
	t.Helper()
	kubeconfig, kubectl := localTools(t)
	var problems []string
	for attempt := 0; attempt < 5; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Second)
		}
		var out, errOut bytes.Buffer
		cmd := app.NewCommand(&out, &errOut)
		cmd.SetArgs(append([]string{"get", "--kubeconfig", kubeconfig}, args...))
		if err := cmd.Execute(); err != nil {
			t.Fatalf("kyyard get %v: %v\n%s", args, err, errOut.String())
		}
		kc := exec.Command(kubectl, append([]string{"--kubeconfig", kubeconfig, "get"}, args...)...)
		kc.Env = append(os.Environ(), "KUBECONFIG=/dev/null")
		want, err := kc.Output()
		if err != nil {
			t.Fatalf("kubectl get %v: %v", args, err)
		}
		problems = diffGet(t, out.String(), string(want))
		if len(problems) == 0 {
			_, rows := parseTable(t, out.String())
			return len(rows)
		}
	}
	t.Fatalf("kyyard get %v differs from kubectl:\n%s", args, strings.Join(problems, "\n"))
	return 0
}

func diffGet(t *testing.T, got, want string) []string {
	gotHeader, gotRows := parseTable(t, got)
	wantHeader, wantRows := parseTable(t, want)
	if strings.Join(gotHeader, "|") != strings.Join(wantHeader, "|") {
		return []string{"header " + strings.Join(gotHeader, "|") + ", kubectl's " + strings.Join(wantHeader, "|")}
	}
	if len(gotRows) != len(wantRows) {
		return []string{"rows differ in number:\n" + got + "kubectl:\n" + want}
	}
	var problems []string
	for r := range gotRows {
		for i, col := range gotHeader {
			g, w := gotRows[r][i], wantRows[r][i]
			switch col {
			case "AGE":
				continue
			case "RESTARTS":
				g, w = restartAge.ReplaceAllString(g, ""), restartAge.ReplaceAllString(w, "")
			}
			if g != w {
				problems = append(problems, "row "+gotRows[r][0]+" "+col+": "+g+", kubectl's "+w)
			}
		}
	}
	return problems
}

func TestE2EGetPodsWideEqualsKubectl(t *testing.T) {
	if n := compareGet(t, "pods", "-n", kubetest.DemoNamespace, "-o", "wide"); n < 5 {
		t.Errorf("only %d pods in demo", n)
	}
}

func TestE2EGetDiscoveredKindsEqualKubectl(t *testing.T) {
	for _, args := range [][]string{
		{"crd"},
		{"clusterlogs.kwok.x-k8s.io"},
		{"svc", "-n", kubetest.DemoNamespace, "-o", "wide"},
		{"deploy", "-A"},
		{"cm", "-A", "-l", "app.kubernetes.io/part-of=kyyard-demo"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) { compareGet(t, args...) })
	}
}

func TestE2EGetForbiddenExitsWithTheReason(t *testing.T) {
	localTools(t)
	var out, errOut bytes.Buffer
	cmd := app.NewCommand(&out, &errOut)
	cmd.SetArgs([]string{"get", "--kubeconfig", os.Getenv(kubetest.ReadOnlyKubeconfigEnv), "crd"})
	err := cmd.Execute()
	if err == nil || !strings.Contains(err.Error(), "forbidden") || out.Len() != 0 {
		t.Errorf("get crd as the read-only user: %v, stdout %q", err, out.String())
	}
}

// TestE2EGetTakesAnAliasFlags: `kyyard --metrics-interval=30s --readonly
// --refresh=5s get pods -n demo` (a shell alias's flags before the
// subcommand) prints the pods as plain `kyyard get pods -n demo` does.
func TestE2EGetTakesAnAliasFlags(t *testing.T) {
	kubeconfig, _ := localTools(t)
	names := func(args ...string) []string {
		var out, errOut bytes.Buffer
		cmd := app.NewCommand(&out, &errOut)
		cmd.SetArgs(args)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("kyyard %v: %v\n%s", args, err, errOut.String())
		}
		_, rows := parseTable(t, out.String())
		var ns []string
		for _, r := range rows {
			ns = append(ns, r[0])
		}
		return ns
	}
	plain := names("get", "pods", "-n", kubetest.DemoNamespace, "--kubeconfig", kubeconfig)
	aliased := names("--metrics-interval=30s", "--readonly", "--refresh=5s", "get", "pods", "-n", kubetest.DemoNamespace, "--kubeconfig", kubeconfig)
	if len(plain) < 5 || strings.Join(plain, " ") != strings.Join(aliased, " ") {
		t.Errorf("pods with the alias's flags %v, without %v", aliased, plain)
	}
}

// TestE2EGetSeveralNamespaces: `kyyard get cm -n kube-system,demo` prints
// exactly the rows `kubectl get cm -A` prints for those two namespaces,
// with the NAMESPACE column; the read-only user, allowed into demo only,
// gets demo's rows, kube-system named on stderr as forbidden, and a
// failing exit status.
func TestE2EGetSeveralNamespaces(t *testing.T) {
	kubeconfig, kubectl := localTools(t)
	var out, errOut bytes.Buffer
	cmd := app.NewCommand(&out, &errOut)
	cmd.SetArgs([]string{"get", "--kubeconfig", kubeconfig, "cm", "-n", "kube-system," + kubetest.DemoNamespace})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("kyyard get cm -n kube-system,demo: %v\n%s", err, errOut.String())
	}
	kc := exec.Command(kubectl, "--kubeconfig", kubeconfig, "get", "cm", "-A")
	kc.Env = append(os.Environ(), "KUBECONFIG=/dev/null")
	all, err := kc.Output()
	if err != nil {
		t.Fatalf("kubectl get cm -A: %v", err)
	}
	lines := strings.Split(strings.TrimRight(string(all), "\n"), "\n")
	want := []string{lines[0]}
	for _, l := range lines[1:] {
		if ns := strings.Fields(l)[0]; ns == "kube-system" || ns == kubetest.DemoNamespace {
			want = append(want, l)
		}
	}
	if problems := diffGet(t, out.String(), strings.Join(want, "\n")+"\n"); len(problems) > 0 {
		t.Fatalf("kyyard get cm -n kube-system,demo differs from kubectl's rows of the two:\n%s", strings.Join(problems, "\n"))
	}

	out.Reset()
	errOut.Reset()
	cmd = app.NewCommand(&out, &errOut)
	cmd.SetArgs([]string{"get", "--kubeconfig", os.Getenv(kubetest.ReadOnlyKubeconfigEnv), "cm", "-n", "kube-system," + kubetest.DemoNamespace})
	err = cmd.Execute()
	if err == nil || !strings.Contains(errOut.String(), "cannot read configmaps in namespace kube-system (forbidden)") ||
		!strings.Contains(out.String(), kubetest.DemoNamespace+" ") || strings.Contains(out.String(), "kube-system") {
		t.Fatalf("the read-only user's get cm -n kube-system,demo: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errOut.String())
	}
}
