package write_test

// Model test of schema promotions mixed into upserts (issue 16): a column amt whose type
// climbs Hudi's promotion chart (seed "Type Promotions": int → long → float → double →
// string) while random upserts bring it in random chart types — narrower than the table's
// (written in the table's type), equal, or wider (the table column is promoted). On
// copy-on-write and merge-on-read (with random compactions), after every step the snapshot,
// the read-optimized view (COW), every time travel and the last incremental range must
// equal the model.
//
// The model keeps, per record, the type and value of its physical copy: a copy is
// rewritten (COW merge, small-file insert, MOR compaction) in the table type of the
// instant that rewrites it, converted as Java converts (HoodieAvroUtils
// .rewritePrimaryTypeWithDiffSchemaType; numbers to string as Integer/Long/Float/
// Double.toString), and read in the type of the query's schema. Rewrites are recognized
// from each row's _hoodie_file_name (a base file's instant; a log record's copy is its
// commit). A value rewritten as float and later read as string reads "7.0" where the
// same value never rewritten reads "7": this path dependence is Java's too.
//
// Values: integers below 1000 and halves/quarters of them, exact in every numeric type,
// so numeric comparisons are exact and Java's float text is plain decimal ("12.5").
//
// Soak: HUDI_MODEL_SEED=<n> HUDI_MODEL_STEPS=<n> go test -run TestModelPromotions ./write/

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/spec"
)

// promoTypes is the chart's numeric-to-string ladder, narrowest first.
var promoTypes = []struct {
	name string
	ddl  string
	typ  arrow.DataType
}{
	{"int", "INT", arrow.PrimitiveTypes.Int32},
	{"long", "BIGINT", arrow.PrimitiveTypes.Int64},
	{"float", "FLOAT", arrow.PrimitiveTypes.Float32},
	{"double", "DOUBLE", arrow.PrimitiveTypes.Float64},
	{"string", "STRING", arrow.BinaryTypes.String},
}

const promoString = 4

// promoRec is the model of one record.
type promoRec struct {
	city   string
	ts     int64
	commit string
	phys   string // instant of the physical copy the snapshot reads
	stype  int    // type of that copy (index into promoTypes)
	num    float64
	text   string // the value when stype is string
}

// javaText is how Java prints a number of type typ (Integer/Long/Float/Double.toString) for
// the values the model uses (below 1e7, exact).
func javaText(typ int, v float64) string {
	switch typ {
	case 0, 1:
		return strconv.FormatInt(int64(v), 10)
	}
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10) + ".0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// render is the value as a query under table type tt shows it.
func (r promoRec) render(tt int) string {
	if tt == promoString {
		if r.stype == promoString {
			return strconv.Quote(r.text)
		}
		return strconv.Quote(javaText(r.stype, r.num))
	}
	return strconv.FormatFloat(r.num, 'g', -1, 64)
}

// convert rewrites the physical copy into type to.
func (r *promoRec) convert(to int) {
	if to == promoString && r.stype != promoString {
		r.text = javaText(r.stype, r.num)
	}
	r.stype = to
}

type promoModel struct {
	recs   map[string]*promoRec
	typeAt map[string]int // table type index after each instant
	tt     int
}

func (m *promoModel) canon(tt int) []string {
	var out []string
	for id, r := range m.recs {
		out = append(out, fmt.Sprintf("%s|%s|%d|%s|%s", id, r.city, r.ts, r.commit, r.render(tt)))
	}
	sort.Strings(out)
	return out
}

type promoRow struct {
	city, commit, phys, amt string
	ts                      int64
}

