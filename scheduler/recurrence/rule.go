package recurrence

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"time"

	"sked/models/jobdef"
	"sked/models/problem"
)

// minWall and maxWall bound the wall seconds the calendar works with: years
// 0001 to 9999. Nothing is ever scheduled outside them.
var (
	minWall = daysFromCivil(1, 1, 1) * secondsPerDay
	maxWall = daysFromCivil(9999, 12, 31)*secondsPerDay + secondsPerDay - 1
)

// Rule is the compiled schedule of one job created (or enabled) at a given
// moment: the iCalendar rule of SPEC §2 plus the start-time table. It is
// immutable and safe for concurrent use.
type Rule struct {
	job     *jobdef.Job
	zone    zone
	created int64 // the creation moment, whole Unix seconds (sub-seconds dropped)

	once      bool  // one-time job: a single execution at onceAt
	triggered bool  // job with a trigger (SPEC §17.1): no occurrence of its own
	onceAt    int64 // Unix seconds
	runNow    bool  // recurrence with a schedule and no startTime: run at creation, then the schedule

	freq     jobdef.Frequency
	interval int64
	count    int
	hasUntil bool
	until    int64 // inclusive, Unix seconds

	anchor     int64 // DTSTART, Unix seconds
	anchorWall int64 // DTSTART on the zone's wall clock

	simple  bool  // no schedule
	elapsed bool  // second/minute/hour without schedule: anchor + k·step in elapsed time
	step    int64 // seconds, for elapsed rules

	// The calendar, with defaults from the anchor already applied.
	sec        int64
	hourMask   uint32       // bit h: hour h
	minMask    uint64       // bit m: minute m
	firstTOD   int64        // the first time of day, seconds
	weekMask   uint8        // bit i: the i-th day of a Monday-first week
	monthsMask uint16       // bit m: month m (1–12)
	dayTable   [4][7]uint32 // [days in month − 28][weekday of the 1st] → bit d: day d
	targets    []int64      // minute/hour rules with a schedule: residues (mod 1440 or 24) that match
	secDays    bool         // second rule whose days are limited (dayTable, monthsMask)
	never      bool         // no month the rule visits can ever hold a matching day

	// The calendars whose days the rule skips (SPEC §13.6), and how.
	cals       []*Calendar
	onExcluded jobdef.OnExcluded

	// The anchor's calendar position.
	aDay, aWeekStart, aMonthIdx, aYear, aHourIdx, aMinuteIdx int64
	aHour, aMinute, aSecond, aDayOfMonth, aMonth             int64
}

// ErrNoRecurrence is returned by functions that need a recurring job.
var ErrNoRecurrence = errors.New("the job has no recurrence")

// Compile builds the Rule of job as if it were created (or enabled) at
// created. The anchor (DTSTART) is the job's startTime, or created when there
// is none; sub-seconds are dropped from both. created must lie in the years
// 0001–9999. Jobs from jobdef.Parse always compile; an error means a Job
// built by hand with values Parse would have refused.
func Compile(job *jobdef.Job, created time.Time) (*Rule, error) {
	return CompileWith(job, created, Options{})
}

// Options are what a rule may need beyond its job.
type Options struct {
	// Calendars are the workspace's calendars; a job whose
	// recurrence.calendars names one that is not here does not compile
	// (a *problem.List naming recurrence.calendars.exclude[i]).
	Calendars Calendars
	// SpreadKey, when Keyed, is the stored job's id, the key of its
	// offsets in its recurrence.window (Spread): a preview then shows when
	// each occurrence is due. Unkeyed (a job not stored yet), a preview of
	// a job with a window shows the nominal times and says that each run
	// starts within the window.
	SpreadKey uint64
	Keyed     bool
}

// CompileWith is Compile for a job that may exclude calendars: their days
// are skipped, or the occurrences on them moved to the nearest day that is
// not excluded (recurrence.calendars.onExcluded).
func CompileWith(job *jobdef.Job, created time.Time, opts Options) (*Rule, error) {
	r, err := compile(job, created)
	if err != nil {
		return nil, err
	}
	if !job.ExcludesCalendars() {
		return r, nil
	}
	var ps []problem.Problem
	for i, name := range job.Recurrence.Calendars.Exclude {
		cal, ok := opts.Calendars[strings.ToLower(name)]
		if !ok {
			ps = append(ps, problem.Problem{Path: fmt.Sprintf("recurrence.calendars.exclude[%d]", i), Message: fmt.Sprintf("there is no calendar named %q in this workspace", name)})
			continue
		}
		r.cals = append(r.cals, cal)
	}
	if len(ps) > 0 {
		return nil, fmt.Errorf("compile rule: %w", &problem.List{Problems: ps})
	}
	r.onExcluded = job.Recurrence.Calendars.OnExcluded
	return r, nil
}

