package logstream

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"
)

type countSink struct{ n int }

func (s *countSink) Write(b LogBatch) { s.n += len(b.Lines) }

// benchLogRequest streams data (want lines) through Streamer.logs, following
// until the lines are in, then ends it.
func benchLogRequest(b *testing.B, data []byte, want int) {
	c := &Streamer{cs: fake.NewClientset(testPod("p", "app")), kindInfo: logKinds}
	deps := c.logDeps()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sink := &countSink{}
	deps.open = func(_ context.Context, _, _ string, o *corev1.PodLogOptions) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}
	err := c.logs(ctx, LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "p", Options: LogOptions{TailLines: -1}}, sink, deps)
	if err != nil || sink.n != want {
		b.Fatalf("got %d lines, %v", sink.n, err)
	}
}
