// Package history is the session's record of actions: every outcome of
// an action (done or refused), kept in memory for the `:history` screen
// and appended, one line each, to a file the person can read
// ($XDG_CONFIG_HOME/kyyard/history.log).
package history

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Entry is one outcome of the session.
type Entry struct {
	// Time is when the outcome arrived.
	Time time.Time
	// Context is the kubeconfig context the action ran in.
	Context string
	// Outcome is what was asked and what came of it.
	Outcome kube.OperateOutcome
}

// Code is the outcome code: "ok", or the refusal's reason.
func (e Entry) Code() string {
	if e.Outcome.OK() {
		return "ok"
	}
	return string(e.Outcome.Reason)
}

// Line is the entry as one tab-separated line of the file: RFC 3339 time,
// context, object (<namespace>/<kind>/<name>), action, code, detail (tabs
// and line breaks of the detail made spaces).
func (e Entry) Line() string {
	clean := oneLine
	o := e.Outcome
	return strings.Join([]string{e.Time.Format(time.RFC3339), clean(e.Context), clean(o.Op.Ref.String()),
		string(o.Op.Action), e.Code(), clean(o.Detail)}, "\t")
}

// Append appends the entries to the file at path, one line each, making
// its folder (0700) and the file (0600) when missing. Errors: the file
// cannot be made or written; path is "".
func Append(path string, entries []Entry) error {
	if path == "" {
		return errors.New("no history file")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e.Line() + "\n")
	}
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// oneLine is s sanitised, its tabs and line breaks made spaces.
func oneLine(s string) string {
	return views.Sanitize(strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s))
}
