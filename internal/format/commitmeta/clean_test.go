package commitmeta

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"

	"github.com/hudi-go/hudi/internal/avro"
	"github.com/hudi-go/hudi/internal/format/avroschema"
)

// Java's reader schemas: the .avsc files of apache/hudi as the generated classes see them
// (named types inlined where another file defines them). java014 is the revision we write;
// javaMaster is the later one (leading policy field, extraMetadata), read with defaults.
const (
	javaCleanPartitionMetadata = `{"namespace":"org.apache.hudi.avro.model","type":"record","name":"HoodieCleanPartitionMetadata","fields":[
		{"name":"partitionPath","type":"string"},{"name":"policy","type":"string"},
		{"name":"deletePathPatterns","type":{"type":"array","items":"string"}},
		{"name":"successDeleteFiles","type":{"type":"array","items":"string"}},
		{"name":"failedDeleteFiles","type":{"type":"array","items":"string"}},
		{"name":"isPartitionDeleted","type":["null","boolean"],"default":null}]}`
	javaCleanMetadata014 = `{"namespace":"org.apache.hudi.avro.model","type":"record","name":"HoodieCleanMetadata","fields":[
		{"name":"startCleanTime","type":"string"},{"name":"timeTakenInMillis","type":"long"},
		{"name":"totalFilesDeleted","type":"int"},{"name":"earliestCommitToRetain","type":"string"},
		{"name":"lastCompletedCommitTimestamp","type":"string","default":""},
		{"name":"partitionMetadata","type":{"type":"map","values":` + javaCleanPartitionMetadata + `}},
		{"name":"version","type":["int","null"],"default":1},
		{"name":"bootstrapPartitionMetadata","type":["null",{"type":"map","values":"HoodieCleanPartitionMetadata","default":null}],"default":null}]}`
	javaCleanMetadataMaster = `{"namespace":"org.apache.hudi.avro.model","type":"record","name":"HoodieCleanMetadata","fields":[
		{"name":"policy","type":"string","default":""},
		{"name":"startCleanTime","type":"string"},{"name":"timeTakenInMillis","type":"long"},
		{"name":"totalFilesDeleted","type":"int"},{"name":"earliestCommitToRetain","type":"string"},
		{"name":"lastCompletedCommitTimestamp","type":"string","default":""},
		{"name":"partitionMetadata","type":{"type":"map","values":` + javaCleanPartitionMetadata + `}},
		{"name":"version","type":["int","null"],"default":1},
		{"name":"bootstrapPartitionMetadata","type":["null",{"type":"map","values":"HoodieCleanPartitionMetadata","default":null}],"default":null},
		{"name":"extraMetadata","type":["null",{"type":"map","values":"string","default":null}],"default":null}]}`
	javaCleanerPlanMaster = `{"namespace":"org.apache.hudi.avro.model","type":"record","name":"HoodieCleanerPlan","fields":[
		{"name":"earliestInstantToRetain","type":["null",{"type":"record","name":"HoodieActionInstant","fields":[
			{"name":"timestamp","type":"string"},{"name":"action","type":"string"},{"name":"state","type":"string"}]}],"default":null},
		{"name":"lastCompletedCommitTimestamp","type":"string","default":""},
		{"name":"policy","type":"string"},
		{"name":"filesToBeDeletedPerPartition","type":["null",{"type":"map","values":{"type":"array","items":{"name":"filePath","type":"string"}}}],"default":null},
		{"name":"version","type":["int","null"],"default":1},
		{"name":"filePathsToBeDeletedPerPartition","type":["null",{"type":"map","values":{"type":"array","items":{"name":"HoodieCleanFileInfo","type":"record","fields":[
			{"name":"filePath","type":["null","string"],"default":null},{"name":"isBootstrapBaseFile","type":["null","boolean"],"default":null}]}}}],"default":null},
		{"name":"partitionsToBeDeleted","type":["null",{"type":"array","items":"string"}],"default":null},
		{"name":"extraMetadata","type":["null",{"type":"map","values":"string","default":null}],"default":null}]}`
	// javaCleanerPlanPre012 lacks lastCompletedCommitTimestamp: an older Java still reads
	// our plan, ignoring the field.
	javaCleanerPlanPre012 = `{"namespace":"org.apache.hudi.avro.model","type":"record","name":"HoodieCleanerPlan","fields":[
		{"name":"earliestInstantToRetain","type":["null",{"type":"record","name":"HoodieActionInstant","fields":[
			{"name":"timestamp","type":"string"},{"name":"action","type":"string"},{"name":"state","type":"string"}]}],"default":null},
		{"name":"policy","type":"string"},
		{"name":"filesToBeDeletedPerPartition","type":["null",{"type":"map","values":{"type":"array","items":{"name":"filePath","type":"string"}}}],"default":null},
		{"name":"version","type":["int","null"],"default":1},
		{"name":"filePathsToBeDeletedPerPartition","type":["null",{"type":"map","values":{"type":"array","items":{"name":"HoodieCleanFileInfo","type":"record","fields":[
			{"name":"filePath","type":["null","string"],"default":null},{"name":"isBootstrapBaseFile","type":["null","boolean"],"default":null}]}}}],"default":null},
		{"name":"partitionsToBeDeleted","type":["null",{"type":"array","items":"string"}],"default":null}]}`
)

