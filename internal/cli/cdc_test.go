package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The seed guide's "Capture the Data Change Query": a table with
// hoodie.table.cdc.enabled=true, 4 riders inserted, the fares of rider-A and rider-B
// multiplied by 10, then rider-D deleted, read with `hudi read --cdc --begin earliest`.
const (
	seedDDL    = "ts BIGINT, uuid STRING, rider STRING, driver STRING, fare DOUBLE, city STRING"
	seedInsert = `{"ts":1695158649187,"uuid":"334e26e9-8355-45cc-97c6-c31daf0df330","rider":"rider-A","driver":"driver-K","fare":19.10,"city":"san_francisco"}
{"ts":1695091544288,"uuid":"e96c4396-3fad-413a-a942-4cb36106d721","rider":"rider-B","driver":"driver-L","fare":27.70,"city":"san_paulo"}
{"ts":1695046452379,"uuid":"9909a8b1-2d15-4d3d-8ec9-efc48c536a00","rider":"rider-C","driver":"driver-M","fare":33.90,"city":"san_francisco"}
{"ts":1695332056404,"uuid":"1dced545-862b-4ceb-8b43-d2a568f6616b","rider":"rider-D","driver":"driver-N","fare":93.50,"city":"chennai"}
`
	seedUpdate = `{"ts":1695158649187,"uuid":"334e26e9-8355-45cc-97c6-c31daf0df330","rider":"rider-A","driver":"driver-K","fare":191.0,"city":"san_francisco"}
{"ts":1695091544288,"uuid":"e96c4396-3fad-413a-a942-4cb36106d721","rider":"rider-B","driver":"driver-L","fare":277.0,"city":"san_paulo"}
`
	seedDelete = `{"uuid":"1dced545-862b-4ceb-8b43-d2a568f6616b","city":"chennai"}
`
)

// seedImage is the image Java prints for a rider (Avro's GenericData.toString of the table
// record without meta fields, HoodieCDCUtils.recordToJson).
func seedImage(ts int64, uuid, rider, driver, fare, city string) string {
	return fmt.Sprintf(`{"ts": %d, "uuid": "%s", "rider": "%s", "driver": "%s", "fare": %s, "city": "%s"}`, ts, uuid, rider, driver, fare, city)
}

type cdcRow struct {
	Op     string  `json:"op"`
	TS     string  `json:"ts_ms"`
	Before *string `json:"before"`
	After  *string `json:"after"`
}

func (r cdcRow) String() string {
	s := func(p *string) string {
		if p == nil {
			return "null"
		}
		return *p
	}
	return r.Op + " " + r.TS + " " + s(r.Before) + " " + s(r.After)
}

func readCDC(t *testing.T, args ...string) []cdcRow {
	t.Helper()
	out, stderr, code := run(t, append([]string{"read"}, append(args, "--format", "jsonl")...)...)
	if code != 0 {
		t.Fatalf("hudi read %v: exit %d: %s", args, code, stderr)
	}
	var rows []cdcRow
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var r cdcRow
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("row %q: %v", line, err)
		}
		rows = append(rows, r)
	}
	return rows
}

var instantOf = regexp.MustCompile(`"instant":"(\d{17})"`)

