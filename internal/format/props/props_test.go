package props

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hudi-go/hudi/internal/testutil"
)

func parseFile(t *testing.T, path string) *Properties {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := Parse(f)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return p
}

// checkCreateSchema asserts that the unescaped create schema is a JSON Avro record.
func checkCreateSchema(t *testing.T, p *Properties, wantName string) {
	t.Helper()
	s, ok := p.Get("hoodie.table.create.schema")
	if !ok {
		t.Fatal("no hoodie.table.create.schema")
	}
	var v struct {
		Type   string           `json:"type"`
		Name   string           `json:"name"`
		Fields []map[string]any `json:"fields"`
	}
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("create schema is not JSON after unescaping: %v\n%s", err, s)
	}
	if v.Type != "record" || len(v.Fields) == 0 {
		t.Fatalf("create schema: type %q with %d fields", v.Type, len(v.Fields))
	}
	if wantName != "" && v.Name != wantName {
		t.Fatalf("create schema record name %q, want %q", v.Name, wantName)
	}
}

func TestGoldenFiles(t *testing.T) {
	tests := []struct {
		file       string
		want       map[string]string
		schemaName string // "" = no create schema expected
		keys       int
	}{
		{"v6_cow_nonpartitioned.properties", map[string]string{
			"hoodie.table.name":               "v6_nonpartitioned",
			"hoodie.table.type":               "COPY_ON_WRITE",
			"hoodie.table.version":            "6",
			"hoodie.timeline.layout.version":  "1",
			"hoodie.table.checksum":           "1363530505",
			"hoodie.table.keygenerator.class": "org.apache.hudi.keygen.NonpartitionedKeyGenerator",
		}, "v6_nonpartitioned_record", 14},
		{"v6_mor_trips.properties", map[string]string{
			"hoodie.table.name":                        "v6_trips_8i1u",
			"hoodie.table.type":                        "MERGE_ON_READ",
			"hoodie.table.partition.fields":            "city",
			"hoodie.compaction.record.merger.strategy": "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5",
			"hoodie.table.checksum":                    "3843273058",
		}, "v6_trips_8i1u_record", 17},
		{"v6_mor_rollback.properties", map[string]string{
			"hoodie.table.name":     "v6_nonpartitioned_rollback",
			"hoodie.table.checksum": "1120353670",
		}, "v6_nonpartitioned_rollback_record", 16},
		{"v8_mor_trips.properties", map[string]string{
			"hoodie.table.version":                      "8",
			"hoodie.timeline.layout.version":            "2",
			"hoodie.timeline.path":                      "timeline",
			"hoodie.table.metadata.partitions":          "column_stats,files,partition_stats,record_index,secondary_index_rider_idx",
			"hoodie.table.metadata.partitions.inflight": "", // "key=" gives the empty string
			"hoodie.table.index.defs.path":              ".hoodie/.index_defs/index.json",
			"hoodie.table.checksum":                     "1197752875",
		}, "v8_trips_8i3u1d_record", 24},
		{"v9_cow_timebasedkeygen.properties", map[string]string{
			"hoodie.table.version":                      "9",
			"hoodie.table.ordering.fields":              "txn_ts",
			"hoodie.keygen.timebased.input.dateformat":  "yyyy-MM-dd'T'HH:mm:ss.SSSZ", // written with \:
			"hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd/HH",
			"hoodie.table.checksum":                     "707502845",
		}, "v9_timebasedkeygen_nonhivestyle_cow_record", 0},
		{"v9_metadata_table.properties", map[string]string{
			"hoodie.table.name":             "v9_lance_txns_nonpart_cow_metadata",
			"hoodie.table.base.file.format": "HFILE",
			"hoodie.populate.meta.fields":   "false",
			"hoodie.table.checksum":         "2806358299",
		}, "", 17},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p := parseFile(t, filepath.Join("testdata", tt.file))
			for k, want := range tt.want {
				got, ok := p.Get(k)
				if !ok || got != want {
					t.Errorf("%s = %q (present %v), want %q", k, got, ok, want)
				}
			}
			if tt.keys != 0 && p.Len() != tt.keys {
				t.Errorf("Len = %d, want %d", p.Len(), tt.keys)
			}
			if err := VerifyChecksum(p); err != nil {
				t.Errorf("VerifyChecksum: %v", err)
			}
			if tt.schemaName != "" {
				checkCreateSchema(t, p, tt.schemaName)
			} else if _, ok := p.Get("hoodie.table.create.schema"); ok {
				t.Error("unexpected create schema")
			}
			// Write → Parse gives the same map.
			var buf bytes.Buffer
			if err := Write(&buf, p, time.Now()); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(buf.String(), "#Updated at ") {
				t.Errorf("a file with a valid checksum must be rewritten as 'Updated at', got %q", strings.SplitN(buf.String(), "\n", 2)[0])
			}
			q, err := Parse(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Map(), q.Map()) {
				t.Errorf("round trip changed the properties:\n%v\n%v", p.Map(), q.Map())
			}
		})
	}
}

