package rrulego

import (
	"strings"
	"testing"
	"time"

	"github.com/teambition/rrule-go"

	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// rule is one benchmark rule: a recurrence JSON with its startTime.
type rule struct {
	name, start, rec string
}

// now is the moment every benchmark asks "what comes next?" around.
var now = time.Date(2024, 5, 1, 10, 5, 0, 0, time.UTC)

// rules are the seeds' example schedules (anchor 2024-05-01 08:00 UTC, as in
// the recurrence package's tests) plus far-past anchors.
var rules = []rule{
	{"row01_hours5", "2024-05-01T08:00:00Z", `{"frequency":"day","schedule":{"hours":[5]}}`},
	{"row03_0515_1715", "2024-05-01T08:00:00Z", `{"frequency":"day","schedule":{"minutes":[15],"hours":[5,17]}}`},
	{"row04_4times", "2024-05-01T08:00:00Z", `{"frequency":"day","schedule":{"minutes":[15,45],"hours":[5,17]}}`},
	{"row05_every15min", "2024-05-01T08:00:00Z", `{"frequency":"hour","schedule":{"minutes":[0,15,30,45]}}`},
	{"row06_everyHour", "2024-04-30T12:25:00Z", `{"frequency":"day","schedule":{"hours":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23]}}`},
	{"row08_15past", "2024-05-01T08:00:00Z", `{"frequency":"hour","schedule":{"minutes":[15]}}`},
	{"row10_MWF17", "2024-05-01T08:00:00Z", `{"frequency":"week","schedule":{"hours":[17],"weekDays":["monday","wednesday","friday"]}}`},
	{"row15_weekdays15min", "2024-05-01T08:00:00Z", `{"frequency":"week","schedule":{"minutes":[0,15,30,45],"hours":[9,10,11,12,13,14,15,16],"weekDays":["monday","tuesday","wednesday","thursday","friday"]}}`},
	{"row17_TueThu", "2024-05-01T08:00:00Z", `{"frequency":"week","schedule":{"weekDays":["tuesday","thursday"]}}`},
	{"row19_lastDay", "2024-05-01T08:00:00Z", `{"frequency":"month","schedule":{"minutes":[0],"hours":[6],"monthDays":[-1]}}`},
	{"row20_firstLastDay", "2024-05-01T08:00:00Z", `{"frequency":"month","schedule":{"minutes":[0],"hours":[6],"monthDays":[1,-1]}}`},
	{"row24_firstFriday", "2024-05-01T08:00:00Z", `{"frequency":"month","schedule":{"minutes":[0],"hours":[5],"monthlyOccurrences":[{"day":"friday","occurrence":1}]}}`},
	{"row26_thirdLastFriday", "2024-05-01T08:00:00Z", `{"frequency":"month","schedule":{"monthlyOccurrences":[{"day":"friday","occurrence":-3}]}}`},
	{"row27_firstLastFriday", "2024-05-01T08:00:00Z", `{"frequency":"month","schedule":{"minutes":[15],"hours":[5],"monthlyOccurrences":[{"day":"friday","occurrence":1},{"day":"friday","occurrence":-1}]}}`},
	{"row29_fifthFriday", "2024-05-01T08:00:00Z", `{"frequency":"month","schedule":{"monthlyOccurrences":[{"day":"friday","occurrence":5}]}}`},
	{"row31_thirdWed4x", "2024-05-01T08:00:00Z", `{"frequency":"month","schedule":{"minutes":[15,45],"hours":[5,17],"monthlyOccurrences":[{"day":"wednesday","occurrence":3}]}}`},
	{"farPast2010_minute7", "2010-01-01T00:03:00Z", `{"frequency":"minute","interval":7,"schedule":{"minutes":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59]}}`},
	{"farPast2010_monthLastFriday", "2010-01-01T06:00:00Z", `{"frequency":"month","schedule":{"monthlyOccurrences":[{"day":"friday","occurrence":-1}]}}`},
}

// weekdays maps Go weekdays to rrule-go's.
var weekdays = map[time.Weekday]rrule.Weekday{
	time.Monday: rrule.MO, time.Tuesday: rrule.TU, time.Wednesday: rrule.WE, time.Thursday: rrule.TH,
	time.Friday: rrule.FR, time.Saturday: rrule.SA, time.Sunday: rrule.SU,
}

// toRRule builds the rrule-go rule of SPEC §2's mapping for a parsed job.
func toRRule(tb testing.TB, job *jobdef.Job) *rrule.RRule {
	tb.Helper()
	rec := job.Recurrence
	opt := rrule.ROption{Dtstart: job.StartTime.Time, Interval: rec.Interval, Wkst: rrule.MO}
	opt.Freq = map[jobdef.Frequency]rrule.Frequency{jobdef.Minute: rrule.MINUTELY, jobdef.Hour: rrule.HOURLY,
		jobdef.Day: rrule.DAILY, jobdef.Week: rrule.WEEKLY, jobdef.Month: rrule.MONTHLY, jobdef.Year: rrule.YEARLY}[rec.Frequency]
	if s := rec.Schedule; s != nil {
		opt.Bysecond = []int{0}
		opt.Byminute, opt.Byhour, opt.Bymonthday, opt.Bymonth = s.Minutes, s.Hours, s.MonthDays, s.Months
		for _, d := range s.WeekDays {
			opt.Byweekday = append(opt.Byweekday, weekdays[d])
		}
		for _, o := range s.MonthlyOccurrences {
			wd := weekdays[o.Day]
			if o.Occurrence != 0 {
				wd = wd.Nth(o.Occurrence)
			}
			opt.Byweekday = append(opt.Byweekday, wd)
		}
	}
	r, err := rrule.NewRRule(opt)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// compile parses a rule and returns both engines' rules.
func compile(tb testing.TB, rl rule) (*recurrence.Rule, *rrule.RRule) {
	tb.Helper()
	job, err := jobdef.Parse([]byte(`{"action":{"type":"http","request":{"uri":"http://example.com/","method":"GET"}},"startTime":"` + rl.start + `","recurrence":` + rl.rec + `}`))
	if err != nil {
		tb.Fatal(err)
	}
	sk, err := recurrence.Compile(job, now)
	if err != nil {
		tb.Fatal(err)
	}
	return sk, toRRule(tb, job)
}

// TestSameAnswers checks that both engines agree on the next 30 occurrences
// of every rule, so the benchmark compares equal work.
func TestSameAnswers(t *testing.T) {
	for _, rl := range rules {
		sk, rr := compile(t, rl)
		a, b := now.Add(-time.Second), now.Add(-time.Second)
		n := 30
		if strings.HasPrefix(rl.name, "farPast") {
			n = 3 // rrule-go walks from the anchor on every call
		}
		for i := 0; i < n; i++ {
			var ok bool
			a, ok = sk.Next(a)
			b = rr.After(b, false)
			if !ok || !a.Equal(b) {
				t.Fatalf("%s #%d: sked %v, rrule-go %v", rl.name, i, a, b)
			}
		}
	}
}

// BenchmarkNext measures one Next call per op on both engines, walking
// forward from now and starting over every 64 steps.
func BenchmarkNext(b *testing.B) {
	for _, rl := range rules {
		sk, rr := compile(b, rl)
		b.Run("rule="+rl.name+"/impl=sked", func(b *testing.B) {
			t := now
			for i := 0; i < b.N; i++ {
				next, ok := sk.Next(t)
				if !ok || i%64 == 63 {
					next = now
				}
				t = next
			}
		})
		b.Run("rule="+rl.name+"/impl=rrulego", func(b *testing.B) {
			t := now
			for i := 0; i < b.N; i++ {
				next := rr.After(t, false)
				if next.IsZero() || i%64 == 63 {
					next = now
				}
				t = next
			}
		})
	}
}
