package sql

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/spec"
)

// Repair procedures of Hudi's Spark SQL beyond repair_add_partition_meta
// (procedures_show.go). Not offered: repair_migrate_partition_meta (moves partition
// metadata to the base-file format, which hudi-go does not write) and repair_deduplicate
// (rewrites a partition's files into another folder for a manual swap).

func init() {
	procedures["repair_corrupted_clean_files"] = procedure{[]string{"table"}, callRepairCorruptedCleanFiles}
	procedures["repair_overwrite_hoodie_props"] = procedure{[]string{"table", "new_props_file_path"}, callRepairOverwriteHoodieProps}
}

// callRepairCorruptedCleanFiles deletes the timeline file of each pending clean whose plan
// does not decode, as RepairCorruptedCleanFilesProcedure does (it deletes the instant in
// its current state when reading the plan fails as Avro, an empty file included); a file
// that cannot be read fails the call. Output: result (true).
func callRepairCorruptedCleanFiles(ctx context.Context, e *Engine, h *hudiTable, a procArgs) (*Result, error) {
	st := h.t.Storage()
	for _, in := range h.t.Timeline().Instants {
		if in.Action != spec.ActionClean || in.IsCompleted() {
			continue
		}
		p, ok := in.File(in.State)
		if !ok {
			continue
		}
		b, err := st.ReadFile(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("read clean plan %s: %w", p, err)
		}
		if _, err := commitmeta.DecodeCleanerPlan(b); err == nil {
			continue
		}
		if err := st.Delete(ctx, p); err != nil {
			return nil, fmt.Errorf("delete corrupted clean instant file %s: %w", p, err)
		}
	}
	return newRowsResult("CALL", []string{"result"}, [][]any{{true}})
}

// callRepairOverwriteHoodieProps replaces hoodie.properties with the properties of a
// local file and lists every key of the old and new config, sorted, with "null" where one
// side lacks it (RepairOverwriteHoodiePropsProcedure: property, old_value, new_value; the
// new side is read back, so it shows the new checksum). The file must keep the table's
// name, type and version (hudi-go's check: Java writes whatever the file holds).
func callRepairOverwriteHoodieProps(ctx context.Context, e *Engine, h *hudiTable, a procArgs) (*Result, error) {
	path := a["new_props_file_path"]
	if path == "" {
		return nil, fmt.Errorf("new_props_file_path => is required")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("new_props_file_path: %w", err)
	}
	newProps, err := props.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("new_props_file_path %s: %w", path, err)
	}
	old := h.t.Config().Properties()
	now := time.Now()
	if e.o.Now != nil {
		now = e.o.Now()
	}
	if err := h.t.ReplaceProperties(ctx, newProps.Map(), now); err != nil {
		return nil, err
	}
	cur := h.t.Config().Properties()
	keys := map[string]bool{}
	for k := range old {
		keys[k] = true
	}
	for k := range cur {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	value := func(m map[string]string, k string) string {
		if v, ok := m[k]; ok {
			return v
		}
		return "null"
	}
	rows := make([][]any, len(sorted))
	for i, k := range sorted {
		rows[i] = []any{k, value(old, k), value(cur, k)}
	}
	return newRowsResult("CALL", []string{"property", "old_value", "new_value"}, rows)
}
