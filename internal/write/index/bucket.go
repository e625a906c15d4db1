package index

import (
	"fmt"
	"strings"

	"github.com/hudi-go/hudi/internal/spec"
)

// ID is the bucket of a record key: Java's BucketIdentifier.getBucketId, the hash of the
// list of hash-field values (java.util.List.hashCode over String.hashCode), masked to
// non-negative, modulo the number of buckets. A simple key ("no ':'") hashes as a
// one-element list; a complex key "f1:v1,f2:v2" is split and the hash fields' values are
// picked in order.
func (b *Bucket) ID(recordKey string) int {
	return bucketID(recordKey, b.HashFields, b.NumBuckets)
}

func bucketID(recordKey string, hashFields []string, numBuckets int) int {
	var values []*string
	if !strings.Contains(recordKey, ":") {
		values = []*string{&recordKey}
	} else {
		pairs := map[string]string{}
		for _, p := range strings.Split(recordKey, ",") {
			k, v, _ := strings.Cut(p, ":")
			pairs[k] = v
		}
		for _, f := range hashFields {
			if v, ok := pairs[f]; ok {
				values = append(values, &v)
			} else {
				values = append(values, nil)
			}
		}
	}
	h := int32(1)
	for _, v := range values {
		var eh int32
		if v != nil {
			eh = javaStringHash(*v)
		}
		h = 31*h + eh
	}
	return int(h&0x7fffffff) % numBuckets
}

// javaStringHash is java.lang.String.hashCode over the string's UTF-16 code units.
func javaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// bucketPrefix is the file-id prefix of a bucket: its number as 8 digits.
func bucketPrefix(bucket int) string { return fmt.Sprintf("%08d", bucket) }

// FileID is the id of a new file group for a bucket, made from a new file group id
// (a random UUID plus "-0"): its first eight characters become the bucket number
// (BucketIdentifier.newBucketFileIdPrefix).
func FileID(bucket int, newID spec.FileID) spec.FileID {
	return spec.FileID(bucketPrefix(bucket) + string(newID)[8:])
}

// Of returns the bucket number a file id starts with, or -1.
func Of(id spec.FileID) int {
	if len(id) < 8 {
		return -1
	}
	n := 0
	for _, c := range id[:8] {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}
