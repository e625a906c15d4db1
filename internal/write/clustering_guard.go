package write

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hudi-go/hudi/internal/commit"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
)

// ErrPendingClustering marks a write rejected because it updates or deletes records of a
// file group that a pending clustering is rewriting.
var ErrPendingClustering = errors.New("file group is being clustered")

// guardPendingClustering applies Hudi 0.14's default hoodie.clustering.updates.strategy,
// SparkRejectUpdateStrategy, to a planned write: updates and deletes routed to a file
// group in a pending clustering plan are rejected, because the clustering would publish
// new file groups without them. Inserts that small-file handling routed into such a group
// go to new file groups instead, as Java's upsert partitioner skips small files under
// pending clustering.
func (w *writer) guardPendingClustering(ctx context.Context, pl *plan) error {
	pending, err := commit.PendingClustering(ctx, w.t.Storage, w.t.Timeline)
	if err != nil || len(pending) == 0 {
		return err
	}
	clustering := map[string]string{} // partition/fileID → clustering instant
	for _, in := range pending {
		b, err := w.t.Timeline.ReadRequested(ctx, w.t.Storage, in)
		if err != nil {
			return err
		}
		m, err := commitmeta.DecodeRequestedReplace(b)
		if err != nil {
			return fmt.Errorf("clustering plan %s: %w", in.Time, err)
		}
		for p, ids := range m.InputFileIDs() {
			for _, id := range ids {
				clustering[p+"/"+id] = string(in.Time)
			}
		}
	}
	var rejected []string
	kept := pl.merges[:0]
	for _, j := range pl.merges {
		key := j.slice.Partition + "/" + string(j.slice.FileID)
		inst, ok := clustering[key]
		switch {
		case !ok:
			kept = append(kept, j)
		case len(j.changes) > 0:
			rejected = append(rejected, fmt.Sprintf("%s (%d records, clustering %s)", key, len(j.changes), inst))
			kept = append(kept, j)
		default:
			pl.creates = append(pl.creates, createJob{partition: j.slice.Partition, records: j.inserts})
		}
	}
	pl.merges = kept
	if len(rejected) > 0 {
		sort.Strings(rejected)
		return fmt.Errorf("%s touches file groups under pending clustering: %s: %w; updates to them are rejected "+
			"(hoodie.clustering.updates.strategy=SparkRejectUpdateStrategy): run the clustering (hudi cluster --run) first",
			w.o.Operation, strings.Join(rejected, ", "), ErrPendingClustering)
	}
	return nil
}
