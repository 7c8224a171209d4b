package logs

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/kyyard/kyyard/assets"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// benchLine is a 120-byte log line: a plain one, or (every tenth) one
// with colours and a tab, so the sanitiser's slow path is part of it.
func benchLine(i int) kube.LogLine {
	var text string
	if i%10 == 0 {
		text = fmt.Sprintf("\x1b[32mINFO\x1b[0m\t%08d request served path=/api/v1/items status=200 duration=12ms user=alice trace=abcdef0123", i)
	} else {
		text = fmt.Sprintf("2026-01-02 INFO %08d request served path=/api/v1/items status=200 duration=12ms user=alice trace=abcdef012345", i)
	}
	for len(text) < 120 {
		text += "x"
	}
	return kube.LogLine{Namespace: "demo", Pod: "web-x2k", Container: "web", Time: time.Unix(0, int64(i)), Raw: []byte(text[:120])}
}

func benchModel(b testing.TB, w, h int, n int) *Model {
	lipgloss.SetColorProfile(termenv.Ascii)
	vc := &views.Context{Styles: views.NewStyles(assets.DefaultTheme()), Keys: views.DefaultGlobalKeys(), Width: w, Height: h}
	m := New(vc, nil, kube.LogRequest{Kind: kube.KindPods, Namespace: "demo", Name: "web-x2k"}, WithBatchGap(0))
	m.sink = newSink(DefaultQueue)
	m.started = true
	lines := make([]kube.LogLine, 0, 1000)
	for i := 0; i < n; i++ {
		lines = append(lines, benchLine(i))
		if len(lines) == cap(lines) || i == n-1 {
			m.sink.Write(kube.LogBatch{Lines: lines})
			lines = make([]kube.LogLine, 0, 1000)
			for {
				items, _, _ := m.sink.take()
				if len(items) == 0 {
					break
				}
				m.ingest(items)
			}
		}
	}
	return m
}

// BenchmarkIngest: lines of 120 bytes through the sink into the buffer,
// sanitising included (budget: 300,000 lines/s).
func BenchmarkIngest(b *testing.B) {
	lines := make([]kube.LogLine, 100_000)
	for i := range lines {
		lines[i] = benchLine(i)
	}
	m := benchModel(b, 200, 50, 0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l := lines[i%len(lines)]
		l.Raw = append([]byte(nil), l.Raw...) // the receiver owns Raw
		m.sink.Write(kube.LogBatch{Lines: []kube.LogLine{l}})
		if i%1000 == 999 {
			items, _, _ := m.sink.take()
			m.ingest(items)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkIngestSearching: the same while a search indexes each line.
func BenchmarkIngestSearching(b *testing.B) {
	m := benchModel(b, 200, 50, 0)
	m.find("status=500")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l := benchLine(i)
		m.sink.Write(kube.LogBatch{Lines: []kube.LogLine{l}})
		if i%1000 == 999 {
			items, _, _ := m.sink.take()
			m.ingest(items)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// TestHeapOf100kLines reports the heap 100,000 buffered lines of 120 bytes
// hold (budget 40 MB); it reports, it does not assert.
func TestHeapOf100kLines(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := benchModel(t, 200, 50, 100_000)
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("100,000 lines of 120 bytes: %.1f MB of heap", float64(after.HeapAlloc-before.HeapAlloc)/(1<<20))
	runtime.KeepAlive(m)
}

// BenchmarkFrame: one 200x50 frame with 100,000 lines buffered (budget
// 2 ms), following and scrolled to the middle, wrap on and off, with a
// search.
func BenchmarkFrame(b *testing.B) {
	m := benchModel(b, 200, 50, 100_000)
	for _, wrap := range []bool{false, true} {
		for _, middle := range []bool{false, true} {
			name := fmt.Sprintf("wrap=%v/middle=%v", wrap, middle)
			b.Run(name, func(b *testing.B) {
				m.wrap = wrap
				m.follow = !middle
				m.top, m.sub = 50_000, 0
				for i := 0; i < b.N; i++ {
					m.cache = nil // every frame drawn afresh
					_ = m.View()
				}
			})
		}
	}
}

// BenchmarkSearch: a search over 100,000 lines (budget 50 ms): a word,
// and a regular expression.
func BenchmarkSearch(b *testing.B) {
	m := benchModel(b, 200, 50, 100_000)
	for _, q := range []string{"alice", "ALICE", "status=2\\d\\d duration"} {
		b.Run(q, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				m.endSearch()
				m.find(q)
			}
		})
	}
}

// BenchmarkNext: n to the next match, with its redraw (budget 1 ms).
func BenchmarkNext(b *testing.B) {
	m := benchModel(b, 200, 50, 100_000)
	m.find("request")
	key := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("n")}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Update(key)
	}
}

// BenchmarkKeyWhileStreaming: a stream delivers 10,000 lines/s in
// batches (one batch per 25 ms gap, 250 lines); between batches a key
// (scroll up, n) is answered: Update and View of the key press (budget
// 50 ms). The reported ns/op is one batch plus one key with two frames.
func BenchmarkKeyWhileStreaming(b *testing.B) {
	m := benchModel(b, 200, 50, 100_000)
	m.find("user=alice")
	keys := []tea.KeyMsg{{Type: tea.KeyUp}, {Type: tea.KeyRunes, Runes: []rune("n")}, {Type: tea.KeyRunes, Runes: []rune("G")}}
	worst := time.Duration(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		batch := make([]kube.LogLine, 250)
		for j := range batch {
			batch[j] = benchLine(i*250 + j)
		}
		m.sink.Write(kube.LogBatch{Lines: batch})
		m.Update(readyMsg{owner: m, gen: m.gen, arm: m.arm})
		_ = m.View()
		start := time.Now()
		m.Update(keys[i%len(keys)])
		_ = m.View()
		worst = max(worst, time.Since(start))
	}
	b.ReportMetric(float64(worst.Microseconds()), "worst-key-µs")
}

func benchLineRaw(raw []byte) kube.LogLine {
	return kube.LogLine{Namespace: "demo", Pod: "web-x2k", Container: "web", Raw: append([]byte(nil), raw...)}
}
