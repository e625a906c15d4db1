package spec

import (
	"fmt"
	"strconv"
	"strings"
)

// FileID identifies a file group within a partition: "<uuid>-<n>" for Spark writers.
type FileID string

// WriteToken is "<taskPartitionId>-<stageId>-<taskAttemptId>".
type WriteToken string

// BaseFileName is a parsed base file name "<fileId>_<writeToken>_<instant>.<ext>".
type BaseFileName struct {
	FileID     FileID
	WriteToken WriteToken
	Instant    InstantTime
	Extension  string // without the dot: parquet, hfile, orc, lance
}

// baseFileExtensions are the formats a Hudi base file can have.
var baseFileExtensions = map[string]bool{"parquet": true, "hfile": true, "orc": true, "lance": true}

// ParseBaseFileName parses a base file name. ok is false for names that are not base
// files (log files, partition metadata, checksums …), so listings can skip them.
func ParseBaseFileName(name string) (BaseFileName, bool) {
	if strings.HasPrefix(name, ".") {
		return BaseFileName{}, false
	}
	dot := strings.LastIndexByte(name, '.')
	if dot < 0 || !baseFileExtensions[name[dot+1:]] {
		return BaseFileName{}, false
	}
	stem := name[:dot]
	// The file ID may itself contain '_' in exotic writers; the token and instant never do,
	// so split from the right.
	i2 := strings.LastIndexByte(stem, '_')
	if i2 < 0 {
		return BaseFileName{}, false
	}
	i1 := strings.LastIndexByte(stem[:i2], '_')
	if i1 <= 0 {
		return BaseFileName{}, false
	}
	inst, err := ParseFileInstant(stem[i2+1:])
	if err != nil {
		return BaseFileName{}, false
	}
	return BaseFileName{FileID: FileID(stem[:i1]), WriteToken: WriteToken(stem[i1+1 : i2]), Instant: inst, Extension: name[dot+1:]}, true
}

// String formats the name.
func (b BaseFileName) String() string {
	return fmt.Sprintf("%s_%s_%s.%s", b.FileID, b.WriteToken, b.Instant, b.Extension)
}

// LogFileName is a parsed log file name ".<fileId>_<instant>.log.<version>_<writeToken>".
// Instant is the base instant of the file slice (table version 6) or the instant of the
// deltacommit that wrote the file (version 8+).
type LogFileName struct {
	FileID     FileID
	Instant    InstantTime
	Extension  string // "log"
	Version    int
	WriteToken WriteToken
	// CDCSuffix is the suffix of a change-data-capture log file ("" for any other log):
	// CDCSuffix014 as Hudi 0.14 names them, or ".cdc" as later releases do. Such files hold
	// CDC_DATA_BLOCKs for CDC queries and are not part of the table's data.
	CDCSuffix string
}

// CDCSuffix014 is the suffix Hudi 0.14 appends to the write token of a CDC log file
// (HoodieCDCUtils.CDC_LOGFILE_SUFFIX = "-cdc", which HoodieLogFormat.WriterBuilder glues to
// the write token: ".<fileId>_<instant>.log.1_<token>-cdc"). Later releases use ".cdc";
// Java's FSUtils.LOG_FILE_PATTERN ends in "(.cdc)?", whose unescaped dot matches both.
const CDCSuffix014 = "-cdc"

// cdcSuffixLater is the CDC log suffix of Hudi releases after 0.14 (read only).
const cdcSuffixLater = ".cdc"

// CDC reports whether l names a change-data-capture log file.
func (l LogFileName) CDC() bool { return l.CDCSuffix != "" }

// ParseLogFileName parses a log file name; ok is false for anything else.
func ParseLogFileName(name string) (LogFileName, bool) {
	if !strings.HasPrefix(name, ".") {
		return LogFileName{}, false
	}
	s := name[1:]
	var l LogFileName
	for _, suf := range []string{CDCSuffix014, cdcSuffixLater} {
		if strings.HasSuffix(s, suf) {
			l.CDCSuffix = suf
			s = strings.TrimSuffix(s, suf)
			break
		}
	}
	// <fileId>_<instant>.<ext>.<version>[_<token>]
	us := strings.IndexByte(s, '_')
	for us >= 0 {
		rest := s[us+1:]
		dot := strings.IndexByte(rest, '.')
		if dot > 0 {
			if inst, err := ParseFileInstant(rest[:dot]); err == nil {
				l.FileID = FileID(s[:us])
				l.Instant = inst
				s = rest[dot+1:]
				break
			}
		}
		next := strings.IndexByte(s[us+1:], '_')
		if next < 0 {
			return LogFileName{}, false
		}
		us += 1 + next
	}
	if l.FileID == "" {
		return LogFileName{}, false
	}
	dot := strings.IndexByte(s, '.')
	if dot <= 0 {
		return LogFileName{}, false
	}
	l.Extension = s[:dot]
	verTok := s[dot+1:]
	ver := verTok
	if u := strings.IndexByte(verTok, '_'); u >= 0 {
		ver = verTok[:u]
		l.WriteToken = WriteToken(verTok[u+1:])
	}
	v, err := strconv.Atoi(ver)
	if err != nil || v < 0 {
		return LogFileName{}, false
	}
	l.Version = v
	// Java's pattern takes a write token of three numbers only; anything else (e.g. the
	// ".tmp-<n>" suffix of a file being written atomically) is not a log file.
	if l.WriteToken != "" && !validWriteToken(string(l.WriteToken)) {
		return LogFileName{}, false
	}
	if strings.HasPrefix(string(l.FileID), ".") {
		return LogFileName{}, false
	}
	return l, true
}

