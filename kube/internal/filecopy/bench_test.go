package filecopy_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/kyyard/kyyard/kube/internal/filecopy"
)

// The copy's budgets: pack and unpack throughput, in MB/s (b.SetBytes),
// for one 32 MiB file and for 1,000 files of 4 KiB.

func bigTree(b *testing.B) string {
	src := filepath.Join(b.TempDir(), "big")
	if err := os.Mkdir(src, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "f"), bytes.Repeat([]byte{7}, 32<<20), 0o644); err != nil {
		b.Fatal(err)
	}
	return src
}

func smallTree(b *testing.B) string {
	src := filepath.Join(b.TempDir(), "small")
	if err := os.Mkdir(src, 0o755); err != nil {
		b.Fatal(err)
	}
	body := bytes.Repeat([]byte{7}, 4<<10)
	for i := 0; i < 1000; i++ {
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("f%04d", i)), body, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return src
}

func benchPack(b *testing.B, src string) {
	total, _ := filecopy.LocalSize(src)
	b.SetBytes(total)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := filecopy.Pack(io.Discard, src, filecopy.NewMeter(total, 0, nil, nil)); err != nil {
			b.Fatal(err)
		}
	}
}

func benchStage(b *testing.B, src string) {
	total, _ := filecopy.LocalSize(src)
	var buf bytes.Buffer
	if _, err := filecopy.Pack(&buf, src, nil); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	dest := b.TempDir()
	b.SetBytes(total)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st, err := filecopy.Stage(bytes.NewReader(data), dest, filecopy.StageOptions{Meter: filecopy.NewMeter(total, 0, nil, nil)})
		if err != nil {
			b.Fatal(err)
		}
		st.Discard()
	}
}

func BenchmarkPack32MiB(b *testing.B)      { benchPack(b, bigTree(b)) }
func BenchmarkPack1000x4KiB(b *testing.B)  { benchPack(b, smallTree(b)) }
func BenchmarkStage32MiB(b *testing.B)     { benchStage(b, bigTree(b)) }
func BenchmarkStage1000x4KiB(b *testing.B) { benchStage(b, smallTree(b)) }
