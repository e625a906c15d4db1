// Package storagetest is the conformance suite every storage backend passes: the
// guarantees the layers above rely on (create-if-absent under races, atomic publish,
// Abort, ranged reads, listing, delete, errors that name the key, cancellation), run
// against the local backend and against real object-store servers.
package storagetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/hudi-go/hudi/storage"
)

// Options tune the suite to a backend.
type Options struct {
	// Racers is the number of writers racing to create one path (default 16).
	Racers int
	// LargeSize is the size of the large-file test, which crosses an object store's
	// multipart threshold when the backend's is set below it (default 6 MiB).
	LargeSize int
	// ListEntries is the size of the listing test's big folder (default 1100: past S3's
	// 1,000-key page). The listing code above the driver is shared (blobstore), so a
	// backend whose paging another backend's suite covers may list fewer, to save time.
	ListEntries int
}

// Run runs the suite. newStorage returns an empty storage (a fresh directory or bucket
// prefix) for each subtest.
func Run(t *testing.T, newStorage func(t *testing.T) storage.Storage, o Options) {
	if o.Racers == 0 {
		o.Racers = 16
	}
	if o.LargeSize == 0 {
		o.LargeSize = 6 << 20
	}
	if o.ListEntries == 0 {
		o.ListEntries = 1100
	}
	tests := []struct {
		name string
		fn   func(t *testing.T, st storage.Storage, o Options)
	}{
		{"CreateRead", testCreateRead},
		{"CreateIfAbsent", testCreateIfAbsent},
		{"OpenSized", testOpenSized},
		{"CreateRace", testCreateRace},
		{"Abort", testAbort},
		{"FailedWritePublishesNothing", testFailedWrite},
		{"RangedReads", testRangedReads},
		{"Large", testLarge},
		{"List", testList},
		{"ListNamesMatchesList", testListNames},
		{"MkdirAll", testMkdirAll},
		{"Delete", testDelete},
		{"DeleteTree", testDeleteTree},
		{"Put", testPut},
		{"ErrorsNameTheKey", testErrors},
		{"Cancelled", testCancelled},
		{"Conditional", testConditional},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, newStorage(t), o)
		})
	}
}

func create(t *testing.T, st storage.Storage, p string, body []byte) {
	t.Helper()
	if err := write(context.Background(), st, p, body); err != nil {
		t.Fatalf("create %s: %v", p, err)
	}
}

func write(ctx context.Context, st storage.Storage, p string, body []byte) error {
	w, err := st.Create(ctx, p)
	if err != nil {
		return err
	}
	if _, err := w.Write(body); err != nil {
		_ = w.Abort()
		return err
	}
	return w.Close()
}

func mustRead(t *testing.T, st storage.Storage, p string) []byte {
	t.Helper()
	b, err := st.ReadFile(context.Background(), p)
	if err != nil {
		t.Fatalf("read %s: %v", p, err)
	}
	return b
}

func names(infos []storage.FileInfo) string {
	var out []string
	for _, fi := range infos {
		n := fi.Name
		if fi.IsDir {
			n += "/"
		}
		out = append(out, n)
	}
	return strings.Join(out, " ")
}

func testCreateRead(t *testing.T, st storage.Storage, _ Options) {
	ctx := context.Background()
	create(t, st, "a/b/c.txt", []byte("hello"))
	if got := mustRead(t, st, "a/b/c.txt"); string(got) != "hello" {
		t.Fatalf("read %q", got)
	}
	fi, err := st.Stat(ctx, "a/b/c.txt")
	if err != nil || fi.Size != 5 || fi.IsDir || fi.Name != "c.txt" {
		t.Fatalf("stat = %+v, %v", fi, err)
	}
	if fi.ModTime.IsZero() {
		t.Errorf("stat: no modification time")
	}
	if fi, err := st.Stat(ctx, "a/b"); err != nil || !fi.IsDir {
		t.Fatalf("stat of the folder = %+v, %v", fi, err)
	}
	f, err := st.Open(ctx, "a/b/c.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() != 5 {
		t.Errorf("size = %d", f.Size())
	}
	// An empty file (markers are empty).
	create(t, st, "a/empty", nil)
	if got := mustRead(t, st, "a/empty"); len(got) != 0 {
		t.Fatalf("empty file read %q", got)
	}
	if fi, err := st.Stat(ctx, "a/empty"); err != nil || fi.Size != 0 {
		t.Fatalf("empty stat = %+v, %v", fi, err)
	}
}

