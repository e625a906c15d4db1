package sql

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// quickstartNoKeyDDL is the CREATE TABLE of Hudi 0.14.1's quick start
// (website/versioned_docs/version-0.14.1/quick-start-guide.md): no primaryKey, so Hudi
// generates the record keys.
const quickstartNoKeyDDL = `CREATE TABLE hudi_table (
    ts BIGINT,
    uuid STRING,
    rider STRING,
    driver STRING,
    fare DOUBLE,
    city STRING
) USING HUDI
PARTITIONED BY (city)`

// TestCreateWithoutPrimaryKey: the quick start's CREATE TABLE without primaryKey makes a
// table whose keys are generated as Java 0.14 generates them ("<instant>_0_<row>",
// AutoRecordGenWrapperKeyGenerator; hoodie.table.recordkey.fields unset); INSERT adds
// rows with new keys; UPDATE, DELETE and MERGE INTO (ON any columns, as sql_dml.md of
// 0.14.1 allows for such tables) keep the stored keys of the rows they change, and a
// MERGE's inserted row gets a new key — on both table types.
func TestCreateWithoutPrimaryKey(t *testing.T) {
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			e := openEngine(t)
			ddl := quickstartNoKeyDDL
			if typ == "mor" {
				ddl += " TBLPROPERTIES (type = 'mor')"
			}
			rs := run(t, e, ddl+`;
INSERT INTO hudi_table
VALUES
(1695159649087,'334e26e9-8355-45cc-97c6-c31daf0df330','rider-A','driver-K',19.10,'san_francisco'),
(1695091554788,'e96c4396-3fad-413a-a942-4cb36106d721','rider-C','driver-M',27.70 ,'san_francisco'),
(1695046462179,'9909a8b1-2d15-4d3d-8ec9-efc48c536a00','rider-D','driver-L',33.90 ,'san_francisco'),
(1695516137016,'e3cf430c-889d-4015-bc98-59bdce1e530c','rider-F','driver-P',34.15,'sao_paulo'    ),
(1695115999911,'c8abbe79-8d89-47ea-b4ce-4d224bae5bfa','rider-J','driver-T',17.85,'chennai')`)
			insert := rs[1].Instants[0]
			h, err := e.resolveText(t.Context(), "hudi_table")
			if err != nil {
				t.Fatal(err)
			}
			if k := h.t.Config().RecordKeyFields(); len(k) != 0 {
				t.Errorf("record key fields %v", k)
			}
			keysQ := "SELECT rider, _hoodie_record_key AS k, fare FROM hudi_table ORDER BY rider"
			want := []string{"rider-A", "rider-C", "rider-D", "rider-F", "rider-J"}
			keyOf := map[string]string{}
			for i, line := range strings.Split(query(t, e, keysQ), "\n") {
				var row struct{ Rider, K string }
				if err := json.Unmarshal([]byte(line), &row); err != nil {
					t.Fatal(err)
				}
				keyOf[row.Rider] = row.K
				if row.Rider != want[i] || row.K != fmt.Sprintf("%s_0_%d", insert, i) {
					t.Errorf("row %d: %s", i, line)
				}
			}
			run(t, e, `UPDATE hudi_table SET fare = 25.0 WHERE rider = 'rider-D';
DELETE FROM hudi_table WHERE uuid = 'e3cf430c-889d-4015-bc98-59bdce1e530c'`)
			rs = run(t, e, `MERGE INTO hudi_table t
USING (SELECT * FROM (VALUES ('rider-A', 1.0), ('rider-Z', 2.0)) AS v(rider, fare)) s
ON t.rider = s.rider
WHEN MATCHED THEN UPDATE SET fare = t.fare + s.fare
WHEN NOT MATCHED THEN INSERT (ts, uuid, rider, driver, fare, city) VALUES (1, 'u-z', s.rider, 'driver-Z', s.fare, 'chennai')`)
			merge := rs[0].Instants[0]
			got := query(t, e, keysQ)
			wantRows := strings.Join([]string{
				`{"rider":"rider-A","k":"` + keyOf["rider-A"] + `","fare":20.1}`,
				`{"rider":"rider-C","k":"` + keyOf["rider-C"] + `","fare":27.7}`,
				`{"rider":"rider-D","k":"` + keyOf["rider-D"] + `","fare":25.0}`,
				`{"rider":"rider-J","k":"` + keyOf["rider-J"] + `","fare":17.85}`,
				`{"rider":"rider-Z","k":"` + merge + `_0_1","fare":2.0}`,
			}, "\n")
			if got != wantRows {
				t.Errorf("after UPDATE, DELETE and MERGE:\n%s\nwant\n%s", got, wantRows)
			}
			if !regexp.MustCompile(`^\d{17}$`).MatchString(merge) {
				t.Errorf("merge instant %q", merge)
			}
			// Registering the table with a primaryKey fails, saying its keys are generated.
			err = runErr(t, e, "CREATE TABLE again USING HUDI TBLPROPERTIES (primaryKey = 'uuid') LOCATION '"+h.path+"'")
			if !strings.Contains(err.Error(), "primaryKey uuid, the table's record key is none (its keys are generated)") {
				t.Errorf("CREATE over the table with a key: %v", err)
			}
		})
	}
}
