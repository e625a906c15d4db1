package table

import (
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/hudi-go/hudi/internal/keygen"
)

// KeyGen builds the table's key generator for rows of schema rows. writer holds the
// explicit settings of the write, compaction or read asking (canonical hoodie.* names):
// they fill the keys hoodie.properties lacks, since Spark 0.14 keeps the writer-level
// key generator settings (hoodie.keygen.timebased.*) out of it and a writer gives them
// with every write, and compacting or reading a table without meta fields
// (hoodie.populate.meta.fields=false) rebuilds record keys with the same generator. A
// hoodie.keygen.* setting whose value differs from the table's is refused, naming both.
func (c *Config) KeyGen(rows *arrow.Schema, writer map[string]string) (*keygen.Generator, error) {
	props := c.Props.Map()
	keys := make([]string, 0, len(writer))
	for k := range writer {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := writer[k]
		stored, ok := props[k]
		if !ok {
			props[k] = v
			continue
		}
		if strings.HasPrefix(k, "hoodie.keygen.") && strings.TrimSpace(stored) != strings.TrimSpace(v) {
			return nil, fmt.Errorf("key generator: %s=%s contradicts the table's hoodie.properties value %s", k, v, stored)
		}
	}
	gen, err := keygen.New(keygen.Options{
		KeyGenerator:    c.KeyGenerator(),
		RecordKeyFields: c.RecordKeyFields(),
		PartitionFields: c.PartitionFieldsRaw(),
		HiveStyle:       c.HiveStylePartitioning(),
		URLEncode:       c.URLEncodePartitioning(),
		Props:           props,
	}, rows)
	if err != nil {
		return nil, fmt.Errorf("key generator: %w", err)
	}
	return gen, nil
}