// scanPromo reads a query as id → row, with the amt column's type.
func scanPromo(t *testing.T, ctx context.Context, dir string, o hudi.ScanOptions) (map[string]promoRow, arrow.DataType) {
	t.Helper()
	tbl, err := hudi.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tbl.Scan(ctx, o)
	if err != nil {
		t.Fatalf("scan %+v: %v", o, err)
	}
	out := map[string]promoRow{}
	var typ arrow.DataType
	err = s.Run(ctx, func(rec arrow.Record) error {
		col := func(name string) arrow.Array {
			for i, f := range rec.Schema().Fields() {
				if f.Name == name {
					return rec.Column(i)
				}
			}
			t.Fatalf("no column %s", name)
			return nil
		}
		id, city, commit, file := col("id").(*array.String), col("city").(*array.String), col("_hoodie_commit_time").(*array.String), col("_hoodie_file_name").(*array.String)
		ts, amt := col("ts").(*array.Int64), col("amt")
		typ = amt.DataType()
		for i := 0; i < int(rec.NumRows()); i++ {
			r := promoRow{city: city.Value(i), commit: commit.Value(i), ts: ts.Value(i), phys: commit.Value(i)}
			if b, ok := spec.ParseBaseFileName(file.Value(i)); ok {
				r.phys = string(b.Instant)
			}
			switch a := amt.(type) {
			case *array.String:
				r.amt = strconv.Quote(a.Value(i))
			case *array.Int32:
				r.amt = strconv.FormatFloat(float64(a.Value(i)), 'g', -1, 64)
			case *array.Int64:
				r.amt = strconv.FormatFloat(float64(a.Value(i)), 'g', -1, 64)
			case *array.Float32:
				r.amt = strconv.FormatFloat(float64(a.Value(i)), 'g', -1, 64)
			case *array.Float64:
				r.amt = strconv.FormatFloat(a.Value(i), 'g', -1, 64)
			default:
				t.Fatalf("amt of type %s", amt.DataType())
			}
			if amt.IsNull(i) {
				r.amt = "null"
			}
			if _, dup := out[id.Value(i)]; dup {
				t.Fatalf("scan %+v: key %s twice", o, id.Value(i))
			}
			out[id.Value(i)] = r
		}
		return nil
	})
	if err != nil {
		t.Fatalf("scan %+v: %v", o, err)
	}
	return out, typ
}

func promoCanon(rows map[string]promoRow) []string {
	var out []string
	for id, r := range rows {
		out = append(out, fmt.Sprintf("%s|%s|%d|%s|%s", id, r.city, r.ts, r.commit, r.amt))
	}
	sort.Strings(out)
	return out
}

func TestModelPromotions(t *testing.T) {
	seed := envInt(t, "HUDI_MODEL_SEED", 16)
	def := uint64(14)
	if raceEnabled {
		def = 8 // the race detector slows the many scans several times over
	}
	steps := int(envInt(t, "HUDI_MODEL_STEPS", def))
	for _, mor := range []bool{false, true} {
		t.Run(map[bool]string{false: "cow", true: "mor"}[mor], func(t *testing.T) {
			runPromoModel(t, mor, seed, steps)
		})
	}
}

