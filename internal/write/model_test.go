package write_test

// Model-based test of the copy-on-write writer: random (seeded) sequences of write
// operations are applied both to a table (through the hudi facade) and to an in-memory
// model of Hudi 0.14's semantics; after every commit the snapshot, the read-optimized
// view, every time travel and every incremental range read back from the table must equal
// the model's answer, and the commit's write stats must equal the model's counts.
//
// Merge-on-read configurations also compact (schedule + run) at random points: the model's
// base records then become the merged records (read-optimized == snapshot right after),
// records keep their commit times (no incremental range holds a compaction instant), and
// time travel to the compaction instant equals the snapshot there.
//
// Soak runs: HUDI_MODEL_SEED=<n> HUDI_MODEL_STEPS=<n> go test -run TestModel ./write/
//
// Model decisions (Hudi 0.14 semantics, COW, table version 6):
//   - upsert: pre-combine per key (per key and partition for non-global indexes): larger ts
//     wins, ties go to the later row. Against stored data OverwriteWithLatestAvroPayload
//     takes the incoming record; DefaultHoodieRecordPayload keeps the stored record when its
//     ts is strictly greater — for soft deletes (_hoodie_is_deleted=true) too, since the
//     payload compares before it looks at the delete flag. A kept record keeps its commit
//     time (Java's merge handle copies the old record when the incoming one is dropped).
//   - global indexes: a key is unique across partitions; an upsert with another partition
//     deletes the stored copy and inserts the new one (update.partition.path=true, Java's
//     default; the facade does not pass the setting yet, so false is not modelled). With
//     DefaultHoodieRecordPayload Java 0.14 first merges incoming and stored (HUDI-5968) and,
//     when the stored record wins (strictly greater ts), keeps it in its old partition
//     re-stamped with the new commit time (an update); a soft delete for another partition
//     goes to the stored record and is merged there like any soft delete.
//   - global indexes on partitioned merge-on-read tables (Java's merged lookup): the index
//     finds a key in base files, and then in the merged view of those file groups — a key
//     that moved is in the base file of its old group too, deleted by a log block, so the
//     model keeps one base copy per group (slot) and the read-optimized view shows every
//     copy until compaction. A key that no group's merged view holds is inserted anew; a
//     soft delete goes to the live copy's log; a record that loses to the live copy by ts
//     re-writes the live record to its log with the new commit time (also in the same
//     partition, unlike copy-on-write, where the merge handle keeps the stored record
//     untouched); a winning record in the same partition is a log update, in another
//     partition a delete-block entry in the old group plus a new base file. Deletes hit
//     the live copy only. Non-partitioned tables skip the merged lookup (HUDI-6355) and
//     behave like the non-global merge-on-read model.
//   - insert and bulk_insert use fresh keys only: Hudi's insert does not consult the index,
//     and with hoodie.merge.allow.duplicate.on.inserts=false an insert routed into a small
//     file that holds its key merges with it, while one routed to a new file group
//     duplicates it — which depends on file sizes, not on the model. That case has its own
//     deterministic test (TestInsertExistingKeyIntoSmallFile).
//   - a soft delete of a key not in the table is routed like an insert and counted in the
//     numDeletes of the handle it reaches (which writes nothing for it).
//   - delete: unconditional (EmptyHoodieRecordPayload); keys not in the table are ignored;
//     with a global index the key is deleted whatever partition the input names.
//   - insert_overwrite replaces the partitions present in the input, insert_overwrite_table
//     all, delete_partition the listed partitions (setting or input rows). Their batches
//     carry unique keys (pre-combine is off for inserts) and, for global indexes, no key
//     that lives in a partition that is not replaced.

import (
	"context"
	"fmt"
	"github.com/hudi-go/hudi/internal/testutil"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/hudi-go/hudi"
)

const (
	payloadOverwrite = "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"
	payloadDefault   = "org.apache.hudi.common.model.DefaultHoodieRecordPayload"
)

var modelCities = []string{"sf", "nyc", "la"}

// partitioning of a model table.
type partitioning int

const (
	nonPartitioned partitioning = iota
	plainPartitioned
	hivePartitioned
)

func (p partitioning) String() string {
	return [...]string{"nonpart", "plain", "hive"}[p]
}

type modelConfig struct {
	index     string
	payload   string
	part      partitioning
	smallOff  bool  // hoodie.parquet.small.file.limit=0
	gzip      bool  // the default codec (else snappy)
	maxFile   int64 // hoodie.parquet.max.file.size (0 = default)
	steps     int
	seed      uint64
	globalIdx bool
	mor       bool // merge-on-read table
	// virtual: hoodie.populate.meta.fields=false. The four key/commit meta columns read
	// back null, so rows are compared without them, and incremental queries (refused on
	// such tables, as in Java) are not checked.
	virtual bool
	// drop: hoodie.datasource.write.drop.partition.columns=true. Files lack the partition
	// column; the reader appends it as a string parsed from the partition path (Java's
	// TableSchemaResolver), which equals the model's city since city is a string.
	drop bool
	// settings are added to every write's (TestModelOnObjectStores: the metadata table's compaction
	// interval).
	settings map[string]string
	// recordIndex: hoodie.metadata.record.index.enable=true; every verification also
	// validates the metadata table (files and record_index against a listing and the
	// snapshot's keys).
	recordIndex bool
	// version is the table version created (0: the default, 6). Version 9 tables (timeline
	// layout 2) merge by the table's merge mode, EVENT_TIME_ORDERING with the precombine
	// field ts, which is DefaultHoodieRecordPayload's rule: they run with that payload only.
	// Their services include clustering and archival into the LSM timeline history.
	version int
}

func (c modelConfig) name() string {
	p := "owl"
	if c.payload == payloadDefault {
		p = "default"
	}
	idx := c.index
	if c.virtual {
		idx = "vk/" + idx
	}
	if c.drop {
		idx = "drop/" + idx
	}
	v := ""
	if c.version != 0 {
		v = fmt.Sprintf("v%d/", c.version)
	}
	if c.mor {
		return fmt.Sprintf("%smor/%s/%s/%s", v, idx, p, c.part)
	}
	return fmt.Sprintf("%s%s/%s/%s", v, idx, p, c.part)
}

// mrow is one record of the model.
type mrow struct {
	id, city string
	ts, val  int64
	deleted  bool   // input only: _hoodie_is_deleted
	commit   string // instant that last wrote it
}

