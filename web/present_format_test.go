package web

import (
	"testing"
	"time"

	"sked/models"
	"sked/models/jobdef"
)

func TestRelativeTime(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    time.Duration
		want string
	}{
		{"now", 0, "now"},
		{"under a second", 999 * time.Millisecond, "now"},
		{"seconds ahead", 42 * time.Second, "in 42 s"},
		{"seconds ago", -42 * time.Second, "42 s ago"},
		{"minutes", 4*time.Minute + 59*time.Second, "in 4 min"},
		{"hours ago", -2 * time.Hour, "2 h ago"},
		{"47 hours", 47 * time.Hour, "in 47 h"},
		{"days", -3 * 24 * time.Hour, "3 days ago"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RelativeTime(tc.d); got != tc.want {
				t.Errorf("RelativeTime(%v) = %q, want %q", tc.d, got, tc.want)
			}
		})
	}
}

func TestSpanText(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    time.Duration
		want string
	}{
		{"negative", -time.Second, "0 ms"},
		{"zero", 0, "0 ms"},
		{"milliseconds", 120 * time.Millisecond, "120 ms"},
		{"tenths", 1200 * time.Millisecond, "1.2 s"},
		{"seconds", 42 * time.Second, "42 s"},
		{"whole minutes", 2 * time.Minute, "2 min"},
		{"minutes and seconds", 2*time.Minute + 5*time.Second, "2 min 5 s"},
		{"hours and minutes", 3*time.Hour + 4*time.Minute, "3 h 4 min"},
		{"whole hours", 3 * time.Hour, "3 h"},
		{"days and hours", 51 * time.Hour, "2 days 3 h"},
		{"whole days", 72 * time.Hour, "3 days"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SpanText(tc.d); got != tc.want {
				t.Errorf("SpanText(%v) = %q, want %q", tc.d, got, tc.want)
			}
		})
	}
}

