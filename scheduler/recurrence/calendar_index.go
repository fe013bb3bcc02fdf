package recurrence

import (
	"math"
	"math/bits"
)

// spanIndex narrows the search for the span of excluded days around an
// instant to a few spans: the instants from base on are cut into buckets
// of 1<<shift seconds, and first[b] is the index of the first span that
// ends after the start of bucket b. There are about as many buckets as
// spans (between one and two per span), so a bucket's spans are usually
// one or two and a look-up costs a subtraction, a shift and two loads,
// while a dense cluster of spans still costs no more than a binary search
// over them. The zero spanIndex (a calendar of few spans) narrows nothing.
type spanIndex struct {
	base  int64
	shift uint
	first []int32
}

// minIndexedSpans is the number of spans from which a calendar gets an
// index: below it a binary search is as quick.
const minIndexedSpans = 8

// newSpanIndex builds the index of sorted, disjoint spans.
func newSpanIndex(spans []instantSpan) spanIndex {
	n := len(spans)
	if n < minIndexedSpans || n > 1<<30 {
		return spanIndex{}
	}
	base := spans[0].start
	top := spans[n-1].end // the last finite bound
	if spans[n-1].end == math.MaxInt64 {
		top = spans[n-1].start
	}
	width := uint64(top-base) / uint64(n) // the bucket width is at most this
	shift := uint(0)
	if width > 1 {
		shift = uint(bits.Len64(width) - 1)
	}
	buckets := (uint64(top-base) >> shift) + 1
	ix := spanIndex{base: base, shift: shift, first: make([]int32, buckets+1)}
	i := 0
	for b := range ix.first {
		x := base + int64(b)<<shift
		for i < n && spans[i].end <= x {
			i++
		}
		ix.first[b] = int32(i)
	}
	return ix
}

// bounds returns the range [lo, hi) of the n spans in which the first span
// that ends after u lies (hi itself when none in the range does).
func (ix *spanIndex) bounds(u int64, n int) (lo, hi int) {
	f := ix.first
	if len(f) == 0 {
		return 0, n
	}
	if u < ix.base {
		return 0, 0 // the first span ends after its start, base
	}
	b := (uint64(u) - uint64(ix.base)) >> ix.shift
	if b+1 < uint64(len(f)) {
		return int(f[b]), int(f[b+1])
	}
	return int(f[len(f)-1]), n
}
