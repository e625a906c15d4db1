package write

// Phase names a step of a write, in the order a write goes through them.
type Phase string

const (
	PhaseInput    Phase = "input"        // input collected and keyed: Done = rows
	PhaseIndex    Phase = "index lookup" // locating stored keys and planning files
	PhaseWrite    Phase = "write files"  // Done of Total file tasks finished
	PhaseCommit   Phase = "commit"       // completing the instant
	PhaseServices Phase = "table services"
)

// Progress reports how far a write has come. Total is 0 where the phase has no count.
type Progress struct {
	Phase       Phase
	Done, Total int64
	// Detail names the step inside a phase (for table services: "compaction", "clean"…).
	Detail string
}

// progressFunc is Options.Progress or a no-op, so call sites need no nil checks.
func (o Options) progress(p Progress) {
	if o.Progress != nil {
		o.Progress(p)
	}
}
