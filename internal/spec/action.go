package spec

import "fmt"

// Action is a timeline action name as it appears in instant file names.
type Action string

// Hudi's actions. A compaction completes as a commit, a clustering (v8+) and an insert
// overwrite as a replacecommit, a log compaction as a deltacommit.
const (
	ActionCommit        Action = "commit"
	ActionDeltaCommit   Action = "deltacommit"
	ActionReplaceCommit Action = "replacecommit"
	ActionClean         Action = "clean"
	ActionRollback      Action = "rollback"
	ActionSavepoint     Action = "savepoint"
	ActionRestore       Action = "restore"
	ActionCompaction    Action = "compaction"
	ActionLogCompaction Action = "logcompaction"
	ActionClustering    Action = "clustering"
	ActionIndexing      Action = "indexing"
	ActionSchemaCommit  Action = "schemacommit"
)

var knownActions = map[Action]bool{
	ActionCommit: true, ActionDeltaCommit: true, ActionReplaceCommit: true, ActionClean: true,
	ActionRollback: true, ActionSavepoint: true, ActionRestore: true, ActionCompaction: true,
	ActionLogCompaction: true, ActionClustering: true, ActionIndexing: true, ActionSchemaCommit: true,
}

// IsKnown reports whether a is one of Hudi's actions.
func (a Action) IsKnown() bool { return knownActions[a] }

// CompletedAction is the action a completed instant of a is filed under.
func (a Action) CompletedAction() Action {
	switch a {
	case ActionCompaction:
		return ActionCommit
	case ActionLogCompaction:
		return ActionDeltaCommit
	case ActionClustering:
		return ActionReplaceCommit
	}
	return a
}

// IsDataAction reports whether completed instants of a change table data
// (commit, deltacommit, replacecommit).
func (a Action) IsDataAction() bool {
	switch a.CompletedAction() {
	case ActionCommit, ActionDeltaCommit, ActionReplaceCommit:
		return true
	}
	return false
}

// State is an instant's state.
type State int

// States in the order an instant passes through them.
const (
	StateRequested State = iota
	StateInflight
	StateCompleted
)

func (s State) String() string {
	switch s {
	case StateRequested:
		return "requested"
	case StateInflight:
		return "inflight"
	case StateCompleted:
		return "completed"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// TableType is COPY_ON_WRITE or MERGE_ON_READ.
type TableType string

// Table types as written in hoodie.table.type.
const (
	CopyOnWrite TableType = "COPY_ON_WRITE"
	MergeOnRead TableType = "MERGE_ON_READ"
)

// ParseTableType accepts Hudi's names and the short cow/mor forms.
func ParseTableType(s string) (TableType, error) {
	switch s {
	case "COPY_ON_WRITE", "cow", "COW", "":
		return CopyOnWrite, nil
	case "MERGE_ON_READ", "mor", "MOR":
		return MergeOnRead, nil
	}
	return "", fmt.Errorf("table type %q: want COPY_ON_WRITE or MERGE_ON_READ", s)
}

// TableVersion is hoodie.table.version.
type TableVersion int

// Table versions hudi-go reads. Version 6 is written by Hudi 0.14/0.15 (timeline layout 1),
// 8 by 1.0 and 9 by 1.1 (timeline layout 2).
const (
	TableVersion6 TableVersion = 6
	TableVersion8 TableVersion = 8
	TableVersion9 TableVersion = 9
)

// Supported reports whether hudi-go can read tables of version v.
func (v TableVersion) Supported() bool { return v == 6 || v == 8 || v == 9 }
