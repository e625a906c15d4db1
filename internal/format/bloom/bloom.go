// Package bloom implements Hudi's record-key bloom filters bit for bit as Java writes
// them into the `org.apache.hudi.bloomfilter` Parquet footer value (and the metadata
// table's bloom_filters partition): SIMPLE (Hadoop's BloomFilter) and DYNAMIC_V0
// (HoodieDynamicBoundedBloomFilter), serialized with Java's DataOutput (big-endian) and
// standard base64 with padding.
//
// Java sources the layout follows (facts only): org.apache.hudi.common.bloom.{
// BloomFilterFactory, BloomFilterUtils, SimpleBloomFilter, HoodieDynamicBoundedBloomFilter,
// InternalFilter, InternalBloomFilter, InternalDynamicBloomFilter, HashFunction} and
// org.apache.hudi.common.util.hash.{MurmurHash, JenkinsHash}.
package bloom

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strings"
)

// Type is a bloom filter type code, as stored under the footer key
// `hoodie_bloom_filter_type_code` (which Java writes only for dynamic filters).
type Type string

// Filter type codes (BloomFilterTypeCode).
const (
	Simple    Type = "SIMPLE"
	DynamicV0 Type = "DYNAMIC_V0"
)

// Hudi's defaults: hoodie.index.bloom.num_entries, hoodie.index.bloom.fpp and
// hoodie.bloom.index.filter.dynamic.max.entries.
const (
	DefaultNumEntries = 60000
	DefaultFPP        = 1e-9
	DefaultMaxEntries = 100000
)

const (
	// version is InternalFilter.VERSION; a positive first int marks the pre-versioned
	// format (that int is nbHash and the hash is Jenkins, with no hash-type byte).
	version = -1
	// headerSize is version(4) + nbHash(4) + hashType(1) + vectorSize(4).
	headerSize = 13
	// minRowSize is the smallest serialized InternalBloomFilter: a legacy header
	// (nbHash(4) + vectorSize(4)) and a 1-byte vector. It bounds how many dynamic rows
	// a given input can possibly hold, so a forged row count cannot force a huge allocation.
	minRowSize = 9
	// maxHashes bounds nbHash on read. Java allocates int[nbHash] per lookup, so a forged
	// huge value would exhaust memory there; Hudi's sizing never exceeds a few dozen.
	maxHashes = 1 << 16
)

// Filter is a Hudi bloom filter over record keys (hashed as their UTF-8 bytes).
type Filter interface {
	// Add records a key. Java rejects empty keys ("key length must be > 0"), so an empty
	// key is ignored here: no Java filter can contain it.
	Add(key string)
	// MightContain reports whether key may have been added; false means definitely not.
	// It returns true for the empty key, which Java cannot test, so callers never skip
	// a file because of it.
	MightContain(key string) bool
	// Type is the filter's type code.
	Type() Type
	// Serialize returns the footer value: standard base64 (with padding) of the bytes
	// Java's DataOutput writes.
	Serialize() string
}

// Options sizes a new filter. Zero values select Hudi's defaults.
type Options struct {
	NumEntries int     // expected keys (per row for DYNAMIC_V0); default 60000
	FPP        float64 // target false-positive probability; default 1e-9
	MaxEntries int     // DYNAMIC_V0 only: stop adding rows at this many keys; default 100000
}

// New creates an empty filter sized like Java's BloomFilterFactory.createBloomFilter,
// always with Murmur hashing.
func New(t Type, o Options) (Filter, error) {
	t, o, k, bits, err := params(t, o)
	if err != nil {
		return nil, err
	}
	if t == Simple {
		return &simpleFilter{v: newVector(k, hashMurmur, bits)}, nil
	}
	return &dynamicFilter{
		k: k, hashType: hashMurmur, size: bits,
		nr: int32(o.NumEntries), maxNr: int32(o.MaxEntries),
		rows: []*vector{newVector(k, hashMurmur, bits)},
	}, nil
}

// VectorBytes is the size of the bit vector New(t, o) allocates (one row of a DYNAMIC_V0
// filter), without allocating it; it validates o as New does. A writer holding many open
// files keeps their keys instead of a filter until the keys would take this much.
func VectorBytes(t Type, o Options) (int, error) {
	_, _, _, bits, err := params(t, o)
	if err != nil {
		return 0, err
	}
	return nBytes(bits), nil
}