type model struct {
	cfg  modelConfig
	rows map[string]mrow // by modelKey
	// Merge-on-read only: the record of each base copy of a key in its latest base file,
	// and the merge of that copy's log records since; rows is always merge(base, logs).
	// Base copies are keyed by modelKey, except that global indexes on partitioned tables
	// key each new copy by its own slot (a moved key has a copy in every group it passed
	// through until compaction).
	base map[string]mrow
	logs map[string]mlog
	slot int // last slot number handed out
	// broken records a model invariant the writes violated (two live copies of a key).
	broken string
}

// mlog is a key's log records merged the way the log scanner merges them.
type mlog struct {
	// deleteBlock: a DELETE_BLOCK entry — a hard delete (ordering value Integer 0) or a
	// soft delete (_hoodie_is_deleted=true, which Java's append handle turns into a delete
	// record carrying the row's ts, a Long: softTs).
	deleteBlock bool
	soft        bool
	softTs      int64
	row         mrow // else the winning data record
}

// morAppend adds one log record of key k; r == nil is a hard delete, r.deleted a soft
// delete. Java 0.14's merged log record scanner runs the payload's preCombine, which for
// both payloads (OverwriteWithLatestAvroPayload's, inherited by the default payload) keeps
// the earlier record when its ts is strictly greater — so among log records, unlike
// against the base file, OverwriteWithLatestAvroPayload orders by ts too. A delete is kept
// as an empty payload with its ordering value: a soft delete's Long ts compares with later
// records like a data record's; a hard delete's Integer 0 cannot be compared with a Long
// (Java would throw; the later record wins, see merge.Rules.DeleteBeatsLaterData) and is
// never ignored itself.
func (m *model) morAppend(k string, r *mrow) {
	if r == nil {
		m.logs[k] = mlog{deleteBlock: true}
		return
	}
	if e, ok := m.logs[k]; ok {
		switch {
		case !e.deleteBlock && e.row.ts > r.ts:
			return
		case e.deleteBlock && e.soft && e.softTs > r.ts:
			return
		}
	}
	if r.deleted {
		m.logs[k] = mlog{deleteBlock: true, soft: true, softTs: r.ts}
		return
	}
	m.logs[k] = mlog{row: *r}
}

// morMaterialize recomputes rows from base and logs: a log record replaces its base record
// unless, under event-time ordering, the base record's ts is strictly greater (the base
// record then stays with its old commit time, even when the key was deleted in between).
// Delete records — soft deletes included — delete the base record whatever its ts: the
// payloads return no record for an empty payload. This is where merge-on-read differs
// from copy-on-write, where DefaultHoodieRecordPayload keeps a stored record whose ts is
// greater than the soft delete's.
func (m *model) morMaterialize() {
	m.rows = map[string]mrow{}
	for bk := range m.base {
		r, live := m.mergedCopy(bk)
		if !live {
			continue
		}
		k := m.key(r.id, r.city)
		if old, dup := m.rows[k]; dup && m.broken == "" {
			m.broken = fmt.Sprintf("key %s is live in two base copies: %+v and %+v", k, old, r)
		}
		m.rows[k] = r
	}
}

// mergedCopy is the merged record of base copy bk, if its logs did not delete it.
func (m *model) mergedCopy(bk string) (mrow, bool) {
	b := m.base[bk]
	e, ok := m.logs[bk]
	switch {
	case !ok:
		return b, true
	case e.deleteBlock:
		return mrow{}, false
	case m.cfg.payload == payloadDefault && b.ts > e.row.ts:
		return b, true
	}
	return e.row, true
}

// globalMOR reports Java's merged lookup: a global index on a partitioned merge-on-read
// table (update.partition.path=true).
func (m *model) globalMOR() bool {
	return m.cfg.mor && m.cfg.globalIdx && m.cfg.part != nonPartitioned
}

// newBaseKey is the base-copy key of a record written to a new base file.
func (m *model) newBaseKey(r mrow) string {
	if !m.globalMOR() {
		return m.key(r.id, r.city)
	}
	m.slot++
	return fmt.Sprintf("%s\x00%s\x00%d", r.id, m.partition(r.city), m.slot)
}

// liveCopy returns the base copy of id whose merged view holds the key, with its merged
// record (global merge-on-read).
func (m *model) liveCopy(id string) (string, mrow, bool) {
	var keys []string
	for bk, b := range m.base {
		if b.id == id {
			keys = append(keys, bk)
		}
	}
	sort.Strings(keys)
	for _, bk := range keys {
		if r, live := m.mergedCopy(bk); live {
			return bk, r, true
		}
	}
	return "", mrow{}, false
}

func (m *model) partition(city string) string {
	switch m.cfg.part {
	case plainPartitioned:
		return city
	case hivePartitioned:
		return "city=" + city
	}
	return ""
}

// key identifies a record: the record key for global indexes, key and partition otherwise.
func (m *model) key(id, city string) string {
	if m.cfg.globalIdx {
		return id
	}
	return id + "\x00" + m.partition(city)
}

func (m *model) clone() map[string]mrow {
	out := make(map[string]mrow, len(m.rows))
	for k, v := range m.rows {
		out[k] = v
	}
	return out
}

func (m *model) canon(r mrow) string {
	if m.cfg.virtual {
		// scanRows' form of a row whose commit, key and partition meta columns are null.
		return fmt.Sprintf("-|-|-|id=%s|city=%s|ts=%d|val=%d|del=false", r.id, r.city, r.ts, r.val)
	}
	return fmt.Sprintf("%s|%s|%s|id=%s|city=%s|ts=%d|val=%d|del=false", r.commit, r.id, m.partition(r.city), r.id, r.city, r.ts, r.val)
}

func (m *model) canonAll(rows map[string]mrow, keep func(mrow) bool) []string {
	var out []string
	for _, r := range rows {
		if keep == nil || keep(r) {
			out = append(out, m.canon(r))
		}
	}
	sort.Strings(out)
	return out
}

type counts struct{ inserted, updated, deleted int64 }

// precombine reduces rows to one per model key: larger ts wins, ties go to the later row.
func (m *model) precombine(rows []mrow) []mrow {
	pos := map[string]int{}
	var out []mrow
	for _, r := range rows {
		k := m.key(r.id, r.city)
		if i, ok := pos[k]; ok {
			if out[i].ts > r.ts {
				continue
			}
			out[i] = r
			continue
		}
		pos[k] = len(out)
		out = append(out, r)
	}
	return out
}

