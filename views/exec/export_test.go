package exec

import "github.com/kyyard/kyyard/kube"

// EndedText is endedText's status line, for tests.
func EndedText(res kube.ExecResult, err error) string {
	s, _ := endedText(res, err)
	return s
}
