package hudi_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/schema/internalschema"
	"github.com/hudi-go/hudi/internal/testutil"
)

// sorModel is the in-memory model of a table under schema evolution on read: columns
// by id (name, kind, order) and rows by key, each value kept as written (with the kind
// it was written as) and rendered by the column's kind at read time, as Java converts
// re-typed columns (Integer/Long/Double.toString for strings).
type sorModel struct {
	cols    []*sorCol // in table order
	nextID  int
	dropped []string // names of dropped columns, to add again
	rows    map[int]*sorRow
}

type sorCol struct {
	id   int
	name string
	kind string // int, long, double, string
}

type sorRow struct {
	vals      map[int]sorVal // by column id; missing = null
	lastWrite string         // instant of the last write of the row
}

type sorVal struct {
	kind string
	v    any // int64, float64 or string
}

// render prints a row as the canonical JSON line of a scan, in column order.
func (m *sorModel) render(key int, r *sorRow) string {
	parts := make([]string, 0, len(m.cols))
	for _, c := range m.cols {
		parts = append(parts, strconv.Quote(c.name)+":"+renderVal(r.vals[c.id], c.kind, key, c.name))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func renderVal(v sorVal, kind string, key int, name string) string {
	if v.v == nil {
		return "null"
	}
	switch x := v.v.(type) {
	case int64:
		if kind == "string" {
			return strconv.Quote(strconv.FormatInt(x, 10))
		}
		return strconv.FormatInt(x, 10)
	case float64:
		s := strconv.FormatFloat(x, 'f', -1, 64) // values are n+0.5: Java prints them alike
		if kind == "string" {
			return strconv.Quote(s)
		}
		return s
	case string:
		return strconv.Quote(x)
	}
	panic(fmt.Sprintf("key %d column %s: value %T", key, name, v.v))
}

func (m *sorModel) snapshot() (cols string, lines []string) {
	names := make([]string, len(m.cols))
	for i, c := range m.cols {
		names[i] = c.name
	}
	for k, r := range m.rows {
		lines = append(lines, m.render(k, r))
	}
	return strings.Join(names, ","), lines
}

func (m *sorModel) incremental(after string) []string {
	var lines []string
	for k, r := range m.rows {
		if r.lastWrite > after {
			lines = append(lines, m.render(k, r))
		}
	}
	return lines
}

func (m *sorModel) col(name string) *sorCol {
	for _, c := range m.cols {
		if c.name == name {
			return c
		}
	}
	return nil
}

func (m *sorModel) mutable() []*sorCol {
	var out []*sorCol
	for _, c := range m.cols {
		if c.name != "id" && c.name != "ts" && c.name != "p" {
			out = append(out, c)
		}
	}
	return out
}

// TestSchemaOnReadModel mixes ALTER TABLE changes (add, add after, add under a dropped
// name, drop, rename, type changes) with upserts, deletes, writes that add a column, and
// (merge-on-read) compaction and clustering, on copy-on-write and merge-on-read, and after
// every step checks against the model: the snapshot, a time travel to each of two earlier
// steps (with that step's schema) and an incremental read from an earlier step. At the end
// every step is read back by time travel. Fixed seed; HUDI_SOR_MODEL_SEED and
// HUDI_SOR_MODEL_STEPS run other and longer sequences (soak).
func TestSchemaOnReadModel(t *testing.T) {
	seed := int64(22)
	if s := os.Getenv("HUDI_SOR_MODEL_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	steps := 24
	if testutil.Race {
		// The race detector slows every scan several times over; scripts/test runs the
		// whole model without it.
		steps = 10
	}
	if s := os.Getenv("HUDI_SOR_MODEL_STEPS"); s != "" {
		steps, _ = strconv.Atoi(s)
	}
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) { runSORModel(t, typ, seed, steps) })
	}
}

