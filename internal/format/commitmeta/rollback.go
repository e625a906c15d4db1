package commitmeta

// InstantInfo is HoodieInstantInfo: an instant time and its action.
type InstantInfo struct {
	CommitTime string
	Action     string
}

// RollbackMetadata is HoodieRollbackMetadata, the content of a completed rollback file
// (Avro in every table version). File paths in it are absolute as Java wrote them
// (e.g. "file:/..." or "/opt/...").
type RollbackMetadata struct {
	StartRollbackTime string
	TimeTakenInMillis int64
	TotalFilesDeleted int32
	// CommitsRollback lists the rolled-back instant times.
	CommitsRollback []string
	// PartitionMetadata is keyed by partition path ("" when non-partitioned).
	PartitionMetadata map[string]RollbackPartitionMetadata
	Version           int32
	// InstantsRollback lists the rolled-back instants with their actions.
	InstantsRollback []InstantInfo
}

// RollbackPartitionMetadata is HoodieRollbackPartitionMetadata.
type RollbackPartitionMetadata struct {
	PartitionPath      string
	SuccessDeleteFiles []string
	FailedDeleteFiles  []string
	// RollbackLogFiles maps log files that received a rollback command block to their
	// sizes.
	RollbackLogFiles map[string]int64
	// LogFilesFromFailedCommit maps log files written by the rolled-back commit to their
	// sizes.
	LogFilesFromFailedCommit map[string]int64
}

// RollbackPlan is HoodieRollbackPlan, the content of rollback.requested.
type RollbackPlan struct {
	// InstantToRollback is nil when the field is null.
	InstantToRollback *InstantInfo
	RollbackRequests  []RollbackRequest
	Version           int32
}

// RollbackRequest is HoodieRollbackRequest: what to undo in one file group (or, with an
// empty FileID, a set of files to delete).
type RollbackRequest struct {
	PartitionPath     string
	FileID            string
	LatestBaseInstant string
	FilesToBeDeleted  []string
	// LogBlocksToBeDeleted maps log files to their sizes; the rollback appends a command
	// block to them.
	LogBlocksToBeDeleted map[string]int64
}

func decodeInstantInfo(r rec) InstantInfo {
	return InstantInfo{CommitTime: r.str("commitTime"), Action: r.str("action")}
}

// DecodeRollback decodes completed rollback metadata. Empty input is an error (ErrEmpty):
// a completed rollback always has content.
func DecodeRollback(data []byte) (*RollbackMetadata, error) {
	m := &RollbackMetadata{}
	err := decodeInto(data, "rollback metadata", false, func(r rec) {
		m.StartRollbackTime = r.str("startRollbackTime")
		m.TimeTakenInMillis = r.i64("timeTakenInMillis")
		m.TotalFilesDeleted = r.i32("totalFilesDeleted")
		m.CommitsRollback = r.strList("commitsRollback")
		pm := map[string]RollbackPartitionMetadata{}
		if r.recordMap("partitionMetadata", func(k string, e rec) {
			pm[k] = RollbackPartitionMetadata{
				PartitionPath:            e.str("partitionPath"),
				SuccessDeleteFiles:       e.strList("successDeleteFiles"),
				FailedDeleteFiles:        e.strList("failedDeleteFiles"),
				RollbackLogFiles:         e.i64Map("rollbackLogFiles"),
				LogFilesFromFailedCommit: e.i64Map("logFilesFromFailedCommit"),
			}
		}) {
			m.PartitionMetadata = pm
		}
		m.Version = r.i32("version")
		r.records("instantsRollback", func(e rec) {
			m.InstantsRollback = append(m.InstantsRollback, decodeInstantInfo(e))
		})
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// DecodeRollbackPlan decodes a rollback.requested file. Empty input is an error
// (ErrEmpty).
func DecodeRollbackPlan(data []byte) (*RollbackPlan, error) {
	p := &RollbackPlan{}
	err := decodeInto(data, "rollback plan", false, func(r rec) {
		if e, ok := r.record("instantToRollback"); ok {
			info := decodeInstantInfo(e)
			p.InstantToRollback = &info
		}
		// The Avro field name really is capitalised.
		r.records("RollbackRequests", func(e rec) {
			p.RollbackRequests = append(p.RollbackRequests, RollbackRequest{
				PartitionPath:        e.str("partitionPath"),
				FileID:               e.str("fileId"),
				LatestBaseInstant:    e.str("latestBaseInstant"),
				FilesToBeDeleted:     e.strList("filesToBeDeleted"),
				LogBlocksToBeDeleted: e.i64Map("logBlocksToBeDeleted"),
			})
		})
		p.Version = r.i32("version")
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}