func samplePlan() *CleanerPlan {
	return &CleanerPlan{
		EarliestInstantToRetain:      &ActionInstant{Timestamp: "20240101000000005", Action: "commit", State: "COMPLETED"},
		LastCompletedCommitTimestamp: "20240101000000009",
		Policy:                       "KEEP_LATEST_COMMITS",
		FilesToBeDeletedPerPartition: map[string][]string{},
		Version:                      CleanPlanVersion,
		FilePathsToBeDeletedPerPartition: map[string][]CleanFileInfo{
			"city=sf": {{FilePath: "file:/t/city=sf/f1-0_0-1-1_20240101000000001.parquet"}, {FilePath: "/t/city=sf/.f2_20240101000000001.log.1_0-1-1"}},
			"city=ny": {},
		},
		PartitionsToBeDeleted: []string{},
	}
}

func sampleCleanMetadata() *CleanMetadata {
	return &CleanMetadata{
		StartCleanTime: "20240101000000010", TimeTakenInMillis: 42, TotalFilesDeleted: 2,
		EarliestCommitToRetain: "20240101000000005", LastCompletedCommitTimestamp: "20240101000000009",
		PartitionMetadata: map[string]CleanPartitionMetadata{
			"city=sf": {PartitionPath: "city=sf", Policy: "KEEP_LATEST_COMMITS",
				DeletePathPatterns: []string{"a.parquet", "b.parquet"}, SuccessDeleteFiles: []string{"a.parquet"},
				FailedDeleteFiles: []string{"b.parquet"}},
			"": {PartitionPath: "", Policy: "KEEP_LATEST_COMMITS", DeletePathPatterns: []string{}, SuccessDeleteFiles: []string{},
				FailedDeleteFiles: []string{}, IsPartitionDeleted: true},
		},
		Version:                    CleanMetadataVersion,
		BootstrapPartitionMetadata: map[string]CleanPartitionMetadata{},
	}
}

func TestCleanerPlanRoundTrip(t *testing.T) {
	for _, p := range []*CleanerPlan{samplePlan(), {Policy: "KEEP_LATEST_FILE_VERSIONS", Version: 2,
		FilesToBeDeletedPerPartition: map[string][]string{}, FilePathsToBeDeletedPerPartition: map[string][]CleanFileInfo{},
		PartitionsToBeDeleted: []string{"old"}}} {
		b, err := EncodeCleanerPlan(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, avro.ContainerMagic) {
			t.Fatal("not an Avro container")
		}
		got, err := DecodeCleanerPlan(b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, p) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, p)
		}
	}
	if _, err := DecodeCleanerPlan(nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty plan: %v", err)
	}
}

func TestCleanMetadataRoundTrip(t *testing.T) {
	m := sampleCleanMetadata()
	b, err := EncodeCleanMetadata(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeClean(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, m)
	}
}

