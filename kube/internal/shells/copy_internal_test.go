package shells

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"

	"github.com/kyyard/kyyard/kube/internal/filecopy"
	"github.com/kyyard/kyyard/kube/vocab"
)

// fakeContainer answers the copy's execs as a container would: test -d
// from dirs, tar -x by recording the archive's entries, tar c by sending
// out (or failing with code and stderr), every command failing with
// runErr when set.
type fakeContainer struct {
	mu       sync.Mutex
	dirs     map[string]bool
	received map[string]string // entry name -> content ("/" for a folder)
	extractC string            // the folder tar -x ran in
	out      []byte
	code     int
	stderr   string
	runErr   error
	xcode    int    // tar -x's exit code
	xstderr  string // and its words
	argvs    [][]string
}

func (f *fakeContainer) run(call Call) func(context.Context, remotecommand.StreamOptions, func()) error {
	return func(ctx context.Context, o remotecommand.StreamOptions, up func()) error {
		up()
		f.mu.Lock()
		f.argvs = append(f.argvs, call.argv)
		f.mu.Unlock()
		if f.runErr != nil {
			return f.runErr
		}
		argv := call.argv
		switch {
		case argv[0] == "test":
			if f.dirs[argv[2]] {
				return nil
			}
			return utilexec.CodeExitError{Err: errors.New("command terminated with exit code 1"), Code: 1}
		case argv[0] == "tar" && argv[1] == "-xmf":
			f.extractC = argv[4]
			tr := tar.NewReader(o.Stdin)
			for {
				h, err := tr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					return err
				}
				b, _ := io.ReadAll(tr)
				if h.Typeflag == tar.TypeDir {
					b = []byte("/")
				}
				f.received[h.Name] = string(b)
			}
			_, _ = io.Copy(io.Discard, o.Stdin)
			if f.xcode != 0 {
				_, _ = io.WriteString(o.Stderr, f.xstderr)
				return utilexec.CodeExitError{Err: fmt.Errorf("command terminated with exit code %d", f.xcode), Code: f.xcode}
			}
			return nil
		case argv[0] == "tar" && argv[1] == "cf":
			_, _ = o.Stdout.Write(f.out)
			if f.code != 0 {
				_, _ = io.WriteString(o.Stderr, f.stderr)
				return utilexec.CodeExitError{Err: fmt.Errorf("command terminated with exit code %d", f.code), Code: f.code}
			}
			return nil
		}
		return fmt.Errorf("unexpected argv %q", argv)
	}
}

// copyShells is a Shells over a fake cluster of one running pod (shop/
// web-x2k, container web, namespace enforcing baseline) whose streams
// the container fake answers.
func copyShells(t *testing.T, opts options, f *fakeContainer) (*Shells, *fakeDialer) {
	cs := fake.NewClientset([]runtime.Object{execPod("u1", "web"), execNamespace("baseline")}...)
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).DeepCopy()
		r.Status.Allowed = true
		return true, r, nil
	})
	if f.received == nil {
		f.received = map[string]string{}
	}
	c := newShells(cs, opts)
	d := &fakeDialer{run: f.run}
	c.Dial = d.dial
	return c, d
}

func tarOf(t *testing.T, entries ...[3]string) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e[0], Mode: 0o644}
		switch e[1] {
		case "dir":
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
		case "symlink":
			h.Typeflag, h.Linkname = tar.TypeSymlink, e[2]
		default:
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e[2]))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			_, _ = io.WriteString(tw, e[2])
		}
	}
	_ = tw.Close()
	return buf.Bytes()
}

func copyReq(dir vocab.CopyDirection, local, remote string) vocab.CopyRequest {
	return vocab.CopyRequest{Namespace: "shop", Pod: "web-x2k", UID: "u1", Direction: dir, Local: local, Remote: remote}
}

