package commit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/storage"
)

// HeartbeatDir holds one file per running write; its modification time is the writer's
// last sign of life (Java's HoodieHeartbeatClient).
const HeartbeatDir = ".hoodie/.heartbeat"

// HeartbeatOptions are hoodie.client.heartbeat.interval_in_ms (60 s) and
// hoodie.client.heartbeat.tolerable.misses (2).
type HeartbeatOptions struct {
	Interval        time.Duration
	TolerableMisses int
}

func (o HeartbeatOptions) withDefaults() HeartbeatOptions {
	if o.Interval <= 0 {
		o.Interval = 60 * time.Second
	}
	if o.TolerableMisses <= 0 {
		o.TolerableMisses = 2
	}
	return o
}

// Expiry is how long a heartbeat may go unrefreshed before its writer counts as dead.
func (o HeartbeatOptions) Expiry() time.Duration {
	o = o.withDefaults()
	return o.Interval * time.Duration(o.TolerableMisses)
}

// HeartbeatPath is the heartbeat file of an instant.
func HeartbeatPath(instant spec.InstantTime) string {
	return storage.Join(HeartbeatDir, string(instant))
}

// Heartbeat keeps a write's heartbeat file fresh until stopped.
type Heartbeat struct {
	stop chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

// startHeartbeat writes the heartbeat file and refreshes it every interval.
func startHeartbeat(ctx context.Context, st storage.Storage, instant spec.InstantTime, o HeartbeatOptions) (*Heartbeat, error) {
	o = o.withDefaults()
	p := HeartbeatPath(instant)
	owner := currentOwner()
	beat := func() error {
		// Replace the file atomically: its modification time is the signal Java reads,
		// and it must never be missing while the writer lives, or another writer would
		// take the write for dead. The body names this process, so a writer on the same
		// host can tell at once that a killed writer is gone instead of waiting for the
		// heartbeat to expire (Java ignores the body).
		return st.Put(ctx, p, owner)
	}
	// The first beat creates the file and fails if it exists: another writer holds this
	// instant.
	if err := writeFile(ctx, st, p, owner); err != nil {
		return nil, fmt.Errorf("start heartbeat for %s: %w", instant, err)
	}
	h := &Heartbeat{stop: make(chan struct{})}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(o.Interval)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				_ = beat() // a missed beat is tolerated; several expire the writer
			}
		}
	}()
	return h, nil
}

// Stop ends the refreshing.
func (h *Heartbeat) Stop() {
	if h == nil {
		return
	}
	h.once.Do(func() { close(h.stop) })
	h.wg.Wait()
}

// HeartbeatAlive reports whether the writer of instant refreshed its heartbeat within the
// expiry and, when it ran on this host, whether its process still exists. A missing
// heartbeat file is not alive.
func HeartbeatAlive(ctx context.Context, st storage.Storage, instant spec.InstantTime, now time.Time, o HeartbeatOptions) (bool, error) {
	p := HeartbeatPath(instant)
	fi, err := st.Stat(ctx, p)
	if errors.Is(err, storage.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if now.Sub(fi.ModTime) > o.Expiry() {
		return false, nil
	}
	body, err := st.ReadFile(ctx, p)
	if err != nil {
		return true, nil // being rewritten: treat as alive
	}
	if host, pid, ok := parseOwner(body); ok && host == hostname() && !processExists(pid) {
		return false, nil
	}
	return true, nil
}

// currentOwner is the heartbeat body: "<host> <pid>".
func currentOwner() []byte {
	return []byte(fmt.Sprintf("%s %d\n", hostname(), os.Getpid()))
}

func parseOwner(b []byte) (host string, pid int, ok bool) {
	fields := strings.Fields(string(b))
	if len(fields) != 2 {
		return "", 0, false
	}
	n, err := strconv.Atoi(fields[1])
	if err != nil || n <= 0 {
		return "", 0, false
	}
	return fields[0], n, true
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown-host"
	}
	return h
}