// compile builds the rule of a job without its calendars.
func compile(job *jobdef.Job, created time.Time) (*Rule, error) {
	if job == nil {
		return nil, errors.New("compile rule: nil job")
	}
	if y := created.Year(); y < 1 || y > 9999 {
		return nil, fmt.Errorf("compile rule: creation time %s is outside the years 0001–9999", created.Format(time.RFC3339))
	}
	r := &Rule{job: job, zone: newZone(job.Location()), created: created.Unix()}
	r.anchor = r.created
	r.anchorWall = r.zone.wall(r.created)
	if st := job.StartTime; st != nil {
		r.anchor = r.resolveDateTime(st)
		r.anchorWall = r.zone.wall(r.anchor)
		if !st.HasOffset {
			// A wall-clock startTime keeps its own wall time as the rule's
			// anchor, even when daylight saving moved its instant (02:30 on
			// a spring-forward day runs at 03:30, and 02:30 on later days).
			r.anchorWall = wallOf(st.Time)
		}
	}
	if job.Trigger != nil {
		r.triggered = true
		return r, nil
	}
	rec := job.Recurrence
	if rec == nil {
		r.once = true
		r.onceAt = r.created
		if job.StartTime != nil && r.anchor >= r.created {
			r.onceAt = r.anchor
		}
		return r, nil
	}
	if rec.Frequency.MaxInterval() == 0 {
		return nil, fmt.Errorf("compile rule: unknown frequency %q", rec.Frequency)
	}
	if rec.Interval < 1 || rec.Interval > rec.Frequency.MaxInterval() {
		return nil, fmt.Errorf("compile rule: interval %d out of range for frequency %q", rec.Interval, rec.Frequency)
	}
	r.freq, r.interval, r.count = rec.Frequency, int64(rec.Interval), rec.Count
	if rec.EndTime != nil {
		r.hasUntil, r.until = true, r.resolveDateTime(rec.EndTime)
	}
	sch := rec.Schedule
	if sch.IsEmpty() {
		sch = nil
	}
	r.simple = sch == nil
	r.runNow = !r.simple && job.StartTime == nil
	switch {
	case r.simple && r.freq == jobdef.Second:
		r.elapsed, r.step = true, r.interval
	case r.simple && r.freq == jobdef.Minute:
		r.elapsed, r.step = true, r.interval*60
	case r.simple && r.freq == jobdef.Hour:
		r.elapsed, r.step = true, r.interval*3600
	}
	if err := r.compileCalendar(sch); err != nil {
		return nil, fmt.Errorf("compile rule: %w", err)
	}
	return r, nil
}

// resolveDateTime returns the instant of a startTime or endTime: its own
// offset when it has one, otherwise its wall-clock time in the job's zone
// (a date alone is 00:00 of that day).
func (r *Rule) resolveDateTime(d *jobdef.DateTime) int64 {
	if d.HasOffset {
		return d.Time.Unix()
	}
	u, _ := r.zone.resolve(wallOf(d.Time))
	return u
}

// wallOf returns the wall seconds of t's own clock fields.
func wallOf(t time.Time) int64 {
	return daysFromCivil(int64(t.Year()), int64(t.Month()), int64(t.Day()))*secondsPerDay +
		int64(t.Hour()*3600+t.Minute()*60+t.Second())
}

