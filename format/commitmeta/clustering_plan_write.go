package commitmeta

import (
	"fmt"

	"github.com/hudi-go/hudi/internal/avro"
)

// requestedReplaceSchema014 is HoodieRequestedReplaceMetadata (with HoodieClusteringPlan,
// HoodieClusteringGroup, HoodieSliceInfo and HoodieClusteringStrategy inlined) exactly as
// Hudi 0.14 embeds it in replacecommit.requested: copied from the Spark-written fixture
// cow/v6_simplekeygen_nonhivestyle_overwritetable (testdata
// v6_cow_replacecommit_requested_overwrite.avro). It differs from the 1.x schema of
// v9_cow_clustering_requested.avro only by lacking missingSchedulePartitions, which a
// 0.14 reader would not know. Field order matters for Avro binary, so it is kept verbatim.
const requestedReplaceSchema014 = `{"type":"record","name":"HoodieRequestedReplaceMetadata","namespace":"org.apache.hudi.avro.model","fields":[{"name":"operationType","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"clusteringPlan","type":["null",{"type":"record","name":"HoodieClusteringPlan","fields":[{"name":"inputGroups","type":["null",{"type":"array","items":{"type":"record","name":"HoodieClusteringGroup","fields":[{"name":"slices","type":["null",{"type":"array","items":{"type":"record","name":"HoodieSliceInfo","fields":[{"name":"dataFilePath","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"deltaFilePaths","type":["null",{"type":"array","items":{"type":"string","avro.java.string":"String"}}],"default":null},{"name":"fileId","type":["null",{"type":"string","avro.java.string":"String"}]},{"name":"partitionPath","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"bootstrapFilePath","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"version","type":["int","null"],"default":1}]}}],"default":null},{"name":"metrics","type":["null",{"type":"map","values":"double","avro.java.string":"String"}],"default":null},{"name":"numOutputFileGroups","type":["int","null"],"default":1},{"name":"extraMetadata","type":["null",{"type":"map","values":{"type":"string","avro.java.string":"String"},"avro.java.string":"String"}],"default":null},{"name":"version","type":["int","null"],"default":1}]}}],"default":null},{"name":"strategy","type":["null",{"type":"record","name":"HoodieClusteringStrategy","fields":[{"name":"strategyClassName","type":["null",{"type":"string","avro.java.string":"String"}],"default":null},{"name":"strategyParams","type":["null",{"type":"map","values":{"type":"string","avro.java.string":"String"},"avro.java.string":"String"}],"default":null},{"name":"version","type":["int","null"],"default":1}]}],"default":null},{"name":"extraMetadata","type":["null",{"type":"map","values":{"type":"string","avro.java.string":"String"},"avro.java.string":"String"}],"default":null},{"name":"version","type":["int","null"],"default":1},{"name":"preserveHoodieMetadata","type":["null","boolean"],"default":null}]}],"default":null},{"name":"extraMetadata","type":["null",{"type":"map","values":{"type":"string","avro.java.string":"String"},"avro.java.string":"String"}],"default":null},{"name":"version","type":["int","null"],"default":1}]}`

// EncodeRequestedReplace encodes m as Hudi 0.14 writes replacecommit.requested: an Avro
// object container with one HoodieRequestedReplaceMetadata datum. Nil maps are written as
// null and nil slices as empty arrays, matching what Java's builders produce for unset
// map fields (null) and collected lists (empty). MissingSchedulePartitions is not part of
// the 0.14 schema and must be empty.
func EncodeRequestedReplace(m *RequestedReplaceMetadata) ([]byte, error) {
	if m == nil {
		return nil, fmt.Errorf("encode requested replace metadata: nil metadata")
	}
	s, err := avro.Parse(requestedReplaceSchema014)
	if err != nil {
		return nil, fmt.Errorf("encode requested replace metadata: %w", err)
	}
	var plan any
	if p := m.ClusteringPlan; p != nil {
		if len(p.MissingSchedulePartitions) > 0 {
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
		plan = map[string]any{
			"inputGroups":            groups,
			"strategy":               strategy,
			"extraMetadata":          stringMap(p.ExtraMetadata),
			"version":                p.Version,
			"preserveHoodieMetadata": p.PreserveHoodieMetadata,
		}
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