// TestCopyToContainer: kubectl cp's rule for the destination: an existing
// folder receives the file under its name, any other path names it; the
// progress ends on the file's size.
func TestCopyToContainer(t *testing.T) {
	src := filepath.Join(t.TempDir(), "web.conf")
	if err := os.WriteFile(src, []byte("listen 80;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ remote, folder, name, dest string }{
		{"/etc/nginx/", "/etc/nginx", "web.conf", "/etc/nginx/web.conf"},
		{"/etc/nginx/site.conf", "/etc/nginx", "site.conf", "/etc/nginx/site.conf"},
	} {
		f := &fakeContainer{dirs: map[string]bool{"/etc/nginx": true}}
		s, _ := copyShells(t, options{}, f)
		var last vocab.CopyProgress
		res, err := s.Copy(context.Background(), copyReq(vocab.CopyToContainer, src, c.remote), func(p vocab.CopyProgress) { last = p })
		if err != nil {
			t.Fatalf("%s: %v", c.remote, err)
		}
		if f.extractC != c.folder || f.received[c.name] != "listen 80;\n" || len(f.received) != 1 {
			t.Errorf("%s: tar -x in %q got %v", c.remote, f.extractC, f.received)
		}
		if res.Dest != c.dest || res.Files != 1 || res.Bytes != 11 || res.Container != "web" {
			t.Errorf("%s: result %+v", c.remote, res)
		}
		if !last.Final || last.Done != 11 || last.Total != 11 {
			t.Errorf("%s: last progress %+v", c.remote, last)
		}
	}
}

// TestCopyFromContainer: a folder lands under its name in an existing
// folder, or as the new name; nothing is left of the staging folder.
func TestCopyFromContainer(t *testing.T) {
	archive := tarOf(t, [3]string{"logs/", "dir"}, [3]string{"logs/app.log", "file", "line 1\n"}, [3]string{"logs/current", "symlink", "app.log"})
	for _, c := range []struct{ local, want string }{{"", "logs"}, {"app-logs", "app-logs"}} {
		dest := t.TempDir()
		f := &fakeContainer{out: archive}
		s, _ := copyShells(t, options{}, f)
		res, err := s.Copy(context.Background(), copyReq(vocab.CopyFromContainer, filepath.Join(dest, c.local), "/var/log/logs"), nil)
		if err != nil {
			t.Fatalf("%q: %v", c.local, err)
		}
		if got := f.argvs[len(f.argvs)-1]; !slices.Equal(got, []string{"tar", "cf", "-", "-C", "/var/log", "logs"}) {
			t.Errorf("argv %q", got)
		}
		b, err := os.ReadFile(filepath.Join(dest, c.want, "current"))
		if err != nil || string(b) != "line 1\n" {
			t.Errorf("%q: %s/current: %q, %v", c.local, c.want, b, err)
		}
		if names, _ := os.ReadDir(dest); len(names) != 1 {
			t.Errorf("%q: the folder holds %d entries, want 1 (a staging folder left?)", c.local, len(names))
		}
		if res.Dest != filepath.Join(dest, c.want) || res.Files != 1 || res.Dirs != 1 || res.Links != 1 {
			t.Errorf("%q: result %+v", c.local, res)
		}
	}
}

// TestCVE2019_1002101CopyFromContainer: a container's tar that writes
// through a link it made (the CVE's shape) is refused whole: nothing
// lands, not even the entries before it, and the entry is named.
func TestCVE2019_1002101CopyFromContainer(t *testing.T) {
	dest := t.TempDir()
	archive := tarOf(t, [3]string{"data/", "dir"}, [3]string{"data/ok.txt", "file", "fine"},
		[3]string{"data/escape", "symlink", "../../../../tmp"}, [3]string{"data/escape/pwned", "file", "x"})
	f := &fakeContainer{out: archive}
	s, _ := copyShells(t, options{}, f)
	_, err := s.Copy(context.Background(), copyReq(vocab.CopyFromContainer, dest, "/data"), nil)
	var unsafe *filecopy.UnsafeEntryError
	if !errors.As(err, &unsafe) || !strings.Contains(unsafe.Name, "data/escape") {
		t.Fatalf("err %v, want the archive refused naming data/escape", err)
	}
	if names, _ := os.ReadDir(dest); len(names) != 0 {
		t.Errorf("the folder holds %v after a refused archive", names)
	}
}

// TestCopyFailures: a missing path in the container (tar's words kept),
// a container without tar, tar failing otherwise, a missing local source
// or folder, and paths that name nothing; read-only refuses before any
// stream.
func TestCopyFailures(t *testing.T) {
	dest := t.TempDir()
	cases := []struct {
		name string
		f    *fakeContainer
		opts options
		req  vocab.CopyRequest
		want error
		say  string
	}{
		{name: "missing in the container", f: &fakeContainer{code: 1, stderr: "tar: /nope: No such file or directory\n"},
			req: copyReq(vocab.CopyFromContainer, dest, "/nope"), want: vocab.ErrCopyNotFound, say: "tar: /nope: No such file or directory"},
		{name: "no tar", f: &fakeContainer{runErr: errors.New(`OCI runtime exec failed: exec: "tar": executable file not found in $PATH: unknown`)},
			req: copyReq(vocab.CopyFromContainer, dest, "/etc/hosts"), want: vocab.ErrCopyNoTar},
		{name: "tar fails", f: &fakeContainer{code: 2, stderr: "tar: /proc/kcore: Read error\n"},
			req: copyReq(vocab.CopyFromContainer, dest, "/proc/kcore"), want: vocab.ErrCopyFailed, say: "Read error"},
		{name: "read-only file system", f: &fakeContainer{dirs: map[string]bool{"/etc": true}, xcode: 1, xstderr: "tar: can't create directory 'conf': Read-only file system\ntar: can't open 'conf/a': No such file or directory\n"},
			req: copyReq(vocab.CopyToContainer, dest, "/etc"), want: vocab.ErrCopyFailed, say: "Read-only file system"},
		{name: "into a missing folder", f: &fakeContainer{},
			req: copyReq(vocab.CopyToContainer, dest, "/nope/x"), want: vocab.ErrCopyNotFound, say: "the folder /nope is not there"},
		{name: "the folder gone before tar", f: &fakeContainer{dirs: map[string]bool{"/tmp": true}, xcode: 1, xstderr: "tar: can't change directory to '/tmp': No such file or directory\n"},
			req: copyReq(vocab.CopyToContainer, dest, "/tmp"), want: vocab.ErrCopyNotFound, say: "can't change directory"},
		{name: "local source missing", f: &fakeContainer{}, req: copyReq(vocab.CopyToContainer, filepath.Join(dest, "nope"), "/tmp"), want: vocab.ErrCopyNotFound},
		{name: "local folder missing", f: &fakeContainer{}, req: copyReq(vocab.CopyFromContainer, filepath.Join(dest, "no", "x"), "/etc/hosts"), want: vocab.ErrInvalid},
		{name: "remote ..", f: &fakeContainer{}, req: copyReq(vocab.CopyFromContainer, dest, "/tmp/../etc/shadow"), want: vocab.ErrInvalid},
		{name: "remote /", f: &fakeContainer{}, req: copyReq(vocab.CopyFromContainer, dest, "/"), want: vocab.ErrInvalid},
		{name: "remote empty", f: &fakeContainer{}, req: copyReq(vocab.CopyFromContainer, dest, " "), want: vocab.ErrInvalid},
		{name: "read-only", f: &fakeContainer{}, opts: options{ReadOnly: true}, req: copyReq(vocab.CopyFromContainer, dest, "/etc/hosts")},
	}
	for _, c := range cases {
		s, d := copyShells(t, c.opts, c.f)
		_, err := s.Copy(context.Background(), c.req, nil)
		switch {
		case c.opts.ReadOnly:
			if vocab.ReasonOf(err) != vocab.ReasonReadOnly || len(d.calls) != 0 {
				t.Errorf("%s: %v after %d streams", c.name, err, len(d.calls))
			}
		case !errors.Is(err, c.want) || !strings.Contains(fmt.Sprint(err), c.say):
			t.Errorf("%s: %v, want %v saying %q", c.name, err, c.want, c.say)
		}
		if names, _ := os.ReadDir(dest); len(names) != 0 {
			t.Errorf("%s: the local folder holds %v", c.name, names)
		}
	}
}
