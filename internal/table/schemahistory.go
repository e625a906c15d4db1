package table

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hudi-go/hudi/internal/schema/internalschema"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage"
)

// SchemaFolder holds the schema history of schema evolution on read: one file per commit
// that recorded it, "<instant>.schemacommit", each holding every version so far (Java's
// FileBasedInternalSchemaStorageManager writes it through the timeline API, so the
// requested and inflight files of the schemacommit are there too).
const SchemaFolder = ".hoodie/.schema"

// schemaHistoryFile is the history file of an instant in one of its states.
func schemaHistoryFile(instant spec.InstantTime, s spec.State) string {
	return storage.Join(SchemaFolder, spec.InstantFileName{Instant: instant, Action: spec.ActionSchemaCommit, State: s}.FileName(1))
}

// historyFileInstant returns the instant a completed history file belongs to (the part
// of the name before the first dot, and before "_" on layout 2), or "" for other files.
func historyFileInstant(name string) spec.InstantTime {
	if !strings.HasSuffix(name, "."+string(spec.ActionSchemaCommit)) {
		return ""
	}
	head, _, _ := strings.Cut(name, ".")
	head, _, _ = strings.Cut(head, "_")
	return spec.InstantTime(head)
}

// SchemaHistoryText returns the text of the newest valid schema history file, "" when
// there is none. Valid, as in Java's getHistorySchemaStr, are the files of completed
// commits, delta commits and replace commits of the active timeline; when none is (every
// commit that wrote one was archived) the newest file older than the active timeline is
// taken, since archived instants completed (Java finds none then: hudi-go's choice).
func (t *Table) SchemaHistoryText(ctx context.Context) (string, error) {
	entries, err := t.Storage.List(ctx, SchemaFolder)
	if errors.Is(err, storage.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("list %s: %w", SchemaFolder, err)
	}
	var valid, archived []string
	for _, e := range entries {
		in := historyFileInstant(e.Name)
		if e.IsDir || in == "" {
			continue
		}
		if _, ok := t.Timeline.CompletedDataInstant(in); ok {
			valid = append(valid, e.Name)
		} else if t.Timeline.IsBeforeStart(in) {
			archived = append(archived, e.Name)
		}
	}
	if len(valid) == 0 {
		valid = archived
	}
	if len(valid) == 0 {
		return "", nil
	}
	sort.Strings(valid)
	p := storage.Join(SchemaFolder, valid[len(valid)-1])
	data, err := t.Storage.ReadFile(ctx, p)
	if err != nil {
		return "", fmt.Errorf("read schema history %s: %w", p, err)
	}
	return string(data), nil
}

// SchemaHistory parses the newest valid schema history (nil when there is none).
func (t *Table) SchemaHistory(ctx context.Context) (*internalschema.History, error) {
	text, err := t.SchemaHistoryText(ctx)
	if err != nil || text == "" {
		return nil, err
	}
	t.cache.mu.Lock()
	h, ok := t.cache.histories[text]
	t.cache.mu.Unlock()
	if ok {
		return h, nil
	}
	h, err = internalschema.ParseHistory(text)
	if err != nil {
		return nil, fmt.Errorf("table %s: %s: %w", t.Config.Name(), SchemaFolder, err)
	}
	t.cache.mu.Lock()
	clear(t.cache.histories) // only the newest history is ever asked for again
	t.cache.histories[text] = h
	t.cache.mu.Unlock()
	return h, nil
}

// latestSchemaOf returns the InternalSchema a completed commit recorded (latest_schema),
// nil if it recorded none.
func (t *Table) latestSchemaOf(ctx context.Context, ts spec.InstantTime) (*internalschema.Schema, error) {
	in, ok := t.Timeline.CompletedDataInstant(ts)
	if !ok {
		return nil, nil
	}
	cm, err := t.CommitMetadata(ctx, in)
	if err != nil {
		return nil, err
	}
	text := cm.ExtraMetadata[internalschema.LatestSchemaKey]
	if text == "" {
		return nil, nil
	}
	s, err := internalschema.Parse(text)
	if err != nil {
		p, _ := in.File(spec.StateCompleted)
		return nil, fmt.Errorf("%s: %s: %w", p, internalschema.LatestSchemaKey, err)
	}
	return s, nil
}