// compileCalendar fills the calendar masks, applying the RRULE defaults from
// the anchor for elements the schedule does not give.
func (r *Rule) compileCalendar(sch *jobdef.Schedule) error {
	aw := r.anchorWall
	r.aDay = floorDiv(aw, secondsPerDay)
	sod := aw - r.aDay*secondsPerDay
	r.aHour, r.aMinute, r.aSecond = sod/3600, sod/60%60, sod%60
	y, m, d := civilFromDays(r.aDay)
	r.aYear, r.aMonth, r.aDayOfMonth = y, m, d
	r.aWeekStart = r.aDay - mondayIndex(r.aDay)
	r.aMonthIdx = y*12 + m - 1
	r.aHourIdx = floorDiv(aw, 3600)
	r.aMinuteIdx = floorDiv(aw, 60)

	var s jobdef.Schedule
	if sch != nil {
		s = *sch
	}
	if r.simple {
		r.sec = r.aSecond
	}
	// Minutes and hours: limits for minute/hour frequencies, expansions
	// (default: the anchor's) for the others.
	allMin, allHour := uint64(1)<<60-1, uint32(1)<<24-1
	r.minMask = 1 << r.aMinute
	r.hourMask = 1 << r.aHour
	switch r.freq {
	case jobdef.Second, jobdef.Minute:
		r.minMask, r.hourMask = allMin, allHour
	case jobdef.Hour:
		r.hourMask = allHour
	}
	if len(s.Minutes) > 0 {
		r.minMask = 0
		for _, v := range s.Minutes {
			if v < 0 || v > 59 {
				return fmt.Errorf("minute %d out of range", v)
			}
			r.minMask |= 1 << v
		}
	}
	if len(s.Hours) > 0 {
		r.hourMask = 0
		for _, v := range s.Hours {
			if v < 0 || v > 23 {
				return fmt.Errorf("hour %d out of range", v)
			}
			r.hourMask |= 1 << v
		}
	}
	r.firstTOD = int64(bits.TrailingZeros32(r.hourMask))*3600 + int64(bits.TrailingZeros64(r.minMask))*60 + r.sec

	r.weekMask = 1 << mondayIndex(r.aDay)
	if r.freq == jobdef.Second {
		r.weekMask = 1<<7 - 1 // SECONDLY: an element not given limits nothing
	}
	if len(s.WeekDays) > 0 {
		r.weekMask = 0
		for _, wd := range s.WeekDays {
			r.weekMask |= 1 << ((int(wd) + 6) % 7)
		}
	}
	r.monthsMask = 1 << r.aMonth // SPEC §2, first exception: months default to the anchor's
	if r.freq == jobdef.Second {
		r.monthsMask = 1<<13 - 2
	}
	if len(s.Months) > 0 {
		r.monthsMask = 0
		for _, v := range s.Months {
			if v < 1 || v > 12 {
				return fmt.Errorf("month %d out of range", v)
			}
			r.monthsMask |= 1 << v
		}
	}
	for dim := int64(28); dim <= 31; dim++ {
		for wd1 := int64(0); wd1 < 7; wd1++ {
			mask, err := r.dayMask(&s, dim, wd1)
			if err != nil {
				return err
			}
			if r.freq == jobdef.Second {
				mask = r.secondlyDays(&s, mask, dim, wd1)
			}
			r.dayTable[dim-28][wd1] = mask
		}
	}
	r.never = r.noMonthCanMatch()
	r.secDays = r.freq == jobdef.Second && r.dayLimited()
	switch r.freq {
	case jobdef.Minute:
		if !r.elapsed {
			for h := int64(0); h < 24; h++ {
				for mi := int64(0); mi < 60; mi++ {
					if r.hourMask&(1<<h) != 0 && r.minMask&(1<<mi) != 0 {
						r.targets = append(r.targets, h*60+mi)
					}
				}
			}
		}
	case jobdef.Hour:
		if !r.elapsed {
			for h := int64(0); h < 24; h++ {
				if r.hourMask&(1<<h) != 0 {
					r.targets = append(r.targets, h)
				}
			}
		}
	}
	return nil
}

// dayMask returns the days (bit d = day d) a month of dim days whose 1st is
// weekday wd1 (Sunday = 0) contributes: monthDays ∩ monthlyOccurrences, either
// alone, or the anchor's day of month by default (clamped to the month's last
// day for a simple recurrence: SPEC §2, second exception).
func (r *Rule) dayMask(s *jobdef.Schedule, dim, wd1 int64) (uint32, error) {
	var md, occ uint32
	for _, v := range s.MonthDays {
		n := int64(v)
		switch {
		case n >= 1 && n <= 31:
			if n <= dim {
				md |= 1 << n
			}
		case n <= -1 && n >= -31:
			if d := dim + 1 + n; d >= 1 {
				md |= 1 << d
			}
		default:
			return 0, fmt.Errorf("month day %d out of range", v)
		}
	}
	for _, o := range s.MonthlyOccurrences {
		if o.Day < time.Sunday || o.Day > time.Saturday || o.Occurrence < -5 || o.Occurrence > 5 {
			return 0, fmt.Errorf("monthly occurrence %v out of range", o)
		}
		first := 1 + floorMod(int64(o.Day)-wd1, 7)
		n := (dim-first)/7 + 1 // how many such weekdays the month has
		switch k := int64(o.Occurrence); {
		case k == 0:
			for i := int64(0); i < n; i++ {
				occ |= 1 << (first + 7*i)
			}
		case k > 0 && k <= n:
			occ |= 1 << (first + 7*(k-1))
		case k < 0 && -k <= n:
			occ |= 1 << (first + 7*(n+k))
		}
	}
	switch {
	case len(s.MonthDays) > 0 && len(s.MonthlyOccurrences) > 0:
		return md & occ, nil
	case len(s.MonthDays) > 0:
		return md, nil
	case len(s.MonthlyOccurrences) > 0:
		return occ, nil
	}
	d := r.aDayOfMonth
	if d > dim {
		if !r.simple {
			return 0, nil
		}
		d = dim
	}
	return 1 << d, nil
}

