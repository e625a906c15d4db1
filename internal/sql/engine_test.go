package sql

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/format/jsonl"
	"github.com/hudi-go/hudi/internal/sql/parser"
)

// Statements are built by hand here, so the engine is tested apart from the parser.

// text builds SQLText from strings (segments) and TableRefs, in order.
func text(parts ...any) parser.SQLText {
	var t parser.SQLText
	seg := ""
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			seg += p
		case parser.TableRef:
			t.Segments = append(t.Segments, seg)
			t.Refs = append(t.Refs, p)
			seg = ""
		}
	}
	t.Segments = append(t.Segments, seg)
	return t
}

func tref(name string) parser.TableRef {
	return parser.TableRef{Name: parser.TableName{Parts: strings.Split(name, ".")}}
}

func tname(name string) parser.TableName { return parser.TableName{Parts: strings.Split(name, ".")} }

func ptext(parts ...any) *parser.SQLText { t := text(parts...); return &t }

func openEngine(t *testing.T) *Engine {
	t.Helper()
	e, err := Open(context.Background(), Options{Warehouse: t.TempDir(), TimeZone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func exec(t *testing.T, e *Engine, st parser.Statement) *Result {
	t.Helper()
	r, err := e.Exec(context.Background(), st)
	if err != nil {
		t.Fatalf("%T: %v", st, err)
	}
	t.Cleanup(r.Release)
	return r
}

// rowsJSON renders a result's rows as canonical JSON lines without meta columns.
func rowsJSON(t *testing.T, r *Result) []string {
	t.Helper()
	var b bytes.Buffer
	enc := jsonl.NewEncoder(&b, jsonl.Options{DropMetaColumns: true})
	for _, rec := range r.Records {
		if err := enc.WriteRecord(rec); err != nil {
			t.Fatal(err)
		}
	}
	enc.Flush()
	s := strings.TrimSpace(b.String())
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func TestCreateInsertUpdateDeleteMerge(t *testing.T) {
	e := openEngine(t)
	exec(t, e, &parser.CreateTable{Table: tname("trips"), Using: "hudi",
		Columns: []parser.ColumnDef{{Name: "ts", Type: "BIGINT"}, {Name: "uuid", Type: "STRING"}, {Name: "rider", Type: "STRING"},
			{Name: "driver", Type: "STRING"}, {Name: "fare", Type: "DOUBLE"}, {Name: "city", Type: "STRING"}},
		PartitionedBy: []string{"city"},
		Properties:    []parser.Property{{Key: "primaryKey", Value: "uuid"}, {Key: "preCombineField", Value: "ts"}}})
	r := exec(t, e, &parser.Insert{Table: tname("trips"), Source: text(`VALUES
 (1695159649087,'334e26e9-8355-45cc-97c6-c31daf0df330','rider-A','driver-K',19.10,'san_francisco'),
 (1695091554788,'e96c4396-3fad-413a-a942-4cb36106d721','rider-C','driver-M',27.70,'san_francisco'),
 (1695046462179,'9909a8b1-2d15-4d3d-8ec9-efc48c536a00','rider-D','driver-L',33.90,'san_francisco'),
 (1695516137016,'e3cf430c-889d-4015-bc98-59bdce1e530c','rider-F','driver-P',34.15,'sao_paulo'),
 (1695115999911,'c8abbe79-8d89-47ea-b4ce-4d224bae5bfa','rider-J','driver-T',17.85,'chennai')`)})
	if !strings.Contains(r.Summary, "5 row(s)") || !strings.Contains(r.Summary, "(upsert)") {
		t.Errorf("insert summary: %s", r.Summary)
	}
	first := r.Instants[0]
	r = exec(t, e, &parser.Select{Query: text("SELECT rider, fare FROM ", tref("trips"), " WHERE fare > 20 ORDER BY rider")})
	if got := strings.Join(rowsJSON(t, r), "\n"); got != `{"rider":"rider-C","fare":27.7}
{"rider":"rider-D","fare":33.9}
{"rider":"rider-F","fare":34.15}` {
		t.Errorf("fare > 20:\n%s", got)
	}
	exec(t, e, &parser.Update{Table: tname("trips"), Set: []parser.Assignment{{Column: "fare", Value: text("fare * 10")}},
		Where: ptext("rider = 'rider-D'")})
	exec(t, e, &parser.CreateTable{Table: tname("fare_adjustment"), Using: "hudi",
		Columns: []parser.ColumnDef{{Name: "ts", Type: "BIGINT"}, {Name: "uuid", Type: "STRING"}, {Name: "rider", Type: "STRING"},
			{Name: "driver", Type: "STRING"}, {Name: "fare", Type: "DOUBLE"}, {Name: "city", Type: "STRING"}},
		Properties: []parser.Property{{Key: "primaryKey", Value: "uuid"}, {Key: "preCombineField", Value: "ts"}}})
	exec(t, e, &parser.Insert{Table: tname("fare_adjustment"), Source: text(`VALUES
 (1695091554788,'e96c4396-3fad-413a-a942-4cb36106d721','rider-C','driver-M',-2.70,'san_francisco'),
 (1695530237068,'3f3d9565-7261-40e6-9b39-b8aa784f95e2','rider-K','driver-U',64.20,'san_francisco'),
 (1695241330902,'ea4c36ff-2069-4148-9927-ef8c1a5abd24','rider-H','driver-R',66.60,'sao_paulo'),
 (1695115999911,'c8abbe79-8d89-47ea-b4ce-4d224bae5bfa','rider-J','driver-T',1.85,'chennai')`)})
	r = exec(t, e, &parser.Merge{Target: tname("trips"), TargetAlias: "target", Source: text(tref("fare_adjustment")), SourceAlias: "source",
		On: text("target.uuid = source.uuid"),
		Clauses: []parser.MergeClause{
			{Matched: true, Action: parser.MergeUpdate, Set: []parser.Assignment{{Column: "fare", Value: text("target.fare + source.fare")}}},
			{Matched: false, Action: parser.MergeInsert, Star: true},
		}})
	if !strings.Contains(r.Summary, "2 updated, 2 inserted, 0 deleted") {
		t.Errorf("merge summary: %s", r.Summary)
	}
	exec(t, e, &parser.Delete{Table: tname("trips"), Where: ptext("rider = 'rider-F'")})
	r = exec(t, e, &parser.Select{Query: text("SELECT rider, round(fare, 2) AS fare, city FROM ", tref("trips"), " ORDER BY rider")})
	want := `{"rider":"rider-A","fare":19.1,"city":"san_francisco"}
{"rider":"rider-C","fare":25.0,"city":"san_francisco"}
{"rider":"rider-D","fare":339.0,"city":"san_francisco"}
{"rider":"rider-H","fare":66.6,"city":"sao_paulo"}
{"rider":"rider-J","fare":19.7,"city":"chennai"}
{"rider":"rider-K","fare":64.2,"city":"san_francisco"}`
	if got := strings.Join(rowsJSON(t, r), "\n"); got != want {
		t.Errorf("final:\n%s\nwant:\n%s", got, want)
	}
	// Time travel to the first commit and the incremental read since it.
	asOf := tref("trips")
	asOf.AsOf = first
	r = exec(t, e, &parser.Select{Query: text("SELECT count(*) AS n FROM ", asOf)})
	if got := strings.Join(rowsJSON(t, r), ""); got != `{"n":5}` {
		t.Errorf("as of %s: %s", first, got)
	}
	ch := tref("trips")
	ch.Changes = &parser.ChangesRef{Format: "latest_state", Begin: first}
	r = exec(t, e, &parser.Select{Query: text("SELECT rider FROM ", ch, " ORDER BY rider")})
	if got := strings.Join(rowsJSON(t, r), ","); got != `{"rider":"rider-C"},{"rider":"rider-D"},{"rider":"rider-H"},{"rider":"rider-J"},{"rider":"rider-K"}` {
		t.Errorf("changes since %s: %s", first, got)
	}
	r = exec(t, e, &parser.Call{Procedure: "show_commits", Args: []parser.CallArg{{Name: "table", Value: "trips"}}})
	if r.NumRows() != 4 { // insert, update, merge (no deletes: one upsert), delete
		t.Errorf("show_commits: %d rows", r.NumRows())
	}
	var out bytes.Buffer
	if err := WriteResult(&out, nil, r, FormatTable); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", out.String())
}