// params validates t and o (defaults applied) and computes the hash count and bit size.
func params(t Type, o Options) (Type, Options, int32, int32, error) {
	t = canonicalType(string(t))
	if t != Simple && t != DynamicV0 {
		return t, o, 0, 0, fmt.Errorf("bloom: unknown filter type %q (want %q or %q)", t, Simple, DynamicV0)
	}
	if o.NumEntries == 0 {
		o.NumEntries = DefaultNumEntries
	}
	if o.FPP == 0 {
		o.FPP = DefaultFPP
	}
	if o.MaxEntries == 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.NumEntries < 0 || o.NumEntries > math.MaxInt32 {
		return t, o, 0, 0, fmt.Errorf("bloom: NumEntries %d out of range (1..%d)", o.NumEntries, math.MaxInt32)
	}
	if !(o.FPP > 0 && o.FPP < 1) {
		return t, o, 0, 0, fmt.Errorf("bloom: FPP %v must be in (0, 1)", o.FPP)
	}
	if o.MaxEntries < 0 || o.MaxEntries > math.MaxInt32 {
		return t, o, 0, 0, fmt.Errorf("bloom: MaxEntries %d out of range (1..%d)", o.MaxEntries, math.MaxInt32)
	}
	// BloomFilterUtils.getBitSize / getNumHashes, evaluated in the same order as Java
	// so the doubles round identically.
	ln2 := math.Log(2)
	bitsF := math.Ceil(float64(o.NumEntries) * (-math.Log(o.FPP) / (ln2 * ln2)))
	if bitsF > math.MaxInt32 {
		// Java's (int) cast would saturate to Integer.MAX_VALUE bits; refuse instead of
		// silently building a 256 MiB filter with the wrong false-positive rate.
		return t, o, 0, 0, fmt.Errorf("bloom: NumEntries %d at FPP %v needs %.0f bits, more than the int32 vector size Java allows", o.NumEntries, o.FPP, bitsF)
	}
	bits := int32(bitsF)
	k := int32(math.Ceil(ln2 * float64(bits) / float64(o.NumEntries)))
	return t, o, k, bits, nil
}

// canonicalType maps a type code the way BloomFilterFactory does (equalsIgnoreCase).
func canonicalType(s string) Type {
	switch {
	case strings.EqualFold(s, string(Simple)):
		return Simple
	case strings.EqualFold(s, string(DynamicV0)):
		return DynamicV0
	}
	return Type(s)
}

// Deserialize parses a footer value. typeCode is the `hoodie_bloom_filter_type_code`
// footer value; "" (key absent) means SIMPLE, as in BaseFileUtils. Like Java's
// Base64.getDecoder it accepts input with or without padding, and like Java's
// DataInputStream parsing it ignores trailing bytes.
func Deserialize(serialized string, typeCode string) (Filter, error) {
	if typeCode == "" {
		typeCode = string(Simple)
	}
	t := canonicalType(typeCode)
	if t != Simple && t != DynamicV0 {
		return nil, fmt.Errorf("bloom: unknown filter type code %q (want %q or %q)", typeCode, Simple, DynamicV0)
	}
	raw, err := decodeBase64(serialized)
	if err != nil {
		return nil, fmt.Errorf("bloom: %s filter: %w", t, err)
	}
	r := &reader{b: raw}
	if t == Simple {
		v, err := r.vector("filter")
		if err != nil {
			return nil, fmt.Errorf("bloom: SIMPLE filter: %w", err)
		}
		return &simpleFilter{v: v}, nil
	}
	d, err := r.dynamic()
	if err != nil {
		return nil, fmt.Errorf("bloom: DYNAMIC_V0 filter: %w", err)
	}
	return d, nil
}

func decodeBase64(s string) ([]byte, error) {
	// Java's basic decoder makes the trailing '=' optional; Go's needs one of two modes.
	enc := base64.StdEncoding
	if len(s)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	b, err := enc.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("invalid base64 (%d chars): %w", len(s), err)
	}
	return b, nil
}

