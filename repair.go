package hudi

import (
	"context"
	"time"

	"github.com/hudi-go/hudi/internal/format/props"
)

// ReplaceProperties rewrites the table's hoodie.properties to hold exactly properties (key
// to value), with a new checksum (Hudi's repair_overwrite_hoodie_props). They must name the
// table and keep its type and version (table.Table.ReplaceProperties); the file is
// rewritten with Java's backup protocol, so a killed rewrite leaves a readable config. The
// handle is reloaded.
func (t *Table) ReplaceProperties(ctx context.Context, properties map[string]string, now time.Time) error {
	p := props.New()
	for k, v := range properties {
		p.Set(k, v)
	}
	if err := t.current().ReplaceProperties(ctx, p, now); err != nil {
		return err
	}
	return t.reload(ctx)
}
