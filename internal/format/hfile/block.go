package hfile

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
)

// BlockHeader is the fixed 33-byte header of a block.
type BlockHeader struct {
	Type BlockType
	// OnDiskSizeWithoutHeader counts the (compressed) payload and the checksums.
	OnDiskSizeWithoutHeader int32
	// UncompressedSizeWithoutHeader is the payload size after decompression.
	UncompressedSizeWithoutHeader int32
	// PrevBlockOffset is the offset of the previous block of the same type, -1 for the
	// first (HBase tracks it per type; Hudi 1.1's writer always writes -1).
	PrevBlockOffset  int64
	ChecksumType     ChecksumType
	BytesPerChecksum int32
	// OnDiskDataSizeWithHeader counts the header and the (compressed) payload: the bytes
	// the checksums cover.
	OnDiskDataSizeWithHeader int32
}

// OnDiskSize is the number of bytes the block occupies in the file.
func (h *BlockHeader) OnDiskSize() int64 { return int64(h.OnDiskSizeWithoutHeader) + HeaderSize }

func parseHeader(b []byte) BlockHeader {
	return BlockHeader{
		Type:                          BlockType(b[0:8]),
		OnDiskSizeWithoutHeader:       int32(binary.BigEndian.Uint32(b[8:])),
		UncompressedSizeWithoutHeader: int32(binary.BigEndian.Uint32(b[12:])),
		PrevBlockOffset:               int64(binary.BigEndian.Uint64(b[16:])),
		ChecksumType:                  ChecksumType(b[24]),
		BytesPerChecksum:              int32(binary.BigEndian.Uint32(b[25:])),
		OnDiskDataSizeWithHeader:      int32(binary.BigEndian.Uint32(b[29:])),
	}
}

func (h *BlockHeader) append(b []byte) []byte {
	b = append(b, h.Type...)
	b = binary.BigEndian.AppendUint32(b, uint32(h.OnDiskSizeWithoutHeader))
	b = binary.BigEndian.AppendUint32(b, uint32(h.UncompressedSizeWithoutHeader))
	b = binary.BigEndian.AppendUint64(b, uint64(h.PrevBlockOffset))
	b = append(b, byte(h.ChecksumType))
	b = binary.BigEndian.AppendUint32(b, uint32(h.BytesPerChecksum))
	return binary.BigEndian.AppendUint32(b, uint32(h.OnDiskDataSizeWithHeader))
}

// checksumBytes is the size of the checksums HBase appends to a block whose header and
// payload span dataWithHeader bytes: one int32 per started chunk.
func checksumBytes(dataWithHeader, bytesPerChecksum int64) int64 {
	if bytesPerChecksum <= 0 {
		return 0
	}
	return (dataWithHeader + bytesPerChecksum - 1) / bytesPerChecksum * 4
}

// checksum computes the chunk checksums of data (header + on-disk payload).
func checksum(t ChecksumType, data []byte, bytesPerChecksum int) []byte {
	var table *crc32.Table
	switch t {
	case ChecksumCRC32:
		table = crc32.IEEETable
	case ChecksumCRC32C:
		table = crc32.MakeTable(crc32.Castagnoli)
	default:
		return nil
	}
	out := make([]byte, 0, checksumBytes(int64(len(data)), int64(bytesPerChecksum)))
	for len(data) > 0 {
		n := min(bytesPerChecksum, len(data))
		out = binary.BigEndian.AppendUint32(out, crc32.Checksum(data[:n], table))
		data = data[n:]
	}
	return out
}

// block is a block read from the file with its payload decompressed.
type block struct {
	BlockHeader
	offset  int64
	payload []byte // uncompressed, header and checksums excluded
}

// readBlock reads the block at off, whose on-disk size (header included) the caller knows
// from an index entry or the file layout (size < 0: take it from the header), checks its
// type, its sizes and its checksums, and decompresses its payload.
func (r *Reader) readBlock(off, size int64, want BlockType) (*block, error) {
	bad := func(format string, a ...any) error {
		return &FormatError{Name: r.name, Offset: off, Msg: fmt.Sprintf("%s block: ", want) + fmt.Sprintf(format, a...)}
	}
	end := r.size - TrailerSize
	if off < 0 || off > end-HeaderSize {
		return nil, bad("block header at %d lies outside the block section [0, %d)", off, end)
	}
	var hb [HeaderSize]byte
	if err := r.readAt(hb[:], off); err != nil {
		return nil, err
	}
	h := parseHeader(hb[:])
	if h.Type != want {
		if isKnownType(h.Type) {
			if h.Type == EncodedDataBlock {
				return nil, fmt.Errorf("%w: %w", ErrUnsupported, bad("data block encoding (%q blocks) is not supported", h.Type))
			}
			return nil, bad("found a %s block", h.Type)
		}
		return nil, bad("invalid block magic %q", hb[:8])
	}
	if h.OnDiskSizeWithoutHeader < 0 || h.UncompressedSizeWithoutHeader < 0 || h.OnDiskDataSizeWithHeader < HeaderSize {
		return nil, bad("negative size in header (on disk %d, uncompressed %d, data with header %d)",
			h.OnDiskSizeWithoutHeader, h.UncompressedSizeWithoutHeader, h.OnDiskDataSizeWithHeader)
	}
	total := h.OnDiskSize()
	if size >= 0 && size != total {
		return nil, bad("index says %d bytes, header says %d", size, total)
	}
	if total > end-off {
		return nil, bad("%d bytes run past the block section end %d", total, end)
	}
	dataEnd := int64(h.OnDiskDataSizeWithHeader)
	if dataEnd > total {
		return nil, bad("data size with header %d exceeds the on-disk size %d", dataEnd, total)
	}
	raw := make([]byte, total)
	if err := r.readAt(raw, off); err != nil {
		return nil, err
	}
	switch h.ChecksumType {
	case ChecksumNull:
	case ChecksumCRC32, ChecksumCRC32C:
		if h.BytesPerChecksum <= 0 {
			return nil, bad("bytes per checksum %d", h.BytesPerChecksum)
		}
		if want, got := checksumBytes(dataEnd, int64(h.BytesPerChecksum)), total-dataEnd; want != got {
			return nil, bad("%d checksum bytes, want %d for %d bytes in %d-byte chunks", got, want, dataEnd, h.BytesPerChecksum)
		}
		if sum := checksum(h.ChecksumType, raw[:dataEnd], int(h.BytesPerChecksum)); !bytes.Equal(sum, raw[dataEnd:]) {
			return nil, bad("%s checksum mismatch", h.ChecksumType)
		}
	default:
		return nil, bad("unknown checksum type %d", h.ChecksumType)
	}
	payload, err := decompress(r.trailer.Codec, raw[HeaderSize:dataEnd], int(h.UncompressedSizeWithoutHeader))
	if err != nil {
		return nil, bad("%v", err)
	}
	return &block{BlockHeader: h, offset: off, payload: payload}, nil
}

