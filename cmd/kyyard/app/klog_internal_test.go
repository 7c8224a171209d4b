package app

import (
	"errors"
	"io"
	"os"
	"testing"

	"k8s.io/klog/v2"
)

// TestClientErrorsStayOffTheTerminal: an error client-go logs (a shell
// session's "Copying stdin failed") is not copied to stderr, the
// dashboard's terminal.
func TestClientErrorsStayOffTheTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	closeLog, err := routeClientLogs("")
	if err != nil {
		t.Fatal(err)
	}
	klog.ErrorS(errors.New("write on closed stream 0"), "Copying stdin failed")
	klog.Flush()
	closeLog()
	os.Stderr = saved
	_ = w.Close()
	out, _ := io.ReadAll(r)
	if len(out) != 0 {
		t.Fatalf("klog wrote to stderr: %q", out)
	}
}
