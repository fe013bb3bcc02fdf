package catalog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"sked/models"
	"sked/models/jobdef"
	"sked/models/problem"
)

// ShapeCrontab is an import file that is a crontab (SPEC §13.7): not JSON,
// one job per line.
const ShapeCrontab = "crontab"

// crontabEnvRE matches a crontab environment line such as MAILTO=ops or
// SHELL=/bin/sh.
var crontabEnvRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\s*=`)

// crontabMethods are the methods a crontab line may name before its URL.
var crontabMethods = map[string]bool{"GET": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "HEAD": true, "OPTIONS": true}

// looksLikeJSON reports whether data (BOM and white space skipped) starts
// as a JSON import file does: an object or an array.
func looksLikeJSON(data []byte) bool {
	t := bytes.TrimSpace(data)
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// parseCrontab reads a crontab file: per line `<cron> <url>` or `<cron>
// <METHOD> <url>` (the cron line five fields or an @ nickname), comments
// (#) and blank lines, CRON_TZ=Zone (for the lines after it) and other
// NAME=value lines (ignored, with a warning on the next job). Each job is
// an http or https job named line-N-host, whose recurrence is the line's
// cron (converted, or refused with the reason, when Import checks the job);
// a line that is not of that form is a job with a problem naming its line.
// The jobs name no collection: the import's target is required
// (RequireTarget).
func parseCrontab(data []byte) (*ImportFile, error) {
	f := &ImportFile{Shape: ShapeCrontab}
	zone := ""
	var pending []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), MaxImportBytes)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case crontabEnvRE.MatchString(line):
			name, value, _ := strings.Cut(line, "=")
			name, value = strings.TrimSpace(name), strings.Trim(strings.TrimSpace(value), `"'`)
			if strings.EqualFold(name, "CRON_TZ") || strings.EqualFold(name, "TZ") {
				if _, err := jobdef.LoadZone(value); err != nil {
					return nil, fileProblem("line %d: %s=%s: %q is not a known IANA or Windows time zone", n, name, value, value)
				}
				zone = value
				continue
			}
			pending = append(pending, fmt.Sprintf("line %d: %s is ignored: Sked runs HTTP requests, not commands, so no environment applies", n, name))
			continue
		}
		j := crontabJob(n, line, zone)
		j.Warnings, pending = pending, nil
		f.Jobs = append(f.Jobs, j)
	}
	if err := sc.Err(); err != nil {
		return nil, fileProblem("cannot be read as a crontab: %v", err)
	}
	if len(f.Jobs) == 0 {
		return nil, fileProblem("holds no job: a crontab file has one job per line, `<cron> <url>` or `<cron> <METHOD> <url>` (e.g. \"15 5 * * 1-5 https://example.com/report\")")
	}
	for _, j := range f.Jobs {
		if len(j.Problems) == 0 {
			return f, nil
		}
	}
	// No line is a crontab job: most likely the file is neither.
	p := f.Jobs[0]
	return nil, fileProblem("not valid JSON (a job, an array of jobs, an ARM list or an export bundle), nor a crontab (one `<cron> <url>` per line): %s: %s", p.Path, p.Problems[0].Message)
}

// crontabJob turns line n into a job.
func crontabJob(n int, line, zone string) FileJob {
	j := FileJob{Path: fmt.Sprintf("line %d", n), Collection: -1, Name: fmt.Sprintf("line-%d", n)}
	problem := func(format string, args ...any) {
		j.Problems = append(j.Problems, problem.Problem{Path: "crontab", Message: fmt.Sprintf(format, args...)})
	}
	words := strings.Fields(line)
	var cron string
	var rest []string
	switch {
	case strings.HasPrefix(words[0], "@"):
		cron, rest = words[0], words[1:]
	case len(words) >= 6:
		cron, rest = strings.Join(words[:5], " "), words[5:]
	default:
		rest = nil
	}
	method, target := "GET", ""
	switch {
	case cron == "":
		problem("%q is not `<cron> <url>` or `<cron> <METHOD> <url>`: the five cron fields and a URL are needed", line)
	case len(rest) == 1:
		target = rest[0]
	case len(rest) == 2 && crontabMethods[strings.ToUpper(rest[0])]:
		method, target = strings.ToUpper(rest[0]), rest[1]
	case len(rest) == 0:
		problem("the schedule %q is followed by no URL", cron)
	default:
		problem("only a URL, optionally after an HTTP method, may follow the schedule %q; found %q (Sked runs HTTP requests, not shell commands)", cron, strings.Join(rest, " "))
	}
	kind := "http"
	if target != "" {
		u, err := url.Parse(target)
		switch {
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			problem("%q is not an http or https URL (Sked runs HTTP requests, not commands)", target)
			target = ""
		default:
			kind = u.Scheme
			if host := hostName(u.Hostname()); host != "" {
				j.Name = truncateName(fmt.Sprintf("line-%d-%s", n, host))
			}
		}
	}
	if target == "" {
		target = "http://invalid.invalid/" // the job is refused for its line's problem
	}
	rec := map[string]string{"cron": cron}
	if cron == "" {
		rec = map[string]string{"cron": "@daily"}
	}
	if zone != "" {
		rec["timeZone"] = zone
	}
	body, _ := json.Marshal(map[string]any{
		"action":     map[string]any{"type": kind, "request": map[string]string{"uri": target, "method": method}},
		"recurrence": rec,
	})
	j.Body = body
	return j
}

// hostName makes a host name part of a job name: lowercase, every
// character other than a letter or digit a '-'.
func hostName(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-")
}

// truncateName keeps a generated name within the 100 characters of a job
// name.
func truncateName(s string) string {
	if len(s) > 100 {
		s = strings.TrimRight(s[:100], "-")
	}
	return s
}

// RequireTarget refuses a crontab file imported without a target
// collection: its lines name none. Other files need none (their jobs may
// name their collections).
func (f *ImportFile) RequireTarget(target models.CollectionRef) error {
	if f.Shape != ShapeCrontab || (target.ResourceGroup != "" && target.Name != "") {
		return nil
	}
	return fileProblem("a crontab file names no collection: give the collection its jobs go into (sked import --resource-group RG --collection JC; resourceGroup and jobCollection on POST /api/v1/import)")
}
