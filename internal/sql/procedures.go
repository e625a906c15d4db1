package sql

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/sql/parser"
)

// procArgs are a CALL's arguments by (lower-case) name; positional arguments take the
// names of the procedure's parameters in order, as Spark's procedure framework does.
type procArgs map[string]string

func bindArgs(c *parser.Call, params []string) (procArgs, error) {
	out := procArgs{}
	pos := 0
	for _, a := range c.Args {
		name := strings.ToLower(a.Name)
		if name == "" {
			if pos >= len(params) {
				return nil, fmt.Errorf("CALL %s: too many arguments (parameters: %s)", c.Procedure, strings.Join(params, ", "))
			}
			name = params[pos]
			pos++
		} else {
			known := false
			for _, p := range params {
				if p == name {
					known = true
				}
			}
			if !known {
				return nil, fmt.Errorf("CALL %s: unknown argument %s (parameters: %s)", c.Procedure, a.Name, strings.Join(params, ", "))
			}
		}
		out[name] = a.Value
	}
	return out, nil
}

// procedure is one CALL target: its parameters and body.
type procedure struct {
	params []string
	run    func(ctx context.Context, e *Engine, h *hudiTable, a procArgs) (*Result, error)
}

// procedures are the CALL procedures of Hudi 0.14 the engine runs, each over the facade.
var procedures = map[string]procedure{
	"run_compaction":        {[]string{"op", "table", "path", "timestamp", "options"}, callCompaction},
	"run_clean":             {[]string{"table", "skip_locking", "schedule_in_line", "clean_policy", "retain_commits", "hours_retained", "file_versions_retained", "trigger_strategy", "trigger_max_commits", "options"}, callClean},
	"run_clustering":        {[]string{"table", "path", "predicate", "order", "show_involved_partition", "op", "order_strategy", "options", "instants", "selected_partitions", "limit"}, callClustering},
	"show_commits":          {[]string{"table", "limit"}, callShowCommits},
	"rollback_to_instant":   {[]string{"table", "instant_time"}, callRollback},
	"create_savepoint":      {[]string{"table", "commit_time", "user", "comments"}, callCreateSavepoint},
	"delete_savepoint":      {[]string{"table", "instant_time"}, callDeleteSavepoint},
	"rollback_to_savepoint": {[]string{"table", "instant_time"}, callRestoreSavepoint},
	"run_archive":           {[]string{"table", "path", "min_commits", "max_commits", "retain_commits", "enable_metadata"}, callArchive},
}

