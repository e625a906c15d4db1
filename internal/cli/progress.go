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

func newProgressPrinter(w io.Writer, mode string) (*progressPrinter, error) {
	p := &progressPrinter{w: w, every: time.Second, now: time.Now}
	switch mode {
	case "auto":
		p.after = 2 * time.Second
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
