package logstream

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkLogIngest measures the splitter and the timestamp parser on
// 120-byte lines as the API server sends them (timestamps=true), fed in
// 32 KiB reads as a stream delivers them. lines/s is the ingest rate.
func BenchmarkLogIngest(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; buf.Len() < 4<<20; i++ {
		prefix := fmt.Sprintf("2026-01-02T03:04:%02d.%09dZ ", i%60, i)
		text := fmt.Sprintf("{\"level\":\"info\",\"msg\":\"request served\",\"n\":%d,\"path\":\"/api/orders\"}", i)
		pad := 119 - len(prefix) - len(text)
		buf.WriteString(prefix + text + string(bytes.Repeat([]byte{'x'}, max(pad, 0))) + "\n")
	}
	data := buf.Bytes()
	lines := bytes.Count(data, []byte{'\n'})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	out := make([]LogLine, 0, 512)
	for range b.N {
		s := newLogSplitter("ns", "pod", "c")
		for p := data; len(p) > 0; {
			n := min(len(p), logReadSize)
			out = s.feed(p[:n], out[:0])
			p = p[n:]
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkLogPipeline measures a whole followed request end to end
// (read, split, parse, resume bookkeeping, merge, batch, sink) on 120-byte
// lines from one stream.
func BenchmarkLogPipeline(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&buf, "2026-01-02T03:04:%02d.%09dZ %-87d\n", (i/1000)%60, i, i)
	}
	data := buf.Bytes()
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		benchLogRequest(b, data, 100000)
	}
	b.ReportMetric(float64(100000)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