// seedTable creates the guide's table (typ, mode) under dir, writes the insert, the
// update and the delete, and returns its path, the three instants and the CDC rows
// expected from the beginning, in the guide's order.
func seedTable(t *testing.T, dir, typ, mode string) (table string, instants []string, want []string) {
	t.Helper()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ins, upd, del := write("ins.jsonl", seedInsert), write("upd.jsonl", seedUpdate), write("del.jsonl", seedDelete)
	A := seedImage(1695158649187, "334e26e9-8355-45cc-97c6-c31daf0df330", "rider-A", "driver-K", "19.1", "san_francisco")
	A2 := seedImage(1695158649187, "334e26e9-8355-45cc-97c6-c31daf0df330", "rider-A", "driver-K", "191.0", "san_francisco")
	B := seedImage(1695091544288, "e96c4396-3fad-413a-a942-4cb36106d721", "rider-B", "driver-L", "27.7", "san_paulo")
	B2 := seedImage(1695091544288, "e96c4396-3fad-413a-a942-4cb36106d721", "rider-B", "driver-L", "277.0", "san_paulo")
	C := seedImage(1695046452379, "9909a8b1-2d15-4d3d-8ec9-efc48c536a00", "rider-C", "driver-M", "33.9", "san_francisco")
	D := seedImage(1695332056404, "1dced545-862b-4ceb-8b43-d2a568f6616b", "rider-D", "driver-N", "93.5", "chennai")
	table = filepath.Join(dir, typ+"_"+mode)
	if _, stderr, code := run(t, "create", table, "--type", typ, "--record-key", "uuid", "--precombine", "ts",
		"--partition-by", "city", "--schema", seedDDL, "--set", "hoodie.table.cdc.enabled=true",
		"--set", "hoodie.table.cdc.supplemental.logging.mode="+mode); code != 0 {
		t.Fatal(stderr)
	}
	for _, w := range []struct{ op, input string }{{"insert", ins}, {"upsert", upd}, {"delete", del}} {
		out, stderr, code := run(t, "write", table, "--op", w.op, "--input", w.input, "--format", "json")
		if code != 0 {
			t.Fatalf("%s: %s", w.op, stderr)
		}
		instants = append(instants, instantOf.FindStringSubmatch(out)[1])
	}
	i, u, d := instants[0], instants[1], instants[2]
	want = []string{
		"i " + i + " null " + A, "i " + i + " null " + B, "i " + i + " null " + C, "i " + i + " null " + D,
		"u " + u + " " + A + " " + A2, "u " + u + " " + B + " " + B2,
		"d " + d + " " + D + " null",
	}
	return table, instants, want
}

var seedModes = []string{"op_key_only", "data_before", "data_before_after"}

// checkCDCRows compares CDC rows with want as sets, and checks that each rider's rows come
// in instant order.
func checkCDCRows(t *testing.T, what string, rows []cdcRow, want []string) {
	t.Helper()
	var got []string
	for _, r := range rows {
		got = append(got, r.String())
	}
	// Rows come file group by file group (Java's HashMap order of the random file ids),
	// each group's commits in instant order.
	if !isGroupOrdered(rows) {
		t.Errorf("%s: the rows of a file group are not in instant order:\n%s", what, strings.Join(got, "\n"))
	}
	sort.Strings(got)
	want = slices.Clone(want)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCDCSeedExample(t *testing.T) {
	dir := t.TempDir()
	for _, typ := range []string{"cow", "mor"} {
		for _, mode := range seedModes {
			t.Run(typ+"/"+mode, func(t *testing.T) {
				table, in, want := seedTable(t, dir, typ, mode)
				checkCDCRows(t, "--begin earliest", readCDC(t, table, "--cdc", "--begin", "earliest"), want)
				checkCDCRows(t, "--begin <insert>", readCDC(t, table, "--cdc", "--begin", in[0]), want[4:])
				checkCDCRows(t, "--begin 0 --end <upsert>", readCDC(t, table, "--cdc", "--begin", "0", "--end", in[1]), want[:6])
				// The same table through SQL (cdc_sql_test.go; nothing in -tags nosql builds).
				seedSQL(t, table, in, want)
			})
		}
	}
}

// isGroupOrdered reports whether, per rider, the rows come in instant order.
func isGroupOrdered(rows []cdcRow) bool {
	last := map[string]string{}
	for _, r := range rows {
		img := r.After
		if img == nil {
			img = r.Before
		}
		rider := regexp.MustCompile(`"rider": "([^"]*)"`).FindStringSubmatch(*img)[1]
		if r.TS < last[rider] {
			return false
		}
		last[rider] = r.TS
	}
	return true
}

func TestCDCReadErrors(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if _, stderr, code := run(t, "create", plain, "--record-key", "uuid", "--schema", tripsDDL); code != 0 {
		t.Fatal(stderr)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"read", plain, "--cdc", "--begin", "earliest"}, ExitRuntime, "not a CDC table (hoodie.table.cdc.enabled"},
		{[]string{"read", plain, "--cdc"}, ExitUsage, "--cdc needs --begin"},
		{[]string{"read", plain, "--cdc", "--begin", "earliest", "--incremental"}, ExitUsage, "--cdc cannot be combined"},
		{[]string{"read", plain, "--cdc", "--begin", "earliest", "--as-of", "20240101000000000"}, ExitUsage, "--cdc cannot be combined"},
		{[]string{"read", plain, "--begin", "earliest"}, ExitUsage, "need --incremental or --cdc"},
	} {
		_, stderr, code := run(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%v: exit %d %q; want exit %d naming %q", tc.args, code, stderr, tc.code, tc.msg)
		}
	}
}
