package jobdef

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// cronMonthNames maps the lowercase month names of cron to 1–12.
var cronMonthNames = map[string]int{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}

// cronDayNames maps the lowercase day names of cron to 0–6 (Sunday 0).
var cronDayNames = map[string]int{"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}

// cronField describes one of the five fields.
type cronField struct {
	name   string
	lo, hi int
	names  map[string]int
}

// cronFields are the five fields in line order.
var cronFields = [5]cronField{
	{name: "minute", lo: 0, hi: 59},
	{name: "hour", lo: 0, hi: 23},
	{name: "day-of-month", lo: 1, hi: 31},
	{name: "month", lo: 1, hi: 12, names: cronMonthNames},
	{name: "day-of-week", lo: 0, hi: 7, names: cronDayNames},
}

// cronSet is one parsed field.
type cronSet struct {
	// star: the field is *, ? or */1 (cron's "unrestricted" for the day
	// fields' OR rule).
	star bool
	// vals holds the plain values (day-of-week 7 folded to 0).
	vals map[int]bool
	// fromEnd holds day-of-month values counted from the end (-1 = L).
	fromEnd map[int]bool
	// occ holds day-of-week Quartz forms (5L, 5#3).
	occ []MonthlyOccurrence
}

// full reports whether the plain values cover the whole range lo..hi (L
// and 5#3 then add nothing).
func (s *cronSet) full(lo, hi int) bool {
	for v := lo; v <= hi; v++ {
		if !s.vals[v] {
			return false
		}
	}
	return true
}

// sorted returns the plain values in ascending order.
func (s *cronSet) sorted() []int {
	out := make([]int, 0, len(s.vals))
	for v := range s.vals {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// parseCronField parses one field: a comma-separated list of *, ?, values,
// names, ranges and steps, plus L, L-n (day-of-month), nL and n#k
// (day-of-week).
func parseCronField(text string, fd cronField) (*cronSet, error) {
	s := &cronSet{vals: map[int]bool{}, fromEnd: map[int]bool{}}
	up := strings.ToUpper(text)
	isDay := fd.name == "day-of-month" || fd.name == "day-of-week"
	if strings.Contains(up, "W") && isDay && !strings.Contains(up, "WED") {
		return nil, cronErr("%s %q: W (the nearest weekday) is not supported: a recurrence cannot move a day to the nearest weekday", fd.name, text)
	}
	if text == "*" || text == "*/1" || text == "?" {
		if text == "?" && !isDay {
			return nil, cronErr("%s %q: ? is only meaningful in day-of-month or day-of-week", fd.name, text)
		}
		s.star = true
		for v := fd.lo; v <= fd.hi; v++ {
			s.vals[fold(fd, v)] = true
		}
		return s, nil
	}
	for _, item := range strings.Split(text, ",") {
		if err := s.addItem(item, fd); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// fold maps day-of-week 7 to 0 (both are Sunday).
func fold(fd cronField, v int) int {
	if fd.name == "day-of-week" && v == 7 {
		return 0
	}
	return v
}

// value reads one number or name of the field.
func (fd cronField) value(text, whole string) (int, error) {
	if n, ok := fd.names[strings.ToLower(text)]; ok {
		return n, nil
	}
	n, err := strconv.Atoi(text)
	if err != nil || strings.HasPrefix(text, "+") || strings.HasPrefix(text, "-") {
		what := "a number"
		switch fd.name {
		case "month":
			what = "a number or a month name (JAN–DEC)"
		case "day-of-week":
			what = "a number or a day name (SUN–SAT)"
		}
		return 0, cronErr("%s %q: %q is not %s", fd.name, whole, text, what)
	}
	if n < fd.lo || n > fd.hi {
		return 0, cronErr("%s %q: %d is out of range %d–%d", fd.name, whole, n, fd.lo, fd.hi)
	}
	return n, nil
}

// addItem adds one list item of a field.
func (s *cronSet) addItem(item string, fd cronField) error {
	up := strings.ToUpper(item)
	if item == "" {
		return cronErr("%s: empty item in a list (two commas, or a trailing comma)", fd.name)
	}
	if fd.name == "day-of-month" && strings.HasPrefix(up, "L") {
		switch {
		case up == "L":
			s.fromEnd[-1] = true
			return nil
		case strings.HasPrefix(up, "L-"):
			n, err := strconv.Atoi(item[2:])
			if err != nil || n < 1 || n > 30 {
				return cronErr("day-of-month %q: L-n needs n between 1 and 30 (days before the last day)", item)
			}
			s.fromEnd[-(n + 1)] = true
			return nil
		}
		return cronErr("day-of-month %q: L is the last day of the month; L-n is n days before it", item)
	}
	if fd.name == "day-of-week" {
		if up == "L" {
			return cronErr("day-of-week %q: L alone means Saturday in Quartz and nothing in standard cron: write SAT, or 6L for the last Saturday of the month", item)
		}
		if d, ok := strings.CutSuffix(up, "L"); ok {
			v, err := fd.value(d, item)
			if err != nil {
				return err
			}
			s.occ = append(s.occ, MonthlyOccurrence{Day: time.Weekday(fold(fd, v)), Occurrence: -1})
			return nil
		}
		if d, k, ok := strings.Cut(item, "#"); ok {
			v, err := fd.value(d, item)
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(k)
			if err != nil || n < 1 || n > 5 {
				return cronErr("day-of-week %q: #n needs n between 1 and 5 (the n-th such day of the month)", item)
			}
			s.occ = append(s.occ, MonthlyOccurrence{Day: time.Weekday(fold(fd, v)), Occurrence: n})
			return nil
		}
	}
	if strings.Contains(up, "L") && fd.names == nil || strings.Contains(item, "#") {
		return cronErr("%s %q: L and # are only allowed in day-of-month (L, L-3) and day-of-week (5L, 5#3)", fd.name, item)
	}
	if item == "?" || strings.Contains(item, "?") {
		return cronErr("%s %q: ? stands alone for the whole field", fd.name, item)
	}
	rng, stepText, hasStep := strings.Cut(item, "/")
	step := 1
	if hasStep {
		n, err := strconv.Atoi(stepText)
		if err != nil || n < 1 || strings.HasPrefix(stepText, "+") {
			return cronErr("%s %q: the step after / must be a whole number of at least 1", fd.name, item)
		}
		step = n
	}
	var lo, hi int
	switch a, b, isRange := strings.Cut(rng, "-"); {
	case isRange && a == "":
		return cronErr("%s %q: a range needs a start and an end (e.g. 1-5)", fd.name, item)
	case rng == "*":
		lo, hi = fd.lo, fd.hi
		if fd.name == "day-of-week" {
			hi = 6
		}
	case isRange:
		var err error
		if lo, err = fd.value(a, item); err != nil {
			return err
		}
		if b == "" {
			return cronErr("%s %q: a range needs a start and an end (e.g. 1-5)", fd.name, item)
		}
		if hi, err = fd.value(b, item); err != nil {
			return err
		}
		if fd.name == "day-of-week" && hi == 0 && lo > 0 { // SAT-SUN, 5-0: Sunday as 7
			hi = 7
		}
		if hi < lo {
			return cronErr("%s %q: the range runs backwards; write it as two ranges (e.g. 22-23,0-2 for hours)", fd.name, item)
		}
	default:
		var err error
		if lo, err = fd.value(rng, item); err != nil {
			return err
		}
		hi = lo
		if hasStep { // "5/15" means 5-max/15
			hi = fd.hi
			if fd.name == "day-of-week" {
				hi = max(lo, 6)
			}
		}
	}
	for v := lo; v <= hi; v += step {
		s.vals[fold(fd, v)] = true
	}
	return nil
}
