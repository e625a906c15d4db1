package sql

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// catalogFile is the warehouse's table catalog. It is hidden so no table directory can
// collide with it.
const catalogFile = ".hudi-catalog.json"

// DefaultDatabase is Spark's default database.
const DefaultDatabase = "default"

// catalogEntry is one named table.
type catalogEntry struct {
	Database string `json:"database"`
	Table    string `json:"table"`
	Path     string `json:"path"`
	// External is true for tables created with LOCATION: DROP TABLE … PURGE never deletes
	// their files (Spark's external-table rule).
	External bool `json:"external,omitempty"`
	// Props are the hoodie.* TBLPROPERTIES given at CREATE: Spark SQL passes a table's
	// properties to every write of it, and so does the engine.
	Props map[string]string `json:"props,omitempty"`
	// Comment is the table COMMENT.
	Comment string `json:"comment,omitempty"`
}

// catalogDoc is the file's shape: a version for later changes, databases, and tables by
// "db.table" (lower case; Spark resolves names case-insensitively).
type catalogDoc struct {
	Version   int                      `json:"version"`
	Databases []string                 `json:"databases,omitempty"`
	Tables    map[string]*catalogEntry `json:"tables"`
}

// catalog maps db.table to table paths inside a warehouse directory. It is re-read before
// every lookup and written atomically (temp file + rename), so two `hudi sql` processes on
// one warehouse see each other's tables; concurrent CREATEs of one name are last-writer-wins,
// which is acceptable for a local, single-user warehouse.
type catalog struct {
	warehouse string
}

func (c *catalog) file() string { return filepath.Join(c.warehouse, catalogFile) }

func (c *catalog) load() (*catalogDoc, error) {
	doc := &catalogDoc{Version: 1, Tables: map[string]*catalogEntry{}}
	b, err := os.ReadFile(c.file())
	if errors.Is(err, os.ErrNotExist) {
		return doc, nil
	}
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", c.file(), err)
	}
	if err := json.Unmarshal(b, doc); err != nil {
		return nil, fmt.Errorf("catalog %s: %w", c.file(), err)
	}
	if doc.Tables == nil {
		doc.Tables = map[string]*catalogEntry{}
	}
	return doc, nil
}

func (c *catalog) save(doc *catalogDoc) error {
	if err := os.MkdirAll(c.warehouse, 0o755); err != nil {
		return fmt.Errorf("warehouse %s: %w", c.warehouse, err)
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.warehouse, catalogFile+".tmp*")
	if err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("catalog: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("catalog: %w", err)
	}
	if err := os.Rename(tmp.Name(), c.file()); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("catalog: %w", err)
	}
	return nil
}

func catalogKey(db, table string) string { return strings.ToLower(db) + "." + strings.ToLower(table) }

// lookup returns the entry of db.table, or nil.
func (c *catalog) lookup(db, table string) (*catalogEntry, error) {
	doc, err := c.load()
	if err != nil {
		return nil, err
	}
	return doc.Tables[catalogKey(db, table)], nil
}

// hasDatabase reports whether db is known: default always is, others once a table or
// USE created them.
func (c *catalog) hasDatabase(db string) (bool, error) {
	if strings.EqualFold(db, DefaultDatabase) {
		return true, nil
	}
	doc, err := c.load()
	if err != nil {
		return false, err
	}
	for _, d := range doc.Databases {
		if strings.EqualFold(d, db) {
			return true, nil
		}
	}
	for _, e := range doc.Tables {
		if strings.EqualFold(e.Database, db) {
			return true, nil
		}
	}
	return false, nil
}

// defaultPath is where a managed table lives, as in Spark's warehouse: tables of the
// default database directly under the warehouse, others under <db>.db/.
func (c *catalog) defaultPath(db, table string) string {
	if strings.EqualFold(db, DefaultDatabase) {
		return filepath.Join(c.warehouse, strings.ToLower(table))
	}
	return filepath.Join(c.warehouse, strings.ToLower(db)+".db", strings.ToLower(table))
}

func (c *catalog) put(e *catalogEntry) error {
	doc, err := c.load()
	if err != nil {
		return err
	}
	doc.Tables[catalogKey(e.Database, e.Table)] = e
	return c.save(doc)
}

func (c *catalog) remove(db, table string) error {
	doc, err := c.load()
	if err != nil {
		return err
	}
	delete(doc.Tables, catalogKey(db, table))
	return c.save(doc)
}

func (c *catalog) addDatabase(db string) error {
	doc, err := c.load()
	if err != nil {
		return err
	}
	for _, d := range doc.Databases {
		if strings.EqualFold(d, db) {
			return nil
		}
	}
	doc.Databases = append(doc.Databases, strings.ToLower(db))
	return c.save(doc)
}

// tables lists the tables of db, sorted by name.
func (c *catalog) tables(db string) ([]*catalogEntry, error) {
	doc, err := c.load()
	if err != nil {
		return nil, err
	}
	var out []*catalogEntry
	for _, e := range doc.Tables {
		if strings.EqualFold(e.Database, db) {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Table < out[j].Table })
	return out, nil
}
