package yamledit

// The hand-off to the person's editor: the text goes to a temporary file
// that only they may read (mode 0600, as kubectl edit's), the terminal is
// handed to $KUBE_EDITOR or $EDITOR with tea.ExecProcess (Bubble Tea
// releases the terminal and restores it after), and the file is read back
// and removed as soon as the editor ends.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
)

// EditedMsg is what a Handoff's command returns once the editor ended.
type EditedMsg struct {
	// Err is the editor's failure (it could not start, it exited non-zero);
	// nil when it ended normally.
	Err error
}

// Handoff runs an editor on the file at path and returns the command that
// ends in an EditedMsg once it exited. nil: kyyard's own text area.
type Handoff func(path string) tea.Cmd

// EditorCommand is the editor the person chose, as kubectl edit finds it
// (k8s.io/kubectl/pkg/cmd/util/editor: $KUBE_EDITOR, then $EDITOR), read
// through getenv; "" when neither is set (kyyard then uses its own text
// area, where kubectl would start vi).
func EditorCommand(getenv func(string) string) string {
	for _, v := range []string{"KUBE_EDITOR", "EDITOR"} {
		if s := strings.TrimSpace(getenv(v)); s != "" {
			return s
		}
	}
	return ""
}

// ExecEditor is the Handoff that runs command on the file with the
// terminal released (tea.ExecProcess). A command with spaces ("code -w",
// "vim -u NONE") runs through sh -c with the file as its last argument,
// as kubectl does; one without is run directly.
func ExecEditor(command string) Handoff {
	return func(path string) tea.Cmd {
		var c *exec.Cmd
		if strings.ContainsAny(command, " \t") {
			c = exec.Command("sh", "-c", command+` "$1"`, "kyyard-edit", path)
		} else {
			c = exec.Command(command, path)
		}
		return tea.ExecProcess(c, func(err error) tea.Msg {
			if err != nil {
				err = fmt.Errorf("the editor %q failed: %w", command, err)
			}
			return EditedMsg{Err: err}
		})
	}
}

// writeFile writes text to a new temporary file named after the object
// ("kyyard-edit-configmaps-web-*.yaml"), mode 0600, and returns its path.
func writeFile(kind, name, text string) (string, error) {
	f, err := os.CreateTemp("", "kyyard-edit-"+safeName(kind)+"-"+safeName(name)+"-*.yaml")
	if err != nil {
		return "", fmt.Errorf("make the file to edit: %w", err)
	}
	path := f.Name()
	if err := f.Chmod(0o600); err == nil {
		_, err = f.WriteString(text)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return "", fmt.Errorf("write the file to edit: %w", err)
	}
	return path, nil
}

// readFile reads the edited file and removes it, whatever the read did.
func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if rerr := os.Remove(path); rerr != nil && !os.IsNotExist(rerr) && err == nil {
		err = fmt.Errorf("remove %s: %w", path, rerr)
	}
	if err != nil {
		return "", fmt.Errorf("read the edited file: %w", err)
	}
	return string(b), nil
}

// safeName keeps a name's letters, digits, dots and dashes for a file
// name (at most 40), the rest as "_".
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= 40 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// headerMark starts every line of the header kyyard writes above the text.
const headerMark = "# "

// fileText is the file's content: the header's lines as comments, then
// the text.
func fileText(header []string, text string) string {
	var b strings.Builder
	for _, l := range header {
		for _, part := range strings.Split(l, "\n") {
			b.WriteString(strings.TrimRight(headerMark+part, " ") + "\n")
		}
	}
	if len(header) > 0 {
		b.WriteString("#\n")
	}
	b.WriteString(text)
	return b.String()
}

// yamlLine finds the line of a YAML parser's error ("yaml: line 10:").
var yamlLine = regexp.MustCompile(`yaml: line (\d+)`)

// shiftLines counts the line numbers of YAML errors in header (which
// count the text's lines) from the top of the file fileText writes: the
// header's lines come first.
func shiftLines(header []string) []string {
	n := 0
	for _, l := range header {
		n += strings.Count(l, "\n") + 1
	}
	if len(header) > 0 {
		n++ // the "#" line
	}
	out := make([]string, len(header))
	for i, l := range header {
		out[i] = yamlLine.ReplaceAllStringFunc(l, func(s string) string {
			k, err := strconv.Atoi(yamlLine.FindStringSubmatch(s)[1])
			if err != nil {
				return s
			}
			return fmt.Sprintf("yaml: line %d", k+n)
		})
	}
	return out
}

// stripHeader is text without the comment lines at its top (kyyard's
// header, or the person's own comments there: YAML ignores them alike).
func stripHeader(text string) string {
	for text != "" {
		line, rest, _ := strings.Cut(text, "\n")
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			break
		}
		text = rest
	}
	return text
}

// staleAge is how old a YAML edit's file left in the temporary folder must
// be before SweepStale removes it: older than any edit still under way.
const staleAge = 24 * time.Hour

// SweepStale removes the files YAML edits left in dir (os.TempDir) when a
// kyyard was killed while an editor ran (SIGKILL, a crash: the file is
// removed as soon as the editor ends otherwise): regular files named
// kyyard-edit-*.yaml, not links, last written more than 24 hours before
// now. A Secret's file holds its values decoded; this keeps them from
// lying about. It returns how many it removed; a file it cannot stat or
// remove is left alone.
func SweepStale(dir string, now time.Time) int {
	paths, err := filepath.Glob(filepath.Join(dir, "kyyard-edit-*.yaml"))
	if err != nil {
		return 0
	}
	n := 0
	for _, p := range paths {
		st, err := os.Lstat(p)
		if err != nil || !st.Mode().IsRegular() || now.Sub(st.ModTime()) < staleAge {
			continue
		}
		if os.Remove(p) == nil {
			n++
		}
	}
	return n
}

// WriteEditFile writes header (each line a comment, a YAML error's line
// number counted from the file's top) above text to a new temporary file
// named after kind and name, mode 0600, for a Handoff to open; it returns
// the file's path. Another screen that hands text to the editor (:create)
// writes its file here, as the YAML edit does. Errors: the file cannot be
// made or written (nothing is left behind).
func WriteEditFile(kind, name string, header []string, text string) (string, error) {
	return writeFile(kind, name, fileText(shiftLines(header), text))
}

// ReadEditFile reads back the file WriteEditFile wrote once the editor
// ended, removes it whatever the read did, and returns the text without
// the comment lines at its top. Errors: the file cannot be read.
func ReadEditFile(path string) (string, error) {
	content, err := readFile(path)
	if err != nil {
		return "", err
	}
	return stripHeader(content), nil
}

// ReadBack is what a screen does once its editor ended (EditedMsg) on the
// file at path: the text read back (ReadEditFile; ok false when it could
// not be) and, when the editor failed or the file could not be read, the
// failure to hold the screen on, said with "nothing sent".
func ReadBack(path string, msg EditedMsg) (text string, ok bool, err error) {
	text, rerr := ReadEditFile(path)
	switch {
	case msg.Err != nil:
		err = fmt.Errorf("%s: nothing sent", views.ErrText(msg.Err))
	case rerr != nil:
		err = fmt.Errorf("%s: nothing sent", views.ErrText(rerr))
	}
	return text, rerr == nil, err
}
