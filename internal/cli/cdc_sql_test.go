//go:build !nosql

package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// The guide's example through SQL: hudi_table_changes('t', 'cdc', begin[, end]) gives the
// rows `hudi read --cdc` gives, on both table types in each mode.
func TestCDCSeedExampleSQL(t *testing.T) {
	dir := t.TempDir()
	for _, typ := range []string{"cow", "mor"} {
		for _, mode := range seedModes {
			t.Run(typ+"/"+mode, func(t *testing.T) {
				table, in, want := seedTable(t, dir, typ, mode)
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
				checkCDCRows(t, "'earliest'", query("'earliest'"), want)
				checkCDCRows(t, "<insert>, <upsert>", query("'"+in[0]+"', '"+in[1]+"'"), want[4:6])
				out, stderr, code := run(t, "sql", "--format", "csv", "-e",
					"SELECT op, count(*) AS n FROM hudi_table_changes('"+table+"', 'cdc', '0') WHERE op <> 'i' GROUP BY op ORDER BY op")
				if code != 0 || strings.TrimSpace(out) != "op,n\nd,1\nu,2" {
					t.Errorf("grouped CDC query: exit %d %q %s", code, out, stderr)
				}
			})
		}
	}
}