func (m *model) upsert(rows []mrow, instant string) (counts, error) {
	var c counts
	if m.globalMOR() {
		for _, r := range m.precombine(rows) {
			r.commit = instant
			lk, live, found := m.liveCopy(r.id)
			switch {
			case !found:
				if !r.deleted {
					c.inserted++
					m.base[m.newBaseKey(r)] = r
				} else {
					c.deleted++ // routed as an insert; the create handle counts it
				}
			case r.deleted:
				c.deleted++
				m.morAppend(lk, &r)
			case m.cfg.payload == payloadDefault && live.ts > r.ts:
				// HUDI-5968: the stored record wins the merge and is written again.
				live.commit = instant
				c.updated++
				m.morAppend(lk, &live)
			case m.partition(live.city) == m.partition(r.city):
				c.updated++
				m.morAppend(lk, &r)
			default:
				c.deleted++
				c.inserted++
				m.morAppend(lk, nil)
				m.base[m.newBaseKey(r)] = r
			}
		}
		m.morMaterialize()
		return c, nil
	}
	if m.cfg.mor {
		// The index reads base files: a key there gets a log record (counted as an update
		// or delete whatever the merge decides), any other key a new base file.
		for _, r := range m.precombine(rows) {
			k := m.key(r.id, r.city)
			r.commit = instant
			if _, ok := m.base[k]; ok {
				if r.deleted {
					c.deleted++
				} else {
					c.updated++
				}
				m.morAppend(k, &r)
				continue
			}
			if !r.deleted {
				c.inserted++
				m.base[k] = r
			} else {
				c.deleted++ // routed as an insert; the create handle counts it
			}
		}
		m.morMaterialize()
		return c, nil
	}
	for _, r := range m.precombine(rows) {
		k := m.key(r.id, r.city)
		old, ok := m.rows[k]
		if ok && m.cfg.payload == payloadDefault && old.ts > r.ts {
			if m.cfg.globalIdx && !r.deleted && m.partition(old.city) != m.partition(r.city) {
				// HUDI-5968: a move that loses the merge leaves the stored record in its
				// partition, written again by this commit.
				old.commit = instant
				m.rows[k] = old
				c.updated++
			}
			continue // the stored record is newer by event time and stays as it is
		}
		switch {
		case r.deleted:
			// A soft delete of a key not stored is routed like an insert, and the handle
			// it reaches counts it in numDeletes (HoodieCreateHandle/HoodieMergeHandle).
			if ok {
				delete(m.rows, k)
			}
			c.deleted++
		case ok && m.partition(old.city) != m.partition(r.city):
			// global index, partition changed: delete there, insert here
			c.deleted++
			c.inserted++
			r.commit = instant
			m.rows[k] = r
		case ok:
			c.updated++
			r.commit = instant
			m.rows[k] = r
		default:
			c.inserted++
			r.commit = instant
			m.rows[k] = r
		}
	}
	return c, nil
}

func (m *model) insert(rows []mrow, instant string) (counts, error) {
	var c counts
	for _, r := range rows {
		k := m.key(r.id, r.city)
		if _, ok := m.rows[k]; ok {
			return c, fmt.Errorf("generator produced an insert of existing key %s", r.id)
		}
		r.commit = instant
		m.rows[k] = r
		if m.cfg.mor {
			m.base[m.newBaseKey(r)] = r
		}
		c.inserted++
	}
	return c, nil
}

func (m *model) deleteKeys(rows []mrow) counts {
	var c counts
	if m.globalMOR() {
		for _, r := range m.precombine(rows) {
			if lk, _, found := m.liveCopy(r.id); found {
				c.deleted++
				m.morAppend(lk, nil)
			}
		}
		m.morMaterialize()
		return c
	}
	if m.cfg.mor {
		for _, r := range m.precombine(rows) {
			k := m.key(r.id, r.city)
			if _, ok := m.base[k]; ok {
				c.deleted++
				m.morAppend(k, nil)
			}
		}
		m.morMaterialize()
		return c
	}
	for _, r := range m.precombine(rows) {
		k := m.key(r.id, r.city)
		if _, ok := m.rows[k]; ok {
			delete(m.rows, k)
			c.deleted++
		}
	}
	return c
}

func (m *model) dropPartitions(parts map[string]bool) {
	for k, r := range m.rows {
		if parts[m.partition(r.city)] {
			delete(m.rows, k)
		}
	}
	for k, r := range m.base {
		if parts[m.partition(r.city)] {
			delete(m.base, k)
			delete(m.logs, k)
		}
	}
}

// step is one generated operation.
type step struct {
	op       string
	rows     []mrow
	keysOnly bool // delete input: id and city columns only
	settings map[string]string
	// partitions the operation replaces (insert_overwrite, delete_partition); all for _table
	parts map[string]bool
}

type generator struct {
	r     *rand.Rand
	m     *model
	fresh int
}

func (g *generator) city() string { return modelCities[g.r.IntN(len(modelCities))] }
func (g *generator) poolKey() string {
	return fmt.Sprintf("k%03d", g.r.IntN(40))
}
func (g *generator) freshKey() string {
	g.fresh++
	return fmt.Sprintf("f%05d", g.fresh)
}
func (g *generator) batchSize() int { return 10 + g.r.IntN(191) }
func (g *generator) row(id, city string) mrow {
	return mrow{id: id, city: city, ts: int64(g.r.IntN(30)), val: g.r.Int64N(1_000_000)}
}

// genUpsert draws keys from a small pool, so updates, soft deletes and (global indexes)
// partition moves hit stored records often.
func (g *generator) genUpsert() step {
	n := g.batchSize()
	var rows []mrow
	for range n {
		r := g.row(g.poolKey(), g.city())
		r.deleted = g.r.IntN(10) == 0
		rows = append(rows, r)
	}
	return step{op: "upsert", rows: rows}
}

// genFresh makes rows with keys the table has never seen, unique in the batch.
func (g *generator) genFresh(op string) step {
	n := g.batchSize()
	var rows []mrow
	for range n {
		rows = append(rows, g.row(g.freshKey(), g.city()))
	}
	return step{op: op, rows: rows}
}

func (g *generator) genDelete() step {
	n := 10 + g.r.IntN(40)
	var rows []mrow
	for range n {
		id := g.poolKey()
		city := g.city()
		// Mostly name a stored record (its own partition), sometimes anything.
		if g.r.IntN(4) != 0 {
			for _, c := range modelCities { // deterministic: no map iteration
				if r, ok := g.m.rows[g.m.key(id, c)]; ok {
					city = r.city
					break
				}
			}
		}
		rows = append(rows, mrow{id: id, city: city})
	}
	return step{op: "delete", rows: rows, keysOnly: true}
}

