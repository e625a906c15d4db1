//go:build unix

package objstoretest

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/jsonl"
	"github.com/hudi-go/hudi/internal/objstore/s3test"
	"github.com/hudi-go/hudi/internal/schema"
	"github.com/hudi-go/hudi/storage"
	"github.com/hudi-go/hudi/storage/storagetest"
)

// A table on S3 with a metadata table is planned from its files partition: a scan lists
// no data partition (each is a LIST request on an object store), and reads the rows a
// scan planned from listings (hoodie.metadata.enable=false on the read) reads.
func TestPlanningFromMetadataTableOnS3(t *testing.T) {
	bucket, settings := s3test.Bucket(t)
	ctx := context.Background()
	for _, typ := range []string{"cow", "mor"} {
		t.Run(typ, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "trips")
			tb, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "trips", Type: typ, RecordKeyFields: []string{"id"},
				PartitionFields: []string{"city"}, PrecombineField: "ts", Schema: "id STRING, ts BIGINT, city STRING, fare DOUBLE"})
			if err != nil {
				t.Fatal(err)
			}
			for b := 0; b < 3; b++ {
				var in []string
				for i := 0; i < 12; i++ {
					k := (i + b*4) % 20
					in = append(in, fmt.Sprintf(`{"id":"k%02d","ts":%d,"city":"c%d","fare":%d.5}`, k, b, k%4, i+b))
				}
				if _, err := tb.Write(ctx, decodeRows(t, tb, in), hudi.WriteOptions{Operation: "upsert"}); err != nil {
					t.Fatal(err)
				}
			}
			url := fmt.Sprintf("s3a://%s/warehouse/%s_trips", bucket, typ)
			st, err := storage.OpenURL(ctx, url, settings)
			if err != nil {
				t.Fatal(err)
			}
			if err := upload(ctx, dir, st); err != nil {
				t.Fatal(err)
			}
			counter := storagetest.NewListCounter(st)
			s3t, err := hudi.OpenStorage(ctx, counter)
			if err != nil {
				t.Fatal(err)
			}
			got := scanRows(t, s3t, nil)
			if n := counter.DataLists(); n != 0 {
				t.Errorf("the scan on S3 listed data partitions %d times: %v", n, counter.Lists())
			}
			want := scanRows(t, s3t, map[string]string{"hoodie.metadata.enable": "false"})
			if counter.DataLists() == 0 {
				t.Error("the scan with hoodie.metadata.enable=false listed no data partition")
			}
			if len(got) != 20 || strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("planned from the metadata table (%d rows):\n%s\nfrom listings (%d rows):\n%s", len(got), strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
			}
		})
	}
}

// decodeRows decodes JSON lines with the table's schema.
func decodeRows(t *testing.T, tb *hudi.Table, lines []string) []arrow.Record {
	t.Helper()
	avro, err := tb.SchemaAt(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := schema.FromAvro(avro)
	if err != nil {
		t.Fatal(err)
	}
	var out []arrow.Record
	for rec, err := range jsonl.Decode(strings.NewReader(strings.Join(lines, "\n")+"\n"), sc, memory.DefaultAllocator, 0) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

// scanRows scans tb with settings and returns its rows as sorted JSON lines.
func scanRows(t *testing.T, tb *hudi.Table, settings map[string]string) []string {
	t.Helper()
	ctx := context.Background()
	scan, err := tb.Scan(ctx, hudi.ScanOptions{Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := jsonl.NewEncoder(&buf, jsonl.Options{DropMetaColumns: true})
	if err := scan.Run(ctx, func(r arrow.Record) error { return enc.WriteRecord(r) }); err != nil {
		t.Fatal(err)
	}
	enc.Flush()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	sort.Strings(lines)
	return lines
}
