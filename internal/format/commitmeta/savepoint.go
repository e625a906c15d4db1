package commitmeta

import "github.com/hudi-go/hudi/internal/format/avroschema"

// SavepointMetadataVersion is the version Java writes (TimelineMetadataUtils' default).
const SavepointMetadataVersion = 1

// SavepointMetadata is HoodieSavepointMetadata, the content of a completed <T>.savepoint
// (and of <T>.savepoint.inflight once Java has finished collecting the files).
type SavepointMetadata struct {
	SavepointedBy string
	// SavepointedAt is the wall-clock time in milliseconds since the epoch.
	SavepointedAt int64
	Comments      string
	// Partitions maps a partition path ("" when non-partitioned) to the names (no
	// directory) of the data files the savepoint keeps: base files and, on merge-on-read
	// tables, log files. The cleaner never deletes a file listed here.
	Partitions map[string][]string
	Version    int32
}

// Files returns every savepointed file as partition → set of file names.
func (m *SavepointMetadata) Files() map[string]map[string]bool {
	out := make(map[string]map[string]bool, len(m.Partitions))
	for p, names := range m.Partitions {
		set := make(map[string]bool, len(names))
		for _, n := range names {
			set[n] = true
		}
		out[p] = set
	}
	return out
}

// EncodeSavepointMetadata encodes savepoint metadata as Java writes <T>.savepoint.
func EncodeSavepointMetadata(m *SavepointMetadata) ([]byte, error) {
	parts := make(map[string]any, len(m.Partitions))
	for p, names := range m.Partitions {
		parts[p] = map[string]any{"partitionPath": p, "savepointDataFile": avroStrings(names)}
	}
	v := map[string]any{
		"savepointedBy":     m.SavepointedBy,
		"savepointedAt":     m.SavepointedAt,
		"comments":          m.Comments,
		"partitionMetadata": parts,
		"version":           m.Version,
	}
	return encodeContainer(avroschema.SavepointMetadata.JSON(), v, "savepoint metadata")
}

// DecodeSavepointMetadata decodes a completed savepoint file. Empty input is an error
// (ErrEmpty). A partition entry's key is authoritative; its partitionPath field repeats it.
func DecodeSavepointMetadata(data []byte) (*SavepointMetadata, error) {
	m := &SavepointMetadata{}
	err := decodeInto(data, "savepoint metadata", false, func(r rec) {
		m.SavepointedBy = r.str("savepointedBy")
		m.SavepointedAt = r.i64("savepointedAt")
		m.Comments = r.str("comments")
		m.Partitions = map[string][]string{}
		r.recordMap("partitionMetadata", func(k string, e rec) {
			files := e.strList("savepointDataFile")
			if files == nil {
				files = []string{}
			}
			m.Partitions[k] = files
		})
		m.Version = r.i32("version")
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}
