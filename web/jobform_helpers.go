package web

import (
	"slices"
	"strconv"

	"github.com/a-h/templ"

	"sked/models/jobdef"
)

// Choice is one option of a select or a radio group.
type Choice struct {
	Value, Label string
}

// The choices of the job form's selects.
var (
	actionTypeChoices  = []Choice{{"http", "HTTP"}, {"https", "HTTPS"}}
	methodChoices      = []Choice{{"GET", "GET"}, {"POST", "POST"}, {"PUT", "PUT"}, {"PATCH", "PATCH"}, {"DELETE", "DELETE"}, {"HEAD", "HEAD"}, {"OPTIONS", "OPTIONS"}}
	authChoices        = []Choice{{"", "None"}, {"basic", "Basic (user name and password)"}, {"clientCertificate", "Client certificate (PKCS#12)"}, {"activeDirectoryOAuth", "Microsoft Entra ID (OAuth client credentials)"}}
	frequencyChoices   = []Choice{{"", "Once (no recurrence)"}, {FrequencyAfter, "After other jobs"}, {"second", "Seconds"}, {"minute", "Minutes"}, {"hour", "Hours"}, {"day", "Days"}, {"week", "Weeks"}, {"month", "Months"}, {"year", "Years"}}
	endChoices         = []Choice{{"never", "Never"}, {"count", "After a number of runs"}, {"until", "On a date"}}
	retryChoices       = []Choice{{"", "Default (4 retries every 30 s)"}, {"none", "No retries"}, {"fixed", "Fixed interval"}, {"exponential", "Exponential backoff (each wait doubles)"}}
	stateChoices       = []Choice{{string(jobdef.Enabled), jobdef.Enabled.Label()}, {string(jobdef.Disabled), jobdef.Disabled.Label()}}
	misfireChoices     = []Choice{{"skip", "Skip missed runs"}, {"runOnce", "Run once when missed"}}
	concurrencyChoices = []Choice{{"allow", "Allow overlapping runs"}, {"forbid", "Never overlap"}}
	previewChoices     = []Choice{{"10", "10"}, {"25", "25"}, {"50", "50"}, {"100", "100"}}
	weekDayChoices     = []Choice{{"monday", "Mon"}, {"tuesday", "Tue"}, {"wednesday", "Wed"}, {"thursday", "Thu"}, {"friday", "Fri"}, {"saturday", "Sat"}, {"sunday", "Sun"}}
	occurrenceRows     = []Choice{{"1", "First"}, {"2", "Second"}, {"3", "Third"}, {"4", "Fourth"}, {"5", "Fifth"}, {"-1", "Last"}, {"0", "Every"}}
	minuteShortcuts    = []Choice{{"5", "every 5 minutes"}, {"10", "every 10 minutes"}, {"15", "every 15 minutes"}, {"30", "every 30 minutes"}, {"0", "clear"}}
	hourShortcuts      = []Choice{{"2", "every 2 hours"}, {"3", "every 3 hours"}, {"6", "every 6 hours"}, {"1", "every hour"}, {"0", "clear"}}
	monthChoices       = []Choice{{"1", "Jan"}, {"2", "Feb"}, {"3", "Mar"}, {"4", "Apr"}, {"5", "May"}, {"6", "Jun"}, {"7", "Jul"}, {"8", "Aug"}, {"9", "Sep"}, {"10", "Oct"}, {"11", "Nov"}, {"12", "Dec"}}
)

// upTo returns 0…n-1.
func upTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// from1 returns 1…n.
func from1(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func hasInt(list []int, v int) bool          { return slices.Contains(list, v) }
func hasString(list []string, v string) bool { return slices.Contains(list, v) }
func itoa(n int) string                      { return strconv.Itoa(n) }

// pad2 writes 0–59 as two digits.
func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// inputClass is the class of a text input, red when it has an error.
func inputClass(errs FieldErrors, name string) string {
	return fieldClass(errs, name)
}

// atoi reads a choice value known to be a number.
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// firstOccurrences returns at most n occurrences from the start of occ.
func firstOccurrences(occ []PreviewOccurrence, n int) []PreviewOccurrence {
	return occ[:min(n, len(occ))]
}

// oobAttrs marks an element for an out-of-band swap when oob is set.
func oobAttrs(oob bool) templ.Attributes {
	if oob {
		return templ.Attributes{"hx-swap-oob": "true"}
	}
	return templ.Attributes{}
}
