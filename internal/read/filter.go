package read

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// filterRecord keeps the rows where mask is true.
func filterRecord(ctx context.Context, mem memory.Allocator, rec arrow.Record, mask *array.Boolean) (arrow.Record, error) {
	if mask.NullN() == 0 && countTrue(mask) == mask.Len() {
		rec.Retain()
		return rec, nil
	}
	out, err := compute.FilterRecordBatch(compute.WithAllocator(ctx, mem), rec, mask, compute.DefaultFilterOptions())
	if err != nil {
		return nil, fmt.Errorf("filter rows: %w", err)
	}
	return out, nil
}

func countTrue(b *array.Boolean) int {
	n := 0
	for i := 0; i < b.Len(); i++ {
		if b.Value(i) {
			n++
		}
	}
	return n
}