// genOverwrite builds insert_overwrite(_table) input with unique keys; for global indexes
// no key may live in a partition that stays.
func (g *generator) genOverwrite(table bool) step {
	parts := map[string]bool{}
	var cities []string
	if table || g.m.cfg.part == nonPartitioned {
		cities = modelCities
	} else {
		cities = []string{g.city()}
		if g.r.IntN(2) == 0 {
			cities = append(cities, g.city())
		}
	}
	for _, c := range cities {
		parts[g.m.partition(c)] = true
	}
	live := map[string]bool{} // ids in partitions that stay
	if !table {
		for _, r := range g.m.rows {
			if !parts[g.m.partition(r.city)] {
				live[r.id] = true
			}
		}
	}
	seen := map[string]bool{}
	var rows []mrow
	n := g.batchSize()
	for range n {
		id := g.poolKey()
		if g.r.IntN(3) == 0 {
			id = g.freshKey()
		}
		city := cities[g.r.IntN(len(cities))]
		k := g.m.key(id, city)
		if seen[k] || (g.m.cfg.globalIdx && live[id]) {
			continue
		}
		seen[k] = true
		rows = append(rows, g.row(id, city))
	}
	op := "insert_overwrite"
	if table {
		op = "insert_overwrite_table"
		parts = nil
	}
	return step{op: op, rows: rows, parts: parts}
}

func (g *generator) genDeletePartition() step {
	city := g.city()
	p := g.m.partition(city)
	st := step{op: "delete_partition", parts: map[string]bool{p: true}}
	if g.m.cfg.part != nonPartitioned && g.r.IntN(2) == 0 {
		st.settings = map[string]string{"hoodie.datasource.write.partitions.to.delete": p}
		return st
	}
	for range 1 + g.r.IntN(5) {
		st.rows = append(st.rows, mrow{id: g.poolKey(), city: city})
	}
	st.keysOnly = true
	return st
}

func (g *generator) next(first bool) step {
	if first {
		if g.r.IntN(2) == 0 {
			return g.genUpsert()
		}
		return g.genFresh("insert")
	}
	switch x := g.r.IntN(100); {
	case x < 35:
		return g.genUpsert()
	case x < 47:
		return g.genFresh("insert")
	case x < 57:
		return g.genFresh("bulk_insert")
	case x < 72:
		return g.genDelete()
	case x < 83:
		return g.genOverwrite(false)
	case x < 89:
		return g.genOverwrite(true)
	default:
		return g.genDeletePartition()
	}
}

func envInt(t *testing.T, name string, def uint64) uint64 {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", name, v, err)
		}
		return n
	}
	return def
}

func TestModel(t *testing.T) {
	seed := envInt(t, "HUDI_MODEL_SEED", 20250614)
	steps := int(envInt(t, "HUDI_MODEL_STEPS", 0))
	t.Logf("HUDI_MODEL_SEED=%d", seed)
	indexes := []string{"SIMPLE", "BLOOM", "GLOBAL_SIMPLE", "GLOBAL_BLOOM", "INMEMORY", "mor/SIMPLE", "mor/BLOOM", "mor/INMEMORY",
		"mor/GLOBAL_SIMPLE", "mor/GLOBAL_BLOOM", "vk/SIMPLE", "vk/GLOBAL_SIMPLE", "mor/vk/SIMPLE",
		// The record index (metadata table's record_index), validated after every step.
		"RECORD_INDEX", "mor/RECORD_INDEX",
		"drop/SIMPLE", "drop/GLOBAL_BLOOM", "mor/drop/BLOOM", "mor/drop/GLOBAL_SIMPLE",
		// Table version 9 (Hudi 1.x, timeline layout 2), services included (newServices).
		"v9/SIMPLE", "v9/GLOBAL_BLOOM", "v9/mor/BLOOM"}
	n, configs := 0, 0
	for _, idx := range indexes {
		version := 0
		if strings.HasPrefix(idx, "v9/") {
			version, idx = 9, strings.TrimPrefix(idx, "v9/")
		}
		mor := strings.HasPrefix(idx, "mor/")
		idx = strings.TrimPrefix(idx, "mor/")
		virtual := strings.HasPrefix(idx, "vk/")
		idx = strings.TrimPrefix(idx, "vk/")
		drop := strings.HasPrefix(idx, "drop/")
		idx = strings.TrimPrefix(idx, "drop/")
		for _, payload := range []string{payloadOverwrite, payloadDefault} {
			if version == 9 && payload != payloadDefault {
				continue
			}
			// Partitioned (hive-style or not, alternating) and non-partitioned.
			parted := plainPartitioned
			if n%2 == 1 {
				parted = hivePartitioned
			}
			n++
			parts := []partitioning{parted, nonPartitioned}
			rli := idx == "RECORD_INDEX"
			if rli {
				parts = parts[:1] // CI cost: partitioned only (a non-partitioned table moves no key)
			}
			for _, part := range parts {
				c := modelConfig{index: idx, payload: payload, part: part,
					globalIdx: strings.HasPrefix(idx, "GLOBAL_") || rli, mor: mor, virtual: virtual, drop: drop, version: version}
				if rli {
					// The model moves keys across partitions (update.partition.path=true),
					// RECORD_INDEX's default is false.
					c.recordIndex = true
					c.settings = map[string]string{"hoodie.metadata.record.index.enable": "true", "hoodie.record.index.update.partition.path": "true"}
				}
				h := fnv.New64a()
				h.Write([]byte(c.name()))
				c.seed = seed ^ h.Sum64()
				r := rand.New(rand.NewPCG(c.seed, 1))
				c.steps = 8 + r.IntN(8)
				if testing.Short() || c.recordIndex {
					c.steps = 5 // the record index configurations validate the metadata table every step
				}
				if steps > 0 {
					c.steps = steps
				}
				c.smallOff = r.IntN(3) == 0 || c.mor
				c.gzip = r.IntN(4) == 0
				if r.IntN(3) == 0 {
					c.maxFile = 16<<10 + r.Int64N(32<<10) // several files per partition
				}
				sample := configs
				configs++
				t.Run(c.name(), func(t *testing.T) {
					testutil.RaceSample(t, sample)
					t.Parallel() // at most -parallel (GOMAXPROCS) configurations at once
					runModel(t, c, modelTable{path: t.TempDir()}, newServices(c))
				})
			}
		}
	}
}

