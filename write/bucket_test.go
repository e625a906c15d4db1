package write

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
		if got := bucketID(tc.key, tc.fields, tc.n); got != tc.want {
			t.Errorf("bucketID(%q) = %d, want %d", tc.key, got, tc.want)
		}
	}
	// String.hashCode overflows int32 and List.hashCode masks the sign.
	if javaStringHash("polygenelubricants") != -2147483648 {
		t.Errorf("javaStringHash overflow = %d", javaStringHash("polygenelubricants"))
	}
	if id := newBucketFileID(42); bucketOf(id) != 42 || len(id) != 38 {
		t.Errorf("bucket file id %q", id)
	}
}
