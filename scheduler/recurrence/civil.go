package recurrence

// Civil-calendar arithmetic on proleptic Gregorian dates, without the time
// package: days are counted from 1970-01-01 (day 0, a Thursday).

const secondsPerDay = 86400

// floorDiv returns a/b rounded towards minus infinity (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// floorMod returns a mod b in [0, b) (b > 0).
func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// daysFromCivil returns the day number of y-m-d (m 1–12).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays returns the date of a day number.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// weekday returns the weekday of a day number, Sunday = 0.
func weekday(day int64) int64 { return floorMod(day+4, 7) }

// mondayIndex returns the position of a day in its Monday-first week (Monday
// = 0 … Sunday = 6).
func mondayIndex(day int64) int64 { return floorMod(day+3, 7) }

// isLeap reports whether y is a Gregorian leap year.
func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// daysInMonth returns the length of month m (1–12) of year y.
func daysInMonth(y, m int64) int64 {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// gcd returns the greatest common divisor of two positive numbers.
func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// modInverse returns x with a·x ≡ 1 (mod m), for gcd(a, m) = 1 and m ≥ 1.
func modInverse(a, m int64) int64 {
	if m == 1 {
		return 0
	}
	g, x := extGCD(floorMod(a, m), m)
	_ = g
	return floorMod(x, m)
}

// extGCD returns g = gcd(a, b) and x with a·x ≡ g (mod b).
func extGCD(a, b int64) (int64, int64) {
	oldR, r := a, b
	oldS, s := int64(1), int64(0)
	for r != 0 {
		q := oldR / r
		oldR, r = r, oldR-q*r
		oldS, s = s, oldS-q*s
	}
	return oldR, oldS
}
