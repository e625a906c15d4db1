//go:build !nosql

package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// seedSQL checks the guide's example through SQL: hudi_table_changes('t', 'cdc', begin[,
// end]) gives the rows `hudi read --cdc` gives (TestCDCSeedExample, both table types, each
// mode), and the engine filters and groups them (a WHERE it does not push).
func seedSQL(t *testing.T, table string, in, want []string) {
	t.Helper()
	query := func(args string) []cdcRow {
		t.Helper()
		out, stderr, code := run(t, "sql", "--format", "jsonl", "-e",
			"SELECT op, ts_ms, before, after FROM hudi_table_changes('"+table+"', 'cdc', "+args+")")
		if code != 0 {
			t.Fatalf("hudi sql: %s", stderr)
		}
		var rows []cdcRow
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var r cdcRow
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			rows = append(rows, r)
		}
		return rows
	}
	checkCDCRows(t, "SQL 'earliest'", query("'earliest'"), want)
	if !strings.HasSuffix(table, "cow_data_before_after") {
		return // the rest does not depend on the table: once is enough (the test runs under -race in CI)
	}
	checkCDCRows(t, "SQL <insert>, <upsert>", query("'"+in[0]+"', '"+in[1]+"'"), want[4:6])
	out, stderr, code := run(t, "sql", "--format", "csv", "-e",
		"SELECT op, count(*) AS n FROM hudi_table_changes('"+table+"', 'cdc', '0') WHERE op <> 'i' GROUP BY op ORDER BY op")
	if code != 0 || strings.TrimSpace(out) != "op,n\nd,1\nu,2" {
		t.Errorf("grouped CDC query: exit %d %q %s", code, out, stderr)
	}
}