// modelTable is where a model run's table lives: a local directory, or an object-store
// URL with the storage settings (fs.s3a.*) that reach it (TestModelOnObjectStores).
type modelTable struct {
	path     string
	settings map[string]string
	// latestOnly: after each step verify reads the snapshot, the read-optimized view and
	// the latest instant (time travel, incremental) only, and runModel reads every
	// instant once, at the end. On an object store the full check after every step is
	// quadratic in requests; the model still sees every step.
	latestOnly bool
}

func (mt modelTable) open(t *testing.T, ctx context.Context) *hudi.Table {
	t.Helper()
	tbl, err := hudi.Open(ctx, mt.path, hudi.WithSettings(mt.settings))
	if err != nil {
		t.Fatalf("open %s: %v", mt.path, err)
	}
	return tbl
}

// runModel creates the configuration's table at mt, runs its steps (svc: the table
// services among them, nil for none) comparing the table with the model after each, and
// returns the model and its history.
func runModel(t *testing.T, c modelConfig, mt modelTable, svc *services) (*model, *history) {
	ctx := context.Background()
	co := hudi.CreateOptions{Name: "model", RecordKeyFields: []string{"id"}, PrecombineField: "ts",
		Schema: "id STRING, city STRING, ts BIGINT, val BIGINT, _hoodie_is_deleted BOOLEAN"}
	co.Settings = map[string]string{}
	for k, v := range mt.settings {
		co.Settings[k] = v
	}
	co.TableVersion = c.version
	if c.mor {
		co.Type = "mor"
		// Readers merge logs with the table's payload class, not the writer's setting.
		co.Settings["hoodie.datasource.write.payload.class"] = c.payload
	}
	if c.virtual {
		co.Settings["hoodie.populate.meta.fields"] = "false"
	}
	if c.drop {
		co.Settings["hoodie.datasource.write.drop.partition.columns"] = "true"
	}
	if c.part != nonPartitioned {
		co.PartitionFields = []string{"city"}
		co.HiveStyle = c.part == hivePartitioned
	}
	if _, err := hudi.Create(ctx, mt.path, co); err != nil {
		t.Fatal(err)
	}
	t.Logf("config %+v", c)
	m := &model{cfg: c, rows: map[string]mrow{}, base: map[string]mrow{}, logs: map[string]mlog{}}
	g := &generator{r: rand.New(rand.NewPCG(c.seed, 2)), m: m}
	h := newHistory()
	crng := rand.New(rand.NewPCG(c.seed, 3)) // compaction points: the writes stay as without
	for i := 0; i < c.steps; i++ {
		st := g.next(i == 0)
		settings := map[string]string{"hoodie.index.type": c.index, "hoodie.datasource.write.payload.class": c.payload}
		// The model time-travels to every step, and a clean (10 commits retained) and
		// archival run after every write by default: retain them all (archival must keep
		// more instants than the cleaner retains).
		settings["hoodie.cleaner.commits.retained"] = "100"
		settings["hoodie.keep.min.commits"] = "110"
		settings["hoodie.keep.max.commits"] = "120"
		svc.apply(settings) // small retention and archival bounds when services run
		if c.smallOff {
			settings["hoodie.parquet.small.file.limit"] = "0"
		}
		if c.maxFile > 0 {
			settings["hoodie.parquet.max.file.size"] = strconv.FormatInt(c.maxFile, 10)
		}
		// A small dynamic bloom filter (it grows past 100 keys) keeps files at a few KB
		// instead of the default filter's ~430 KB: tiny max file sizes then give several
		// small files per partition that inserts are routed into, and the test runs fast.
		settings["hoodie.index.bloom.num_entries"] = "100"
		settings["hoodie.index.bloom.fpp"] = "0.001"
		if !c.gzip {
			settings["hoodie.parquet.compression.codec"] = "snappy" // gzip readers dominate the run time
		}

		for k, v := range c.settings {
			settings[k] = v
		}
		for k, v := range st.settings {
			settings[k] = v
		}
		tbl := mt.open(t, ctx)
		batch := buildBatch(st.rows, st.keysOnly)
		var batches []arrow.Record
		if batch != nil {
			batches = append(batches, batch)
		}
		desc := fmt.Sprintf("step %d: %s of %d rows (settings %v)", i+1, st.op, len(st.rows), st.settings)
		res, err := tbl.Write(ctx, batches, hudi.WriteOptions{Operation: st.op, Settings: settings})
		if batch != nil {
			batch.Release()
		}
		if err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
		inst := res.Instant
		if last := h.last(); inst <= last {
			t.Fatalf("%s: instant %s not after %s", desc, inst, last)
		}
		// Apply to the model.
		var want counts
		checkDeleted := true
		switch st.op {
		case "upsert":
			want, err = m.upsert(st.rows, inst)
		case "insert", "bulk_insert":
			want, err = m.insert(st.rows, inst)
		case "delete":
			want = m.deleteKeys(st.rows)
		case "insert_overwrite", "insert_overwrite_table", "delete_partition":
			if st.parts == nil {
				m.rows = map[string]mrow{}
				m.base, m.logs = map[string]mrow{}, map[string]mlog{}
			} else {
				m.dropPartitions(st.parts)
			}
			if st.op != "delete_partition" {
				want, err = m.insert(st.rows, inst)
			}
			checkDeleted = false // replaced rows are not counted as deletes
		}
		if err != nil {
			t.Fatalf("%s: model: %v", desc, err)
		}
		if m.broken != "" {
			t.Fatalf("%s: model: %s", desc, m.broken)
		}
		wantAction := "commit"
		if c.mor {
			wantAction = "deltacommit"
		}
		if strings.HasPrefix(st.op, "insert_overwrite") || st.op == "delete_partition" {
			wantAction = "replacecommit"
		}
		t.Logf("%s -> %s %s: +%d ~%d -%d (model +%d ~%d -%d), %d files (%d bytes), table has %d records",
			desc, res.Action, inst, res.Records.Inserted, res.Records.Updated, res.Records.Deleted,
			want.inserted, want.updated, want.deleted, res.FilesWritten, res.Bytes, len(m.rows))
		if res.Action != wantAction {
			t.Errorf("%s: action %s, want %s", desc, res.Action, wantAction)
		}
		if res.Records.Inserted != want.inserted || res.Records.Updated != want.updated || (checkDeleted && res.Records.Deleted != want.deleted) {
			t.Errorf("%s: write stats inserted/updated/deleted = %d/%d/%d, model says %d/%d/%d", desc,
				res.Records.Inserted, res.Records.Updated, res.Records.Deleted, want.inserted, want.updated, want.deleted)
		}
		h.push(m, inst)
		verify(t, ctx, mt, m, h, desc)
		if t.Failed() {
			t.FailNow() // later steps would only repeat the divergence
		}
		// Merge-on-read: compact at random points (a compaction takes one of the steps,
		// so the quadratic verification stays within the same instant count).
		// A scripted run (svc.script) compacts where its script says.
		if c.mor && i+1 < c.steps && !svc.scripted() && crng.IntN(10) < 3 {
			// Same Parquet/bloom settings as the writes: small files, fast reads.
			cs := map[string]string{}
			for _, k := range []string{"hoodie.parquet.max.file.size", "hoodie.index.bloom.num_entries",
				"hoodie.index.bloom.fpp", "hoodie.parquet.compression.codec"} {
				if v, ok := settings[k]; ok {
					cs[k] = v
				}
			}
			if inst := compact(t, ctx, mt, m, h, cs, fmt.Sprintf("step %d: compaction", i+2)); inst != "" {
				i++ // a no-op takes no step
				if last := h.last(); inst <= last {
					t.Fatalf("step %d: compaction instant %s not after %s", i+1, inst, last)
				}
				h.services[inst] = true
				h.push(m, inst)
				verify(t, ctx, mt, m, h, fmt.Sprintf("step %d: compaction %s", i+1, inst))
				if t.Failed() {
					t.FailNow()
				}
			}
		}
		// Table services at random points (a subset of configurations); each takes a step.
		if i+1 < c.steps && svc.due() {
			i++
			svc.run(t, ctx, mt, m, h, settings, fmt.Sprintf("step %d", i+1))
			if t.Failed() {
				t.FailNow()
			}
			if svc.scripted() && len(svc.script) == 0 {
				break // a scripted run ends with its script
			}
		}
	}
	if mt.latestOnly {
		full := mt
		full.latestOnly = false
		verify(t, ctx, full, m, h, "after the last step, every instant")
	}
	return m, h
}

