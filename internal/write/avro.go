package write

import "github.com/hudi-go/hudi/internal/avro"

func avroParse(s string) (*avro.Schema, error) { return avro.Parse(s) }

func avroContainer(s *avro.Schema, v any) ([]byte, error) { return avro.WriteContainer(s, v) }