// vector is one InternalBloomFilter: its own header fields and its bit vector, bit i in
// byte i/8 under mask 1<<(i%8) (Java's BIT_VALUES, LSB first).
type vector struct {
	nbHash   int32
	hashType int8
	size     int32 // bits
	bits     []byte
	// recip is fastmodReciprocal(size), so position needs no division.
	recip uint64
}

func newVector(k int32, hashType int8, size int32) *vector {
	return &vector{nbHash: k, hashType: hashType, size: size, bits: make([]byte, nBytes(size)), recip: fastmodReciprocal(size)}
}

func nBytes(size int32) int { return int((int64(size) + 7) / 8) }

// Bit positions follow Hadoop's HashFunction: hash i is seeded with hash i-1 (starting
// at 0) and reduced with Java's signed remainder then Math.abs.

// next returns the hash after h.
func (v *vector) next(key string, h int32) int32 {
	if v.hashType == hashJenkins {
		return jenkins(key, h)
	}
	return murmur(key, h)
}

// position reduces a hash to a bit index. Go's % truncates toward zero like Java's, so
// the remainder has h's sign; |h % size| < size cannot overflow on negation.
func position(h, size int32) int32 {
	p := h % size
	if p < 0 {
		p = -p
	}
	return p
}

// Java's Math.abs(h % size) equals |h| mod size (the remainder takes h's sign and
// |h| mod size as its magnitude), and |h| always fits a uint32, even for MinInt32. The
// hot paths compute that unsigned remainder with Lemire's fastmod: for 32-bit a and d,
// a mod d == hi64((M*a mod 2^64) * d) with M = ceil(2^64/d) (exact for every 32-bit
// operand pair; d == 1 gives M == 0 and remainder 0, as required).

// fastmodReciprocal returns M for divisor size (> 0).
func fastmodReciprocal(size int32) uint64 { return ^uint64(0)/uint64(uint32(size)) + 1 }

// fastPosition is position(int32(h), size) for recip == fastmodReciprocal(size).
func fastPosition(h uint32, recip uint64, size int32) uint32 {
	a := h
	if int32(h) < 0 {
		a = -h
	}
	hi, _ := bits.Mul64(recip*uint64(a), uint64(uint32(size)))
	return uint32(hi)
}

func (v *vector) add(key string) {
	if v.hashType == hashMurmur && len(key) <= 4*maxDigestBlocks {
		var buf [maxDigestBlocks]uint32
		tail, hasTail := digestKey(key, buf[:])
		v.addDigested(buf[:len(key)>>2], uint32(len(key)), tail, hasTail)
		return
	}
	var h int32
	for i := int32(0); i < v.nbHash; i++ {
		h = v.next(key, h)
		p := position(h, v.size)
		v.bits[p>>3] |= 1 << (p & 7)
	}
}

// addDigested sets the bits of a digested key (Murmur vectors only).
func (v *vector) addDigested(blocks []uint32, n, tail uint32, hasTail bool) {
	bitv, recip, size := v.bits, v.recip, v.size
	var h uint32
	for i := int32(0); i < v.nbHash; i++ {
		h = murmurDigested(blocks, n, tail, hasTail, h)
		p := fastPosition(h, recip, size)
		bitv[p>>3] |= 1 << (p & 7)
	}
}

func (v *vector) test(key string) bool {
	if v.hashType == hashMurmur && len(key) <= 4*maxDigestBlocks {
		var buf [maxDigestBlocks]uint32
		tail, hasTail := digestKey(key, buf[:])
		return v.testDigested(buf[:len(key)>>2], uint32(len(key)), tail, hasTail)
	}
	var h int32
	for i := int32(0); i < v.nbHash; i++ {
		h = v.next(key, h)
		p := position(h, v.size)
		if v.bits[p>>3]&(1<<(p&7)) == 0 {
			return false
		}
	}
	return true
}

// testDigested reports whether every bit of a digested key is set (Murmur vectors only).
func (v *vector) testDigested(blocks []uint32, n, tail uint32, hasTail bool) bool {
	bitv, recip, size := v.bits, v.recip, v.size
	var h uint32
	for i := int32(0); i < v.nbHash; i++ {
		h = murmurDigested(blocks, n, tail, hasTail, h)
		p := fastPosition(h, recip, size)
		if bitv[p>>3]&(1<<(p&7)) == 0 {
			return false
		}
	}
	return true
}

