package merge

import "testing"

func TestModeFor(t *testing.T) {
	tests := []struct {
		mode, payload string
		ordering      bool
		want          Mode
	}{
		{"", OverwriteWithLatestPayload, true, CommitTimeOrdering},
		{"", DefaultPayload, true, EventTimeOrdering},
		{"EVENT_TIME_ORDERING", "", true, EventTimeOrdering},
		{"COMMIT_TIME_ORDERING", DefaultPayload, true, CommitTimeOrdering},
		{"", "", true, EventTimeOrdering},
		{"", "", false, CommitTimeOrdering},
	}
	for _, tc := range tests {
		got, err := ModeFor(tc.mode, tc.payload, tc.ordering)
		if err != nil || got != tc.want {
			t.Errorf("ModeFor(%q,%q,%v) = %v, %v; want %v", tc.mode, tc.payload, tc.ordering, got, err, tc.want)
		}
	}
	if _, err := ModeFor("BOGUS", "", false); err == nil {
		t.Error("unknown merge mode must fail")
	}
}

func TestRules(t *testing.T) {
	ev, ct := Rules{EventTimeOrdering}, Rules{CommitTimeOrdering}
	five, seven := OrderingOf(int64(5)), OrderingOf(int64(7))
	tests := []struct {
		name string
		got  bool
		want bool
	}{
		{"event: older log with greater ordering stays", ev.KeepOlderLog(seven, five), true},
		{"event: tie goes to newer", ev.KeepOlderLog(five, five), false},
		{"commit: newer always wins", ct.KeepOlderLog(seven, five), false},
		{"delete with default 0 applies", ev.DeleteIgnored(seven, OrderingOf(int32(0))), false},
		{"late delete with smaller ordering ignored", ev.DeleteIgnored(seven, five), true},
		{"delete with greater ordering applies", ev.DeleteIgnored(five, seven), false},
		{"commit mode: deletes always apply", ct.DeleteIgnored(seven, five), false},
		{"event: base with greater ordering stays", ev.KeepBase(seven, five), true},
		{"commit: log replaces base", ct.KeepBase(seven, five), false},
		{"int vs float compare numerically", ev.KeepBase(OrderingOf(float64(7.5)), OrderingOf(int32(7))), true},
		{"incomparable kinds: log wins", ev.KeepBase(OrderingOf("z"), OrderingOf(int64(1))), false},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %v", tc.name, tc.got)
		}
	}
}
