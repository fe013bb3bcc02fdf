package handlers_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"sked/models"
)

// BenchmarkPings sends b.N success pings to a real HTTP server on its
// database, spread over 300 monitors (each under its limit of 10 a
// second), paced at rate pings a second (0: as fast as 32 clients go),
// and reports the pings answered per second, the latency percentiles and
// the answers that were not 200 (a 5xx fails the benchmark).
func BenchmarkPings(b *testing.B) {
	for _, rate := range []int{1000, 0} {
		b.Run(fmt.Sprintf("rate=%d", rate), func(b *testing.B) {
			const monitors, clients = 300, 32
			s := newLoadServer(b, clients)
			urls := make([]string, monitors)
			for i := range urls {
				status, body, err := s.do(http.MethodPut, fmt.Sprintf("/api/v1/workspaces/%s/monitors/m%d", models.DefaultWorkspaceID, i),
					`{"schedule":{"frequency":"minute"},"grace":"PT1M"}`)
				if err != nil || status != http.StatusCreated {
					b.Fatalf("put monitor: %d %s %v", status, body, err)
				}
				var m struct{ PingURL string }
				if err := json.Unmarshal([]byte(body), &m); err != nil {
					b.Fatal(err)
				}
				urls[i] = s.url + m.PingURL[strings.Index(m.PingURL, "/ping/"):]
			}
			work := make(chan string, clients)
			lat := make([][]time.Duration, clients)
			statuses := make([]map[int]int, clients)
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for c := range clients {
				statuses[c] = map[int]int{}
				wg.Go(func() {
					for u := range work {
						t0 := time.Now()
						resp, err := s.client.Get(u)
						if err != nil {
							statuses[c][-1]++
							continue
						}
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						statuses[c][resp.StatusCode]++
						lat[c] = append(lat[c], time.Since(t0))
					}
				})
			}
			for i := range b.N {
				if rate > 0 {
					// The i-th ping is due i/rate after the start; one
					// behind its time goes at once (no tick is dropped).
					if d := time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(rate))); d > 0 {
						time.Sleep(d)
					}
				}
				work <- urls[i%monitors]
			}
			close(work)
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			all := slices.Concat(lat...)
			slices.Sort(all)
			total := map[int]int{}
			for _, m := range statuses {
				for k, v := range m {
					total[k] += v
				}
			}
			b.ReportMetric(float64(total[http.StatusOK])/elapsed.Seconds(), "pings/s")
			if len(all) > 0 {
				b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(all[(len(all)*99+99)/100-1].Microseconds())/1000, "p99-ms")
			}
			b.ReportMetric(0, "ns/op")
			b.Logf("rate %d: %d pings in %v, answers %v", rate, b.N, elapsed, total)
			for status, n := range total {
				if status < 0 || status >= 500 {
					b.Errorf("%d answers %d", n, status)
				}
			}
		})
	}
}