// TestWriteMatchesJavaEscaping checks that re-encoding a Java-written file yields the same
// key=value lines Java wrote (only the order differs).
func TestWriteMatchesJavaEscaping(t *testing.T) {
	for _, name := range []string{"v6_mor_trips.properties", "v8_mor_trips.properties", "v9_cow_timebasedkeygen.properties"} {
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		p, err := Parse(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Store(&buf, p, "", time.Now()); err != nil {
			t.Fatal(err)
		}
		wantLines := strings.Split(strings.TrimSpace(string(raw)), "\n")[2:]
		gotLines := strings.Split(strings.TrimSpace(buf.String()), "\n")[1:]
		sortStrings(wantLines)
		sortStrings(gotLines)
		if !reflect.DeepEqual(gotLines, wantLines) {
			t.Errorf("%s: lines differ\n got %q\nwant %q", name, gotLines, wantLines)
		}
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestAllFixtureTables parses every hoodie.properties (data and metadata tables) of every
// fixture table.
func TestAllFixtureTables(t *testing.T) {
	if testing.Short() {
		t.Skip("unzips every fixture table")
	}
	n := 0
	for _, id := range testutil.TableIDs(t) {
		base := testutil.Table(t, id)
		err := filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != "hoodie.properties" {
				return err
			}
			n++
			p := parseFile(t, path)
			rel, _ := filepath.Rel(base, path)
			if err := VerifyChecksum(p); err != nil {
				t.Errorf("%s/%s: %v", id, rel, err)
			}
			if _, ok := p.Get("hoodie.table.create.schema"); ok {
				checkCreateSchema(t, p, "")
			}
			if v, _ := p.Get("hoodie.table.version"); v != "6" && v != "8" && v != "9" {
				t.Errorf("%s/%s: table version %q", id, rel, v)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 40 {
		t.Errorf("found only %d hoodie.properties files", n)
	}
}

func TestParseJavaSemantics(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want map[string]string
	}{
		{"separators", "a=1\nb:2\nc 3\nd\t4\ne = 5\nf : 6\ng  =  7\nh\f8\n", map[string]string{
			"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6", "g": "7", "h": "8"}},
		{"only one separator is eaten", "a==b\nc :=d\ne = :f\n", map[string]string{"a": "=b", "c": "=d", "e": ":f"}},
		{"key without value", "alone\nempty=\nspaced   \n", map[string]string{"alone": "", "empty": "", "spaced": ""}},
		{"comments and blanks", "# c\n! c\n   # indented comment\n\n \t \nk=v # not a comment\n", map[string]string{"k": "v # not a comment"}},
		{"leading whitespace", "   \t key = value  \n", map[string]string{"key": "value  "}},
		{"escaped separators in key", `a\=b\:c\ d=e` + "\n", map[string]string{"a=b:c d": "e"}},
		{"escapes", `k=\t\n\r\f\\\a\"` + "\n", map[string]string{"k": "\t\n\r\f\\a\""}},
		{"unicode escapes", `k=\u00e9\u4E2D\uD83D\uDE00` + "\n", map[string]string{"k": "é中😀"}},
		{"lone surrogate", `k=\uD83Dx` + "\n", map[string]string{"k": "\uFFFDx"}},
		{"latin-1 input", "k=caf\xe9\n", map[string]string{"k": "café"}},
		{"continuation", "k=a\\\n    b\\\n\tc\nn=1\n", map[string]string{"k": "abc", "n": "1"}},
		{"continuation line starting with #", "k=a\\\n  #b\n", map[string]string{"k": "a#b"}},
		{"even backslashes do not continue", "k=a\\\\\nn=1\n", map[string]string{"k": `a\`, "n": "1"}},
		{"comment line does not continue", "#c\\\nk=v\n", map[string]string{"k": "v"}},
		{"continuation into blank line", "k=a\\\n\nn=1\n", map[string]string{"k": "a", "n": "1"}},
		{"continuation at EOF", "k=a\\", map[string]string{"k": "a"}},
		{"continuation then EOF", "k=a\\\n", map[string]string{"k": "a"}},
		{"CR and CRLF", "a=1\rb=2\r\nc=3\\\r\n d\r", map[string]string{"a": "1", "b": "2", "c": "3d"}},
		{"no trailing newline", "a=1", map[string]string{"a": "1"}},
		{"duplicate key, last wins", "a=1\na=2\n", map[string]string{"a": "2"}},
		{"empty key", "=v\n", map[string]string{"": "v"}},
		{"lone backslash line", "\\\n\nk=v\n", map[string]string{"k": "v"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Map(), tt.want) {
				t.Errorf("got %q, want %q", p.Map(), tt.want)
			}
		})
	}
}

func TestParseMalformedUnicode(t *testing.T) {
	for _, in := range []string{`k=\u12`, `k=\u12G4`, "k\\u=v", `k=\uZZZZ`} {
		_, err := Parse(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("Parse(%q) error = %v, want a line-1 malformed escape error", in, err)
		}
	}
}

func TestStoreEscaping(t *testing.T) {
	p := New()
	p.Set("a key", " lead and inner space ")
	p.Set("sep=:#!", "v=:#!\\")
	p.Set("ctl", "t\tn\nr\rf\f\x01\x7f")
	p.Set("uni", "é中😀")
	p.Set("empty", "")
	now := time.Date(2025, 1, 26, 4, 8, 23, 0, time.UTC)
	var buf bytes.Buffer
	if err := Store(&buf, p, "partition metadata", now); err != nil {
		t.Fatal(err)
	}
	want := "#partition metadata\n" +
		"#Sun Jan 26 04:08:23 UTC 2025\n" +
		`a\ key=\ lead and inner space ` + "\n" +
		`ctl=t\tn\nr\rf\f\u0001\u007F` + "\n" +
		"empty=\n" +
		`sep\=\:\#\!=v\=\:\#\!\\` + "\n" +
		`uni=\u00E9\u4E2D\uD83D\uDE00` + "\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	q, err := Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Map(), q.Map()) {
		t.Errorf("round trip: got %q, want %q", q.Map(), p.Map())
	}
}

func TestStoreCommentLines(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2024, 4, 18, 17, 35, 50, 0, time.FixedZone("CDT", -5*3600))
	if err := Store(&buf, New(), "one\ntwo\r\n#three\rfour ü 中", now); err != nil {
		t.Fatal(err)
	}
	want := "#one\n#two\n#three\n#four \xfc \\u4E2D\n#Thu Apr 18 17:35:50 CDT 2024\n"
	if buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

func TestWriteHeader(t *testing.T) {
	// The header of testdata/v6_mor_rollback.properties, written by Java Hudi.
	now := time.Date(2025, 1, 26, 4, 8, 23, 71777000, time.UTC)
	p := New()
	p.Set(KeyTableName, "v6_nonpartitioned_rollback")
	p.Set(KeyDatabaseName, "default")

	var buf bytes.Buffer
	if err := Write(&buf, p, now); err != nil {
		t.Fatal(err)
	}
	want := "#Properties saved on 2025-01-26T04:08:23.071777Z\n#Sun Jan 26 04:08:23 UTC 2025\n" +
		"hoodie.database.name=default\nhoodie.table.checksum=1120353670\nhoodie.table.name=v6_nonpartitioned_rollback\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	if _, ok := p.Get(KeyTableChecksum); ok {
		t.Error("Write must not modify its argument")
	}

	// With the checksum in place the file is "Updated at"; fractions print in groups of 3.
	if err := SetChecksum(p); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := Write(&buf, p, time.Date(2025, 12, 20, 21, 1, 18, 422000000, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "#Updated at 2025-12-20T21:01:18.422Z\n#Sat Dec 20 21:01:18 UTC 2025\n") {
		t.Errorf("got %q", buf.String())
	}

	// A wrong checksum is corrected in the output.
	p.Set(KeyTableChecksum, "42")
	buf.Reset()
	if err := Write(&buf, p, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "#Properties saved on 2025-01-01T00:00:00Z\n") ||
		!strings.Contains(buf.String(), "hoodie.table.checksum=1120353670\n") {
		t.Errorf("got %q", buf.String())
	}

	if err := Write(&buf, New(), now); !errors.Is(err, ErrNoTableName) {
		t.Errorf("Write without table name: %v", err)
	}
}

func TestIsoInstant(t *testing.T) {
	for ns, want := range map[int]string{
		0: "2024-07-07T00:13:03Z", 88_000_000: "2024-07-07T00:13:03.088Z",
		88_100_000: "2024-07-07T00:13:03.088100Z", 88_100_001: "2024-07-07T00:13:03.088100001Z",
	} {
		if got := isoInstant(time.Date(2024, 7, 7, 0, 13, 3, ns, time.UTC)); got != want {
			t.Errorf("isoInstant(%d ns) = %s, want %s", ns, got, want)
		}
	}
}

func TestChecksum(t *testing.T) {
	// Values from the format document, computed by Java Hudi.
	if got := TableChecksum("default", "v6_trips_8i3d"); got != 3180720914 {
		t.Errorf("TableChecksum(default.v6_trips_8i3d) = %d", got)
	}
	if got := TableChecksum("", "v9_lance_txns_nonpart_cow_metadata"); got != 2806358299 {
		t.Errorf("TableChecksum(.v9_lance_txns_nonpart_cow_metadata) = %d", got)
	}

	p := New()
	p.Set(KeyTableName, "t")
	if err := VerifyChecksum(p); !errors.Is(err, ErrNoChecksum) {
		t.Errorf("absent checksum: %v", err)
	}
	p.Set(KeyTableChecksum, "123")
	err := VerifyChecksum(p)
	var mm *ChecksumMismatchError
	if !errors.As(err, &mm) || mm.Stored != "123" || mm.Expected != TableChecksum("", "t") {
		t.Errorf("mismatch: %v", err)
	}
	if !strings.Contains(err.Error(), "123") || !strings.Contains(err.Error(), "expected") {
		t.Errorf("mismatch error must name both values: %v", err)
	}
	p.Set(KeyTableChecksum, "not a number")
	if !errors.As(VerifyChecksum(p), &mm) {
		t.Error("non-numeric checksum must be a mismatch")
	}
	if err := SetChecksum(p); err != nil || VerifyChecksum(p) != nil {
		t.Errorf("SetChecksum: %v / %v", err, VerifyChecksum(p))
	}
	p.Delete(KeyTableName)
	if err := VerifyChecksum(p); !errors.Is(err, ErrNoTableName) {
		t.Errorf("no table name: %v", err)
	}
}

func TestZeroAndNil(t *testing.T) {
	var z Properties
	z.Set("a", "b")
	if v, ok := z.Get("a"); !ok || v != "b" || z.Len() != 1 || !reflect.DeepEqual(z.Keys(), []string{"a"}) {
		t.Error("zero Properties is not usable")
	}
	var n *Properties
	if _, ok := n.Get("a"); ok || n.Len() != 0 || n.Keys() != nil {
		t.Error("nil Properties must read as empty")
	}
	n.Delete("a")
}

func FuzzParse(f *testing.F) {
	// Small seeds: the fuzzer minimizes every new interesting input, which takes very
	// long for whole hoodie.properties files.
	for _, s := range []string{
		"#Updated at 2025-12-20T21:01:18.422371Z\n#Sat Dec 20 21:01:18 UTC 2025\nhoodie.table.name=t\nhoodie.table.checksum=1\n",
		`hoodie.table.create.schema={"type"\:"record","fields"\:[]}` + "\n",
		"a=b\\\n  c\r\n", "#x\n!y\n k : v ", `\u00e9\ \=x=\uD83D`, "a\\\n\n\\", "\xff\x00=\x80",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := Store(&buf, p, "fuzz\ncomment", time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
		q, err := Parse(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("re-parse of written output failed: %v\n%q", err, buf.Bytes())
		}
		if !reflect.DeepEqual(p.Map(), q.Map()) {
			t.Fatalf("round trip changed the map:\n%q\n%q", p.Map(), q.Map())
		}
	})
}
