package recurrence

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/robfig/cron/v3"

	"sked/models/jobdef"
)

var (
	cronCases = flag.Int("cron.cases", 2000, "random cron lines compared with robfig/cron in TestCronMatchesRobfig")
	cronSeed  = flag.Uint64("cron.seed", 17, "seed of TestCronMatchesRobfig")
)

// TestCronMatchesRobfig checks SPEC §13.7's "exactly": for random crontab
// lines (every field form robfig/cron knows: *, ?, values, names, lists,
// ranges and steps; no L or #), the recurrence that recurrence.cron converts
// to runs at exactly the next 50 instants robfig's Schedule.Next gives, in
// UTC, from a random "now". Lines whose day-of-month and day-of-week are both
// restricted must be refused (cron's OR), and so must lines that never run.
func TestCronMatchesRobfig(t *testing.T) {
	rng := rand.New(rand.NewPCG(*cronSeed, 0))
	var compared, refusedOR, refusedNever int
	for i := 0; i < *cronCases; i++ {
		line := randomCronLine(rng)
		sched, rerr := cron.ParseStandard(line)
		if rerr != nil {
			t.Fatalf("%q: robfig refuses the generated line: %v", line, rerr)
		}
		job, err := jobdef.Parse([]byte(jobJSON("2000-01-01T00:00:00Z", `{"cron":"`+line+`"}`)))
		f := strings.Fields(line)
		domStar := f[2] == "*" || f[2] == "?" || f[2] == "*/1"
		dowStar := f[4] == "*" || f[4] == "?" || f[4] == "*/1"
		now := time.Date(2001+rng.IntN(38), time.Month(1+rng.IntN(12)), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60), 0, time.UTC)
		if !domStar && !dowStar {
			if err == nil || !strings.Contains(err.Error(), "day-of-month OR day-of-week") {
				t.Fatalf("%q: want the OR refusal, got %v", line, err)
			}
			refusedOR++
			continue
		}
		if err != nil {
			if strings.Contains(err.Error(), "never runs") && sched.Next(now).IsZero() {
				refusedNever++
				continue
			}
			t.Fatalf("%q: refused: %v", line, err)
		}
		got, err := Occurrences(job, now, 50)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		var want []time.Time
		for at := sched.Next(now.Add(-time.Second)); !at.IsZero() && len(want) < 50; at = sched.Next(at) {
			want = append(want, at)
		}
		// robfig gives up after five years without a match (Feb 29 on a
		// given weekday, or 2096 → 2104): compare up to there.
		if len(want) < 50 && len(got) > len(want) && (len(want) == 0 || got[len(want)].Sub(want[len(want)-1]) > 5*365*24*time.Hour) {
			got = got[:len(want)]
		}
		if len(got) != len(want) {
			t.Fatalf("%q from %s: %d occurrences, robfig %d\n got %v\nwant %v", line, now.Format(time.RFC3339), len(got), len(want), formatAll(got), formatAll(want))
		}
		for k := range want {
			if !got[k].Equal(want[k]) {
				t.Fatalf("%q from %s: occurrence %d is %s, robfig %s", line, now.Format(time.RFC3339), k, got[k].UTC().Format(time.RFC3339), want[k].UTC().Format(time.RFC3339))
			}
		}
		compared++
	}
	t.Logf("%d lines compared over 50 instants each, %d refused for cron's OR, %d refused as never running", compared, refusedOR, refusedNever)
	if compared < *cronCases/2 {
		t.Fatalf("only %d of %d lines compared: the generator restricts both day fields too often", compared, *cronCases)
	}
}

// randomCronLine draws a five-field line in robfig/cron's standard grammar.
// Day-of-month and day-of-week are both restricted about one time in six.
func randomCronLine(rng *rand.Rand) string {
	months := []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}
	days := []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}
	dom, dow := "*", "*"
	switch rng.IntN(6) {
	case 0, 1:
		dom = randomCronField(rng, 1, 31, nil)
	case 2, 3:
		dow = randomCronField(rng, 0, 6, days)
	case 4:
		dom, dow = randomCronField(rng, 1, 31, nil), randomCronField(rng, 0, 6, days)
	}
	if rng.IntN(8) == 0 {
		if rng.IntN(2) == 0 && dom == "*" {
			dom = "?"
		} else if dow == "*" {
			dow = "?"
		}
	}
	month := "*"
	if rng.IntN(3) == 0 {
		month = randomCronField(rng, 1, 12, months)
	}
	return strings.Join([]string{randomCronField(rng, 0, 59, nil), randomCronField(rng, 0, 23, nil), dom, month, dow}, " ")
}

// randomCronField draws one field in lo..hi: *, */n, a value, a name, a
// range, a stepped range, a/n, or a list of those.
func randomCronField(rng *rand.Rand, lo, hi int, names []string) string {
	val := func() string {
		v := lo + rng.IntN(hi-lo+1)
		if names != nil && rng.IntN(3) == 0 {
			return []string{strings.ToLower(names[v-lo]), names[v-lo], strings.ToUpper(names[v-lo][:1]) + strings.ToLower(names[v-lo][1:])}[rng.IntN(3)]
		}
		return strconv.Itoa(v)
	}
	item := func() string {
		switch rng.IntN(6) {
		case 0:
			return fmt.Sprintf("*/%d", 1+rng.IntN(hi-lo+1))
		case 1, 2:
			return val()
		case 3:
			a := lo + rng.IntN(hi-lo+1)
			b := a + rng.IntN(hi-a+1)
			return fmt.Sprintf("%d-%d", a, b)
		case 4:
			a := lo + rng.IntN(hi-lo+1)
			b := a + rng.IntN(hi-a+1)
			return fmt.Sprintf("%d-%d/%d", a, b, 1+rng.IntN(hi-lo+1))
		default:
			return fmt.Sprintf("%d/%d", lo+rng.IntN(hi-lo+1), 1+rng.IntN(hi-lo+1))
		}
	}
	switch rng.IntN(8) {
	case 0:
		return "*"
	case 1, 2:
		n := 2 + rng.IntN(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = item()
		}
		return strings.Join(parts, ",")
	default:
		return item()
	}
}

// TestCronJobDoesNotRunAtCreation checks that a job given as a cron line
// without a startTime runs at cron's instants only: not also at creation,
// as a schedule without a startTime otherwise does (SPEC §2).
func TestCronJobDoesNotRunAtCreation(t *testing.T) {
	now := mustTime(t, "2026-11-22T21:17:42Z")
	job := mustParse(t, jobJSON("", `{"cron":"15 5 * * 1-5","timeZone":"Europe/Berlin"}`))
	got := formatAll(mustOccurrences(t, job, now, 3))
	want := []string{"2026-11-23T05:15:00+01:00", "2026-11-24T05:15:00+01:00", "2026-11-25T05:15:00+01:00"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %v, want %v", got, want)
	}
}

func mustOccurrences(t *testing.T, job *jobdef.Job, now time.Time, n int) []time.Time {
	t.Helper()
	occ, err := Occurrences(job, now, n)
	if err != nil {
		t.Fatal(err)
	}
	return occ
}
