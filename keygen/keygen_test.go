package keygen

import "testing"

func sp(s string) *string { return &s }

func TestKeys(t *testing.T) {
	tests := []struct {
		class  string
		fields []string
		values []*string
		want   string
		err    bool
	}{
		{"org.apache.hudi.keygen.SimpleKeyGenerator", []string{"id"}, []*string{sp("7")}, "7", false},
		{"SIMPLE", []string{"id"}, []*string{nil}, "", true},
		{"org.apache.hudi.keygen.ComplexKeyGenerator", []string{"id", "name"}, []*string{sp("1"), sp("Alice")}, "id:1,name:Alice", false},
		{"COMPLEX", []string{"id", "name"}, []*string{sp("1"), nil}, "id:1,name:__null__", false},
		{"COMPLEX", []string{"id", "name"}, []*string{sp(""), nil}, "", true},
		{"org.apache.hudi.keygen.NonpartitionedKeyGenerator", []string{"id"}, []*string{sp("x")}, "x", false},
		{"NON_PARTITION", []string{"a", "b"}, []*string{sp("x"), sp("")}, "a:x,b:__empty__", false},
		{"COMPLEX", []string{"txn_id"}, []*string{sp("T1")}, "txn_id:T1", false},
	}
	for _, tc := range tests {
		got, err := ForTable(tc.class, tc.fields).Key(tc.values)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("%s %v: got %q, %v; want %q err=%v", tc.class, tc.fields, got, err, tc.want, tc.err)
		}
	}
}