// TestCleanGolden pins the embedded writer schemas: a change to them changes what Java
// sees, so it must be deliberate.
func TestCleanGolden(t *testing.T) {
	b, err := EncodeCleanMetadata(sampleCleanMetadata())
	if err != nil {
		t.Fatal(err)
	}
	ws, _, err := avro.ReadContainer(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"name":"HoodieCleanMetadata","namespace":"org.apache.hudi.avro.model"`,
		`"name":"HoodieCleanPartitionMetadata"`, `"avro.java.string":"String"`} {
		if !bytes.Contains([]byte(ws), []byte(want)) && !bytes.Contains([]byte(avroschema.CleanMetadata.JSON()), []byte(want)) {
			t.Errorf("clean metadata schema lacks %s", want)
		}
	}
	// The datum bytes are deterministic for a one-partition value: pin them.
	one := &CleanMetadata{StartCleanTime: "2", TimeTakenInMillis: 1, TotalFilesDeleted: 1, EarliestCommitToRetain: "1",
		LastCompletedCommitTimestamp: "1", Version: 2, PartitionMetadata: map[string]CleanPartitionMetadata{
			"p": {PartitionPath: "p", Policy: "KEEP_LATEST_COMMITS", DeletePathPatterns: []string{"f"}, SuccessDeleteFiles: []string{"f"}}}}
	b, err = EncodeCleanMetadata(one)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{
		2, '2', // startCleanTime
		2,      // timeTakenInMillis 1
		2,      // totalFilesDeleted 1
		2, '1', // earliestCommitToRetain
		2, '1', // lastCompletedCommitTimestamp
		2, 2, 'p', // map block of 1: key "p"
		2, 'p', // partitionPath
		38, 'K', 'E', 'E', 'P', '_', 'L', 'A', 'T', 'E', 'S', 'T', '_', 'C', 'O', 'M', 'M', 'I', 'T', 'S',
		2, 2, 'f', 0, // deletePathPatterns ["f"]
		2, 2, 'f', 0, // successDeleteFiles ["f"]
		0,    // failedDeleteFiles []
		2, 0, // isPartitionDeleted: boolean branch, false
		0,    // end of map
		0, 4, // version: int branch, 2
		2, 0, // bootstrapPartitionMetadata: map branch, empty
	}
	if got := datum(t, b); !bytes.Equal(got, want) {
		t.Errorf("datum\n got %v\nwant %v", got, want)
	}
}

// datum returns the single datum of a one-block container.
func datum(t *testing.T, c []byte) []byte {
	t.Helper()
	sync := c[len(c)-16:]
	rest := c[bytes.Index(c, sync)+16:]
	n, k := binary.Varint(rest)
	if n != 1 || k <= 0 {
		t.Fatalf("block holds %d datums", n)
	}
	rest = rest[k:]
	size, k := binary.Varint(rest)
	if k <= 0 || int(size) != len(rest)-k-16 {
		t.Fatalf("bad block size %d", size)
	}
	return rest[k : k+int(size)]
}

// resolveWith decodes the container's datum the way Java does: with the embedded writer
// schema resolved against Java's reader schema.
func resolveWith(t *testing.T, c []byte, readerJSON string) map[string]any {
	t.Helper()
	ws, _, err := avro.ReadContainer(c)
	if err != nil {
		t.Fatal(err)
	}
	w, err := avro.Parse(ws)
	if err != nil {
		t.Fatal(err)
	}
	r, err := avro.Parse(readerJSON)
	if err != nil {
		t.Fatalf("reader schema: %v", err)
	}
	rs, err := avro.Resolve(w, r)
	if err != nil {
		t.Fatalf("Java's reader schema does not resolve against ours: %v", err)
	}
	v, rest, err := rs.Decode(datum(t, c))
	if err != nil || len(rest) != 0 {
		t.Fatalf("decode with Java's schema: %v (%d bytes left)", err, len(rest))
	}
	return v.(map[string]any)
}

// TestCleanDecodesWithJavaSchema checks that Java's generated classes (0.14 and later
// revisions, older ones for the plan) can read the files we write.
func TestCleanDecodesWithJavaSchema(t *testing.T) {
	mb, err := EncodeCleanMetadata(sampleCleanMetadata())
	if err != nil {
		t.Fatal(err)
	}
	for _, reader := range []string{javaCleanMetadata014, javaCleanMetadataMaster} {
		v := resolveWith(t, mb, reader)
		if v["startCleanTime"] != "20240101000000010" || v["earliestCommitToRetain"] != "20240101000000005" ||
			v["totalFilesDeleted"] != int32(2) {
			t.Errorf("clean metadata as Java reads it: %v", v)
		}
		pm := v["partitionMetadata"].(map[string]any)["city=sf"].(map[string]any)
		if !reflect.DeepEqual(pm["successDeleteFiles"], []any{"a.parquet"}) {
			t.Errorf("partition metadata as Java reads it: %v", pm)
		}
		if p, ok := v["policy"]; ok && p != "" {
			t.Errorf("policy default: %v", p)
		}
	}
	pb, err := EncodeCleanerPlan(samplePlan())
	if err != nil {
		t.Fatal(err)
	}
	for _, reader := range []string{javaCleanerPlanMaster, javaCleanerPlanPre012} {
		v := resolveWith(t, pb, reader)
		e := v["earliestInstantToRetain"].(map[string]any)
		if e["timestamp"] != "20240101000000005" || e["state"] != "COMPLETED" || v["policy"] != "KEEP_LATEST_COMMITS" {
			t.Errorf("plan as Java reads it: %v", v)
		}
		files := v["filePathsToBeDeletedPerPartition"].(map[string]any)["city=sf"].([]any)
		if len(files) != 2 || files[0].(map[string]any)["filePath"] != "file:/t/city=sf/f1-0_0-1-1_20240101000000001.parquet" {
			t.Errorf("plan files as Java reads them: %v", files)
		}
	}
}

func FuzzDecodeCleanerPlan(f *testing.F) {
	pb, err := EncodeCleanerPlan(samplePlan())
	if err != nil {
		f.Fatal(err)
	}
	mb, err := EncodeCleanMetadata(sampleCleanMetadata())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(pb)
	f.Add(mb)
	f.Add([]byte(`{"policy":"KEEP_LATEST_COMMITS","filePathsToBeDeletedPerPartition":{"p":[{"filePath":"x"}]},"earliestInstantToRetain":{"timestamp":"1"}}`))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodeCleanerPlan(data)
		if err == nil {
			// Whatever decodes re-encodes and decodes to the same plan.
			if p.FilesToBeDeletedPerPartition == nil {
				p.FilesToBeDeletedPerPartition = map[string][]string{}
			}
			b, err := EncodeCleanerPlan(p)
			if err != nil {
				t.Fatalf("re-encode: %v", err)
			}
			if _, err := DecodeCleanerPlan(b); err != nil {
				t.Fatalf("re-decode: %v", err)
			}
		}
		_, _ = DecodeClean(data)
		_, _ = DecodeSavepointMetadata(data)
	})
}