// compact schedules and runs a compaction of every file group with log files and applies
// it to the model: each key's base record becomes its merged record (keys deleted by log
// records leave the base), the logs are gone, and records keep their commit times. It
// returns the compaction instant, or "" when there was nothing to compact (the model has
// no log records either).
func compact(t *testing.T, ctx context.Context, mt modelTable, m *model, h *history, settings map[string]string, desc string) string {
	t.Helper()
	tbl := mt.open(t, ctx)
	res, err := tbl.Compact(ctx, hudi.CompactOptions{Schedule: true, Run: true, Settings: settings})
	if err != nil {
		t.Fatalf("%s: %v", desc, err)
	}
	t.Logf("%s -> %s %s completed=%v scheduled=%q: %d files (%d bytes) %s, model has %d keys with log records",
		desc, res.Action, res.Instant, res.Completed, res.Scheduled, res.FilesWritten, res.Bytes, res.Message, len(m.logs))
	// A rolled-back deltacommit leaves its log files behind (with a rollback command block),
	// and the plan compacts every slice with log files: then a compaction may run although
	// no live log record is left.
	if res.Completed != (len(m.logs) > 0) && !(res.Completed && h.deadLogs) {
		t.Fatalf("%s: completed=%v, but the model has %d keys with log records", desc, res.Completed, len(m.logs))
	}
	if !res.Completed {
		return ""
	}
	if res.Action != "commit" || res.Scheduled != res.Instant {
		t.Errorf("%s: action %s instant %s (scheduled %s), want a commit of the scheduled instant", desc, res.Action, res.Instant, res.Scheduled)
	}
	m.base = m.clone()
	m.logs = map[string]mlog{}
	h.deadLogs = false
	return res.Instant
}

// verify reads the table every way and compares with the model.
//
// Retention: time travel (and incremental queries ending) before the earliest instant
// the last completed clean retains must fail with read.ErrCleaned naming that instant —
// never return partial data; the latest state is always readable. Instants rolled back
// or restored away are not in the timeline any more; an as-of time is a point in time, not
// an instant id (Java's time travel reads the latest commit at or before it), so time
// travel to such an instant's time returns the state of the last surviving instant before
// it. Archived instants time-travel like active ones: their files are there unless cleaned.
func verify(t *testing.T, ctx context.Context, mt modelTable, m *model, h *history, desc string) {
	t.Helper()
	tbl := mt.open(t, ctx)
	instants, states := h.instants, h.states
	last := len(instants) - 1
	compare(t, m, fmt.Sprintf("%s: snapshot", desc), scanRows(t, ctx, tbl, hudi.ScanOptions{}), m.canonAll(m.rows, nil))
	if m.cfg.recordIndex {
		v, err := tbl.MetadataValidate(ctx)
		if err != nil {
			t.Fatalf("%s: metadata validate: %v", desc, err)
		}
		// A restore drops the metadata table; until a write with the setting rebuilds it
		// the table has none, or one without record_index (docs/design/metadata-table.md).
		if !v.OK() || (v.RecordIndex && v.RecordIndexKeys != len(m.rows)) {
			t.Errorf("%s: the metadata table differs (%d record index keys, the model has %d rows):\n%s", desc, v.RecordIndexKeys, len(m.rows),
				strings.Join(v.Differences, "\n"))
		}
	}
	if m.cfg.mor {
		// Read-optimized = latest base files only: the model's base records. Every
		// snapshot key has a base record in its partition (inserts always create base
		// files).
		ro := scanRows(t, ctx, tbl, hudi.ScanOptions{ReadOptimized: true})
		compare(t, m, fmt.Sprintf("%s: read-optimized", desc), ro, m.canonAll(m.base, nil))
		inBase := map[string]bool{}
		for _, b := range m.base {
			inBase[m.key(b.id, b.city)+"\x00"+m.partition(b.city)] = true
		}
		for k, r := range m.rows {
			if !inBase[k+"\x00"+m.partition(r.city)] {
				t.Errorf("%s: snapshot key %q has no base record in partition %q", desc, k, m.partition(r.city))
			}
		}
		if len(m.logs) == 0 {
			compare(t, m, fmt.Sprintf("%s: read-optimized without log writes", desc), ro, m.canonAll(m.rows, nil))
		}
	} else {
		compare(t, m, fmt.Sprintf("%s: read-optimized", desc), scanRows(t, ctx, tbl, hudi.ScanOptions{ReadOptimized: true}), m.canonAll(m.rows, nil))
	}
	if active := tbl.Timeline().DataInstants(); last >= 0 && len(active) > 0 && string(active[0].Time) > instants[0] {
		t.Logf("%s: instants before %s are archived", desc, active[0].Time)
	}
	earliest := earliestRetained(t, ctx, tbl)
	if earliest != "" {
		desc = fmt.Sprintf("%s (earliest retained %s)", desc, earliest)
	}
	cleaned := func(asOf string) bool {
		// Before the first commit the table was empty: not partial, nothing to refuse.
		return earliest != "" && asOf < earliest && last >= 0 && asOf < instants[last] && asOf >= instants[0]
	}
	asOf := func(what, inst string, want map[string]mrow) {
		o := hudi.ScanOptions{AsOf: inst}
		if cleaned(inst) {
			wantCleaned(t, ctx, tbl, o, earliest, fmt.Sprintf("%s: %s %s", desc, what, inst))
			return
		}
		compare(t, m, fmt.Sprintf("%s: %s %s", desc, what, inst), scanRows(t, ctx, tbl, o), m.canonAll(want, nil))
	}
	for i, inst := range instants {
		if mt.latestOnly && i != last {
			continue
		}
		asOf(fmt.Sprintf("as of (#%d)", i+1), inst, states[i])
	}
	for _, g := range h.gone {
		if mt.latestOnly {
			break
		}
		asOf("as of rolled-back/restored", g, h.stateAt(g))
	}
	incr := func(b, e int) {
		begin := ""
		if b >= 0 {
			begin = instants[b]
		}
		end := instants[e]
		o := hudi.ScanOptions{Incremental: true, Begin: begin, End: end}
		if cleaned(end) {
			wantCleaned(t, ctx, tbl, o, earliest, fmt.Sprintf("%s: incremental (%s, %s]", desc, begin, end))
			return
		}
		got := scanRows(t, ctx, tbl, o)
		for _, r := range got {
			if ct, _, _ := strings.Cut(r, "|"); h.services[ct] {
				t.Errorf("%s: incremental (%s, %s]: row carries table service instant %s: %s", desc, begin, end, ct, r)
				break
			}
		}
		want := m.canonAll(states[e], func(r mrow) bool { return r.commit > begin && r.commit <= end })
		compare(t, m, fmt.Sprintf("%s: incremental (%s, %s]", desc, begin, end), got, want)
	}
	if last < 0 || m.cfg.virtual {
		return // incremental queries are refused without meta fields
	}
	if mt.latestOnly {
		incr(last-1, last)
		return
	}
	incr(-1, 0)
	for e := 1; e <= last; e++ {
		incr(e-1, e)
	}
	if last > 0 {
		incr(0, last)
	}
}