func isKnownType(t BlockType) bool {
	for _, k := range knownBlockTypes {
		if k == t {
			return true
		}
	}
	return false
}

// decompress returns the uncompressed payload, which must be exactly size bytes.
func decompress(c Codec, data []byte, size int) ([]byte, error) {
	switch c {
	case CodecNone:
		if len(data) != size {
			return nil, fmt.Errorf("uncompressed block holds %d bytes, header says %d", len(data), size)
		}
		return data, nil
	case CodecGZ:
		return gunzip(data, size)
	}
	return nil, unsupportedCodec(c)
}

func unsupportedCodec(c Codec) error {
	return fmt.Errorf("%w: compression %s (only NONE and GZ are implemented)", ErrUnsupported, c)
}

// gunzip inflates one gzip member. The gzip framing is parsed here rather than with
// compress/gzip so that the output size is bounded by the header's uncompressed size before
// anything is allocated (a corrupt header cannot make the reader allocate gigabytes).
func gunzip(data []byte, size int) ([]byte, error) {
	if len(data) < 18 || data[0] != 0x1f || data[1] != 0x8b || data[2] != 8 {
		return nil, fmt.Errorf("not a gzip stream")
	}
	flg := data[3]
	p := 10
	if flg&0x04 != 0 { // FEXTRA
		if len(data) < p+2 {
			return nil, fmt.Errorf("gzip extra field truncated")
		}
		p += 2 + int(binary.LittleEndian.Uint16(data[p:]))
	}
	for _, bit := range []byte{0x08, 0x10} { // FNAME, FCOMMENT: zero-terminated
		if flg&bit != 0 {
			i := bytes.IndexByte(data[min(p, len(data)):], 0)
			if i < 0 {
				return nil, fmt.Errorf("gzip header string unterminated")
			}
			p += i + 1
		}
	}
	if flg&0x02 != 0 { // FHCRC
		p += 2
	}
	if p > len(data)-8 {
		return nil, fmt.Errorf("gzip header runs past the data")
	}
	// Deflate expands at most 1032:1, which bounds the size a header may claim before
	// anything is allocated.
	if int64(size) > int64(len(data)-p)*1032 {
		return nil, fmt.Errorf("header says %d uncompressed bytes, more than %d compressed bytes can hold", size, len(data)-p)
	}
	br := bytes.NewReader(data[p:])
	fr := flate.NewReader(br)
	defer fr.Close()
	out := make([]byte, size)
	if n, err := io.ReadFull(fr, out); err != nil {
		return nil, fmt.Errorf("gzip stream inflates to %d bytes, header says %d: %v", n, size, err)
	}
	// The stream must end here: one more byte means the header understates the size.
	var one [1]byte
	if n, err := fr.Read(one[:]); n > 0 || err != io.EOF {
		if n > 0 {
			return nil, fmt.Errorf("gzip stream inflates to more than the %d bytes the header says", size)
		}
		return nil, fmt.Errorf("gzip: %v", err)
	}
	// The 8-byte gzip trailer follows the deflate stream: CRC-32 and size mod 2^32.
	rest := data[p+int(int64(len(data)-p)-int64(br.Len())):]
	if len(rest) < 8 {
		return nil, fmt.Errorf("gzip trailer truncated")
	}
	if crc := crc32.ChecksumIEEE(out); binary.LittleEndian.Uint32(rest) != crc {
		return nil, fmt.Errorf("gzip CRC-32 mismatch")
	}
	if binary.LittleEndian.Uint32(rest[4:]) != uint32(size) {
		return nil, fmt.Errorf("gzip trailer size %d, want %d", binary.LittleEndian.Uint32(rest[4:]), size)
	}
	return out, nil
}