// testOpenSized: storage.OpenSized reads what Open reads, and a missing file is
// ErrNotExist at the latest on the first read.
func testOpenSized(t *testing.T, st storage.Storage, _ Options) {
	ctx := context.Background()
	body := []byte("PAR1 some bytes PAR1")
	create(t, st, "p/f.parquet", body)
	f, err := storage.OpenSized(ctx, st, "p/f.parquet", int64(len(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4)
	if _, err := f.ReadAt(buf, int64(len(body)-4)); err != nil || string(buf) != "PAR1" || f.Size() != int64(len(body)) {
		t.Fatalf("ReadAt: %q, %v, size %d", buf, err, f.Size())
	}
	g, err := storage.OpenSized(ctx, st, "p/missing.parquet", 10)
	if err == nil {
		_, err = g.ReadAt(buf, 0)
		g.Close()
	}
	if !errors.Is(err, storage.ErrNotExist) || !strings.Contains(err.Error(), "missing.parquet") {
		t.Fatalf("missing file: want ErrNotExist naming it, got %v", err)
	}
}

func testCreateIfAbsent(t *testing.T, st storage.Storage, _ Options) {
	ctx := context.Background()
	create(t, st, ".hoodie/001.commit", []byte("first"))
	err := write(ctx, st, ".hoodie/001.commit", []byte("second"))
	if !errors.Is(err, storage.ErrExist) {
		t.Fatalf("second create: want ErrExist, got %v", err)
	}
	if !strings.Contains(err.Error(), "001.commit") {
		t.Errorf("error does not name the file: %v", err)
	}
	if got := mustRead(t, st, ".hoodie/001.commit"); string(got) != "first" {
		t.Fatalf("the first file was replaced: %q", got)
	}
}

// testCreateRace: of Racers writers creating one path at once, exactly one succeeds, the
// others fail with ErrExist, and the file holds the winner's bytes, whole.
func testCreateRace(t *testing.T, st storage.Storage, o Options) {
	ctx := context.Background()
	for round := 0; round < 3; round++ {
		p := fmt.Sprintf(".hoodie/%03d.commit", round)
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			winners []int
			start   = make(chan struct{})
		)
		errs := make([]error, o.Racers)
		for i := 0; i < o.Racers; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				body := bytes.Repeat([]byte{byte('a' + i%26)}, 1000+i)
				if err := write(ctx, st, p, body); err != nil {
					errs[i] = err
					return
				}
				mu.Lock()
				winners = append(winners, i)
				mu.Unlock()
			}(i)
		}
		close(start)
		wg.Wait()
		if len(winners) != 1 {
			t.Fatalf("round %d: %d writers created %s, want 1 (errors %v)", round, len(winners), p, errs)
		}
		for i, err := range errs {
			if i != winners[0] && !errors.Is(err, storage.ErrExist) {
				t.Errorf("round %d: writer %d: want ErrExist, got %v", round, i, err)
			}
		}
		w := winners[0]
		if got := mustRead(t, st, p); !bytes.Equal(got, bytes.Repeat([]byte{byte('a' + w%26)}, 1000+w)) {
			t.Fatalf("round %d: file holds %d bytes, not writer %d's", round, len(got), w)
		}
	}
}

