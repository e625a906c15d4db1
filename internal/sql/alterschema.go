package sql

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/internal/schema/internalschema"
	"github.com/hudi-go/hudi/internal/sql/parser"
)

// schemaOnRead reads hoodie.schema.on.read.enable from the session, then the table's
// properties: set reports whether it was given at all.
func (e *Engine) schemaOnRead(h *hudiTable) (on, set bool, err error) {
	v, ok := e.setting(h, config.SchemaEvolutionEnable.Name)
	if !ok {
		return false, false, nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return false, true, fmt.Errorf("%s=%q is not a boolean", config.SchemaEvolutionEnable.Name, v)
	}
	return b, true, nil
}

// execAddColumns runs ALTER TABLE … ADD COLUMNS: with hoodie.schema.on.read.enable=true
// as a schema change on read (one ALTER_SCHEMA instant, new column ids), as Hudi's Spark
// SQL sends it to HudiAlterTableCommand then; otherwise as schema evolution on write
// (execAlterAddColumns, AlterHoodieTableAddColumnsCommand).
func (e *Engine) execAddColumns(ctx context.Context, s *parser.AlterAddColumns) (*Result, error) {
	h, err := e.resolve(ctx, s.Table)
	if err != nil {
		return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE: %w", err))
	}
	on, _, err := e.schemaOnRead(h)
	if err != nil {
		return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE %s ADD COLUMNS: %w", h.label(), err))
	}
	if !on {
		return e.execAlterAddColumns(ctx, s)
	}
	st := &parser.AlterColumns{Pos: s.Pos, Table: s.Table, Kind: "ADD COLUMNS"}
	for _, c := range s.Columns {
		st.Add = append(st.Add, parser.AddColumnSpec{Name: []string{c.Name}, Def: c})
	}
	return e.alterColumns(ctx, h, st)
}

// execAlterColumns runs the column changes of schema evolution on read: ADD COLUMNS with
// nested names or positions, ALTER COLUMN (TYPE, COMMENT, FIRST|AFTER, DROP NOT NULL),
// DROP COLUMN(S) and RENAME COLUMN, each one instant as Java's
// AlterTableCommand.commitWithSchema commits it. They need hoodie.schema.on.read.enable=
// true (SET, or the table's TBLPROPERTIES): Hudi 0.14's Spark SQL only routes them to
// Hudi then (ResolveHudiAlterTableCommandSpark32), and Spark refuses them on its own
// tables otherwise; hudi-go refuses them with an error naming the setting.
func (e *Engine) execAlterColumns(ctx context.Context, s *parser.AlterColumns) (*Result, error) {
	h, err := e.resolve(ctx, s.Table)
	if err != nil {
		return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE: %w", err))
	}
	on, set, err := e.schemaOnRead(h)
	if err == nil && !on {
		how := "it is not set"
		if set {
			how = "it is false"
		}
		err = fmt.Errorf("%s needs schema evolution on read, and %s is off (%s): SET %s=true, or set it in the table's TBLPROPERTIES",
			s.Kind, config.SchemaEvolutionEnable.Name, how, config.SchemaEvolutionEnable.Name)
	}
	if err != nil {
		return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE %s %s: %w", h.label(), s.Kind, err))
	}
	return e.alterColumns(ctx, h, s)
}