// InternalSchemaAt returns the InternalSchema of the table as of an instant ("" = latest):
// the latest_schema of the latest completed data instant at or before it that recorded
// one (Java's TableSchemaResolver.getTableInternalSchemaFromCommitMetadata), else the
// history's version at that instant. nil means the table has no InternalSchema: schema
// evolution on read has never changed it.
func (t *Table) InternalSchemaAt(ctx context.Context, asOf spec.InstantTime) (*internalschema.Schema, error) {
	ins := t.visibleDataInstants(asOf)
	for i := len(ins) - 1; i >= 0; i-- {
		s, err := t.latestSchemaOf(ctx, ins[i].Time)
		if err != nil || s != nil {
			return s, err
		}
	}
	h, err := t.SchemaHistory(ctx)
	if err != nil || h == nil {
		return nil, err
	}
	if asOf == "" {
		return h.At(1<<63 - 1), nil
	}
	v, err := asOf.Int()
	if err != nil {
		return nil, err
	}
	return h.At(v), nil
}

// FileInternalSchema returns the InternalSchema the data written by instant (a base
// file's or a log block's instant) was written with, as Java's
// InternalSchemaCache.searchSchemaAndCache finds it: the latest_schema of that commit,
// else the history's version in force at the instant. nil means none is known (the
// caller reads such a file by column name).
func (t *Table) FileInternalSchema(ctx context.Context, instant spec.InstantTime) (*internalschema.Schema, error) {
	s, err := t.latestSchemaOf(ctx, instant)
	if err != nil || s != nil {
		return s, err
	}
	h, err := t.SchemaHistory(ctx)
	if err != nil || h == nil {
		return nil, err
	}
	v, err := instant.Int()
	if err != nil {
		return nil, fmt.Errorf("file instant %q: %w", instant, err)
	}
	return h.At(v), nil
}

// PersistSchemaHistory writes the schema history file of instant (requested, inflight,
// then the completed file with text), as Java's persistHistorySchemaStr does, before the
// instant commits: readers take it into account only once the instant is completed.
// History files of instants that are neither completed nor pending are deleted first
// (Java's cleanResidualFiles deletes those of every instant not completed, which could
// remove a concurrent writer's; sparing pending ones is hudi-go's choice).
func (t *Table) PersistSchemaHistory(ctx context.Context, instant spec.InstantTime, text string) error {
	if err := t.cleanResidualSchemaFiles(ctx); err != nil {
		return err
	}
	for _, s := range []spec.State{spec.StateRequested, spec.StateInflight, spec.StateCompleted} {
		body := ""
		if s == spec.StateCompleted {
			body = text
		}
		p := schemaHistoryFile(instant, s)
		w, err := t.Storage.Create(ctx, p)
		if err != nil {
			return fmt.Errorf("write schema history %s: %w", p, err)
		}
		if _, err := io.WriteString(w, body); err != nil {
			_ = storage.Abort(w)
			return fmt.Errorf("write schema history %s: %w", p, err)
		}
		if err := w.Close(); err != nil {
			return fmt.Errorf("write schema history %s: %w", p, err)
		}
	}
	return nil
}

func (t *Table) cleanResidualSchemaFiles(ctx context.Context) error {
	entries, err := t.Storage.List(ctx, SchemaFolder)
	if errors.Is(err, storage.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", SchemaFolder, err)
	}
	for _, e := range entries {
		if e.IsDir {
			continue
		}
		head, _, _ := strings.Cut(e.Name, ".")
		head, _, _ = strings.Cut(head, "_")
		in := spec.InstantTime(head)
		if len(t.Timeline.At(in)) > 0 || t.Timeline.IsBeforeStart(in) {
			continue // completed, pending, or older than the active timeline
		}
		if err := t.Storage.Delete(ctx, storage.Join(SchemaFolder, e.Name)); err != nil {
			return fmt.Errorf("delete residual schema history file: %w", err)
		}
	}
	return nil
}
