package storagetest

import (
	"context"
	"maps"
	"strings"
	"sync"

	"github.com/hudi-go/hudi/storage"
)

// ListCounter wraps a storage and counts its directory listings (List and ListNames) by
// directory, so that a test can tell a plan made from the metadata table (no listing of a
// data partition) from one made from listings.
type ListCounter struct {
	storage.Storage
	mu    sync.Mutex
	lists map[string]int
}

// NewListCounter counts the listings of st.
func NewListCounter(st storage.Storage) *ListCounter {
	return &ListCounter{Storage: st, lists: map[string]int{}}
}

// URI keeps the wrapped storage's scheme (storage.URIer) for the paths Java writes with one.
func (c *ListCounter) URI() string { return strings.TrimSuffix(storage.URI(c.Storage, ""), "/") }

func (c *ListCounter) List(ctx context.Context, dir string) ([]storage.FileInfo, error) {
	c.count(dir)
	return c.Storage.List(ctx, dir)
}

func (c *ListCounter) ListNames(ctx context.Context, dir string) ([]storage.FileInfo, error) {
	c.count(dir)
	return storage.ListNames(ctx, c.Storage, dir)
}

func (c *ListCounter) count(dir string) {
	c.mu.Lock()
	c.lists[dir]++
	c.mu.Unlock()
}

// Lists is a copy of the counts so far, by directory.
func (c *ListCounter) Lists() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.lists)
}

// Reset forgets the counts so far.
func (c *ListCounter) Reset() {
	c.mu.Lock()
	clear(c.lists)
	c.mu.Unlock()
}

// DataLists counts the listings of the table's root and data partitions: every directory
// outside .hoodie (and so outside the metadata table).
func (c *ListCounter) DataLists() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for dir, k := range c.lists {
		if !strings.HasPrefix(dir, ".hoodie") {
			n += k
		}
	}
	return n
}
