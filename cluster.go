package hudi

import (
	"context"

	"github.com/hudi-go/hudi/config"
)

// inlineCluster runs clustering after a commit when hoodie.clustering.inline is on (placeholder until clustering lands).
func (t *Table) inlineCluster(ctx context.Context, cfg *config.Config, o WriteOptions) error {
	return nil
}