func runPromoModel(t *testing.T, mor bool, seed uint64, steps int) {
	ctx := context.Background()
	dir := createAmtTable(t, ctx, mor, "INT")
	r := rand.New(rand.NewPCG(seed, 16))
	m := &promoModel{recs: map[string]*promoRec{}, typeAt: map[string]int{}}
	var instants []string
	states := map[string][]string{} // instant → expected time-travel rows
	settings := map[string]string{"hoodie.cleaner.commits.retained": "100", "hoodie.keep.min.commits": "110", "hoodie.keep.max.commits": "120",
		"hoodie.parquet.small.file.limit": strconv.Itoa(r.IntN(2) * 104857600)}
	nextID := 0
	for step := 1; step <= steps; step++ {
		// Incoming type: mostly at or below the table's, sometimes above (a promotion).
		in := r.IntN(m.tt + 1)
		if r.IntN(3) == 0 && m.tt < promoString {
			in = m.tt + 1 // one step up the chart
			if r.IntN(4) == 0 {
				in = m.tt + 1 + r.IntN(promoString-m.tt) // or a jump
			}
		}
		var rows []amtRow
		var ids []string
		seen := map[string]bool{}
		n := 3 + r.IntN(12)
		for i := 0; i < n; i++ {
			var id string
			if len(m.recs) > 0 && r.IntN(3) > 0 {
				id = fmt.Sprintf("k%03d", r.IntN(nextID))
			} else {
				id = fmt.Sprintf("k%03d", nextID)
				nextID++
			}
			if seen[id] {
				continue
			}
			seen[id] = true
			city := modelCities[int(id[len(id)-1])%len(modelCities)]
			k := float64(r.IntN(1000))
			var v any
			switch in {
			case 0:
				v = int32(k)
			case 1:
				v = int64(k)
			case 2:
				v = float32(k + 0.5*float64(r.IntN(2)))
			case 3:
				v = k + 0.25*float64(r.IntN(4))
			case 4:
				v = fmt.Sprintf("s%d", int(k))
			}
			rows = append(rows, amtRow{id, city, int64(step), v})
			ids = append(ids, id)
		}
		res, err := amtWrite(t, ctx, dir, "upsert", promoTypes[in].typ, rows, settings)
		if err != nil {
			t.Fatalf("step %d: upsert of %d %s rows into a %s column: %v", step, len(rows), promoTypes[in].name, promoTypes[m.tt].name, err)
		}
		inst := res.Instant
		m.tt = max(m.tt, in)
		m.typeAt[inst] = m.tt
		instants = append(instants, inst)
		for _, row := range rows {
			rec := &promoRec{city: row.city, ts: row.ts, commit: inst, phys: inst, stype: in}
			switch v := row.amt.(type) {
			case int32:
				rec.num = float64(v)
			case int64:
				rec.num = float64(v)
			case float32:
				rec.num = float64(v)
			case float64:
				rec.num = v
			case string:
				rec.text = v
			}
			rec.convert(m.tt) // the writer converts the batch to the table's type
			m.recs[row.id] = rec
		}
		desc := fmt.Sprintf("step %d (%s batch into %s table, instant %s)", step, promoTypes[in].name, promoTypes[m.typeAt[inst]].name, inst)
		t.Logf("%s: %d rows %v", desc, len(rows), ids)
		syncPromoCopies(t, ctx, dir, m, desc)
		if mor && r.IntN(4) == 0 {
			tbl, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			cres, err := tbl.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true, Settings: settings})
			if err != nil {
				t.Fatalf("%s: compact: %v", desc, err)
			}
			if cres.Completed {
				m.typeAt[cres.Instant] = m.tt
				syncPromoCopies(t, ctx, dir, m, desc+" + compaction "+cres.Instant)
				states[cres.Instant] = m.canon(m.tt)
				t.Logf("%s: compacted at %s", desc, cres.Instant)
			}
		}
		states[inst] = m.canon(m.tt)
		// The snapshot right after the write was compared by syncPromoCopies (rows, commit
		// times and values); now every other query.
		if !mor {
			ro, _ := scanPromo(t, ctx, dir, hudi.ScanOptions{ReadOptimized: true})
			comparePromo(t, desc+": read-optimized", promoCanon(ro), m.canon(m.tt))
		}
		for i, ti := range instants {
			if i < len(instants)-3 && step < steps {
				continue // the last three each step, all at the end
			}
			got, _ := scanPromo(t, ctx, dir, hudi.ScanOptions{AsOf: ti})
			comparePromo(t, fmt.Sprintf("%s: time travel to %s", desc, ti), promoCanon(got), states[ti])
		}
		begin := ""
		if len(instants) > 1 {
			begin = instants[len(instants)-2]
		}
		incr, _ := scanPromo(t, ctx, dir, hudi.ScanOptions{Incremental: true, Begin: begin, End: inst})
		var want []string
		for _, row := range m.canon(m.tt) {
			if strings.Split(row, "|")[3] == inst {
				want = append(want, row)
			}
		}
		comparePromo(t, fmt.Sprintf("%s: incremental (%s, %s]", desc, begin, inst), promoCanon(incr), want)
		if t.Failed() {
			return
		}
	}
	t.Logf("final table type %s after %d steps", promoTypes[m.tt].name, steps)
}

// syncPromoCopies reads the snapshot, records which physical copies the last operation
// rewrote (converting their model values into the rewriting instant's table type), and
// compares the snapshot with the model.
func syncPromoCopies(t *testing.T, ctx context.Context, dir string, m *promoModel, desc string) {
	t.Helper()
	got, typ := scanPromo(t, ctx, dir, hudi.ScanOptions{})
	if !arrow.TypeEqual(typ, promoTypes[m.tt].typ) {
		t.Errorf("%s: amt read as %s, want %s", desc, typ, promoTypes[m.tt].typ)
	}
	for id, row := range got {
		rec, ok := m.recs[id]
		if !ok {
			continue // compare reports it
		}
		if row.phys != rec.phys {
			to, known := m.typeAt[row.phys]
			if !known {
				t.Fatalf("%s: record %s lives in a copy of unknown instant %s", desc, id, row.phys)
			}
			rec.convert(to)
			rec.phys = row.phys
		}
	}
	comparePromo(t, desc+": snapshot", promoCanon(got), m.canon(m.tt))
}

func comparePromo(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") == strings.Join(want, "\n") {
		return
	}
	gs, ws := map[string]bool{}, map[string]bool{}
	for _, g := range got {
		gs[g] = true
	}
	for _, w := range want {
		ws[w] = true
	}
	var extra, missing []string
	for _, g := range got {
		if !ws[g] {
			extra = append(extra, g)
		}
	}
	for _, w := range want {
		if !gs[w] {
			missing = append(missing, w)
		}
	}
	t.Errorf("%s: %d rows, want %d\nunexpected: %v\nmissing:    %v", what, len(got), len(want), extra, missing)
}