func (e *Engine) execCall(ctx context.Context, b *binder, c *parser.Call) (*Result, error) {
	if strings.EqualFold(strings.TrimPrefix(strings.ToLower(c.Procedure), "system."), "help") {
		return callHelp(c)
	}
	p, ok := procedures[strings.TrimPrefix(strings.ToLower(c.Procedure), "system.")]
	if !ok {
		names := make([]string, 0, len(procedures))
		for n := range procedures {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, atPos(c.Pos, fmt.Errorf("CALL %s: unknown procedure (supported: %s)", c.Procedure, strings.Join(names, ", ")))
	}
	a, err := bindArgs(c, p.params)
	if err != nil {
		return nil, atPos(c.Pos, err)
	}
	var h *hudiTable
	switch {
	case a["table"] != "":
		h, err = e.resolveText(ctx, a["table"])
	case a["path"] != "":
		h, err = e.resolve(ctx, parser.TableName{Path: a["path"]})
	default:
		err = fmt.Errorf("a table => or path => argument is required")
	}
	if err != nil {
		return nil, atPos(c.Pos, fmt.Errorf("CALL %s: %w", c.Procedure, err))
	}
	res, err := p.run(ctx, e, h, a)
	if err != nil {
		return nil, atPos(c.Pos, fmt.Errorf("CALL %s(%s): %w", c.Procedure, h.label(), err))
	}
	return res, nil
}

// resolveText resolves a table named in a string argument: db.table, table, or a path.
func (e *Engine) resolveText(ctx context.Context, s string) (*hudiTable, error) {
	if strings.ContainsAny(s, `/\`) {
		return e.resolve(ctx, parser.TableName{Path: s})
	}
	return e.resolve(ctx, parser.TableName{Parts: strings.Split(s, ".")})
}

// procSettings are the hoodie.* settings of a service call: the table's properties, the
// session's and the call's options ('k1=v1,k2=v2', as Hudi's procedures take them).
func (e *Engine) procSettings(h *hudiTable, options string) (map[string]string, error) {
	extra := map[string]string{}
	for _, kv := range splitList(options) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("options %q: want k1=v1,k2=v2", options)
		}
		extra[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return e.writeSettings(h, extra), nil
}

func callCompaction(ctx context.Context, e *Engine, h *hudiTable, a procArgs) (*Result, error) {
	o := hudi.CompactOptions{Now: e.o.Now}
	switch strings.ToLower(a["op"]) {
	case "schedule":
		o.Schedule = true
	case "run":
		o.Run = true
	case "scheduleandexecute", "":
		o.Schedule, o.Run = true, true
	default:
		return nil, fmt.Errorf("op %q: want schedule, run or scheduleAndExecute", a["op"])
	}
	var err error
	if o.Settings, err = e.procSettings(h, a["options"]); err != nil {
		return nil, err
	}
	res, err := h.t.Compact(ctx, o)
	if err != nil {
		return nil, err
	}
	return serviceRow("operation_size", res.Instant, res.Scheduled, res.Completed, res.FilesWritten, res.Message)
}

func callClustering(ctx context.Context, e *Engine, h *hudiTable, a procArgs) (*Result, error) {
	o := hudi.ClusterOptions{Now: e.o.Now}
	switch strings.ToLower(a["op"]) {
	case "schedule":
		o.Schedule = true
	case "execute", "run":
		o.Run = true
	case "scheduleandexecute", "":
		o.Schedule, o.Run = true, true
	default:
		return nil, fmt.Errorf("op %q: want schedule, execute or scheduleAndExecute", a["op"])
	}
	if a["predicate"] != "" || a["order"] != "" || a["instants"] != "" || a["selected_partitions"] != "" {
		return nil, fmt.Errorf("predicate, order, instants and selected_partitions are not supported yet")
	}
	var err error
	if o.Settings, err = e.procSettings(h, a["options"]); err != nil {
		return nil, err
	}
	res, err := h.t.Cluster(ctx, o)
	if err != nil {
		return nil, err
	}
	return serviceRow("input_group_size", res.Instant, res.Scheduled, res.Completed, res.FilesWritten, res.Message)
}

// serviceRow is the one-row result of run_compaction and run_clustering: the instant (the
// executed one, else the scheduled one), a size column, the state Hudi's procedures print
// (COMPLETED, REQUESTED or NONE) and a message.
func serviceRow(sizeColumn, instant, scheduled string, completed bool, size int, message string) (*Result, error) {
	state := "NONE"
	switch {
	case completed:
		state = "COMPLETED"
	case scheduled != "":
		state = "REQUESTED"
	}
	if instant == "" {
		instant = scheduled
	}
	return newRowsResult("CALL", []string{"timestamp", sizeColumn, "state", "message"},
		[][]any{{nullIfEmpty(instant), int64(size), state, nullIfEmpty(message)}})
}

func callClean(ctx context.Context, e *Engine, h *hudiTable, a procArgs) (*Result, error) {
	extra := map[string]string{}
	for arg, key := range map[string]string{"clean_policy": "hoodie.cleaner.policy", "retain_commits": "hoodie.cleaner.commits.retained",
		"hours_retained": "hoodie.cleaner.hours.retained", "file_versions_retained": "hoodie.cleaner.fileversions.retained"} {
		if v := a[arg]; v != "" {
			extra[key] = v
		}
	}
	settings, err := e.procSettings(h, a["options"])
	if err != nil {
		return nil, err
	}
	for k, v := range extra {
		settings[k] = v
	}
	res, err := h.t.Clean(ctx, hudi.CleanOptions{Settings: settings, Now: e.o.Now})
	if err != nil {
		return nil, err
	}
	return newRowsResult("CALL", []string{"start_clean_time", "total_files_deleted", "earliest_commit_to_retain", "policy"},
		[][]any{{nullIfEmpty(res.Instant), int64(res.FilesDeleted), nullIfEmpty(res.EarliestInstantToRetain), nullIfEmpty(res.Policy)}})
}

func callArchive(ctx context.Context, e *Engine, h *hudiTable, a procArgs) (*Result, error) {
	extra := map[string]string{}
	for arg, key := range map[string]string{"min_commits": "hoodie.keep.min.commits", "max_commits": "hoodie.keep.max.commits",
		"retain_commits": "hoodie.cleaner.commits.retained"} {
		if v := a[arg]; v != "" {
			extra[key] = v
		}
	}
	res, err := h.t.Archive(ctx, hudi.ArchiveOptions{Settings: e.writeSettings(h, extra), Logger: e.logger})
	if err != nil {
		return nil, err
	}
	return newRowsResult("CALL", []string{"result", "instants_archived", "message"},
		[][]any{{int64(0), int64(len(res.InstantsArchived)), nullIfEmpty(res.Message)}})
}

// callShowCommits lists completed commits newest first with Hudi's ShowCommitsProcedure
// columns.
func callShowCommits(ctx context.Context, e *Engine, h *hudiTable, a procArgs) (*Result, error) {
	limit := 10
	if v := a["limit"]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("limit %q: want a non-negative integer", v)
		}
		limit = n
	}
	m := h.t
	var rows [][]any
	completed := m.Timeline().Completed()
	for i := len(completed) - 1; i >= 0 && len(rows) < limit; i-- {
		in := completed[i]
		switch in.Action {
		case spec.ActionCommit, spec.ActionDeltaCommit, spec.ActionReplaceCommit:
		default:
			continue
		}
		cm, err := m.CommitMetadata(ctx, in)
		if err != nil {
			return nil, err
		}
		var bytes, added, updated, records, updates, errs int64
		parts := 0
		for _, stats := range cm.PartitionToWriteStats {
			parts++
			for _, s := range stats {
				bytes += s.TotalWriteBytes
				if s.PrevCommit == "" || s.PrevCommit == "null" {
					added++
				} else {
					updated++
				}
				records += s.NumWrites
				updates += s.NumUpdateWrites
				errs += s.TotalWriteErrors
			}
		}
		rows = append(rows, []any{string(in.Time), string(in.Action), bytes, added, updated, int64(parts), records, updates, errs})
	}
	return newRowsResult("CALL", []string{"commit_time", "action", "total_bytes_written", "total_files_added", "total_files_updated",
		"total_partitions_written", "total_records_written", "total_update_records_written", "total_errors"}, rows)
}

func callRollback(ctx context.Context, e *Engine, h *hudiTable, a procArgs) (*Result, error) {
	in := a["instant_time"]
	if in == "" {
		return nil, fmt.Errorf("instant_time => is required")
	}
	res, err := h.t.Rollback(ctx, in, hudi.RollbackOptions{Logger: e.logger, Now: e.o.Now})
	if err != nil {
		return nil, err
	}
	return newRowsResult("CALL", []string{"rollback_result", "rollback_instant", "instants_rolled_back"},
		[][]any{{true, res.Instant, strings.Join(res.InstantsRolledBack, ",")}})
}

func callCreateSavepoint(ctx context.Context, e *Engine, h *hudiTable, a procArgs) (*Result, error) {
	in := a["commit_time"]
	if in == "" {
		return nil, fmt.Errorf("commit_time => is required")
	}
	res, err := h.t.Savepoint(ctx, hudi.SavepointCreate, in, hudi.SavepointOptions{User: a["user"], Comment: a["comments"], Logger: e.logger, Now: e.o.Now})
	if err != nil {
		return nil, err
	}
	return newRowsResult("CALL", []string{"create_savepoint_result", "savepoint"}, [][]any{{true, res.Savepoint}})
}

func callDeleteSavepoint(ctx context.Context, e *Engine, h *hudiTable, a procArgs) (*Result, error) {
	res, err := h.t.Savepoint(ctx, hudi.SavepointDelete, a["instant_time"], hudi.SavepointOptions{Logger: e.logger, Now: e.o.Now})
	if err != nil {
		return nil, err
	}
	return newRowsResult("CALL", []string{"delete_savepoint_result", "savepoint"}, [][]any{{true, res.Savepoint}})
}

func callRestoreSavepoint(ctx context.Context, e *Engine, h *hudiTable, a procArgs) (*Result, error) {
	res, err := h.t.Savepoint(ctx, hudi.SavepointRestore, a["instant_time"], hudi.SavepointOptions{Logger: e.logger, Now: e.o.Now})
	if err != nil {
		return nil, err
	}
	return newRowsResult("CALL", []string{"rollback_savepoint_result", "restore_instant"}, [][]any{{true, res.Instant}})
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// callHelp is Hudi's help procedure: the parameters of one procedure (cmd => name), or the
// procedures there are.
func callHelp(c *parser.Call) (*Result, error) {
	a, err := bindArgs(c, []string{"cmd"})
	if err != nil {
		return nil, atPos(c.Pos, err)
	}
	if cmd := strings.ToLower(a["cmd"]); cmd != "" {
		p, ok := procedures[cmd]
		if !ok {
			return nil, atPos(c.Pos, fmt.Errorf("CALL help: unknown procedure %s", cmd))
		}
		return newRowsResult("CALL", []string{"result"}, [][]any{{"parameters: " + strings.Join(p.params, ", ")}})
	}
	names := make([]string, 0, len(procedures))
	for n := range procedures {
		names = append(names, n)
	}
	sort.Strings(names)
	rows := make([][]any, len(names))
	for i, n := range names {
		rows[i] = []any{n + "(" + strings.Join(procedures[n].params, ", ") + ")"}
	}
	return newRowsResult("CALL", []string{"result"}, rows)
}
