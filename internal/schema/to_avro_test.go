package schema

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/hudi-go/hudi/internal/format/parquet"
	"github.com/hudi-go/hudi/internal/testutil"
)

// roundTrip asserts FromAvro(real) → ToAvro reproduces the Java text byte for byte.
func roundTrip(t *testing.T, real, table string) {
	t.Helper()
	s, err := FromAvro(real)
	if err != nil {
		t.Fatalf("FromAvro: %v", err)
	}
	got, err := ToAvro(s, table)
	if err != nil {
		t.Fatalf("ToAvro: %v", err)
	}
	if got != real {
		t.Errorf("ToAvro mismatch\n got: %s\nwant: %s\nfirst diff at byte %d", got, real, firstDiff(got, real))
	}
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestToAvroTestdataGoldens(t *testing.T) {
	for _, tc := range []struct{ avsc, table string }{
		{"cow_v6_nonpartitioned", "v6_nonpartitioned"},
		{"cow_v6_no_metafields", "v6_simplekeygen_hivestyle_no_metafields"},
		{"mor_parquet_v6_nonpartitioned", "v6_nonpartitioned"},
		{"trips_v6_8i1u", "v6_trips_8i1u"},
	} {
		t.Run(tc.avsc, func(t *testing.T) { roundTrip(t, loadAvsc(t, tc.avsc), tc.table) })
	}
}

// fixtureTable is one unzipped fixture table with the bits of hoodie.properties the tests use.
type fixtureTable struct {
	id, base, name, createSchema string
}

func loadFixtureTables(t *testing.T, filter func(id string) bool) []fixtureTable {
	t.Helper()
	var out []fixtureTable
	for _, id := range testutil.TableIDs(t) {
		if !filter(id) {
			continue
		}
		base := testutil.Table(t, id)
		props := readJavaProperties(t, filepath.Join(base, ".hoodie", "hoodie.properties"))
		out = append(out, fixtureTable{id: id, base: base, name: props["hoodie.table.name"], createSchema: props["hoodie.table.create.schema"]})
	}
	return out
}

// TestToAvroFixtureCommits checks every extraMetadata.schema of every v6 (JSON) commit in the
// fixture tables.
func TestToAvroFixtureCommits(t *testing.T) {
	n := 0
	for _, ft := range loadFixtureTables(t, func(id string) bool { return strings.Contains(id, "/v6_") }) {
		commits, _ := filepath.Glob(filepath.Join(ft.base, ".hoodie", "*commit"))
		for _, c := range commits {
			data, err := os.ReadFile(c)
			if err != nil {
				t.Fatal(err)
			}
			var md struct {
				ExtraMetadata map[string]string `json:"extraMetadata"`
			}
			if err := json.Unmarshal(data, &md); err != nil {
				t.Fatalf("%s: %v", c, err)
			}
			real := md.ExtraMetadata["schema"]
			if real == "" {
				continue
			}
			n++
			t.Run(ft.id+"/"+filepath.Base(c), func(t *testing.T) { roundTrip(t, real, ft.name) })
		}
	}
	if n < 10 {
		t.Fatalf("only %d v6 commit schemas found in the fixtures", n)
	}
}

// TestCreateSchemaAvroFixtures compares against every hoodie.table.create.schema in the
// fixtures: the Spark-SQL form (v6/v8/most v9) with CreateSchemaAvro, the commit form some
// v9 writers store with ToAvro.
func TestCreateSchemaAvroFixtures(t *testing.T) {
	n := 0
	for _, ft := range loadFixtureTables(t, func(string) bool { return true }) {
		if ft.createSchema == "" {
			continue
		}
		n++
		t.Run(ft.id, func(t *testing.T) {
			s, err := FromAvro(ft.createSchema)
			if err != nil {
				t.Fatal(err)
			}
			conv := CreateSchemaAvro
			if strings.Contains(ft.createSchema, `"default":null`) {
				conv = ToAvro
			}
			got, err := conv(s, ft.name)
			if err != nil {
				t.Fatal(err)
			}
			if got != ft.createSchema {
				t.Errorf("mismatch\n got: %s\nwant: %s\nfirst diff at byte %d", got, ft.createSchema, firstDiff(got, ft.createSchema))
			}
		})
	}
	if n < 20 {
		t.Fatalf("only %d create schemas found", n)
	}
}

func TestCreateSchemaAvroTestdata(t *testing.T) {
	want := loadSchemaJSON(t, "create_cow_v6_nonpartitioned")
	s, err := FromAvro(loadAvsc(t, "cow_v6_nonpartitioned"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := CreateSchemaAvro(s, "v6_nonpartitioned")
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("mismatch\n got: %s\nwant: %s", got, want)
	}
}

func TestWithMetaFieldsAvroTestdata(t *testing.T) {
	for _, tc := range []struct{ commit, want string }{
		{"cow_v6_nonpartitioned", "footer_cow_v6_nonpartitioned"},
		{"trips_v6_8i1u", "logheader_trips_v6_8i1u"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			want := loadSchemaJSON(t, tc.want)
			got, err := WithMetaFieldsAvro(loadAvsc(t, tc.commit))
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("mismatch\n got: %s\nwant: %s", got, want)
			}
			// Idempotent: existing meta fields are replaced, not duplicated.
			again, err := WithMetaFieldsAvro(got)
			if err != nil {
				t.Fatal(err)
			}
			if again != want {
				t.Errorf("second application changed the schema:\n%s", again)
			}
		})
	}
}

