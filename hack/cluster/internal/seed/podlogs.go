package seed

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// LogLine is one container log line in CRI format.
type LogLine struct {
	// Time is when the line was written.
	Time time.Time
	// Stream is "stdout" or "stderr".
	Stream string
	// Text is the line without its newline.
	Text string
}

// CRI formats l as the kubelet's CRI log format: "<RFC3339Nano> <stream> F <text>"
// (F = full line). kwok serves pods/log from such files; plain text is refused
// with "unsupported log format".
func (l LogLine) CRI() string {
	return fmt.Sprintf("%s %s F %s\n", l.Time.UTC().Format(time.RFC3339Nano), l.Stream, l.Text)
}

// logFile is one file of container logs and the containers it serves.
type logFile struct {
	name       string
	containers []string
	previous   bool // also write name-previous.log as the previous container's logs
	lines      func(start time.Time) []LogLine
}

// demoLogFiles maps the demo containers to log files; the last entry (no
// containers) serves every other container in Namespace.
var demoLogFiles = []logFile{
	{name: "web", containers: []string{"web", "app"}, lines: webLines},
	{name: "postgres", containers: []string{"postgres"}, lines: postgresLines},
	{name: "crashy", containers: []string{"crashy"}, previous: true, lines: crashyLines},
	{name: "sidecar", containers: []string{"log-shipper", "metrics-exporter", "agent"}, lines: shipperLines},
	{name: "migrate", containers: []string{"migrate", "report"}, lines: migrateLines},
	{name: "default", lines: defaultLines},
}

// writePodLogs writes every demo log file into dir (lines end at now) and
// returns the ClusterLogs object pointing kwok at them.
func writePodLogs(dir string, now time.Time) (runtime.Object, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var entries []any
	for _, f := range demoLogFiles {
		path := filepath.Join(dir, f.name+".log")
		if err := writeLines(path, f.lines(now.Add(-5*time.Minute))); err != nil {
			return nil, err
		}
		entry := map[string]any{"logsFile": path, "follow": true}
		if len(f.containers) > 0 {
			cs := make([]any, len(f.containers))
			for i, c := range f.containers {
				cs[i] = c
			}
			entry["containers"] = cs
		}
		if f.previous {
			prev := filepath.Join(dir, f.name+"-previous.log")
			if err := writeLines(prev, f.lines(now.Add(-10*time.Minute))); err != nil {
				return nil, err
			}
			entry["previousLogsFile"] = prev
		}
		entries = append(entries, entry)
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kwok.x-k8s.io/v1alpha1",
		"kind":       "ClusterLogs",
		"metadata":   map[string]any{"name": "kyyard-demo-logs"},
		"spec": map[string]any{
			"selector": map[string]any{"matchNamespaces": []any{Namespace}},
			"logs":     entries,
		},
	}}, nil
}

// clusterExec lets pods/exec in Namespace run commands as local processes in
// workDir (kwok runs them on this machine; keep the cluster on loopback).
func clusterExec(workDir string) runtime.Object {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kwok.x-k8s.io/v1alpha1",
		"kind":       "ClusterExec",
		"metadata":   map[string]any{"name": "kyyard-demo-exec"},
		"spec": map[string]any{
			"selector": map[string]any{"matchNamespaces": []any{Namespace}},
			"execs": []any{map[string]any{
				"local": map[string]any{
					"workDir": workDir,
					"envs":    []any{map[string]any{"name": "KWOK_EXEC", "value": "true"}},
				},
			}},
		},
	}}
}

func writeLines(path string, lines []LogLine) error {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.CRI())
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// at spaces lines evenly from start: every line is 7 seconds after the previous.
func at(start time.Time, texts []string) []LogLine {
	lines := make([]LogLine, len(texts))
	for i, t := range texts {
		stream := "stdout"
		if strings.HasPrefix(t, "!") {
			stream, t = "stderr", t[1:]
		}
		lines[i] = LogLine{Time: start.Add(time.Duration(i) * 7 * time.Second).Add(time.Duration(i*37%1000) * time.Millisecond), Stream: stream, Text: t}
	}
	return lines
}