// write appends InternalFilter.write + InternalBloomFilter.write. Java always writes the
// versioned header, even for a filter read from the legacy format.
func (v *vector) write(dst []byte) []byte {
	dst = appendInt32(dst, version)
	dst = appendInt32(dst, v.nbHash)
	dst = append(dst, byte(v.hashType))
	dst = appendInt32(dst, v.size)
	return append(dst, v.bits...)
}

func (v *vector) serializedSize() int { return headerSize + len(v.bits) }

// simpleFilter is SimpleBloomFilter: one vector.
type simpleFilter struct {
	v *vector
	b batch // keys added but not yet hashed into v
}

func (f *simpleFilter) Add(key string) {
	if key != "" {
		f.b.add(f.v, key)
	}
}

func (f *simpleFilter) MightContain(key string) bool {
	if key == "" {
		return true
	}
	if f.b.n != 0 {
		return f.b.testPending(f.v, key)
	}
	return f.v.test(key)
}

func (f *simpleFilter) Type() Type { return Simple }

func (f *simpleFilter) Serialize() string {
	b := f.v.write(make([]byte, 0, f.v.serializedSize()))
	f.b.applyTo(f.v, b[len(b)-len(f.v.bits):])
	return base64.StdEncoding.EncodeToString(b)
}

// dynamicFilter is HoodieDynamicBoundedBloomFilter / InternalDynamicBloomFilter: a growing
// list of vectors ("rows") of nr keys each, bounded at maxNr keys, after which keys are
// spread round-robin over the existing rows.
type dynamicFilter struct {
	// Outer header; new rows are created with these parameters.
	k        int32
	hashType int8
	size     int32

	nr    int32 // keys per row
	count int32 // currentNbRecord: keys added since the last row was created
	// maxNr is not serialized: a filter read back has maxNr 0 (Java's no-arg
	// constructor), so it never grows again and goes round-robin once its last row is full.
	maxNr int32
	// reachedMax and cur are Java's reachedMax/curMatrixIndex, also not serialized.
	reachedMax bool
	cur        uint64
	rows       []*vector
	b          batch // keys added but not yet hashed into their rows
}

// Add follows InternalDynamicBloomFilter.add/getActiveStandardBF exactly, including the
// quirk that the first key after the bound goes to row 0 without advancing the
// round-robin index, so row 0 receives two keys in a row.
func (d *dynamicFilter) Add(key string) {
	if key == "" {
		return
	}
	var row *vector
	// matrix.length * nr is Java int arithmetic; int32 wrap-around mirrors it.
	capacity := int32(len(d.rows)) * d.nr
	switch {
	case d.reachedMax:
		row = d.rows[d.cur%uint64(len(d.rows))]
		d.cur++
	case d.count >= d.nr && capacity < d.maxNr:
		row = newVector(d.k, d.hashType, d.size)
		d.rows = append(d.rows, row)
		d.count = 0
	case d.count >= d.nr:
		d.reachedMax = true
		row = d.rows[0]
	default:
		row = d.rows[len(d.rows)-1]
	}
	d.b.add(row, key)
	d.count++ // int32 wrap-around like Java's int
}

func (d *dynamicFilter) MightContain(key string) bool {
	if key == "" {
		return true
	}
	if d.b.n != 0 {
		for _, r := range d.rows {
			if d.b.testPending(r, key) {
				return true
			}
		}
		return false
	}
	if len(key) > 4*maxDigestBlocks {
		for _, r := range d.rows {
			if r.test(key) {
				return true
			}
		}
		return false
	}
	// Every Murmur row hashes the key to the same sequence (rows differ only in how many
	// hashes they use and the size they reduce by), so digest once and share the hashes.
	var buf [maxDigestBlocks]uint32
	tail, hasTail := digestKey(key, buf[:])
	blocks, n := buf[:len(key)>>2], uint32(len(key))
	for _, r := range d.rows {
		if r.hashType != hashMurmur {
			if r.test(key) {
				return true
			}
			continue
		}
		if r.testDigested(blocks, n, tail, hasTail) {
			return true
		}
	}
	return false
}