func compare(t *testing.T, m *model, what string, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	// Multiset difference, for a readable failure.
	cnt := map[string]int{}
	for _, s := range got {
		cnt[s]++
	}
	for _, s := range want {
		cnt[s]--
	}
	var extra, missing []string
	for s, n := range cnt {
		for ; n > 0; n-- {
			extra = append(extra, s)
		}
		for ; n < 0; n++ {
			missing = append(missing, s)
		}
	}
	sort.Strings(extra)
	sort.Strings(missing)
	const show = 8
	t.Errorf("%s: %d rows, model has %d\n  unexpected (%d): %s\n  missing (%d): %s", what, len(got), len(want),
		len(extra), strings.Join(extra[:min(show, len(extra))], "\n    "), len(missing), strings.Join(missing[:min(show, len(missing))], "\n    "))
}

var modelSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "ts", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "val", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "_hoodie_is_deleted", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
}, nil)

var keysSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

func buildBatch(rows []mrow, keysOnly bool) arrow.Record {
	if len(rows) == 0 {
		return nil
	}
	sc := modelSchema
	if keysOnly {
		sc = keysSchema
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.StringBuilder).Append(r.id)
		b.Field(1).(*array.StringBuilder).Append(r.city)
		if !keysOnly {
			b.Field(2).(*array.Int64Builder).Append(r.ts)
			b.Field(3).(*array.Int64Builder).Append(r.val)
			b.Field(4).(*array.BooleanBuilder).Append(r.deleted)
		}
	}
	return b.NewRecord()
}