// validWriteToken reports "<n>-<n>-<n>" (digits may be empty, as Java's regex allows).
func validWriteToken(t string) bool {
	parts := strings.Split(t, "-")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		for i := 0; i < len(p); i++ {
			if p[i] < '0' || p[i] > '9' {
				return false
			}
		}
	}
	return true
}

// String formats the name.
func (l LogFileName) String() string {
	s := fmt.Sprintf(".%s_%s.%s.%d", l.FileID, l.Instant, l.Extension, l.Version)
	if l.WriteToken != "" {
		s += "_" + string(l.WriteToken)
	}
	s += l.CDCSuffix
	return s
}

// CompareLogFiles orders log files of one file slice: by instant, then version, then
// write token — the order Java's log scanner reads them in.
func CompareLogFiles(a, b LogFileName) int {
	if c := a.Instant.Compare(b.Instant); c != 0 {
		return c
	}
	if a.Version != b.Version {
		if a.Version < b.Version {
			return -1
		}
		return 1
	}
	return strings.Compare(string(a.WriteToken), string(b.WriteToken))
}

// InstantFileName is a parsed timeline file name: "<T>.<action>[.<state>]" (layout 1 and
// pending layout 2) or "<T>_<completion>.<action>" (completed, layout 2).
type InstantFileName struct {
	Instant    InstantTime
	Completion InstantTime // layout 2 completed instants only
	Action     Action      // as in the file name (a completed compaction is "commit")
	State      State
}

// ParseInstantFileName parses a timeline file name; ok is false for other files
// (hoodie.properties, directories, *.crc, …).
func ParseInstantFileName(name string) (InstantFileName, bool) {
	dot := strings.IndexByte(name, '.')
	if dot <= 0 {
		return InstantFileName{}, false
	}
	var f InstantFileName
	ts := name[:dot]
	if u := strings.IndexByte(ts, '_'); u >= 0 {
		c, err := ParseFileInstant(ts[u+1:])
		if err != nil {
			return InstantFileName{}, false
		}
		f.Completion = c
		ts = ts[:u]
	}
	inst, err := ParseFileInstant(ts)
	if err != nil {
		return InstantFileName{}, false
	}
	f.Instant = inst
	rest := name[dot+1:]
	switch {
	case rest == "inflight": // layout 1 commit inflight has no action name
		f.Action, f.State = ActionCommit, StateInflight
	case strings.HasSuffix(rest, ".requested"):
		f.Action, f.State = Action(strings.TrimSuffix(rest, ".requested")), StateRequested
	case strings.HasSuffix(rest, ".inflight"):
		f.Action, f.State = Action(strings.TrimSuffix(rest, ".inflight")), StateInflight
	default:
		f.Action, f.State = Action(rest), StateCompleted
	}
	if !f.Action.IsKnown() {
		return InstantFileName{}, false
	}
	if f.Completion != "" && f.State != StateCompleted {
		return InstantFileName{}, false
	}
	return f, true
}

// FileName formats the timeline file name for the given layout (1 or 2).
func (f InstantFileName) FileName(layout int) string {
	switch f.State {
	case StateRequested:
		return fmt.Sprintf("%s.%s.requested", f.Instant, f.Action)
	case StateInflight:
		// Both layouts name a commit's inflight file without its action, as Spark does in
		// the fixtures cow/v6_nonpartitioned and cow/v8_nonpartitioned.
		if f.Action == ActionCommit {
			return fmt.Sprintf("%s.inflight", f.Instant)
		}
		return fmt.Sprintf("%s.%s.inflight", f.Instant, f.Action)
	}
	if layout >= 2 && f.Completion != "" {
		return fmt.Sprintf("%s_%s.%s", f.Instant, f.Completion, f.Action.CompletedAction())
	}
	return fmt.Sprintf("%s.%s", f.Instant, f.Action.CompletedAction())
}
