package lock

import (
	"context"
	"sync"
	"time"
)

// inProcessLocks holds one lock per table path for the whole process. Java's
// InProcessLockProvider keeps the same static map (per base path, per JVM): the lock is
// by definition process-wide, so this one package-level registry is the feature, not
// hidden state. It never shrinks: one small entry per table path ever locked.
var inProcessLocks sync.Map // table root → chan struct{} (capacity 1: full = held)

// inProcess is Java's InProcessLockProvider: it serializes writers and table services of
// one table inside one process and protects nothing across processes.
type inProcess struct {
	key  string
	ch   chan struct{}
	mu   sync.Mutex
	held bool
}

func newInProcess(key string) *inProcess {
	ch, _ := inProcessLocks.LoadOrStore(key, make(chan struct{}, 1))
	return &inProcess{key: key, ch: ch.(chan struct{})}
}

func (p *inProcess) Name() string                      { return "in-process lock of " + p.key }
func (p *inProcess) Holder(ctx context.Context) string { return "" }

func (p *inProcess) TryLock(ctx context.Context, wait time.Duration) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held {
		return false, nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case p.ch <- struct{}{}:
		p.held = true
		return true, nil
	case <-t.C:
		return false, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

func (p *inProcess) Unlock(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held {
		<-p.ch
		p.held = false
	}
	return nil
}

func (p *inProcess) Close() error { return p.Unlock(context.Background()) }
