package sql

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShowProcedures runs the inspection procedures on a MOR table with a savepoint and a
// compaction, checking Hudi's output columns and the values the commits hold.
func TestShowProcedures(t *testing.T) {
	e := newTrips(t, "mor")
	run(t, e, "UPDATE trips SET fare = 1 WHERE uuid = 'a'")
	first := query(t, e, "CALL show_commits(table => 'trips', limit => 10)")
	lines := strings.Split(first, "\n")
	insert := lines[len(lines)-1]
	instant := insert[strings.Index(insert, `"commit_time":"`)+15 : strings.Index(insert, `"commit_time":"`)+32]
	run(t, e, "CALL create_savepoint(table => 'trips', commit_time => '"+instant+"')")
	run(t, e, "CALL run_compaction(op => 'scheduleAndExecute', table => 'trips')")

	if got := query(t, e, "CALL show_savepoints(table => 'trips')"); got != `{"savepoint_time":"`+instant+`"}` {
		t.Errorf("show_savepoints: %s", got)
	}
	files := query(t, e, "CALL show_commit_files(table => 'trips', instant_time => '"+instant+"')")
	if strings.Count(files, "\n") != 2 || !strings.Contains(files, `"action":"deltacommit","partition_path":"city=la"`) || !strings.Contains(files, `"previous_commit":"null"`) {
		t.Errorf("show_commit_files:\n%s", files)
	}
	parts := query(t, e, "CALL show_commit_partitions(table => 'trips', instant_time => '"+instant+"')")
	if !strings.Contains(parts, `{"action":"deltacommit","partition_path":"city=sf","total_files_added":1,"total_files_updated":0,"total_records_inserted":2,"total_records_updated":0,`) {
		t.Errorf("show_commit_partitions:\n%s", parts)
	}
	comp := query(t, e, "CALL show_compaction(table => 'trips')")
	if !strings.Contains(comp, `"state":"COMPLETED"`) || !strings.Contains(comp, `"operation_size":1`) {
		t.Errorf("show_compaction:\n%s", comp)
	}
	tl := query(t, e, "CALL show_timeline(table => 'trips', limit => 2)")
	if strings.Count(tl, "\n") != 1 || !strings.Contains(tl, `"action":"commit","state":"COMPLETED","requested_action":"compaction"`) {
		t.Errorf("show_timeline:\n%s", tl)
	}
	stats := query(t, e, "CALL stats_file_sizes(table => 'trips')")
	if !strings.Contains(stats, `"commit_time":"ALL"`) || !strings.Contains(stats, `"num_files":3`) {
		t.Errorf("stats_file_sizes:\n%s", stats)
	}
	fsv := query(t, e, "CALL show_fsview_latest(table => 'trips', partition_path => 'city=sf')")
	if strings.Count(fsv, "\n") != 0 || !strings.Contains(fsv, `"partition":"city=sf"`) || !strings.Contains(fsv, `"num_delta_files":`) {
		t.Errorf("show_fsview_latest:\n%s", fsv)
	}
	marker := filepath.Join(e.cat.defaultPath("default", "trips"), ".hoodie", ".temp", "20990101000000000")
	if err := os.MkdirAll(marker, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := query(t, e, "CALL delete_marker(table => 'trips', instant_time => '20990101000000000')"); got != `{"delete_marker_result":true}` {
		t.Errorf("delete_marker: %s", got)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("marker directory still there: %v", err)
	}
	if got := query(t, e, "CALL help(cmd => 'show_commit_files')"); got != `{"result":"parameters: table, limit, instant_time"}` {
		t.Errorf("help: %s", got)
	}
	if err := runErr(t, e, "CALL show_commit_files(table => 'trips', instant_time => '1')"); !strings.Contains(err.Error(), "commit 1 not found") {
		t.Errorf("unknown instant: %v", err)
	}
}

// TestShowClusteringAndRepair: show_clustering lists a scheduled clustering as REQUESTED
// with its input group count and, once run, COMPLETED, with the partitions of its input
// slices (sorted, joined by ",") when show_involved_partition is set, "*" otherwise (Hudi
// 0.14's ShowClusteringProcedure); an insert_overwrite's replacecommit is no clustering and
// is left out. repair_add_partition_meta reports each partition and, with dry_run =>
// false, writes a missing .hoodie_partition_metadata (RepairAddpartitionmetaProcedure's
// columns; the partitions are the directories holding data files, hudi-go's choice).
func TestShowClusteringAndRepair(t *testing.T) {
	e := newTrips(t, "cow")
	run(t, e, "INSERT INTO trips VALUES (5, 'e', 'rider-E', 50.0, 'sf')")
	run(t, e, "CALL run_clustering(table => 'trips', op => 'schedule', options => 'hoodie.clustering.plan.strategy.small.file.limit=1000000000')")
	got := query(t, e, "CALL show_clustering(table => 'trips')")
	if !strings.HasSuffix(got, `"state":"REQUESTED","involved_partitions":"*"}`) || strings.Count(got, "\n") != 0 {
		t.Fatalf("scheduled clustering:\n%s", got)
	}
	run(t, e, "CALL run_clustering(table => 'trips', op => 'execute')")
	run(t, e, "INSERT OVERWRITE trips PARTITION (city = 'la') SELECT 9, 'z', 'rider-Z', 9.0")
	got = query(t, e, "CALL show_clustering(table => 'trips', show_involved_partition => true)")
	if !strings.Contains(got, `"input_group_size":3,"state":"COMPLETED","involved_partitions":"city=la,city=nyc,city=sf"`) || strings.Count(got, "\n") != 0 {
		t.Errorf("completed clustering:\n%s", got)
	}

	meta := filepath.Join(e.cat.defaultPath("default", "trips"), "city=nyc", ".hoodie_partition_metadata")
	if err := os.Remove(meta); err != nil {
		t.Fatal(err)
	}
	dry := query(t, e, "CALL repair_add_partition_meta(table => 'trips')")
	want := `{"partition_path":"city=la","metadata_is_present":"Yes","action":"None"}
{"partition_path":"city=nyc","metadata_is_present":"No","action":"None"}
{"partition_path":"city=sf","metadata_is_present":"Yes","action":"None"}`
	if dry != want {
		t.Errorf("dry run:\n%s\nwant\n%s", dry, want)
	}
	if _, err := os.Stat(meta); !os.IsNotExist(err) {
		t.Errorf("dry run wrote the metadata: %v", err)
	}
	if got := query(t, e, "CALL repair_add_partition_meta(table => 'trips', dry_run => false)"); !strings.Contains(got, `{"partition_path":"city=nyc","metadata_is_present":"No","action":"Repaired"}`) {
		t.Errorf("repair:\n%s", got)
	}
	if _, err := os.Stat(meta); err != nil {
		t.Errorf("repair wrote no metadata: %v", err)
	}
	if got := query(t, e, "SELECT count(*) AS n FROM trips WHERE city = 'nyc'"); got != `{"n":1}` {
		t.Errorf("after the repair the partition reads %s", got)
	}
}