func (d *dynamicFilter) Type() Type { return DynamicV0 }

func (d *dynamicFilter) Serialize() string {
	n := headerSize + 12
	for _, r := range d.rows {
		n += r.serializedSize()
	}
	b := make([]byte, 0, n)
	b = appendInt32(b, version)
	b = appendInt32(b, d.k)
	b = append(b, byte(d.hashType))
	b = appendInt32(b, d.size)
	b = appendInt32(b, d.nr)
	b = appendInt32(b, d.count)
	b = appendInt32(b, int32(len(d.rows)))
	for _, r := range d.rows {
		b = r.write(b)
		d.b.applyTo(r, b[len(b)-len(r.bits):])
	}
	return base64.StdEncoding.EncodeToString(b)
}

// appendInt32 is DataOutput.writeInt: big-endian two's complement.
func appendInt32(dst []byte, v int32) []byte { return binary.BigEndian.AppendUint32(dst, uint32(v)) }

// reader parses Java DataInput bytes, naming the field and offset of any shortfall.
type reader struct {
	b   []byte
	off int
}

func (r *reader) remaining() int { return len(r.b) - r.off }

func (r *reader) int32(what string) (int32, error) {
	if r.remaining() < 4 {
		return 0, fmt.Errorf("truncated: %s (4 bytes) at offset %d, only %d bytes left of %d", what, r.off, r.remaining(), len(r.b))
	}
	v := int32(binary.BigEndian.Uint32(r.b[r.off:]))
	r.off += 4
	return v, nil
}

func (r *reader) int8(what string) (int8, error) {
	if r.remaining() < 1 {
		return 0, fmt.Errorf("truncated: %s (1 byte) at offset %d of %d", what, r.off, len(r.b))
	}
	v := int8(r.b[r.off])
	r.off++
	return v, nil
}

// header reads InternalFilter.readFields and applies the checks Java's HashFunction
// constructor makes (it throws on them), plus the maxHashes bound.
func (r *reader) header(what string) (k int32, hashType int8, size int32, err error) {
	start := r.off
	ver, err := r.int32(what + " version")
	if err != nil {
		return 0, 0, 0, err
	}
	switch {
	case ver > 0: // pre-versioned format: the int is nbHash, hashing is Jenkins
		k, hashType = ver, hashJenkins
	case ver == version:
		if k, err = r.int32(what + " nbHash"); err != nil {
			return 0, 0, 0, err
		}
		if hashType, err = r.int8(what + " hashType"); err != nil {
			return 0, 0, 0, err
		}
	default:
		return 0, 0, 0, fmt.Errorf("%s at offset %d: unsupported version %d (want -1, or a positive legacy nbHash)", what, start, ver)
	}
	if size, err = r.int32(what + " vectorSize"); err != nil {
		return 0, 0, 0, err
	}
	if k <= 0 || k > maxHashes {
		return 0, 0, 0, fmt.Errorf("%s at offset %d: nbHash %d out of range (1..%d)", what, start, k, maxHashes)
	}
	if hashType != hashJenkins && hashType != hashMurmur {
		return 0, 0, 0, fmt.Errorf("%s at offset %d: unknown hashType %d (want 0 Jenkins or 1 Murmur)", what, start, hashType)
	}
	if size <= 0 {
		return 0, 0, 0, fmt.Errorf("%s at offset %d: vectorSize %d must be > 0", what, start, size)
	}
	return k, hashType, size, nil
}

func (r *reader) vector(what string) (*vector, error) {
	k, ht, size, err := r.header(what)
	if err != nil {
		return nil, err
	}
	n := nBytes(size)
	if n > r.remaining() {
		return nil, fmt.Errorf("truncated: %s bit vector of %d bits (%d bytes) at offset %d, only %d bytes left of %d", what, size, n, r.off, r.remaining(), len(r.b))
	}
	v := &vector{nbHash: k, hashType: ht, size: size, bits: make([]byte, n), recip: fastmodReciprocal(size)}
	copy(v.bits, r.b[r.off:r.off+n])
	r.off += n
	// Java reads only bits < vectorSize into its BitSet, so stray high bits in the last
	// byte vanish on a Java round trip; clear them so Serialize matches Java.
	if rem := size & 7; rem != 0 {
		v.bits[n-1] &= byte(1)<<rem - 1
	}
	return v, nil
}

