package attack

import (
	"math/bits"
	"slices"
)

// bitmapMaxPairs is the largest number of node pairs n(n−1)/2 whose set is
// a bitmap (32 MiB; n ≈ 23,000 nodes). Larger graphs use a hash set: the
// bitmap of an arXiv-sized graph (169,343 nodes, 1.4e10 pairs) would take
// 1.8 GB, and PR-BCD clones its block.
const bitmapMaxPairs = 1 << 28

// pairSet is a set of linear pair indices (pairToLinear): a bitmap over all
// pairs when there are at most bitmapMaxPairs of them, else an
// open-addressing hash set (linear probing, backward-shift deletion) whose
// memory is O(entries): a block of 1e6 pairs takes 16 MiB whatever n is.
// Both are exact, so which one a block uses never changes its pairs.
type pairSet struct {
	bits  []uint64 // bitmap mode
	slots []int64  // hash mode: lin+1, 0 = empty; len a power of two
	count int      // hash mode: entries
	shift uint     // hash mode: 64 − log2(len(slots))
}

// newPairSet returns an empty set for linear indices below np, with room for
// about hint entries without growing (hash mode); limit is the largest np
// kept as a bitmap (bitmapMaxPairs).
func newPairSet(np int64, hint int, limit int64) *pairSet {
	if np <= limit {
		return &pairSet{bits: make([]uint64, (np+63)/64)}
	}
	s := &pairSet{}
	s.alloc(hint)
	return s
}

// alloc gives the hash set an empty table for at least want entries at a
// load factor of at most ½.
func (s *pairSet) alloc(want int) {
	size := 1024
	for size < 2*want {
		size *= 2
	}
	s.slots = make([]int64, size)
	s.shift = uint(64 - bits.TrailingZeros(uint(size)))
	s.count = 0
}

// home is the first slot probed for key (Fibonacci hashing).
func (s *pairSet) home(key int64) int {
	return int((uint64(key) * 0x9e3779b97f4a7c15) >> s.shift)
}

func (s *pairSet) has(lin int64) bool {
	if s.bits != nil {
		return s.bits[lin>>6]&(1<<(lin&63)) != 0
	}
	key, mask := lin+1, len(s.slots)-1
	for i := s.home(key); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case key:
			return true
		case 0:
			return false
		}
	}
}

// add inserts lin (a no-op if present).
func (s *pairSet) add(lin int64) {
	if s.bits != nil {
		s.bits[lin>>6] |= 1 << (lin & 63)
		return
	}
	if 2*(s.count+1) > len(s.slots) {
		old := s.slots
		s.alloc(2 * (s.count + 1))
		for _, k := range old {
			if k != 0 {
				s.insert(k)
			}
		}
	}
	s.insert(lin + 1)
}

// insert puts key (lin+1) into the table, which has room.
func (s *pairSet) insert(key int64) {
	mask := len(s.slots) - 1
	i := s.home(key)
	for ; s.slots[i] != 0; i = (i + 1) & mask {
		if s.slots[i] == key {
			return
		}
	}
	s.slots[i] = key
	s.count++
}

// remove deletes lin (a no-op if absent).
func (s *pairSet) remove(lin int64) {
	if s.bits != nil {
		s.bits[lin>>6] &^= 1 << (lin & 63)
		return
	}
	key, mask := lin+1, len(s.slots)-1
	i := s.home(key)
	for ; s.slots[i] != key; i = (i + 1) & mask {
		if s.slots[i] == 0 {
			return
		}
	}
	// Backward shift: move later entries of the probe run into the hole
	// when their home slot does not lie cyclically in (hole, position].
	for j := (i + 1) & mask; s.slots[j] != 0; j = (j + 1) & mask {
		h := s.home(s.slots[j])
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			s.slots[i] = s.slots[j]
			i = j
		}
	}
	s.slots[i] = 0
	s.count--
}

// removeAll deletes the pairs of an n-node graph; when they are all the
// hash set holds, it is cleared at once.
func (s *pairSet) removeAll(n int, pairs []Flip) {
	if s.bits == nil && len(pairs) == s.count {
		clear(s.slots)
		s.count = 0
		return
	}
	for _, f := range pairs {
		s.remove(pairToLinear(n, f))
	}
}

// clone copies the set; a hash set gets room for extra more entries.
func (s *pairSet) clone(extra int) *pairSet {
	if s.bits != nil {
		return &pairSet{bits: slices.Clone(s.bits)}
	}
	if 2*(s.count+extra) <= len(s.slots) {
		return &pairSet{slots: slices.Clone(s.slots), count: s.count, shift: s.shift}
	}
	c := &pairSet{}
	c.alloc(s.count + extra)
	for _, k := range s.slots {
		if k != 0 {
			c.insert(k)
		}
	}
	return c
}
