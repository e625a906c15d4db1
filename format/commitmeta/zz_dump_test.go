package commitmeta

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hudi-go/hudi/internal/avro"
)

func TestZZDump(t *testing.T) {
	files := os.Getenv("DUMP")
	if files == "" {
		t.Skip()
	}
	for _, f := range strings.Split(files, ",") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ws, vals, err := avro.ReadContainer(data)
		if err != nil {
			t.Fatal(err)
		}
		if os.Getenv("SCHEMA") != "" {
			fmt.Println(ws)
		}
		b, _ := json.MarshalIndent(vals, "", " ")
		fmt.Printf("== %s\n%s\n", f, b)
	}
}
