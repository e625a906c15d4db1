package commitmeta

import (
	"fmt"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/avroschema"
)

// EncodeRequestedReplace encodes m as Hudi writes a replacecommit.requested or
// clustering.requested file: an Avro object container with one
// HoodieRequestedReplaceMetadata datum in the writer schema given — Hudi 0.14's
// (avroschema.RequestedReplaceMetadata) or Hudi 1.x's (ArchivedRequestedReplaceMetadata,
// with the plan's missingSchedulePartitions); timeline.Layout.RequestedReplaceSchema picks
// it. Nil maps are written as null and nil slices as empty arrays, matching what Java's
// builders produce for unset map fields (null) and collected lists (empty; Spark's 1.x
// plans in the v9 fixtures carry "missingSchedulePartitions": []). MissingSchedulePartitions
// must be empty under the 0.14 schema, which lacks it.
func EncodeRequestedReplace(schema avroschema.Record, m *RequestedReplaceMetadata) ([]byte, error) {
	if m == nil {
		return nil, fmt.Errorf("encode requested replace metadata: nil metadata")
	}
	s, err := avro.Parse(schema.JSON())
	if err != nil {
		return nil, fmt.Errorf("encode requested replace metadata: %w", err)
	}
	withMissing := hasPlanField(s, "missingSchedulePartitions")
	var plan any
	if p := m.ClusteringPlan; p != nil {
		if len(p.MissingSchedulePartitions) > 0 && !withMissing {
			return nil, fmt.Errorf("encode clustering plan: missingSchedulePartitions is not in the table version 6 schema")
		}
		groups := make([]any, 0, len(p.InputGroups))
		for _, g := range p.InputGroups {
			slices := make([]any, 0, len(g.Slices))
			for _, sl := range g.Slices {
				slices = append(slices, map[string]any{
					"dataFilePath":      sl.DataFilePath,
					"deltaFilePaths":    anyStrings(sl.DeltaFilePaths),
					"fileId":            sl.FileID,
					"partitionPath":     sl.PartitionPath,
					"bootstrapFilePath": sl.BootstrapFilePath,
					"version":           sl.Version,
				})
			}
			var metrics any
			if g.Metrics != nil {
				mm := make(map[string]any, len(g.Metrics))
				for k, v := range g.Metrics {
					mm[k] = v
				}
				metrics = mm
			}
			groups = append(groups, map[string]any{
				"slices":              slices,
				"metrics":             metrics,
				"numOutputFileGroups": g.NumOutputFileGroups,
				"extraMetadata":       stringMap(g.ExtraMetadata),
				"version":             g.Version,
			})
		}
		var strategy any
		if st := p.Strategy; st != nil {
			strategy = map[string]any{
				"strategyClassName": st.StrategyClassName,
				"strategyParams":    stringMap(st.StrategyParams),
				"version":           st.Version,
			}
		}
		pm := map[string]any{
			"inputGroups":            groups,
			"strategy":               strategy,
			"extraMetadata":          stringMap(p.ExtraMetadata),
			"version":                p.Version,
			"preserveHoodieMetadata": p.PreserveHoodieMetadata,
		}
		if withMissing {
			pm["missingSchedulePartitions"] = anyStrings(p.MissingSchedulePartitions)
		}
		plan = pm
	}
	var op any
	if m.OperationType != "" {
		op = m.OperationType
	}
	b, err := avro.WriteContainer(s, map[string]any{
		"operationType":  op,
		"clusteringPlan": plan,
		"extraMetadata":  stringMap(m.ExtraMetadata),
		"version":        m.Version,
	})
	if err != nil {
		return nil, fmt.Errorf("encode requested replace metadata: %w", err)
	}
	return b, nil
}

// hasPlanField reports whether the HoodieClusteringPlan record of a
// HoodieRequestedReplaceMetadata schema has the named field.
func hasPlanField(s *avro.Schema, name string) bool {
	for _, f := range s.Root().Fields {
		if f.Name != "clusteringPlan" {
			continue
		}
		for _, b := range f.Type.Branches {
			for _, pf := range b.Fields {
				if pf.Name == name {
					return true
				}
			}
		}
	}
	return false
}

func anyStrings(v []string) []any {
	out := make([]any, 0, len(v))
	for _, s := range v {
		out = append(out, s)
	}
	return out
}

// stringMap is nil (Avro null) for a nil map and a map otherwise, so that an empty but
// set map stays "{}" as Java writes it.
func stringMap(m map[string]string) any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
