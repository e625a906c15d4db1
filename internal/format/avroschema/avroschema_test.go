package avroschema

import (
	"encoding/json"
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/avro"
)

var all = []Record{CompactionPlan, RequestedReplaceMetadata, RollbackPlan, RollbackMetadata, RestorePlan, RestorePlanV8, RestoreMetadata,
	CleanerPlan, CleanMetadata, CleanerPlanV8, CleanMetadataV8, SavepointMetadata, DeleteRecordList, MetadataRecord, MetadataRecordV8, ArchivedCommitMetadata, ArchivedReplaceCommitMetadata,
	ArchivedRequestedReplaceMetadata, ArchivedCleanMetadata, ArchivedCleanerPlan, ArchivedSavepointMetadata,
	ArchivedCompactionMetadata, ArchivedIndexCommitMetadata, LSMTimelineInstant}

// refersTo names the type each archived record uses from a record before it in
// HoodieArchivedMetaEntry, where the entry defines it; alone, it does not parse.
var refersTo = map[Record]string{ArchivedCompactionMetadata: "HoodieWriteStat", ArchivedIndexCommitMetadata: "HoodieInstantInfo"}

// TestEveryRecordLoads: each Record has its .avsc, which parses as Avro (but for the
// references above), is a record of namespace org.apache.hudi.avro.model named after the
// file, and ends in exactly one newline that JSON leaves out; and every .avsc file has a
// Record.
func TestEveryRecordLoads(t *testing.T) {
	named := map[string]bool{}
	for _, r := range all {
		named[string(r)+".avsc"] = true
		t.Run(string(r), func(t *testing.T) {
			s := r.JSON()
			if strings.HasSuffix(s, "\n") || strings.TrimSpace(s) != s {
				t.Errorf("schema has surrounding white space")
			}
			_, err := avro.Parse(s)
			if ref := refersTo[r]; ref != "" {
				if err == nil || !strings.Contains(err.Error(), `unknown type "`+ref+`"`) {
					t.Errorf("parse alone: %v, want an unknown %s (defined earlier in the archived entry)", err, ref)
				}
			} else if err != nil {
				t.Fatalf("parse: %v", err)
			}
			var top struct{ Type, Name, Namespace string }
			if err := json.Unmarshal([]byte(s), &top); err != nil {
				t.Fatal(err)
			}
			if top.Type != "record" || top.Name != path.Base(string(r)) || top.Namespace != "org.apache.hudi.avro.model" {
				t.Errorf("top level %+v, want record org.apache.hudi.avro.model.%s", top, path.Base(string(r)))
			}
		})
	}
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !named[p] {
			t.Errorf("%s has no Record", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestUnknownRecordPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for an unknown record")
		}
	}()
	_ = Record("HoodieNoSuchRecord").JSON()
}
