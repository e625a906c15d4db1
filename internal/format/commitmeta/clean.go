package commitmeta

import (
	"fmt"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/avroschema"
)

// The clean timeline files of table version 6: <T>.clean.requested and <T>.clean.inflight
// hold a HoodieCleanerPlan, <T>.clean a HoodieCleanMetadata, each an Avro object container
// with the writer schema embedded.
//
// Their writer schemas are avroschema.CleanerPlan and avroschema.CleanMetadata.

// Versions Java 0.14 writes (CleanPlanner.LATEST_CLEAN_PLAN_VERSION,
// CleanerUtils.LATEST_CLEAN_METADATA_VERSION).
const (
	CleanPlanVersion     = 2
	CleanMetadataVersion = 2
)

// ActionInstant is HoodieActionInstant: an instant with its action and state name as Java
// spells them ("COMPLETED").
type ActionInstant struct {
	Timestamp string
	Action    string
	State     string
}

// CleanFileInfo is HoodieCleanFileInfo: one file a clean deletes. Java writes FilePath as
// a full path or URI ("file:/tmp/t/p/f.parquet", "s3a://b/t/p/f.parquet"); readers use
// its last element, relative to the plan's partition.
type CleanFileInfo struct {
	FilePath            string
	IsBootstrapBaseFile bool
}

// CleanerPlan is HoodieCleanerPlan, the content of <T>.clean.requested and
// <T>.clean.inflight.
type CleanerPlan struct {
	// EarliestInstantToRetain is nil when the policy retains no instant window
	// (KEEP_LATEST_FILE_VERSIONS).
	EarliestInstantToRetain      *ActionInstant
	LastCompletedCommitTimestamp string
	Policy                       string
	// FilesToBeDeletedPerPartition is the version-1 field (file names per partition).
	FilesToBeDeletedPerPartition map[string][]string
	Version                      int32
	// FilePathsToBeDeletedPerPartition is keyed by partition path ("" when
	// non-partitioned).
	FilePathsToBeDeletedPerPartition map[string][]CleanFileInfo
	PartitionsToBeDeleted            []string
	// ExtraMetadata is Hudi 1.x's extraMetadata (layout 2 only; nil when absent).
	ExtraMetadata map[string]string
}

// SavepointedTimestampsKey is the extraMetadata key under which Hudi 1.x's clean plan and
// metadata list the savepointed instants, comma-separated (CleanerUtils.SAVEPOINTED_TIMESTAMPS).
const SavepointedTimestampsKey = "savepointed_timestamps"

// EncodeCleanerPlan encodes a plan as Java 0.14 writes clean.requested (and
// clean.inflight).
func EncodeCleanerPlan(p *CleanerPlan) ([]byte, error) {
	return EncodeCleanerPlanAs(p, avroschema.CleanerPlan)
}

// EncodeCleanerPlanAs encodes a plan with the writer schema schema (avroschema.CleanerPlan
// or CleanerPlanV8; ExtraMetadata is written where the schema has the field).
func EncodeCleanerPlanAs(p *CleanerPlan, schema avroschema.Record) ([]byte, error) {
	var earliest any
	if e := p.EarliestInstantToRetain; e != nil {
		earliest = map[string]any{"timestamp": e.Timestamp, "action": e.Action, "state": e.State}
	}
	old := map[string]any{}
	for k, v := range p.FilesToBeDeletedPerPartition {
		old[k] = avroStrings(v)
	}
	files := map[string]any{}
	for k, infos := range p.FilePathsToBeDeletedPerPartition {
		list := make([]any, 0, len(infos))
		for _, f := range infos {
			list = append(list, map[string]any{"filePath": f.FilePath, "isBootstrapBaseFile": f.IsBootstrapBaseFile})
		}
		files[k] = list
	}
	v := map[string]any{
		"earliestInstantToRetain":          earliest,
		"lastCompletedCommitTimestamp":     p.LastCompletedCommitTimestamp,
		"policy":                           p.Policy,
		"filesToBeDeletedPerPartition":     old,
		"version":                          p.Version,
		"filePathsToBeDeletedPerPartition": files,
		"partitionsToBeDeleted":            avroStrings(p.PartitionsToBeDeleted),
		"extraMetadata":                    stringMap(p.ExtraMetadata),
	}
	return encodeContainer(schema.JSON(), v, "cleaner plan")
}