// TestWithMetaFieldsAvroFooters checks every v6 base file footer that carries
// parquet.avro.schema against ToAvro(commit schema) + WithMetaFieldsAvro.
func TestWithMetaFieldsAvroFooters(t *testing.T) {
	n := 0
	for _, ft := range loadFixtureTables(t, func(id string) bool { return strings.Contains(id, "/v6_") }) {
		_ = filepath.WalkDir(ft.base, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".parquet") || strings.Contains(p, ".hoodie") {
				return err
			}
			footer := parquetAvroSchema(t, p)
			if footer == "" {
				return nil // Spark row-writer files carry no Avro schema (format doc §5.3)
			}
			n++
			t.Run(ft.id+"/"+filepath.Base(p), func(t *testing.T) {
				// The footer minus its meta fields is the commit schema of the write.
				s, err := FromAvro(footer)
				if err != nil {
					t.Fatal(err)
				}
				data, err := ToAvro(WithoutMetaFields(s), ft.name)
				if err != nil {
					t.Fatal(err)
				}
				got, err := WithMetaFieldsAvro(data)
				if err != nil {
					t.Fatal(err)
				}
				if got != footer {
					t.Errorf("mismatch\n got: %s\nwant: %s\nfirst diff at byte %d", got, footer, firstDiff(got, footer))
				}
			})
			return nil
		})
	}
	if n < 5 {
		t.Fatalf("only %d footers with parquet.avro.schema found", n)
	}
}

func parquetAvroSchema(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.Open(f, st.Size(), filepath.Base(path), memory.DefaultAllocator, 0)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer pf.Close()
	s, _ := pf.Metadata("parquet.avro.schema")
	return s
}

// readJavaProperties reads the subset of java.util.Properties syntax hoodie.properties uses:
// key=value lines, # comments, backslash escapes and \uXXXX.
func readJavaProperties(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	props := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		var key strings.Builder
		var val strings.Builder
		cur := &key
		for i := 0; i < len(line); i++ {
			c := line[i]
			switch {
			case c == '\\' && i+1 < len(line):
				i++
				switch line[i] {
				case 'u':
					if i+4 < len(line) {
						r, err := strconv.ParseUint(line[i+1:i+5], 16, 32)
						if err == nil {
							cur.WriteRune(rune(r))
							i += 4
							continue
						}
					}
					cur.WriteByte('u')
				case 't':
					cur.WriteByte('\t')
				case 'n':
					cur.WriteByte('\n')
				case 'r':
					cur.WriteByte('\r')
				default:
					cur.WriteByte(line[i])
				}
			case (c == '=' || c == ':') && cur == &key:
				cur = &val
			default:
				cur.WriteByte(c)
			}
		}
		props[key.String()] = val.String()
	}
	return props
}

