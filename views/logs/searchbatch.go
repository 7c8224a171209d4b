package logs

import (
	"bytes"
	"runtime"
	"sort"
	"sync"
)

// batcher finds the hits of consecutive lines many at a time: their texts
// (lower-cased when the index is low) are joined by '\n' into one text of
// at most ix.limit bytes, searched by one call, and each hit is mapped back
// to its line. A call per line would cost more than the matching itself.
//
// This gives the hits of searching each line alone (findIn) because the
// expression has no ^, $, \A or \z (compile), a line start or end looks
// the same to \b and \B as the '\n' beside it, and every hit is checked to
// lie within one line: when one spans a '\n', the lines are searched one
// by one instead.
type batcher struct {
	ix     *index // a private copy: find's scratch space is its own
	text   []byte
	starts []int // where each line starts in text
	seqs   []int64
	out    []match
}

func newBatcher(ix *index, out []match) *batcher {
	own := *ix
	own.matches, own.lines, own.scratch = nil, nil, nil
	bt := &batcher{ix: &own, out: out}
	if own.chunk {
		bt.text = make([]byte, 0, own.limit)
	}
	return bt
}

// add searches the entry seq with text plain (maybe later, when the
// joined text is full or flush is called): plain may be reused after.
func (bt *batcher) add(seq int64, plain []byte) {
	ix := bt.ix
	if !ix.chunk {
		bt.out = ix.find(bt.out, seq, plain)
		return
	}
	sep := min(len(bt.seqs), 1)
	if len(bt.text)+sep+len(plain) > ix.limit {
		bt.flush()
		sep = 0
		if len(plain) > ix.limit {
			bt.out = ix.find(bt.out, seq, plain)
			return
		}
	}
	n := len(bt.text)
	start := n + sep
	if ix.low {
		bt.text = bt.text[:start+len(plain)]
		if _, ok := lowerASCII(bt.text[start:], plain); !ok {
			// Not ASCII: this line is matched as it is, by re.
			bt.text = bt.text[:n]
			bt.flush()
			bt.out = ix.find(bt.out, seq, plain)
			return
		}
		if sep == 1 {
			bt.text[n] = '\n'
		}
	} else {
		if sep == 1 {
			bt.text = append(bt.text, '\n')
		}
		bt.text = append(bt.text, plain...)
	}
	bt.starts = append(bt.starts, start)
	bt.seqs = append(bt.seqs, seq)
}

// flush searches the lines added since the last flush.
func (bt *batcher) flush() {
	if len(bt.seqs) == 0 {
		return
	}
	ix, text := bt.ix, bt.text
	defer func() {
		bt.text, bt.starts, bt.seqs = bt.text[:0], bt.starts[:0], bt.seqs[:0]
	}()
	from := 0 // the first line that may have a hit
	if len(ix.need) > 0 {
		i := bytes.Index(text, ix.need)
		if i < 0 {
			return
		}
		from = sort.Search(len(bt.starts), func(l int) bool { return bt.starts[l] > i }) - 1
	}
	mark := len(bt.out)
	base := bt.starts[from]
	hay := text[base:]
	line, ok := from, true
	if ix.lit != nil {
		for at := 0; ok; {
			i := bytes.Index(hay[at:], ix.lit)
			if i < 0 {
				break
			}
			s := base + at + i
			ok = bt.emit(&line, s, s+len(ix.lit))
			at += i + len(ix.lit)
		}
	} else {
		for _, loc := range ix.cre.FindAllIndex(hay, -1) {
			if loc[1] > loc[0] { // an empty match marks nothing
				if ok = bt.emit(&line, base+loc[0], base+loc[1]); !ok {
					break
				}
			}
		}
	}
	if ok {
		return
	}
	// A hit spanned a '\n': search each line alone.
	bt.out = bt.out[:mark]
	for l := from; l < len(bt.seqs); l++ {
		bt.out = ix.findIn(bt.out, bt.seqs[l], text[bt.starts[l]:bt.lineEnd(l)])
	}
}

// lineEnd is where line l of text ends (its '\n', or the text's end).
func (bt *batcher) lineEnd(l int) int {
	if l+1 < len(bt.starts) {
		return bt.starts[l+1] - 1
	}
	return len(bt.text)
}

// emit records the hit [s, e) of the joined text, found after the start
// of line *line, and moves *line to its line; false when it does not lie
// within that line.
func (bt *batcher) emit(line *int, s, e int) bool {
	for *line+1 < len(bt.starts) && bt.starts[*line+1] <= s {
		*line++
	}
	if e > bt.lineEnd(*line) {
		return false
	}
	st := bt.starts[*line]
	bt.out = append(bt.out, match{seq: bt.seqs[*line], start: int32(s - st), end: int32(e - st)})
	return true
}

// searchParts is how many goroutines index n entries: one per core, each
// with at least minPart entries.
func searchParts(n int) int {
	const minPart = 8192
	return max(1, min(runtime.GOMAXPROCS(0), n/minPart))
}

// indexAll indexes the log lines of seqs [from, to) into ix (whose
// matches and lines are replaced), split across the cores: each part is
// searched by its own batcher, and the parts' hits joined in order.
func (b *buffer) indexAll(ix *index, from, to int64) {
	parts := searchParts(int(to - from))
	outs := make([][]match, parts)
	var wg sync.WaitGroup
	for p := parts - 1; p >= 0; p-- {
		lo := from + (to-from)*int64(p)/int64(parts)
		hi := from + (to-from)*int64(p+1)/int64(parts)
		work := func() { outs[p] = b.indexRange(ix, lo, hi) }
		if p == 0 {
			work() // on this goroutine, while the others run
		} else {
			wg.Go(work)
		}
	}
	wg.Wait()
	total, lines := 0, 0
	for _, out := range outs {
		total += len(out)
		for i := range out {
			if i == 0 || out[i].seq != out[i-1].seq {
				lines++
			}
		}
	}
	ix.matches = make([]match, 0, total)
	ix.lines = make([]int64, 0, lines)
	for _, out := range outs {
		ix.matches = append(ix.matches, out...)
	}
	for i, m := range ix.matches {
		if i == 0 || m.seq != ix.matches[i-1].seq {
			ix.lines = append(ix.lines, m.seq)
		}
	}
}

// indexRange returns the hits of the log lines of seqs [from, to), in
// order. Only entries are read: it may run beside other indexRange calls.
func (b *buffer) indexRange(ix *index, from, to int64) []match {
	// Most searches hit a line at most once: room for that up front.
	bt := newBatcher(ix, make([]match, 0, min(to-from, 1<<16)))
	var scratch []byte
	for seq := from; seq < to; seq++ {
		e := b.at(seq)
		if e.kind != kindLine {
			continue
		}
		p := e.plain(scratch)
		if e.flags&flagSGR != 0 {
			scratch = p
		}
		bt.add(seq, p)
	}
	bt.flush()
	return bt.out
}
