package cdc

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/hudi-go/hudi/internal/avro"
)

// avroSchema is a resolved CDC record schema.
type avroSchema struct{ s *avro.Schema }

func (a *avroSchema) decode(datum []byte) (any, error) {
	v, _, err := a.s.Decode(datum)
	return v, err
}

// resolve checks that writer is a schema of mode's records (its field names, in order) and
// returns the schema decoding its data into reader's shape.
func resolve(writer, reader string, mode Mode) (*avroSchema, error) {
	var w struct {
		Type   string `json:"type"`
		Fields []struct {
			Name string `json:"name"`
		} `json:"fields"`
	}
	if err := json.Unmarshal([]byte(writer), &w); err != nil || w.Type != "record" {
		return nil, fmt.Errorf("CDC block schema is not an Avro record schema")
	}
	var names []string
	for _, f := range w.Fields {
		names = append(names, f.Name)
	}
	if want := wantFields(mode); !slices.Equal(names, want) {
		return nil, fmt.Errorf("CDC block schema has fields %v; the %s mode's records have %v", names, mode, want)
	}
	ws, err := avro.Parse(writer)
	if err != nil {
		return nil, fmt.Errorf("CDC block schema: %w", err)
	}
	rs, err := avro.Parse(reader)
	if err != nil {
		return nil, fmt.Errorf("CDC reader schema: %w", err)
	}
	res, err := avro.Resolve(ws, rs)
	if err != nil {
		return nil, fmt.Errorf("CDC block schema does not resolve to the table's: %w", err)
	}
	return &avroSchema{s: res}, nil
}
