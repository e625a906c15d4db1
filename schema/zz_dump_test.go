package schema

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/hudi-go/hudi/internal/avro"
)

func TestZZDumpCommit(t *testing.T) {
	p := os.Getenv("ZZ_COMMIT")
	if p == "" { t.Skip() }
	data, _ := os.ReadFile(p)
	_, vals, err := avro.ReadContainer(data)
	if err != nil { t.Fatal(err) }
	m := vals[0].(map[string]any)
	em := m["extraMetadata"]
	fmt.Printf("%T\n", em)
	if mm, ok := em.(map[string]any); ok { fmt.Println(mm["schema"]) }
}

func TestZZDumpParquet(t *testing.T) {
	p := os.Getenv("ZZ_PQ")
	if p == "" { t.Skip() }
	f, err := file.OpenParquetFile(p, false)
	if err != nil { t.Fatal(err) }
	fmt.Println(f.MetaData().Schema.String())
	r, err := pqarrow.NewFileReader(f, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil { t.Fatal(err) }
	tbl, err := r.ReadTable(context.Background())
	if err != nil { t.Fatal(err) }
	fmt.Println(tbl.Schema())
	for i := 0; i < int(tbl.NumCols()); i++ {
		fmt.Println(tbl.Schema().Field(i).Name, tbl.Column(i).Data().Chunk(0))
	}
}
