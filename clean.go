package hudi

import (
	"context"

	"github.com/hudi-go/hudi/config"
)

// inlineClean runs a clean after a commit when hoodie.clean.automatic is on (placeholder until cleaning lands).
func (t *Table) inlineClean(ctx context.Context, cfg *config.Config, o WriteOptions) error {
	return nil
}
