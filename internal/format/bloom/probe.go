package bloom

import (
	"encoding/base64"
	"fmt"
)

// Probe tests keys against a serialized filter (a footer value) without decoding it:
// only the headers, and for each probe the few bytes its bit positions fall in, are
// decoded from the base64 text. Hudi's default filter is ~430 KB of bits (~570 KB of
// base64) per file, and an index lookup or a key-pruned read probes it with a handful of
// keys: decoding it all was most of the probe's cost (bench W3, W6).
//
// It answers as Deserialize(serialized, typeCode).MightContain would. Its construction
// checks the same headers and sizes; the bit bytes are not validated up front, and a
// probe that meets a character that is not base64 answers true (an unreadable filter
// prunes nothing).
type Probe struct {
	s    string
	rows []probeRow
}

type probeRow struct {
	nbHash   int32
	hashType int8
	size     int32
	recip    uint64
	bitsAt   int // offset of the row's bit vector in the decoded bytes
}

// NewProbe prepares probes of a footer filter; typeCode as for Deserialize.
func NewProbe(serialized, typeCode string) (*Probe, error) {
	p, err := newProbe(serialized, typeCode)
	if err != nil {
		// The rare failure is reported as Deserialize words it, offsets in the whole
		// decoded value (newProbe decodes each header on its own).
		if _, derr := Deserialize(serialized, typeCode); derr != nil {
			return nil, derr
		}
		return nil, err
	}
	return p, nil
}

func newProbe(serialized, typeCode string) (*Probe, error) {
	if typeCode == "" {
		typeCode = string(Simple)
	}
	t := canonicalType(typeCode)
	if t != Simple && t != DynamicV0 {
		return nil, fmt.Errorf("bloom: unknown filter type code %q (want %q or %q)", typeCode, Simple, DynamicV0)
	}
	n, err := decodedLen(serialized)
	if err != nil {
		return nil, fmt.Errorf("bloom: %s filter: %w", t, err)
	}
	p := &Probe{s: serialized}
	off := 0
	// row reads one InternalBloomFilter's header at off and skips its bits.
	row := func(what string) error {
		hdr, err := decodeRange(serialized, off, min(headerSize, n-off))
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		r := &reader{b: hdr}
		k, ht, size, err := r.header(what)
		if err != nil {
			return err
		}
		off += r.off
		bn := nBytes(size)
		if bn > n-off {
			return fmt.Errorf("truncated: %s bit vector of %d bits (%d bytes) at offset %d, only %d bytes left of %d", what, size, bn, off, n-off, n)
		}
		p.rows = append(p.rows, probeRow{nbHash: k, hashType: ht, size: size, recip: fastmodReciprocal(size), bitsAt: off})
		off += bn
		return nil
	}
	if t == Simple {
		if err := row("filter"); err != nil {
			return nil, fmt.Errorf("bloom: SIMPLE filter: %w", err)
		}
		return p, nil
	}
	// DYNAMIC_V0: the outer header, nr, currentNbRecord and the row count, then the rows.
	hdr, err := decodeRange(serialized, 0, min(headerSize+12, n))
	if err != nil {
		return nil, fmt.Errorf("bloom: DYNAMIC_V0 filter: %w", err)
	}
	r := &reader{b: hdr}
	if _, _, _, err := r.header("outer header"); err != nil {
		return nil, fmt.Errorf("bloom: DYNAMIC_V0 filter: %w", err)
	}
	for _, what := range []string{"nr (keys per row)", "currentNbRecord"} {
		if _, err := r.int32(what); err != nil {
			return nil, fmt.Errorf("bloom: DYNAMIC_V0 filter: %w", err)
		}
	}
	rowsAt := r.off
	rows, err := r.int32("row count")
	if err != nil {
		return nil, fmt.Errorf("bloom: DYNAMIC_V0 filter: %w", err)
	}
	off = r.off
	if rows < 1 {
		return nil, fmt.Errorf("bloom: DYNAMIC_V0 filter: row count %d at offset %d must be >= 1", rows, rowsAt)
	}
	if int64(rows) > int64((n-off)/minRowSize) {
		return nil, fmt.Errorf("bloom: DYNAMIC_V0 filter: row count %d at offset %d cannot fit in the remaining %d bytes", rows, rowsAt, n-off)
	}
	for i := range int(rows) {
		if err := row(fmt.Sprintf("row %d", i)); err != nil {
			return nil, fmt.Errorf("bloom: DYNAMIC_V0 filter: %w", err)
		}
	}
	return p, nil
}