func runSORModel(t *testing.T, typ string, seed int64, steps int) {
	ctx := context.Background()
	rnd := rand.New(rand.NewSource(seed))
	tb, err := hudi.Create(ctx, t.TempDir()+"/t", hudi.CreateOptions{Name: "m", Type: typ, RecordKeyFields: []string{"id"}, PrecombineField: "ts",
		PartitionFields: []string{"p"}, Schema: "id INT, ts BIGINT, p STRING, a INT, b DOUBLE, c STRING",
		Settings: map[string]string{"hoodie.table.timeline.timezone": "UTC"}})
	if err != nil {
		t.Fatal(err)
	}
	m := &sorModel{rows: map[int]*sorRow{}}
	for i, c := range []string{"id:int", "ts:long", "p:string", "a:int", "b:double", "c:string"} {
		name, kind, _ := strings.Cut(c, ":")
		m.cols = append(m.cols, &sorCol{id: i, name: name, kind: kind})
	}
	m.nextID = len(m.cols)
	// Cleaning and archival would take the files and instants time travel reads.
	quiet := map[string]string{"hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false",
		"hoodie.parquet.small.file.limit": "0"}
	clock := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	now := func() func() time.Time {
		clock = clock.Add(time.Second)
		ts := clock
		return func() time.Time { return ts }
	}
	type state struct {
		instant, cols string
		lines         []string
	}
	var states []state
	record := func(instant string) {
		cols, lines := m.snapshot()
		states = append(states, state{instant, cols, lines})
	}
	ts := int64(0)
	value := func(kind string) any {
		switch kind {
		case "int", "long":
			return int64(rnd.Intn(1000))
		case "double":
			return float64(rnd.Intn(1000)) + 0.5
		}
		return fmt.Sprintf("s%d", rnd.Intn(1000))
	}
	// upsert writes rows for keys with every current column (or, evolving, one more).
	upsert := func(keys []int, extra *sorCol) string {
		ts++
		var rows []row
		var ddl []string
		for _, c := range m.cols {
			ddl = append(ddl, c.name+" "+map[string]string{"int": "INT", "long": "BIGINT", "double": "DOUBLE", "string": "STRING"}[c.kind])
		}
		if extra != nil {
			ddl = append(ddl, extra.name+" STRING")
		}
		for _, k := range keys {
			r := row{"id": k, "ts": ts, "p": fmt.Sprintf("p%d", k%2)}
			for _, c := range m.mutable() {
				if rnd.Intn(5) > 0 {
					r[c.name] = value(c.kind)
				}
			}
			if extra != nil {
				r[extra.name] = value("string")
			}
			rows = append(rows, r)
		}
		res, err := tb.Write(ctx, batchesDDL(t, strings.Join(ddl, ", "), rows),
			hudi.WriteOptions{Operation: "upsert", Settings: mergeSettings(quiet, map[string]string{"hoodie.write.set.null.for.missing.columns": "true"}), Now: now()})
		if err != nil {
			t.Fatalf("upsert: %v", err)
		}
		if extra != nil {
			m.cols = append(m.cols, extra)
		}
		for _, r := range rows {
			k := r["id"].(int)
			mr := &sorRow{vals: map[int]sorVal{}, lastWrite: res.Instant}
			for _, c := range m.cols {
				if v, ok := r[c.name]; ok {
					var val any
					switch x := v.(type) {
					case int:
						val = int64(x)
					default:
						val = x
					}
					mr.vals[c.id] = sorVal{kind: c.kind, v: val}
				}
			}
			m.rows[k] = mr
		}
		return res.Instant
	}
	alter := func(c hudi.SchemaChange) string {
		res, err := tb.AlterSchema(ctx, c, hudi.WriteOptions{Settings: quiet, Now: now()})
		if err != nil {
			t.Fatalf("alter %+v: %v", c, err)
		}
		return res.Instant
	}
	freshName := func() string {
		if len(m.dropped) > 0 && rnd.Intn(2) == 0 {
			n := m.dropped[rnd.Intn(len(m.dropped))]
			if m.col(n) == nil {
				return n // a dropped column's name, added again: a new column
			}
		}
		return fmt.Sprintf("x%d", m.nextID)
	}

	keys := func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = rnd.Intn(40)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	record(upsert(keys(20), nil))
	// Every kind of step comes once in each run of ten, in a random order.
	var order []int
	for step := 0; step < steps; step++ {
		if len(order) == 0 {
			order = rnd.Perm(10)
		}
		op := order[0]
		order = order[1:]
		var what string
		switch {
		case op < 3:
			what = "upsert"
			record(upsert(keys(1+rnd.Intn(8)), nil))
		case op == 3:
			what = "upsert adding a column"
			c := &sorCol{id: m.nextID, name: freshName(), kind: "string"}
			m.nextID++
			record(upsert(keys(1+rnd.Intn(5)), c))
		case op == 4:
			what = "delete"
			var rows []row
			for _, k := range keys(3) {
				if _, ok := m.rows[k]; ok {
					rows = append(rows, row{"id": k, "p": fmt.Sprintf("p%d", k%2)})
				}
			}
			if len(rows) == 0 {
				continue
			}
			res, err := tb.Write(ctx, batchesDDL(t, "id INT, p STRING", rows), hudi.WriteOptions{Operation: "delete", Settings: quiet, Now: now()})
			if err != nil {
				t.Fatalf("delete: %v", err)
			}
			for _, r := range rows {
				delete(m.rows, r["id"].(int))
			}
			record(res.Instant)
		case op == 5:
			mut := m.mutable()
			c := &sorCol{id: m.nextID, name: freshName(), kind: []string{"int", "string", "double"}[rnd.Intn(3)]}
			add := internalschema.AddColumn{Name: c.name, Type: internalType(t, map[string]string{"int": "int", "string": "string", "double": "double"}[c.kind])}
			at := len(m.cols)
			if len(mut) > 0 && rnd.Intn(2) == 0 {
				ref := mut[rnd.Intn(len(mut))]
				add.Position = internalschema.Position{Kind: internalschema.After, Ref: ref.name}
				at = slices.Index(m.cols, ref) + 1
			}
			what = "add " + c.name
			inst := alter(hudi.SchemaChange{Add: []internalschema.AddColumn{add}})
			m.nextID++
			m.cols = slices.Insert(m.cols, at, c)
			record(inst)
		case op == 6:
			mut := m.mutable()
			if len(mut) < 2 {
				continue
			}
			c := mut[rnd.Intn(len(mut))]
			what = "drop " + c.name
			inst := alter(hudi.SchemaChange{Delete: []string{c.name}})
			m.cols = slices.DeleteFunc(m.cols, func(x *sorCol) bool { return x == c })
			m.dropped = append(m.dropped, c.name)
			for _, r := range m.rows {
				delete(r.vals, c.id)
			}
			record(inst)
		case op == 7:
			mut := m.mutable()
			c := mut[rnd.Intn(len(mut))]
			to := fmt.Sprintf("r%d_%d", c.id, step)
			what = "rename " + c.name + " to " + to
			inst := alter(hudi.SchemaChange{Update: []internalschema.UpdateColumn{{Name: c.name, Rename: to}}})
			c.name = to
			record(inst)
		case op == 8:
			var cands []*sorCol
			for _, c := range m.mutable() {
				if c.kind != "string" {
					cands = append(cands, c)
				}
			}
			if len(cands) == 0 {
				continue
			}
			c := cands[rnd.Intn(len(cands))]
			to := "string"
			if c.kind == "int" && rnd.Intn(2) == 0 {
				to = "long"
			}
			what = "retype " + c.name + " " + c.kind + " → " + to
			inst := alter(hudi.SchemaChange{Update: []internalschema.UpdateColumn{{Name: c.name, Type: internalType(t, map[string]string{"long": "bigint", "string": "string"}[to])}}})
			c.kind = to
			record(inst)
		default:
			what = "table services"
			if typ == "mor" {
				if _, err := tb.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true, Settings: quiet, Now: now()}); err != nil {
					t.Fatalf("compact: %v", err)
				}
			}
			if _, err := tb.Cluster(ctx, hudi.ClusterOptions{Schedule: true, Run: true, Now: now(),
				Settings: map[string]string{"hoodie.clustering.plan.strategy.small.file.limit": "1073741824"}}); err != nil {
				t.Fatalf("cluster: %v", err)
			}
		}
		cols, lines := m.snapshot()
		at := fmt.Sprintf("step %d (%s)", step, what)
		checkScan(t, at+": snapshot", tb, hudi.ScanOptions{}, cols, lines...)
		for i := 0; i < 2 && len(states) > 1; i++ {
			s := states[rnd.Intn(len(states)-1)]
			checkScan(t, at+": time travel to "+s.instant, tb, hudi.ScanOptions{AsOf: s.instant}, s.cols, s.lines...)
		}
		if len(states) > 1 {
			from := states[rnd.Intn(len(states)-1)].instant
			checkScan(t, at+": incremental after "+from, tb, hudi.ScanOptions{Incremental: true, Begin: from}, cols, m.incremental(from)...)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	for _, s := range states {
		checkScan(t, "time travel to "+s.instant+" at the end", tb, hudi.ScanOptions{AsOf: s.instant}, s.cols, s.lines...)
	}
}

func mergeSettings(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
