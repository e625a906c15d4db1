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
	ev, ct := Rules{Mode: EventTimeOrdering}, Rules{Mode: CommitTimeOrdering}
	// Table version 6 (payload class, no merge mode): Java 0.14's log scanner.
	owl, def := Rules{Mode: CommitTimeOrdering, PayloadPreCombine: true}, Rules{Mode: EventTimeOrdering, PayloadPreCombine: true}
	five, seven := OrderingOf(int64(5)), OrderingOf(int64(7))
	intSeven, longZero := OrderingOf(int32(7)), OrderingOf(int64(0))
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
		{"1.x event: delete with greater ordering beats later data", ev.DeleteBeatsLaterData(seven, five), true},
		{"1.x commit: later data beats delete", ct.DeleteBeatsLaterData(seven, five), false},

		// Java 0.14 (PayloadPreCombine), each rule under both payloads.
		{"v6 owl: older log with greater ordering stays (preCombine)", owl.KeepOlderLog(seven, five), true},
		{"v6 default: older log with greater ordering stays", def.KeepOlderLog(seven, five), true},
		{"v6 owl: tie goes to newer log", owl.KeepOlderLog(five, five), false},
		{"v6 owl: late delete with smaller ordering ignored", owl.DeleteIgnored(seven, five), true},
		{"v6 default: late delete with smaller ordering ignored", def.DeleteIgnored(seven, five), true},
		{"v6 owl: delete with greater ordering applies", owl.DeleteIgnored(five, seven), false},
		{"v6 owl: delete with equal ordering applies", owl.DeleteIgnored(five, five), false},
		{"v6 owl: delete with Integer 0 applies", owl.DeleteIgnored(seven, OrderingOf(int32(0))), false},
		{"v6 owl: delete with Long 0 is a real ordering value", owl.DeleteIgnored(seven, longZero), true},
		{"v6 owl: Integer vs Long are different classes: delete applies", owl.DeleteIgnored(intSeven, five), false},
		{"v6 owl: string ordering compares", owl.DeleteIgnored(OrderingOf("b"), OrderingOf("a")), true},
		{"v6 owl: delete with greater ordering beats later data (preCombine)", owl.DeleteBeatsLaterData(seven, five), true},
		{"v6 default: delete with greater ordering beats later data", def.DeleteBeatsLaterData(seven, five), true},
		{"v6 owl: later data with greater ordering beats delete", owl.DeleteBeatsLaterData(five, seven), false},
		{"v6 owl: tie goes to later data", owl.DeleteBeatsLaterData(five, five), false},
		{"v6 owl: Integer 0 delete vs Long data (Java throws): data wins", owl.DeleteBeatsLaterData(OrderingOf(int32(0)), five), false},
		{"v6 owl: Integer 0 delete vs negative Integer data: delete stays", owl.DeleteBeatsLaterData(OrderingOf(int32(0)), OrderingOf(int32(-1))), true},
		{"v6 owl: log replaces base", owl.KeepBase(seven, five), false},
		{"v6 default: base with greater ordering stays", def.KeepBase(seven, five), true},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %v", tc.name, tc.got)
		}
	}
}

func TestRulesFor(t *testing.T) {
	tests := []struct {
		mode, payload string
		want          Rules
	}{
		{"", OverwriteWithLatestPayload, Rules{Mode: CommitTimeOrdering, PayloadPreCombine: true}},
		{"", DefaultPayload, Rules{Mode: EventTimeOrdering, PayloadPreCombine: true}},
		{"COMMIT_TIME_ORDERING", "", Rules{Mode: CommitTimeOrdering}},
		{"EVENT_TIME_ORDERING", DefaultPayload, Rules{Mode: EventTimeOrdering}},
	}
	for _, tc := range tests {
		got, err := RulesFor(tc.mode, tc.payload, true)
		if err != nil || got != tc.want {
			t.Errorf("RulesFor(%q, %q) = %+v, %v; want %+v", tc.mode, tc.payload, got, err, tc.want)
		}
	}
}