// MightContain reports whether the filter may hold key; false means definitely not.
func (p *Probe) MightContain(key string) bool {
	if key == "" {
		return true
	}
	// Murmur rows hash a key of up to 4*maxDigestBlocks bytes from one digest, as
	// vector.test does; longer keys take the per-hash path.
	var buf [maxDigestBlocks]uint32
	digested := len(key) <= 4*maxDigestBlocks
	var tail uint32
	var hasTail bool
	var blocks []uint32
	if digested {
		tail, hasTail = digestKey(key, buf[:])
		blocks = buf[:len(key)>>2]
	}
	n := uint32(len(key))
	for i := range p.rows {
		r := &p.rows[i]
		if p.rowHas(r, key, digested, blocks, n, tail, hasTail) {
			return true
		}
	}
	return false
}

func (p *Probe) rowHas(r *probeRow, key string, digested bool, blocks []uint32, n, tail uint32, hasTail bool) bool {
	if r.hashType == hashMurmur && digested {
		var h uint32
		for range r.nbHash {
			h = murmurDigested(blocks, n, tail, hasTail, h)
			if !p.bit(r, int(fastPosition(h, r.recip, r.size))) {
				return false
			}
		}
		return true
	}
	v := vector{hashType: r.hashType}
	var h int32
	for range r.nbHash {
		h = v.next(key, h)
		if !p.bit(r, int(position(h, r.size))) {
			return false
		}
	}
	return true
}

// bit reports bit pos of the row's vector (true when its base64 is unreadable).
func (p *Probe) bit(r *probeRow, pos int) bool {
	j := r.bitsAt + pos>>3
	q := 4 * (j / 3)
	if q+2 > len(p.s) { // beyond the text: cannot happen for a checked row
		return true
	}
	var c [4]byte
	for i := range 4 {
		if q+i < len(p.s) {
			c[i] = b64dec[p.s[q+i]]
		}
	}
	var b byte
	switch j % 3 {
	case 0:
		if c[0]|c[1] >= 64 {
			return true
		}
		b = c[0]<<2 | c[1]>>4
	case 1:
		if c[1]|c[2] >= 64 {
			return true
		}
		b = c[1]<<4 | c[2]>>2
	default:
		if c[2]|c[3] >= 64 {
			return true
		}
		b = c[2]<<6 | c[3]
	}
	return b&(1<<(pos&7)) != 0
}

// b64dec maps a standard base64 character to its 6-bit value, and everything else
// (padding included) to 0xff.
var b64dec = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := range len(alphabet) {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// decodedLen is the number of bytes s decodes to, padded or not (as Java's decoder
// accepts either).
func decodedLen(s string) (int, error) {
	switch len(s) % 4 {
	case 0:
		n := len(s) / 4 * 3
		if len(s) > 0 && s[len(s)-1] == '=' {
			n--
			if s[len(s)-2] == '=' {
				n--
			}
		}
		return n, nil
	case 1:
		return 0, fmt.Errorf("invalid base64 (%d chars): a length of 4n+1 cannot be base64", len(s))
	default:
		return len(s)/4*3 + len(s)%4 - 1, nil
	}
}

// decodeRange decodes bytes [off, off+n) of s's decoded form.
func decodeRange(s string, off, n int) ([]byte, error) {
	if n <= 0 {
		return nil, nil
	}
	q0, q1 := 4*(off/3), 4*((off+n-1)/3+1)
	chunk := s[q0:min(q1, len(s))]
	enc := base64.StdEncoding
	if len(chunk)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	b, err := enc.DecodeString(chunk)
	if err != nil {
		return nil, fmt.Errorf("invalid base64 at characters %d–%d: %w", q0, q0+len(chunk), err)
	}
	skip := off - off/3*3
	if skip+n > len(b) {
		return nil, fmt.Errorf("truncated base64: %d bytes wanted at offset %d", n, off)
	}
	return b[skip : skip+n], nil
}