func webLines(start time.Time) []LogLine {
	texts := []string{
		"!/docker-entrypoint.sh: Configuration complete; ready for start up",
		"!2026/01/01 00:00:00 [notice] 1#1: using the \"epoll\" event method",
		"!2026/01/01 00:00:00 [notice] 1#1: nginx/1.27.3",
		"!2026/01/01 00:00:00 [notice] 1#1: start worker processes",
	}
	paths := []string{"/", "/healthz", "/api/orders", "/api/orders/42", "/static/app.js", "/favicon.ico", "/api/users/7", "/healthz"}
	codes := []int{200, 200, 200, 200, 304, 404, 200, 200}
	for i := 0; i < 36; i++ {
		p, c := paths[i%len(paths)], codes[i%len(codes)]
		if i == 17 {
			texts = append(texts, "!2026/01/01 00:02:00 [warn] 29#29: *118 upstream response is buffered to a temporary file")
			continue
		}
		if i == 29 {
			p, c = "/api/orders", 502
			texts = append(texts, "!2026/01/01 00:03:00 [error] 29#29: *171 connect() failed (111: Connection refused) while connecting to upstream")
		}
		texts = append(texts, fmt.Sprintf("10.0.0.%d - - \"GET %s HTTP/1.1\" %d %d \"-\" \"kube-probe/1.37\" rt=0.%03d", 10+i%7, p, c, 120+i*13, i*7%1000))
	}
	return at(start, texts)
}

func postgresLines(start time.Time) []LogLine {
	texts := []string{
		"PostgreSQL Database directory appears to contain a database; Skipping initialization",
		"!2026-01-01 00:00:00.000 UTC [1] LOG:  starting PostgreSQL 16.4 on x86_64-pc-linux-gnu",
		"!2026-01-01 00:00:00.001 UTC [1] LOG:  listening on IPv4 address \"0.0.0.0\", port 5432",
		"!2026-01-01 00:00:00.004 UTC [27] LOG:  database system was shut down at 2026-01-01 00:00:00 UTC",
		"!2026-01-01 00:00:00.010 UTC [1] LOG:  database system is ready to accept connections",
	}
	for i := 0; i < 24; i++ {
		switch {
		case i%8 == 3:
			texts = append(texts, fmt.Sprintf("!2026-01-01 00:0%d:00.000 UTC [%d] LOG:  duration: %d.%03d ms  statement: SELECT * FROM orders WHERE customer_id = $1", i/8, 100+i, 250+i*11, i*37%1000))
		case i%11 == 5:
			texts = append(texts, fmt.Sprintf("!2026-01-01 00:0%d:00.000 UTC [%d] ERROR:  duplicate key value violates unique constraint \"orders_pkey\"", i/8, 100+i))
		default:
			texts = append(texts, fmt.Sprintf("!2026-01-01 00:0%d:00.000 UTC [25] LOG:  checkpoint complete: wrote %d buffers (%d.%d%%)", i/8, 3+i*5, i%4, i%10))
		}
	}
	return at(start, texts)
}

func crashyLines(start time.Time) []LogLine {
	texts := []string{
		"crashy 0.3.1 starting (pid 1)",
		"loading configuration from /etc/crashy/config.yaml",
		"connecting to db:5432 ...",
		"!level=warn msg=\"retrying database connection\" attempt=1",
		"!level=warn msg=\"retrying database connection\" attempt=2",
		"!level=error msg=\"giving up on database\" err=\"dial tcp 10.96.12.7:5432: connect: connection refused\"",
		"!panic: runtime error: invalid memory address or nil pointer dereference",
		"![signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a2f1c]",
		"!",
		"!goroutine 1 [running]:",
		"!main.(*server).start(0x0)",
		"!\t/src/cmd/crashy/main.go:88 +0x1c",
		"!main.main()",
		"!\t/src/cmd/crashy/main.go:41 +0x145",
	}
	return at(start, texts)
}

func shipperLines(start time.Time) []LogLine {
	var texts []string
	for i := 0; i < 30; i++ {
		switch {
		case i == 0:
			texts = append(texts, "[info] [fluent bit] version=3.1.9, commit=, pid=1")
		case i%9 == 4:
			texts = append(texts, fmt.Sprintf("![warn] [engine] failed to flush chunk '1-%d.flb', retry in %d seconds", 1700+i, 1+i%5))
		default:
			texts = append(texts, fmt.Sprintf("[info] [output:forward] flushed %d records (%d bytes)", 10+i*3, 2048+i*97))
		}
	}
	return at(start, texts)
}

func migrateLines(start time.Time) []LogLine {
	var texts []string
	for i := 1; i <= 24; i++ {
		texts = append(texts, fmt.Sprintf("%d/u create_table_%02d (%d.%03dms)", 20260100+i, i, 3+i%9, i*53%1000))
	}
	texts = append(texts, "!no change: database is at version 20260124", "migrations complete")
	return at(start, texts)
}

func defaultLines(start time.Time) []LogLine {
	var texts []string
	for i := 0; i < 30; i++ {
		if i%7 == 6 {
			texts = append(texts, fmt.Sprintf("!level=warn msg=\"slow request\" path=/work/%d duration=%dms", i, 900+i*10))
			continue
		}
		texts = append(texts, fmt.Sprintf("level=info msg=\"processed item\" id=%d queue=default duration=%dms", 1000+i, 5+i%13))
	}
	return at(start, texts)
}