func testAbort(t *testing.T, st storage.Storage, o Options) {
	ctx := context.Background()
	for _, size := range []int{0, 10, o.LargeSize} {
		p := fmt.Sprintf("p/aborted-%d.parquet", size)
		w, err := st.Create(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(make([]byte, size)); err != nil {
			t.Fatal(err)
		}
		if err := w.Abort(); err != nil {
			t.Fatalf("abort: %v", err)
		}
		if _, err := st.Stat(ctx, p); !errors.Is(err, storage.ErrNotExist) {
			t.Fatalf("size %d: aborted file exists: %v", size, err)
		}
		// Nothing half-made is listed, and the path can be created again.
		if list, err := st.List(ctx, "p"); err == nil && len(list) != 0 {
			t.Fatalf("size %d: after abort the folder lists %s", size, names(list))
		}
		create(t, st, p, []byte("x"))
		if err := st.Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
		if err := w.Abort(); err != nil {
			t.Errorf("second abort: %v", err)
		}
	}
	// Abort after Close keeps the file.
	w, err := st.Create(ctx, "p/kept")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "kept")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_ = w.Abort()
	if got := mustRead(t, st, "p/kept"); string(got) != "kept" {
		t.Fatalf("abort after close: %q", got)
	}
}

// testFailedWrite: a writer whose context is cancelled part way publishes nothing.
func testFailedWrite(t *testing.T, st storage.Storage, o Options) {
	ctx, cancel := context.WithCancel(context.Background())
	w, err := st.Create(ctx, "p/cancelled.log")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(make([]byte, 1000))
	cancel()
	_, _ = w.Write(make([]byte, 1000))
	if err := w.Close(); err == nil {
		// Local files do not watch the context once created: then the file is whole.
		if got := mustRead(t, st, "p/cancelled.log"); len(got) != 2000 {
			t.Fatalf("closed after cancel: %d bytes published", len(got))
		}
		return
	}
	if _, err := st.Stat(context.Background(), "p/cancelled.log"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("a write that failed published its file: %v", err)
	}
}