// alterColumns commits s as one schema change.
func (e *Engine) alterColumns(ctx context.Context, h *hudiTable, s *parser.AlterColumns) (*Result, error) {
	fail := func(err error) (*Result, error) {
		return nil, atPos(s.Pos, fmt.Errorf("ALTER TABLE %s %s: %w", h.label(), s.Kind, err))
	}
	var change hudi.SchemaChange
	var what, note string
	switch {
	case len(s.Add) > 0:
		var names []string
		for _, a := range s.Add {
			typ, err := internalType(a.Def.Type)
			if err != nil {
				return fail(fmt.Errorf("column %s: %w", parser.FullName(a.Name), err))
			}
			add := internalschema.AddColumn{Parent: parser.FullName(a.Name[:len(a.Name)-1]), Name: a.Def.Name, Type: typ,
				Position: position(a.Position)}
			if a.Def.Comment != "" {
				c := a.Def.Comment
				add.Doc = &c
			}
			if a.Def.NotNull {
				// Java adds every column as optional whatever the statement says
				// (TableChanges.ColumnAddChange): existing rows have no value for it.
				note = " (NOT NULL is not kept: Hudi adds columns as nullable, existing rows have no value)"
			}
			change.Add = append(change.Add, add)
			names = append(names, parser.FullName(a.Name))
		}
		what = "added column(s) " + strings.Join(names, ", ")
	case s.Alter != nil:
		a := s.Alter
		up := internalschema.UpdateColumn{Name: parser.FullName(a.Name), Doc: a.Comment, Position: position(a.Position)}
		if a.Type != "" {
			typ, err := internalType(a.Type)
			if err != nil {
				return fail(fmt.Errorf("column %s: %w", up.Name, err))
			}
			up.Type = typ
		}
		if a.DropNotNull || a.SetNotNull {
			nullable := a.DropNotNull
			up.Nullable = &nullable
		}
		change.Update = []internalschema.UpdateColumn{up}
		what = "altered column " + up.Name
	case len(s.Drop) > 0:
		cur, _, err := h.t.CurrentInternalSchema(ctx)
		if err != nil {
			return fail(err)
		}
		var skipped []string
		for _, n := range s.Drop {
			name := parser.FullName(n)
			if _, ok := cur.Find(name); !ok && s.DropIfExists {
				skipped = append(skipped, name)
				continue
			}
			change.Delete = append(change.Delete, name)
		}
		if len(change.Delete) == 0 {
			return &Result{Kind: "ALTER TABLE", Summary: fmt.Sprintf("ALTER TABLE %s: no column to drop (IF EXISTS: %s do not exist); nothing committed",
				h.label(), strings.Join(skipped, ", "))}, nil
		}
		what = "dropped column(s) " + strings.Join(change.Delete, ", ")
	default:
		from := parser.FullName(s.RenameFrom)
		change.Update = []internalschema.UpdateColumn{{Name: from, Rename: s.RenameTo}}
		what = "renamed column " + from + " to " + s.RenameTo
	}
	res, err := h.t.AlterSchema(ctx, change, hudi.WriteOptions{Settings: e.writeSettings(h, nil), Logger: e.logger, Now: e.o.Now})
	if err != nil {
		return fail(err)
	}
	return &Result{Kind: "ALTER TABLE", Instants: []string{res.Instant},
		Summary: fmt.Sprintf("ALTER TABLE %s: %s%s; committed %s %s", h.label(), what, note, res.Action, res.Instant)}, nil
}

// checkQuerySchemaOnRead refuses reading a table that evolved its schema on read while
// hoodie.schema.on.read.enable is false for it: Java's Spark reader would then read the
// files by name (renamed columns null, a re-added column the dropped data); hudi-go always
// reads them by column id, so it refuses rather than ignore the setting.
func (e *Engine) checkQuerySchemaOnRead(ctx context.Context, h *hudiTable) error {
	on, set, err := e.schemaOnRead(h)
	if err != nil || !set || on {
		return err
	}
	cur, err := h.t.InternalSchemaAt(ctx, "")
	if err != nil || cur == nil {
		return err
	}
	return fmt.Errorf("table %s evolved its schema on read (InternalSchema version %d) and %s=false: hudi-go reads it by column id only; unset the setting or set it to true",
		h.label(), cur.VersionID, config.SchemaEvolutionEnable.Name)
}

// internalType converts a Spark DDL type into an InternalSchema type (ids are assigned by
// the change).
func internalType(ddl string) (*internalschema.Type, error) {
	sc, err := schema.ParseDDL("c " + ddl)
	if err != nil {
		return nil, err
	}
	return schema.InternalTypeFromArrow(sc.Field(0).Type)
}

func position(p parser.ColumnPosition) internalschema.Position {
	switch {
	case p.First:
		return internalschema.Position{Kind: internalschema.First}
	case p.After != "":
		return internalschema.Position{Kind: internalschema.After, Ref: p.After}
	}
	return internalschema.Position{}
}
