package index

import "testing"

// Expected values are java.util.Arrays.asList(...).hashCode() & Integer.MAX_VALUE % n,
// computed by hand from String.hashCode ("a".hashCode() = 97; List hash = 31*1 + h).
func TestBucketID(t *testing.T) {
	tests := []struct {
		key    string
		fields []string
		n      int
		want   int
	}{
		{"a", []string{"id"}, 256, (31 + 97) % 256},
		{"id:a", []string{"id"}, 256, (31 + 97) % 256}, // complex key picks the field value
		{"id:a,name:b", []string{"id", "name"}, 1 << 30, (31*(31+97) + 98) % (1 << 30)},
		{"", []string{"id"}, 7, 31 % 7},
	}
	for _, tc := range tests {
		b := &Bucket{NumBuckets: tc.n, HashFields: tc.fields}
		if got := b.ID(tc.key); got != tc.want {
			t.Errorf("bucket of %q = %d, want %d", tc.key, got, tc.want)
		}
	}
	// String.hashCode overflows int32 and List.hashCode masks the sign.
	if javaStringHash("polygenelubricants") != -2147483648 {
		t.Errorf("javaStringHash overflow = %d", javaStringHash("polygenelubricants"))
	}
	if id := FileID(42, "0123abcd-89ab-4cde-8f01-23456789abcd-0"); Of(id) != 42 || len(id) != 38 || id != "00000042-89ab-4cde-8f01-23456789abcd-0" {
		t.Errorf("bucket file id %q", id)
	}
	if Of("0123abcd-89ab") != -1 || Of("0000") != -1 {
		t.Error("a file id without 8 leading digits has a bucket")
	}
}
