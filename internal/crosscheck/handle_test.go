package crosscheck_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hudi-go/hudi"
)

// TestWriteTwiceOnOneHandle: a second Write on the same *hudi.Table handle must see the
// first commit (the writer reloads the timeline); otherwise the upsert of an existing key
// would be written as an insert into a new file group and the key would exist twice.
func TestWriteTwiceOnOneHandle(t *testing.T) {
	r := buildReplicaOpt(t, "cow/v6_simplekeygen_nonhivestyle", false)
	ctx := context.Background()
	scan, err := openTable(t, r.ours).Scan(ctx, hudi.ScanOptions{Columns: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int32]int{}
	if err := scan.Run(ctx, func(rec arrow.Record) error {
		col := rec.Column(0).(*array.Int32)
		for i := 0; i < col.Len(); i++ {
			seen[col.Value(i)]++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("id %d appears %d times after an upsert on the same handle", id, n)
		}
	}
	if len(seen) != 4 {
		t.Errorf("%d distinct ids, want 4", len(seen))
	}
}