func testRangedReads(t *testing.T, st storage.Storage, _ Options) {
	body := make([]byte, 300_000)
	rand.New(rand.NewSource(1)).Read(body)
	create(t, st, "f.parquet", body)
	f, err := st.Open(context.Background(), "f.parquet")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() != int64(len(body)) {
		t.Fatalf("size %d", f.Size())
	}
	// Parquet's pattern: the tail, then the footer, then column chunks, then small reads.
	for _, r := range []struct{ off, n int }{
		{len(body) - 8, 8}, {len(body) - 4000, 3992}, {0, 4}, {100_000, 50_000}, {4, 100},
		{299_000, 1000}, {150_000, 1}, {0, len(body)}, {70_000, 200_000},
	} {
		buf := make([]byte, r.n)
		n, err := f.ReadAt(buf, int64(r.off))
		if err != nil && !(err == io.EOF && n == r.n) {
			t.Fatalf("ReadAt(%d, %d) = %d, %v", r.off, r.n, n, err)
		}
		if !bytes.Equal(buf[:n], body[r.off:r.off+r.n]) {
			t.Fatalf("ReadAt(%d, %d): wrong bytes", r.off, r.n)
		}
	}
	// Past the end: io.EOF with the bytes there are.
	buf := make([]byte, 100)
	n, err := f.ReadAt(buf, int64(len(body)-10))
	if n != 10 || err != io.EOF || !bytes.Equal(buf[:10], body[len(body)-10:]) {
		t.Fatalf("ReadAt over the end = %d, %v", n, err)
	}
	if n, err := f.ReadAt(buf, int64(len(body)+5)); n != 0 || err != io.EOF {
		t.Fatalf("ReadAt beyond the end = %d, %v", n, err)
	}
	// Concurrent ReadAt on one file (parallel column reads).
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				off := (g*7919 + i*15013) % (len(body) - 1000)
				b := make([]byte, 1000)
				if _, err := f.ReadAt(b, int64(off)); err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(b, body[off:off+1000]) {
					errs <- fmt.Errorf("concurrent ReadAt(%d): wrong bytes", off)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func testLarge(t *testing.T, st storage.Storage, o Options) {
	body := make([]byte, o.LargeSize)
	rand.New(rand.NewSource(2)).Read(body)
	ctx := context.Background()
	w, err := st.Create(ctx, "big/f.parquet")
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off < len(body); off += 100_000 { // many small writes, as encoders do
		end := min(off+100_000, len(body))
		if _, err := w.Write(body[off:end]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, st, "big/f.parquet"); !bytes.Equal(got, body) {
		t.Fatalf("large file: read %d bytes, differ", len(got))
	}
	// A large create-if-absent on an existing file fails and leaves it.
	if err := write(ctx, st, "big/f.parquet", body[:len(body)/2+1]); !errors.Is(err, storage.ErrExist) {
		t.Fatalf("large second create: want ErrExist, got %v", err)
	}
	if fi, err := st.Stat(ctx, "big/f.parquet"); err != nil || fi.Size != int64(len(body)) {
		t.Fatalf("after the failed second create: %+v, %v", fi, err)
	}
}

func testList(t *testing.T, st storage.Storage, o Options) {
	ctx := context.Background()
	for _, p := range []string{"t/.hoodie/1.commit", "t/.hoodie/2.commit", "t/.hoodie/archived/x", "t/a", "t/a.parquet",
		"t/p=1/f1", "t/p=1/sub/f2", "t/p=10/f", "t/p+2/f", "t/ü é/f"} {
		create(t, st, p, []byte(p))
	}
	list, err := st.List(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(list), ".hoodie/ a a.parquet p+2/ p=1/ p=10/ ü é/"; got != want {
		t.Fatalf("List(t) = %q, want %q (sorted by name, folders once)", got, want)
	}
	for _, fi := range list {
		if fi.Name == "a.parquet" && fi.Size != int64(len("t/a.parquet")) {
			t.Errorf("a.parquet size %d", fi.Size)
		}
		if !fi.IsDir && fi.ModTime.IsZero() {
			t.Errorf("%s: no modification time", fi.Name)
		}
	}
	list, err = st.List(ctx, "t/.hoodie")
	if err != nil || names(list) != "1.commit 2.commit archived/" {
		t.Fatalf("List(.hoodie) = %q, %v", names(list), err)
	}
	if _, err := st.List(ctx, "t/missing"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("missing folder: want ErrNotExist, got %v", err)
	}
	// A file is not a folder; a prefix of names is not one either.
	if list, err := st.List(ctx, "t/p="); err == nil && len(list) > 0 {
		t.Fatalf("List(t/p=) = %q: a name prefix listed as a folder", names(list))
	}
	// Many entries: listings page (S3 returns 1000 keys a page).
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < o.ListEntries; i += 8 {
				if err := write(ctx, st, fmt.Sprintf("many/f%04d", i), nil); err != nil {
					t.Error(err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	list, err = st.List(ctx, "many")
	last := fmt.Sprintf("f%04d", o.ListEntries-1)
	if err != nil || len(list) != o.ListEntries || list[0].Name != "f0000" || list[len(list)-1].Name != last {
		t.Fatalf("List(many): %d entries, %v", len(list), err)
	}
}

func testListNames(t *testing.T, st storage.Storage, _ Options) {
	ctx := context.Background()
	for _, p := range []string{"d/x.commit", "d/a.inflight", "d/sub/f", "d/.temp/m"} {
		create(t, st, p, []byte("x"))
	}
	full, err := st.List(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	nl, err := storage.ListNames(ctx, st, "d")
	if err != nil {
		t.Fatal(err)
	}
	if names(full) != names(nl) {
		t.Fatalf("ListNames %q, List %q", names(nl), names(full))
	}
	if _, err := storage.ListNames(ctx, st, "nope"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("missing folder: want ErrNotExist, got %v", err)
	}
}

// testMkdirAll: a folder made with MkdirAll exists (empty) until deleted, as Hadoop's
// S3A client keeps a directory marker.
func testMkdirAll(t *testing.T, st storage.Storage, _ Options) {
	ctx := context.Background()
	if err := st.MkdirAll(ctx, ".hoodie/archived"); err != nil {
		t.Fatal(err)
	}
	if err := st.MkdirAll(ctx, ".hoodie/archived"); err != nil {
		t.Fatalf("second MkdirAll: %v", err)
	}
	list, err := st.List(ctx, ".hoodie/archived")
	if err != nil || len(list) != 0 {
		t.Fatalf("List(new folder) = %q, %v", names(list), err)
	}
	if fi, err := st.Stat(ctx, ".hoodie/archived"); err != nil || !fi.IsDir {
		t.Fatalf("Stat(new folder) = %+v, %v", fi, err)
	}
	list, err = st.List(ctx, ".hoodie")
	if err != nil || names(list) != "archived/" {
		t.Fatalf("List(.hoodie) = %q, %v", names(list), err)
	}
	create(t, st, ".hoodie/archived/a", nil)
	list, err = st.List(ctx, ".hoodie/archived")
	if err != nil || names(list) != "a" {
		t.Fatalf("List after a file = %q, %v", names(list), err)
	}
	if err := st.Delete(ctx, ".hoodie/archived/a"); err != nil {
		t.Fatal(err)
	}
	if err := st.Delete(ctx, ".hoodie/archived"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Stat(ctx, ".hoodie/archived"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("deleted folder: %v", err)
	}
}

func testDelete(t *testing.T, st storage.Storage, _ Options) {
	ctx := context.Background()
	create(t, st, "p/f", []byte("x"))
	create(t, st, "p/g", []byte("y"))
	if err := st.Delete(ctx, "p/f"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ReadFile(ctx, "p/f"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("after delete: %v", err)
	}
	if err := st.Delete(ctx, "p/f"); err != nil {
		t.Fatalf("delete missing: %v", err)
	}
	if list, err := st.List(ctx, "p"); err != nil || names(list) != "g" {
		t.Fatalf("List after delete = %q, %v", names(list), err)
	}
	// The path can be created again.
	create(t, st, "p/f", []byte("again"))
	if got := mustRead(t, st, "p/f"); string(got) != "again" {
		t.Fatalf("recreated: %q", got)
	}
}

func testDeleteTree(t *testing.T, st storage.Storage, _ Options) {
	ctx := context.Background()
	for _, p := range []string{".hoodie/.temp/1/p1/a.marker.CREATE", ".hoodie/.temp/1/p2/b.marker.MERGE", ".hoodie/.temp/1/c.marker.CREATE", ".hoodie/.temp/2/x"} {
		create(t, st, p, nil)
	}
	if err := storage.DeleteTree(ctx, st, ".hoodie/.temp/1"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Stat(ctx, ".hoodie/.temp/1"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("after DeleteTree: %v", err)
	}
	if list, err := st.List(ctx, ".hoodie/.temp"); err != nil || names(list) != "2/" {
		t.Fatalf("sibling: %q, %v", names(list), err)
	}
	if err := storage.DeleteTree(ctx, st, "missing"); err != nil {
		t.Fatalf("DeleteTree(missing): %v", err)
	}
}

func testPut(t *testing.T, st storage.Storage, o Options) {
	ctx := context.Background()
	if err := st.Put(ctx, ".hoodie/.heartbeat/001", []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, ".hoodie/.heartbeat/001", []byte("two")); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, st, ".hoodie/.heartbeat/001"); string(got) != "two" {
		t.Fatalf("put: %q", got)
	}
	if list, err := st.List(ctx, ".hoodie/.heartbeat"); err != nil || names(list) != "001" {
		t.Fatalf("put left %q, %v", names(list), err)
	}
	// A file larger than an object store's part replaces one as a whole too.
	big := bytes.Repeat([]byte("0123456789abcdef"), o.LargeSize/16)
	for _, body := range [][]byte{big, big[:len(big)/2+3]} {
		if err := st.Put(ctx, "p/big.parquet", body); err != nil {
			t.Fatal(err)
		}
		if got := mustRead(t, st, "p/big.parquet"); !bytes.Equal(got, body) {
			t.Fatalf("large put: read %d bytes, want %d", len(got), len(body))
		}
	}
}

func testErrors(t *testing.T, st storage.Storage, _ Options) {
	ctx := context.Background()
	check := func(op string, err error) {
		t.Helper()
		if !errors.Is(err, storage.ErrNotExist) {
			t.Errorf("%s: want ErrNotExist, got %v", op, err)
		} else if !strings.Contains(err.Error(), "no/such.file") && !strings.Contains(err.Error(), "no/such") {
			t.Errorf("%s: error does not name the key: %v", op, err)
		}
	}
	_, err := st.Open(ctx, "no/such.file")
	check("Open", err)
	_, err = st.ReadFile(ctx, "no/such.file")
	check("ReadFile", err)
	_, err = st.Stat(ctx, "no/such.file")
	check("Stat", err)
	_, err = st.List(ctx, "no/such")
	check("List", err)
}

func testCancelled(t *testing.T, st storage.Storage, _ Options) {
	create(t, st, "f", []byte("x"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, op := range map[string]func() error{
		"Open":     func() error { _, err := st.Open(ctx, "f"); return err },
		"ReadFile": func() error { _, err := st.ReadFile(ctx, "f"); return err },
		"List":     func() error { _, err := st.List(ctx, ""); return err },
		"Create":   func() error { return write(ctx, st, "g", []byte("x")) },
		"Put":      func() error { return st.Put(ctx, "h", []byte("x")) },
	} {
		if err := op(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: want context.Canceled, got %v", name, err)
		}
	}
	if _, err := st.Stat(context.Background(), "g"); !errors.Is(err, storage.ErrNotExist) {
		t.Errorf("a create with a cancelled context published its file: %v", err)
	}
}

// testConditional: compare-and-swap on backends that have it.
func testConditional(t *testing.T, st storage.Storage, o Options) {
	cs, ok := st.(storage.ConditionalStorage)
	if !ok {
		t.Skip("the backend has no conditional writes")
	}
	ctx := context.Background()
	p := ".hoodie/.locks/table_lock.json"
	v1, err := cs.PutIfMatch(ctx, p, []byte("one"), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.PutIfMatch(ctx, p, []byte("again"), ""); !errors.Is(err, storage.ErrExist) && !errors.Is(err, storage.ErrPrecondition) {
		t.Fatalf("create-if-absent over a file: %v", err)
	}
	b, v, err := cs.ReadVersion(ctx, p)
	if err != nil || string(b) != "one" || v != v1 {
		t.Fatalf("ReadVersion = %q, %q, %v (want version %q)", b, v, err, v1)
	}
	v2, err := cs.PutIfMatch(ctx, p, []byte("two"), v1)
	if err != nil {
		t.Fatal(err)
	}
	if v2 == v1 {
		t.Fatalf("the version did not change")
	}
	if _, err := cs.PutIfMatch(ctx, p, []byte("stale"), v1); !errors.Is(err, storage.ErrPrecondition) {
		t.Fatalf("put on a stale version: want ErrPrecondition, got %v", err)
	}
	if got := mustRead(t, st, p); string(got) != "two" {
		t.Fatalf("after the stale put: %q", got)
	}
	if _, _, err := cs.ReadVersion(ctx, "no/lock"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("ReadVersion(missing): %v", err)
	}
	// Racing swaps from one version: exactly one wins.
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := 0; i < o.Racers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if _, err := cs.PutIfMatch(ctx, p, []byte(fmt.Sprint("racer", i)), v2); err == nil {
				mu.Lock()
				wins++
				mu.Unlock()
			} else if !errors.Is(err, storage.ErrPrecondition) {
				t.Errorf("racer %d: %v", i, err)
			}
		}(i)
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d racing swaps won, want 1", wins)
	}
	got := string(mustRead(t, st, p))
	if !strings.HasPrefix(got, "racer") {
		t.Fatalf("after the race: %q", got)
	}

	// A delete conditioned on a version read before another writer replaced the file
	// deletes nothing; on the current version it deletes the file; a missing file is no
	// error. (A lock released by a holder whose lock was taken over must survive.)
	_, cur, err := cs.ReadVersion(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, stale := range []storage.Version{v1, v2} {
		if err := cs.DeleteIfMatch(ctx, p, stale); !errors.Is(err, storage.ErrPrecondition) {
			t.Fatalf("delete on a stale version: want ErrPrecondition, got %v", err)
		}
	}
	if b := mustRead(t, st, p); string(b) != got {
		t.Fatalf("a delete on a stale version changed the file: %q", b)
	}
	if err := cs.DeleteIfMatch(ctx, p, cur); err != nil {
		t.Fatalf("delete on the current version: %v", err)
	}
	if _, err := st.Stat(ctx, p); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("after the delete on the current version: %v", err)
	}
	if err := cs.DeleteIfMatch(ctx, p, cur); err != nil {
		t.Fatalf("delete of a missing file: %v", err)
	}
}