func TestToAvroCases(t *testing.T) {
	dec := &arrow.Decimal128Type{Precision: 38, Scale: 4}
	s := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.BinaryTypes.String},
		{Name: "b", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "ntz", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "arr", Type: arrow.ListOfField(arrow.Field{Name: ListElementName, Type: dec, Nullable: true}), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.StructOf(arrow.Field{Name: "d", Type: dec, Nullable: true})), Nullable: true},
		{Name: "doc", Type: arrow.PrimitiveTypes.Int64, Nullable: true, Metadata: arrow.NewMetadata([]string{DocMetadataKey}, []string{"a \"doc\""})},
	}, nil)
	got, err := ToAvro(s, "my-table")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"record","name":"my__table_record","namespace":"hoodie.my__table","fields":[` +
		`{"name":"k","type":"string"},` +
		`{"name":"b","type":["null","int"],"default":null},` +
		`{"name":"ntz","type":["null",{"type":"long","logicalType":"local-timestamp-micros"}],"default":null},` +
		`{"name":"arr","type":["null",{"type":"array","items":["null",{"type":"fixed","name":"fixed","namespace":"hoodie.my__table.my__table_record.arr","size":16,"logicalType":"decimal","precision":38,"scale":4}]}],"default":null},` +
		`{"name":"m","type":["null",{"type":"map","values":["null",{"type":"record","name":"m","namespace":"hoodie.my__table.my__table_record","fields":[{"name":"d","type":["null",{"type":"fixed","name":"fixed","namespace":"hoodie.my__table.my__table_record.m.d","size":16,"logicalType":"decimal","precision":38,"scale":4}],"default":null}]}]}],"default":null},` +
		`{"name":"doc","type":["null","long"],"doc":"a \"doc\"","default":null}]}`
	if got != want {
		t.Errorf("mismatch\n got: %s\nwant: %s\nfirst diff at %d", got, want, firstDiff(got, want))
	}
	back, err := FromAvro(got)
	if err != nil {
		t.Fatalf("FromAvro(ToAvro): %v", err)
	}
	if back.Field(3).Type.String() != s.Field(3).Type.String() || back.Field(4).Type.String() != s.Field(4).Type.String() {
		t.Errorf("round trip changed nested types: %s", back)
	}
}

func TestToAvroErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    arrow.Field
		want string
	}{
		{"badname", arrow.Field{Name: "a-b", Type: arrow.PrimitiveTypes.Int32}, `column "a-b": not a valid Avro name`},
		{"mapkey", arrow.Field{Name: "m", Type: arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32)}, `column "m": map key type int32`},
		{"uint64", arrow.Field{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "u", Type: arrow.PrimitiveTypes.Uint64})}, `column "s.u": Arrow type uint64`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ToAvro(arrow.NewSchema([]arrow.Field{tc.f}, nil), "t")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := ToAvro(arrow.NewSchema(nil, nil), ""); err == nil {
		t.Error("empty table name accepted")
	}
}

// TestDecimalFixedSize pins Spark's sizes (format doc §5.2: (10,*)→5, (15,*)→7) and checks the
// double computation against exact integer arithmetic for every precision Hudi can write.
func TestDecimalFixedSize(t *testing.T) {
	if decimalFixedSize(10) != 5 || decimalFixedSize(15) != 7 || decimalFixedSize(38) != 16 || decimalFixedSize(1) != 1 {
		t.Fatalf("sizes 10→%d 15→%d 38→%d 1→%d", decimalFixedSize(10), decimalFixedSize(15), decimalFixedSize(38), decimalFixedSize(1))
	}
	for p := 1; p <= 76; p++ {
		// exact: smallest n with 8n-1 bits covering 10^p
		n := 1
		for {
			lim := new(big.Int).Lsh(big.NewInt(1), uint(8*n-1))
			if lim.Cmp(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil)) >= 0 {
				break
			}
			n++
		}
		if got := decimalFixedSize(p); got != n {
			t.Errorf("precision %d: %d, exact %d", p, got, n)
		}
	}
}

// loadSchemaJSON reads testdata/<name>.schema.json: real Avro schema texts copied from the
// fixtures (kept out of the *.avsc glob of TestFromAvroGolden, which wants a golden per file).
func loadSchemaJSON(t testing.TB, name string) string {
	t.Helper()
	return strings.TrimSpace(string(readTestdata(t, name+".schema.json")))
}
