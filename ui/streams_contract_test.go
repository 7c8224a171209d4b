package ui_test

import (
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views/exec"
	"github.com/kyyard/kyyard/views/logs"
)

// *kube.Client is what the root hands the log viewer and the shell.
var (
	_ logs.Streamer = (*kube.Client)(nil)
	_ exec.Execer   = (*kube.Client)(nil)
	_ exec.Debugger = (*kube.Client)(nil)
)