func TestLatenessText(t *testing.T) {
	ms := int64(90_000)
	for _, tc := range []struct {
		name string
		ms   *int64
		want string
	}{
		{"none", nil, "—"},
		{"ninety seconds", &ms, "1 min 30 s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := LatenessText(tc.ms); got != tc.want {
				t.Errorf("LatenessText = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"zero", FormatCount(int64(0)), "0"},
		{"hundreds", FormatCount(int64(999)), "999"},
		{"thousands", FormatCount(int64(12345)), "12,345"},
		{"millions", FormatCount(1234567), "1,234,567"},
		{"negative", FormatCount(int64(-1234)), "-1,234"},
		{"negative hundreds", FormatCount(-100), "-100"},
		{"plural one", Plural(1, "job", "jobs"), "1 job"},
		{"plural many", Plural(12000, "job", "jobs"), "12,000 jobs"},
		{"plural none", Plural(0, "job", "jobs"), "0 jobs"},
		{"runs", runsText(1, false), "1 run"},
		{"runs capped", runsText(10000, true), "10,000+ runs"},
		{"nouns", plural(2, "enabled job"), "2 enabled jobs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

func TestInstantIn(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no zone data:", err)
	}
	now := time.Date(2026, 12, 24, 12, 0, 0, 0, time.UTC)
	at := time.Date(2026, 12, 24, 14, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		loc  *time.Location
		want Instant
	}{
		{"UTC has no UTC alongside", time.UTC,
			Instant{ISO: "2026-12-24T14:30:00Z", Local: "Thu 24 Dec 2026 14:30:00 UTC", Relative: "in 2 h"}},
		{"nil is UTC", nil,
			Instant{ISO: "2026-12-24T14:30:00Z", Local: "Thu 24 Dec 2026 14:30:00 UTC", Relative: "in 2 h"}},
		{"a zone shows UTC alongside", berlin,
			Instant{ISO: "2026-12-24T15:30:00+01:00", Local: "Thu 24 Dec 2026 15:30:00 CET", UTC: "24 Dec 14:30:00 UTC", Relative: "in 2 h"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := InstantIn(at, tc.loc, now); got != tc.want {
				t.Errorf("InstantIn = %+v, want %+v", got, tc.want)
			}
		})
	}
	if got := InstantPtr(nil, berlin, now); !got.IsZero() {
		t.Errorf("InstantPtr(nil) = %+v, want the zero Instant", got)
	}
}

func TestBadges(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  BadgeView
		want BadgeView
	}{
		{"job enabled", jobStateBadge(jobdef.Enabled), BadgeView{"Enabled", ToneGood}},
		{"job disabled", jobStateBadge(jobdef.Disabled), BadgeView{"Disabled", ToneNeutral}},
		{"job completed", jobStateBadge(jobdef.Completed), BadgeView{"Completed", ToneDone}},
		{"job faulted", jobStateBadge(jobdef.Faulted), BadgeView{"Faulted", ToneBad}},
		{"job unknown", jobStateBadge("odd"), BadgeView{"odd", ToneNeutral}},
		{"collection enabled", collectionStateBadge(models.CollectionEnabled), BadgeView{"Enabled", ToneGood}},
		{"collection suspended", collectionStateBadge(models.CollectionSuspended), BadgeView{"Suspended", ToneWarning}},
		{"run completed", historyBadge(models.StatusCompleted), BadgeView{"Completed", ToneGood}},
		{"run failed", historyBadge(models.StatusFailed), BadgeView{"Failed", ToneBad}},
		{"run postponed", historyBadge(models.StatusPostponed), BadgeView{"Postponed", ToneWarning}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %+v, want %+v", tc.got, tc.want)
			}
		})
	}
}

func TestClassesOfMeanings(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
	}{
		{"good badge", badgeClass(ToneGood), "bg-emerald-100 text-emerald-800 ring-1 ring-inset ring-emerald-600/30"},
		{"bad badge", badgeClass(ToneBad), "bg-red-100 text-red-800 ring-1 ring-inset ring-red-600/30"},
		{"neutral badge", badgeClass(ToneNeutral), "bg-slate-100 text-slate-700 ring-1 ring-inset ring-slate-500/30"},
		{"failed fill", statusFill(models.StatusFailed), "fill-red-600"},
		{"unknown fill", statusFill("odd"), "fill-emerald-600"},
		{"postponed swatch", swatchClass(SeriesPostponed), "inline-block h-3 w-3 rotate-45 bg-amber-500"},
		{"lateness swatch", swatchClass(SeriesLateness), "inline-block h-3 w-1 bg-violet-500"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

func TestMessageSummary(t *testing.T) {
	long := ""
	for range 9 {
		long += "0123456789"
	}
	for _, tc := range []struct {
		name, got, want string
	}{
		{"empty", MessageSummary(""), ""},
		{"one line", MessageSummary("  Http request completed  "), "Http request completed"},
		{"more lines", MessageSummary("first\nsecond"), "first …"},
		{"long line", MessageSummary(long), long[:79] + "…"},
		{"runes", truncateRunes("äöüäöü", 4), "äöü…"},
		{"short enough", truncateRunes("äöü", 4), "äöü"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

func TestAccountTimeAtShowsTheTimeWithHowFarItIs(t *testing.T) {
	at := time.Date(2026, 11, 22, 18, 36, 0, 0, time.UTC)
	berlin, _ := time.LoadLocation("Europe/Berlin")
	for _, tc := range []struct {
		name     string
		t, now   time.Time
		text     string
		relative string
		full     string
	}{
		{"three hours ago", at, at.Add(3*time.Hour + 5*time.Minute), "Sun 22 Nov 2026 18:36:00 UTC", "3 h ago",
			"Sun 22 Nov 2026 18:36:00 UTC (3 h ago)"},
		{"in a future", at, at.Add(-4 * time.Minute), "Sun 22 Nov 2026 18:36:00 UTC", "in 4 min",
			"Sun 22 Nov 2026 18:36:00 UTC (in 4 min)"},
		{"this moment", at, at, "Sun 22 Nov 2026 18:36:00 UTC", "now", "Sun 22 Nov 2026 18:36:00 UTC (now)"},
		{"days ago", at, at.Add(75 * time.Hour), "Sun 22 Nov 2026 18:36:00 UTC", "3 days ago",
			"Sun 22 Nov 2026 18:36:00 UTC (3 days ago)"},
		{"another zone is shown in UTC", at.In(berlin), at.Add(time.Minute), "Sun 22 Nov 2026 18:36:00 UTC", "1 min ago",
			"Sun 22 Nov 2026 18:36:00 UTC (1 min ago)"},
	} {
		got := AccountTimeAt(tc.t, tc.now)
		if got.Text != tc.text || got.Relative != tc.relative || got.Full != tc.full || got.ISO != "2026-11-22T18:36:00Z" {
			t.Errorf("%s: AccountTimeAt = %+v, want %q, %q, %q", tc.name, got, tc.text, tc.relative, tc.full)
		}
	}
	if got := TimeBeside("Sun 22 Nov 2026 19:36:00 +01:00", at, at.Add(-2*time.Hour)); got != "Sun 22 Nov 2026 19:36:00 +01:00 (in 2 h)" {
		t.Errorf("TimeBeside = %q", got)
	}
}

func TestLimitWaitText(t *testing.T) {
	zero, wait := int64(0), int64(3_200)
	for _, tc := range []struct {
		name string
		ms   *int64
		want string
	}{
		{"no limit", nil, ""},
		{"held, no wait", &zero, ""},
		{"waited", &wait, "waited 3.2 s for the target limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := LimitWaitText(tc.ms); got != tc.want {
				t.Errorf("LimitWaitText = %q, want %q", got, tc.want)
			}
		})
	}
}
