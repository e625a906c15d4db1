package write

import (
	"context"
	"fmt"
	"strings"
)

// Insert duplicate policies (hoodie.datasource.insert.dup.policy, Hudi 0.14).
const (
	DupPolicyNone = "none" // insert as given: a key already stored exists twice
	DupPolicyDrop = "drop" // drop incoming records whose key is already stored
	DupPolicyFail = "fail" // fail the write if any incoming key is already stored
)

// applyDupPolicy enforces the insert duplicate policy: it looks the incoming keys up in
// the index and drops the stored ones, or fails naming the first. The legacy
// hoodie.datasource.write.insert.drop.duplicates=true means "drop".
func (w *writer) applyDupPolicy(ctx context.Context) error {
	policy := strings.ToLower(w.o.InsertDupPolicy)
	if policy == "" || policy == DupPolicyNone {
		return nil
	}
	if policy != DupPolicyDrop && policy != DupPolicyFail {
		return fmt.Errorf("hoodie.datasource.insert.dup.policy=%q: want none, drop or fail", w.o.InsertDupPolicy)
	}
	if w.o.Operation != Insert && w.o.Operation != BulkInsert {
		return nil
	}
	locs, err := tagLocations(ctx, w.t, w.o.Mem, w.view, w.in.records, w.o.index, w.o.BloomIndexUseMetadata, w.o.Parallelism, w.keys, w.o.Logger)
	if err != nil {
		return err
	}
	if len(locs) == 0 {
		return nil
	}
	if policy == DupPolicyFail {
		first := -1
		for i := range locs {
			if first < 0 || i < first {
				first = i
			}
		}
		return fmt.Errorf("duplicate key found for insert (hoodie.datasource.insert.dup.policy=fail): key %q is already in partition %q",
			w.in.records[first].key, locs[first].slice.Partition)
	}
	kept := w.in.records[:0]
	for i, r := range w.in.records {
		if _, stored := locs[i]; !stored {
			kept = append(kept, r)
		}
	}
	w.in.records = kept
	return nil
}