func (r *reader) dynamic() (*dynamicFilter, error) {
	k, ht, size, err := r.header("outer header")
	if err != nil {
		return nil, err
	}
	d := &dynamicFilter{k: k, hashType: ht, size: size}
	if d.nr, err = r.int32("nr (keys per row)"); err != nil {
		return nil, err
	}
	if d.count, err = r.int32("currentNbRecord"); err != nil {
		return nil, err
	}
	rowsAt := r.off
	rows, err := r.int32("row count")
	if err != nil {
		return nil, err
	}
	// Java would build a zero-row matrix and then fail on the first add; a filter Java
	// writes always has at least one row.
	if rows < 1 {
		return nil, fmt.Errorf("row count %d at offset %d must be >= 1", rows, rowsAt)
	}
	if int64(rows) > int64(r.remaining()/minRowSize) {
		return nil, fmt.Errorf("row count %d at offset %d cannot fit in the remaining %d bytes", rows, rowsAt, r.remaining())
	}
	d.rows = make([]*vector, rows)
	for i := range d.rows {
		// Each row carries its own header; Java hashes each row with its own
		// parameters, so keep them rather than assuming they equal the outer ones.
		if d.rows[i], err = r.vector(fmt.Sprintf("row %d", i)); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// Resume returns the filter New(t, o) would be after Add-ing, in order, the n keys of a
// file whose footer filter is (serialized, typeCode) — so that a writer rewriting that
// file need not hash its n stored keys again. ok is false, and the caller builds the
// filter from scratch, unless the stored filter has exactly the parameters New(t, o)
// chooses and (DYNAMIC_V0) the row count and current-row count that n non-empty keys
// produce: a filter from other settings, another writer's layout or a file holding
// empty keys is never resumed.
//
// The state Java does not serialize (the bound maxNr and the round-robin position once
// it is reached) is a function of n alone and is recomputed.
func Resume(t Type, o Options, serialized, typeCode string, n int64) (f Filter, ok bool) {
	fresh, err := New(t, o)
	if err != nil || n < 0 {
		return nil, false
	}
	stored, err := Deserialize(serialized, typeCode)
	if err != nil || stored.Type() != fresh.Type() {
		return nil, false
	}
	switch want := fresh.(type) {
	case *simpleFilter:
		got := stored.(*simpleFilter)
		if !sameParams(got.v, want.v) {
			return nil, false
		}
		return got, true
	case *dynamicFilter:
		got := stored.(*dynamicFilter)
		if got.k != want.k || got.hashType != want.hashType || got.size != want.size || got.nr != want.nr {
			return nil, false
		}
		for _, r := range got.rows {
			if !sameParams(r, want.rows[0]) {
				return nil, false
			}
		}
		// Replay Add's bookkeeping for n keys (counters only; no hashing).
		rows, count, reachedMax, cur := int32(1), int32(0), false, uint64(0)
		for i := int64(0); i < n; i++ {
			switch {
			case reachedMax:
				cur++
			case count >= want.nr && rows*want.nr < want.maxNr:
				rows++
				count = 0
			case count >= want.nr:
				reachedMax = true
			}
			count++
		}
		if int(rows) != len(got.rows) || count != got.count {
			return nil, false
		}
		got.maxNr, got.reachedMax, got.cur = want.maxNr, reachedMax, cur
		return got, true
	}
	return nil, false
}

func sameParams(a, b *vector) bool {
	return a.nbHash == b.nbHash && a.hashType == b.hashType && a.size == b.size && len(a.bits) == len(b.bits)
}

// OrderFree reports whether f, holding n keys, serializes the same whatever the order
// of those keys and of the more keys still to be added: a SIMPLE filter is a union of
// bits; a DYNAMIC_V0 filter is while all n+more keys fit in its first row (before that
// row fills, every key goes to it and the state is its bits plus a count).
func OrderFree(f Filter, n, more int64) bool {
	switch d := f.(type) {
	case *simpleFilter:
		return true
	case *dynamicFilter:
		return len(d.rows) == 1 && n+more <= int64(d.nr)
	}
	return false
}
