package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hudi-go/hudi"
)

// progressPrinter turns a write's progress callbacks into lines on stderr. Short writes
// stay quiet: nothing is printed until the write has run for `after`, and then at most one
// line per `every` unless the phase changes, so a long write shows where it is without
// flooding a log; the line that finishes a counted phase is always shown. stdout keeps only the result, which scripts parse.
type progressPrinter struct {
	w            io.Writer
	after, every time.Duration
	now          func() time.Time

	mu        sync.Mutex
	start     time.Time
	last      time.Time
	lastPhase hudi.WriteProgress
	rows      int64
}

// progressAfter is how long an operation runs quietly in --progress auto before its first
// progress line: a quick command prints nothing on stderr.
const progressAfter = 2 * time.Second

func newProgressPrinter(w io.Writer, mode string) (*progressPrinter, error) {
	p := &progressPrinter{w: w, every: time.Second, now: time.Now}
	switch mode {
	case "auto":
		p.after = progressAfter
	case "always":
	case "never":
		return nil, nil
	default:
		return nil, usagef("--progress %q: want auto, always or never", mode)
	}
	p.start = p.now()
	return p, nil
}

func (p *progressPrinter) report(pr hudi.WriteProgress) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	phaseChanged := pr.Phase != p.lastPhase.Phase || pr.Detail != p.lastPhase.Detail
	if pr.Phase == "input" {
		p.rows = pr.Done
	}
	finished := pr.Total > 0 && pr.Done == pr.Total
	if now.Sub(p.start) < p.after || (!phaseChanged && !finished && now.Sub(p.last) < p.every) {
		return
	}
	p.last, p.lastPhase = now, pr
	line := fmt.Sprintf("hudi: %6.1fs %s", now.Sub(p.start).Seconds(), pr.Phase)
	if pr.Detail != "" {
		line += " " + pr.Detail
	}
	switch {
	case pr.Total > 0:
		line += fmt.Sprintf(" %d/%d", pr.Done, pr.Total)
	case pr.Done > 0:
		line += fmt.Sprintf(" %d rows", pr.Done)
	}
	fmt.Fprintln(p.w, line)
}

// activity prints "hudi: 12.0s <what>" on stderr while a long operation that reports no
// progress of its own runs (a query, a table service), so a user can tell it is alive:
// nothing in the first `after` (auto: 2 s), then a line per `every` (5 s). The returned
// stop ends it; when any line was printed, stop prints the final "done" line with the
// total time.
func startActivity(w io.Writer, mode, what string) (stop func()) {
	after, every := progressAfter, 5*time.Second
	switch mode {
	case "never":
		return func() {}
	case "always":
		after, every = 0, time.Second
	}
	start := time.Now()
	quit := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	printed := false
	wait := after
	if after == 0 {
		fmt.Fprintf(w, "hudi: %6.1fs %s\n", 0.0, what)
		printed, wait = true, every
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-quit:
				return
			case <-time.After(wait):
			}
			mu.Lock()
			fmt.Fprintf(w, "hudi: %6.1fs %s\n", time.Since(start).Seconds(), what)
			printed = true
			mu.Unlock()
			wait = every
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(quit)
			wg.Wait()
			if printed {
				fmt.Fprintf(w, "hudi: %6.1fs %s: done\n", time.Since(start).Seconds(), what)
			}
		})
	}
}

// checkProgressMode validates a --progress value.
func checkProgressMode(mode string) error {
	switch mode {
	case "auto", "always", "never":
		return nil
	}
	return usagef("--progress %q: want auto, always or never", mode)
}
