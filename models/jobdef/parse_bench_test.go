package jobdef

import "testing"

// BenchmarkParse parses job definitions as the engine reads them back
// (Stored) and as a request sends them: a minute job calling a URL like
// bench/river's, and an ARM-shaped job with headers, a retry policy, an
// error action and a weekly schedule. Run it with
// `go test ./models/jobdef -run '^$' -bench Parse -benchmem`.
func BenchmarkParse(b *testing.B) {
	for _, c := range []struct {
		name string
		def  string
		opts Options
	}{
		{"minute/stored", benchMinuteJob, Options{Stored: true}},
		{"arm/stored", benchARMJob, Options{Stored: true}},
		{"arm/request", benchARMJob, Options{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			data := []byte(c.def)
			for b.Loop() {
				if _, err := ParseWith(data, c.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

const benchMinuteJob = `{"startTime":"2026-11-28T17:30:00Z","recurrence":{"frequency":"minute"},` +
	`"action":{"type":"http","request":{"uri":"http://127.0.0.1:41234/?k=1234","method":"GET"},"retryPolicy":{"retryType":"none"}}}`

const benchARMJob = `{"id":"/subscriptions/s/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc/jobs/nightly",
	"name":"jc/nightly","type":"Microsoft.Scheduler/jobCollections/jobs",
	"properties":{"startTime":"2026-01-05T02:00:00+01:00","state":"Enabled",
	"action":{"type":"Https","request":{"uri":"https://reports.example.com/run?kind=nightly","method":"POST",
	  "headers":{"Content-Type":"application/json","X-Team":"reports"},"body":"{\"kind\":\"nightly\",\"notify\":true}"},
	  "retryPolicy":{"retryType":"Fixed","retryInterval":"PT1M","retryCount":3},
	  "errorAction":{"type":"Http","request":{"uri":"https://alerts.example.com/hook","method":"POST","body":"failed"}}},
	"recurrence":{"frequency":"Week","interval":1,"schedule":{"weekDays":["Monday","Wednesday","Friday"],"hours":[2],"minutes":[0]}}}}`