// DecodeCleanerPlan decodes clean.requested or clean.inflight. Empty input is an error
// (ErrEmpty): Java deletes empty pending clean files instead of reading them.
func DecodeCleanerPlan(data []byte) (*CleanerPlan, error) {
	p := &CleanerPlan{}
	err := decodeInto(data, "cleaner plan", false, func(r rec) {
		if e, ok := r.record("earliestInstantToRetain"); ok {
			p.EarliestInstantToRetain = &ActionInstant{Timestamp: e.str("timestamp"), Action: e.str("action"), State: e.str("state")}
		}
		p.LastCompletedCommitTimestamp = r.str("lastCompletedCommitTimestamp")
		p.Policy = r.str("policy")
		p.FilesToBeDeletedPerPartition = r.strListMap("filesToBeDeletedPerPartition")
		p.Version = r.i32("version")
		if m, ok := r.genericMap("filePathsToBeDeletedPerPartition"); ok {
			p.FilePathsToBeDeletedPerPartition = make(map[string][]CleanFileInfo, len(m))
			inner := r.child(m, joinPath(r.path, "filePathsToBeDeletedPerPartition"))
			for k := range m {
				list := []CleanFileInfo{}
				inner.records(k, func(e rec) {
					list = append(list, CleanFileInfo{FilePath: e.str("filePath"), IsBootstrapBaseFile: e.boolean("isBootstrapBaseFile")})
				})
				p.FilePathsToBeDeletedPerPartition[k] = list
			}
		}
		p.PartitionsToBeDeleted = r.strList("partitionsToBeDeleted")
		if r.has("extraMetadata") {
			p.ExtraMetadata = r.strMap("extraMetadata")
		}
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// EncodeCleanMetadata encodes completed clean metadata as Java 0.14 writes <T>.clean. Nil
// slices are written as empty arrays (the fields are not nullable).
func EncodeCleanMetadata(m *CleanMetadata) ([]byte, error) {
	return EncodeCleanMetadataAs(m, avroschema.CleanMetadata)
}

// EncodeCleanMetadataAs encodes clean metadata with the writer schema schema
// (avroschema.CleanMetadata or CleanMetadataV8; ExtraMetadata is written where the schema
// has the field).
func EncodeCleanMetadataAs(m *CleanMetadata, schema avroschema.Record) ([]byte, error) {
	parts := func(pm map[string]CleanPartitionMetadata) map[string]any {
		out := make(map[string]any, len(pm))
		for k, p := range pm {
			out[k] = map[string]any{
				"partitionPath":      p.PartitionPath,
				"policy":             p.Policy,
				"deletePathPatterns": avroStrings(p.DeletePathPatterns),
				"successDeleteFiles": avroStrings(p.SuccessDeleteFiles),
				"failedDeleteFiles":  avroStrings(p.FailedDeleteFiles),
				"isPartitionDeleted": p.IsPartitionDeleted,
			}
		}
		return out
	}
	v := map[string]any{
		"startCleanTime":               m.StartCleanTime,
		"timeTakenInMillis":            m.TimeTakenInMillis,
		"totalFilesDeleted":            m.TotalFilesDeleted,
		"earliestCommitToRetain":       m.EarliestCommitToRetain,
		"lastCompletedCommitTimestamp": m.LastCompletedCommitTimestamp,
		"partitionMetadata":            parts(m.PartitionMetadata),
		"version":                      m.Version,
		"bootstrapPartitionMetadata":   parts(m.BootstrapPartitionMetadata),
		"extraMetadata":                stringMap(m.ExtraMetadata),
	}
	return encodeContainer(schema.JSON(), v, "clean metadata")
}

// avroStrings turns a string slice into an Avro array value (never nil).
func avroStrings(ss []string) []any {
	out := make([]any, 0, len(ss))
	for _, s := range ss {
		out = append(out, s)
	}
	return out
}

func encodeContainer(schemaJSON string, v any, what string) ([]byte, error) {
	s, err := avro.Parse(schemaJSON)
	if err != nil {
		return nil, fmt.Errorf("%s schema: %w", what, err)
	}
	b, err := avro.WriteContainer(s, v)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", what, err)
	}
	return b, nil
}