// scanRows runs a query and returns its rows in the model's canonical form, checking the
// meta columns that canon does not carry.
func scanRows(t *testing.T, ctx context.Context, tbl *hudi.Table, o hudi.ScanOptions) []string {
	t.Helper()
	s, err := tbl.Scan(ctx, o)
	if err != nil {
		t.Fatalf("scan %+v: %v", o, err)
	}
	var out []string
	err = s.Run(ctx, func(rec arrow.Record) error {
		col := func(name string) arrow.Array {
			for i, f := range rec.Schema().Fields() {
				if f.Name == name {
					return rec.Column(i)
				}
			}
			t.Fatalf("scan %+v: no column %s in %s", o, name, rec.Schema())
			return nil
		}
		str := func(name string) *array.String { return col(name).(*array.String) }
		commit, seq, key, part, file := str("_hoodie_commit_time"), str("_hoodie_commit_seqno"), str("_hoodie_record_key"),
			str("_hoodie_partition_path"), str("_hoodie_file_name")
		id, city := str("id"), str("city")
		ts, val := col("ts").(*array.Int64), col("val").(*array.Int64)
		del := col("_hoodie_is_deleted").(*array.Boolean)
		for i := 0; i < int(rec.NumRows()); i++ {
			if commit.IsNull(i) {
				// Virtual keys: commit time, seqno, key and partition are null; base file
				// rows name their file, log rows nothing.
				if seq.IsValid(i) || key.IsValid(i) || part.IsValid(i) {
					t.Errorf("scan %+v: row id=%s: null commit time but seqno/key/partition %q/%q/%q", o, id.Value(i), seq.Value(i), key.Value(i), part.Value(i))
				}
				if fn := file.Value(i); file.IsValid(i) && (!strings.HasSuffix(fn, ".parquet") || strings.Contains(fn, "/")) {
					t.Errorf("scan %+v: row id=%s: file name %q", o, id.Value(i), fn)
				}
				out = append(out, fmt.Sprintf("-|-|-|id=%s|city=%s|ts=%d|val=%d|del=%v",
					id.Value(i), city.Value(i), ts.Value(i), val.Value(i), del.IsValid(i) && del.Value(i)))
				continue
			}
			if !strings.HasPrefix(seq.Value(i), commit.Value(i)+"_") {
				t.Errorf("scan %+v: record %s: seqno %q does not start with its commit time %s", o, key.Value(i), seq.Value(i), commit.Value(i))
			}
			fn := file.Value(i)
			if !strings.Contains(fn, ".") && !strings.Contains(fn, "/") && strings.HasSuffix(fn, "-0") {
				// a merge-on-read log record: _hoodie_file_name is the file id
			} else if !strings.HasSuffix(fn, ".parquet") || strings.Contains(fn, "/") {
				t.Errorf("scan %+v: record %s: file name %q", o, key.Value(i), fn)
			} else if fi := strings.LastIndex(fn, "_"); fi < 0 || fn[fi+1:len(fn)-len(".parquet")] < commit.Value(i) {
				t.Errorf("scan %+v: record %s committed at %s lives in older file %q", o, key.Value(i), commit.Value(i), fn)
			}
			out = append(out, fmt.Sprintf("%s|%s|%s|id=%s|city=%s|ts=%d|val=%d|del=%v", commit.Value(i), key.Value(i), part.Value(i),
				id.Value(i), city.Value(i), ts.Value(i), val.Value(i), del.IsValid(i) && del.Value(i)))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("scan %+v: %v", o, err)
	}
	sort.Strings(out)
	return out
}

// TestInsertExistingKeyIntoSmallFile pins the case the random model leaves out: an insert
// (no index lookup) of a key the table holds. With small-file handling the insert is
// routed into the existing small file through Java's merge handle, which with
// hoodie.merge.allow.duplicate.on.inserts=false (default) keys the new records by record
// key (HoodieMergeHandle.keyToNewRecords: a later duplicate replaces an earlier one) and
// merges a stored record with its incoming one through the payload, so no duplicate
// appears; with hoodie.parquet.small.file.limit=0 the insert goes to a new file group and
// the key exists twice.
func TestInsertExistingKeyIntoSmallFile(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		settings map[string]string
		// rows expected after the insert, as "id=val" with the instant index (0 = first
		// write, 1 = the insert) that wrote them
		want          []string
		ins, upd, del int64
	}{
		{"small-file", nil, []string{"k1=11@1", "k2=2@0", "f1=100@1", "f2=201@1"}, 2, 1, 0},
		{"small-file-default-payload", map[string]string{"hoodie.datasource.write.payload.class": payloadDefault},
			// k1's incoming ts 5 < stored 10: the stored record stays (old commit time)
			[]string{"k1=1@0", "k2=2@0", "f1=100@1", "f2=201@1"}, 2, 0, 0},
		{"no-small-files", map[string]string{"hoodie.parquet.small.file.limit": "0"},
			[]string{"k1=1@0", "k1=11@1", "k2=2@0", "f1=100@1", "f2=200@1", "f2=201@1"}, 4, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "ins", RecordKeyFields: []string{"id"}, PrecombineField: "ts",
				Schema: "id STRING, city STRING, ts BIGINT, val BIGINT, _hoodie_is_deleted BOOLEAN"}); err != nil {
				t.Fatal(err)
			}
			var instants []string
			write := func(op string, rows []mrow) *hudi.WriteResult {
				tbl, err := hudi.Open(ctx, dir)
				if err != nil {
					t.Fatal(err)
				}
				b := buildBatch(rows, false)
				defer b.Release()
				res, err := tbl.Write(ctx, []arrow.Record{b}, hudi.WriteOptions{Operation: op, Settings: c.settings})
				if err != nil {
					t.Fatal(err)
				}
				instants = append(instants, res.Instant)
				return res
			}
			write("upsert", []mrow{{id: "k1", city: "sf", ts: 10, val: 1}, {id: "k2", city: "sf", ts: 10, val: 2}})
			res := write("insert", []mrow{{id: "k1", city: "sf", ts: 5, val: 11}, {id: "f1", city: "sf", ts: 1, val: 100},
				{id: "f2", city: "sf", ts: 1, val: 200}, {id: "f2", city: "sf", ts: 1, val: 201}})
			tbl, err := hudi.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range scanRows(t, ctx, tbl, hudi.ScanOptions{}) {
				f := strings.Split(s, "|")
				at := slices.Index(instants, f[0])
				got = append(got, fmt.Sprintf("%s=%s@%d", strings.TrimPrefix(f[3], "id="), strings.TrimPrefix(f[6], "val="), at))
			}
			sort.Strings(got)
			want := slices.Clone(c.want)
			sort.Strings(want)
			if !slices.Equal(got, want) {
				t.Errorf("after the insert: %v, want %v", got, want)
			}
			if res.Records.Inserted != c.ins || res.Records.Updated != c.upd || res.Records.Deleted != c.del {
				t.Errorf("insert stats %d/%d/%d, want %d/%d/%d", res.Records.Inserted, res.Records.Updated, res.Records.Deleted, c.ins, c.upd, c.del)
			}
		})
	}
}

// TestInsertSplitIgnoresSmallCommits: Java sizes inserts (room left in small files, records
// per new file) by the average record size of the latest commit that wrote more than
// small.file.limit × hoodie.record.size.estimation.threshold bytes, else by
// hoodie.copyonwrite.record.size.estimate (1024). A small commit, whose bytes are mostly
// footer (the default bloom filter is ~430 KB), must not be used: it would make the average
// record tens of KB and scatter 200 inserts over many tiny files.
func TestInsertSplitIgnoresSmallCommits(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := hudi.Create(ctx, dir, hudi.CreateOptions{Name: "split", RecordKeyFields: []string{"id"}, PrecombineField: "ts",
		Schema: "id STRING, city STRING, ts BIGINT, val BIGINT, _hoodie_is_deleted BOOLEAN"}); err != nil {
		t.Fatal(err)
	}
	write := func(op string, prefix string, n int) *hudi.WriteResult {
		var rows []mrow
		for i := range n {
			rows = append(rows, mrow{id: fmt.Sprintf("%s%d", prefix, i), city: "sf", ts: 1, val: int64(i)})
		}
		tbl, err := hudi.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		b := buildBatch(rows, false)
		defer b.Release()
		res, err := tbl.Write(ctx, []arrow.Record{b}, hudi.WriteOptions{Operation: op,
			Settings: map[string]string{"hoodie.parquet.max.file.size": "1048576"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	write("bulk_insert", "b", 10)
	// 1 MiB − ~430 KB leaves room for ~600 records of 1 KiB in the small file.
	if res := write("insert", "i", 200); res.FilesWritten != 1 {
		t.Errorf("200 inserts after a small commit went to %d files, want 1 (the small file; record size estimate 1024 B)", res.FilesWritten)
	}
}