// secondlyDays returns, for frequency second, the days of a month of dim
// days whose 1st is weekday wd1 that may hold executions: those of
// monthDays and monthlyOccurrences (mask) when given, else every day, and
// of them the days of weekDays when given (SECONDLY's BYxxx limit, none
// defaults from the anchor).
func (r *Rule) secondlyDays(s *jobdef.Schedule, mask uint32, dim, wd1 int64) uint32 {
	if len(s.MonthDays) == 0 && len(s.MonthlyOccurrences) == 0 {
		mask = uint32(1)<<(dim+1) - 2
	}
	for d := int64(1); d <= dim; d++ {
		// weekday of day d (Sunday = 0) → its index in a Monday-first week
		if wd := (wd1 + d - 1) % 7; r.weekMask&(1<<((wd+6)%7)) == 0 {
			mask &^= 1 << d
		}
	}
	return mask
}

// dayLimited reports whether a second rule's days are limited (weekDays,
// monthDays, monthlyOccurrences or months).
func (r *Rule) dayLimited() bool {
	s := r.job.Recurrence.Schedule
	return s != nil && (len(s.WeekDays) > 0 || len(s.MonthDays) > 0 || len(s.MonthlyOccurrences) > 0 || len(s.Months) > 0)
}

// noMonthCanMatch reports, for month and year rules, whether every month of
// the year the rule visits has an empty day mask for all of its possible
// lengths and first weekdays (February 30, the 31st every 12 months from
// February …), so that such rules answer "no occurrence" at once.
func (r *Rule) noMonthCanMatch() bool {
	var visited uint16
	switch r.freq {
	case jobdef.Month:
		for k := int64(0); k < 12; k++ {
			visited |= 1 << (floorMod(r.aMonth-1+k*r.interval, 12) + 1)
		}
	case jobdef.Year, jobdef.Second:
		visited = r.monthsMask
	default:
		return false
	}
	for m := int64(1); m <= 12; m++ {
		if visited&(1<<m) == 0 {
			continue
		}
		lengths := []int64{31}
		switch m {
		case 2:
			lengths = []int64{28, 29}
		case 4, 6, 9, 11:
			lengths = []int64{30}
		}
		for _, dim := range lengths {
			for wd := 0; wd < 7; wd++ {
				if r.dayTable[dim-28][wd] != 0 {
					return false
				}
			}
		}
	}
	return true
}

// Job returns the job the rule was compiled from.
func (r *Rule) Job() *jobdef.Job { return r.job }

// Location returns the job's time zone (UTC by default).
func (r *Rule) Location() *time.Location { return r.zone.loc }

// Anchor returns DTSTART: the startTime, or the creation time when there is
// none, without sub-seconds, in the job's zone.
func (r *Rule) Anchor() time.Time { return time.Unix(r.anchor, 0).In(r.zone.loc) }

// Created returns the creation moment the rule was compiled for, without
// sub-seconds, in the job's zone.
func (r *Rule) Created() time.Time { return time.Unix(r.created, 0).In(r.zone.loc) }

// Count returns recurrence.count, 0 when unlimited. Next does not apply it:
// count depends on how many executions have run, which the engine knows.
func (r *Rule) Count() int { return r.count }

// Until returns the inclusive endTime as an instant and whether there is one.
func (r *Rule) Until() (time.Time, bool) {
	if !r.hasUntil {
		return time.Time{}, false
	}
	return time.Unix(r.until, 0).In(r.zone.loc), true
}

// Triggered reports whether the rule is a triggered job's (SPEC §17.1):
// it has no occurrence of its own (Next finds none), and a job without
// occurrences is not completed for that (plan.Decide).
func (r *Rule) Triggered() bool { return r.triggered }

// IsOnce reports whether the job is a one-time job (no recurrence).
func (r *Rule) IsOnce() bool { return r.once }
