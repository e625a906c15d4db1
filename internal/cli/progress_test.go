package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hudi-go/hudi"
)

func TestWriteProgressOnStderr(t *testing.T) {
	dir := createTrips(t)
	in := writeInput(t,
		`{"ts":1,"uuid":"a","rider":"r1","fare":10.5,"city":"sf"}`,
		`{"ts":1,"uuid":"b","rider":"r2","fare":20.0,"city":"nyc"}`)
	out, stderr, code := run(t, "write", dir, "--input", in, "--progress", "always")
	if code != 0 {
		t.Fatalf("write: exit %d: %s", code, stderr)
	}
	// The input is read by the write (Table.WriteReader), which reports it as its input phase.
	for _, want := range []string{"input 2 rows", "index lookup", "write files 2/2", "commit", "table services clean"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	// A streamed bulk_insert reports the rows as it reads them and its files when done.
	bulk := writeInput(t, `{"ts":1,"uuid":"c","rider":"r3","fare":1.5,"city":"sf"}`, `{"ts":1,"uuid":"d","rider":"r4","fare":2.5,"city":"la"}`)
	if _, stderr, code := run(t, "write", dir, "--op", "bulk_insert", "--input", bulk, "--progress", "always"); code != 0 ||
		!strings.Contains(stderr, "input 2 rows") || !strings.Contains(stderr, "write files 2/2") || !strings.Contains(stderr, "commit") {
		t.Errorf("bulk_insert progress: exit %d, stderr:\n%s", code, stderr)
	}
	if strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "committed commit ") {
		t.Errorf("stdout should hold only the summary, got %q", out)
	}
	// A quick write in the default mode stays quiet.
	up := writeInput(t, `{"ts":2,"uuid":"a","rider":"r1","fare":99.0,"city":"sf"}`)
	began := time.Now()
	_, stderr, code = run(t, "write", dir, "--input", up)
	switch took := time.Since(began); {
	case code != 0:
		t.Fatalf("default progress: exit %d, stderr %q", code, stderr)
	case stderr != "" && took < progressAfter:
		t.Fatalf("default progress: a write of %v printed %q", took, stderr)
	case stderr != "":
		// On a loaded machine the write outlasted the quiet period, and the first line is due.
		t.Logf("the write took %v (over %v): progress printed %q", took, progressAfter, stderr)
	}
	if _, stderr, code := run(t, "write", dir, "--input", up, "--progress", "sometimes"); code != ExitUsage || !strings.Contains(stderr, "--progress") {
		t.Fatalf("bad --progress: exit %d, stderr %q", code, stderr)
	}
}

// The printer waits `after` before the first line and then prints at most one line per
// second within a phase, but always the first line of a new phase.
func TestProgressPrinterThrottles(t *testing.T) {
	var buf bytes.Buffer
	clock := time.Unix(0, 0)
	p, err := newProgressPrinter(&buf, "auto")
	if err != nil {
		t.Fatal(err)
	}
	p.now = func() time.Time { return clock }
	p.start = clock
	steps := []struct {
		at    time.Duration
		pr    hudi.WriteProgress
		print bool
	}{
		{0, hudi.WriteProgress{Phase: "input", Done: 10}, false},                            // before `after`
		{2500 * time.Millisecond, hudi.WriteProgress{Phase: "write files", Total: 4}, true}, // first line
		{2600 * time.Millisecond, hudi.WriteProgress{Phase: "write files", Done: 1, Total: 4}, false},
		{3600 * time.Millisecond, hudi.WriteProgress{Phase: "write files", Done: 2, Total: 4}, true},
		{3650 * time.Millisecond, hudi.WriteProgress{Phase: "write files", Done: 4, Total: 4}, true}, // finishes the phase
		{3700 * time.Millisecond, hudi.WriteProgress{Phase: "commit"}, true},                         // phase change
	}
	lines := 0
	for _, s := range steps {
		clock = time.Unix(0, 0).Add(s.at)
		p.report(s.pr)
		n := strings.Count(buf.String(), "\n")
		if printed := n > lines; printed != s.print {
			t.Errorf("at %v %+v: printed %v, want %v (output %q)", s.at, s.pr, printed, s.print, buf.String())
		}
		lines = n
	}
	if !strings.Contains(buf.String(), "   3.6s write files 2/4") {
		t.Errorf("output %q", buf.String())
	}
}
