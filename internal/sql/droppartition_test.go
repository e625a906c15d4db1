package sql

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDropPartitionColumnsSQL runs DML on tables created with
// hoodie.datasource.write.drop.partition.columns=true: statements bind the partition
// column although commit schemas lack it, and SELECT returns it from the partition path.
func TestDropPartitionColumnsSQL(t *testing.T) {
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			e := openEngine(t)
			ddl := strings.Replace(tripsDDL, "%s", typ, 1)
			ddl = strings.Replace(ddl, "preCombineField = 'ts'", "preCombineField = 'ts', 'hoodie.datasource.write.drop.partition.columns' = 'true'", 1)
			run(t, e, ddl+";"+tripsRows)
			run(t, e, "INSERT INTO trips VALUES (5, 'e', 'rider-E', 50.0, 'la')")
			run(t, e, "UPDATE trips SET fare = 99.0 WHERE uuid = 'a'")
			run(t, e, "DELETE FROM trips WHERE uuid = 'c'")
			got := query(t, e, "SELECT uuid, fare, city FROM trips ORDER BY uuid")
			want := `{"uuid":"a","fare":99.0,"city":"sf"}
{"uuid":"b","fare":20.0,"city":"sf"}
{"uuid":"d","fare":40.0,"city":"la"}
{"uuid":"e","fare":50.0,"city":"la"}`
			if got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
			// The statements really wrote files without the column.
			files, _ := filepath.Glob(filepath.Join(e.o.Warehouse, "*", "trips", "*", "*.parquet"))
			if len(files) == 0 {
				files, _ = filepath.Glob(filepath.Join(e.o.Warehouse, "trips", "*", "*.parquet"))
			}
			if len(files) == 0 {
				t.Fatalf("no base files under %s", e.o.Warehouse)
			}
			for _, p := range files {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				// The footer's parquet.avro.schema names fare but not city.
				if footer := string(b); !strings.Contains(footer, `"name":"fare"`) || strings.Contains(footer, `"name":"city"`) {
					t.Errorf("%s: parquet.avro.schema lacks fare or has the partition column city", p)
				}
			}
		})
	}
}
