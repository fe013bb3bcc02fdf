package handlers_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"sked/handlers"
	"sked/models"
	"sked/models/testdb"
)

// loadServer is a Sked HTTP server on a database of its own with a store
// of enough connections for many clients, an administrator and an API
// token of theirs, and one collection, rg/load, of the default workspace.
type loadServer struct {
	url, token string
	client     *http.Client
}

// newLoadServer starts a loadServer for clients concurrent clients.
func newLoadServer(tb testing.TB, clients int) *loadServer {
	tb.Helper()
	return newLoadServerOn(tb, clients, testdb.DSN(tb), models.PoolerNone)
}

// newLoadServerOn is newLoadServer on the database dsn (from testdb, and
// migrated) behind pooler.
func newLoadServerOn(tb testing.TB, clients int, dsn string, pooler models.Pooler) *loadServer {
	tb.Helper()
	opts := testdb.Options()
	opts.MaxOpenConns = clients + 5
	// The store's limit of concurrent write transactions, to measure
	// another (-1: none); unset, the default.
	if v, err := strconv.Atoi(os.Getenv("SKED_BENCH_MAX_WRITES")); err == nil {
		opts.MaxConcurrentWrites = v
	}
	opts.Pooler = pooler
	store := testdb.Open(tb, dsn, opts)
	ctx := context.Background()
	u, err := store.CompleteSetup(ctx, models.NewUser{Username: "admin", Password: "password123"})
	if err != nil {
		tb.Fatal(err)
	}
	_, token, err := store.CreateToken(ctx, u.ID, "load")
	if err != nil {
		tb.Fatal(err)
	}
	h := handlers.New(handlers.Deps{
		Store:         store,
		SessionSecret: []byte("0123456789abcdef0123456789abcdef"),
		Version:       "test",
		Now:           time.Now,
		Engine:        &fakeEngine{store: store, now: time.Now},
		Logger:        slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	tb.Cleanup(tr.CloseIdleConnections)
	s := &loadServer{url: srv.URL, token: token, client: &http.Client{Transport: tr, Timeout: time.Minute}}
	if status, body, err := s.do(http.MethodPut, rgPath("rg")+"/load"+apiVersion, `{"location":"West Europe","properties":{"sku":{"name":"P20Premium"},"quota":{"maxJobCount":300}}}`); err != nil || status/100 != 2 {
		tb.Fatalf("put collection: %d %s %v", status, body, err)
	}
	return s
}

// do sends an API request with the token and returns the status and body.
func (s *loadServer) do(method, path, body string) (int, string, error) {
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// loadJob is a job whose request URI carries mark.
func loadJob(mark string) string {
	return `{"properties":{"startTime":"2026-01-01T09:00:00Z","action":{"type":"Http","request":{"uri":"https://example.com/?m=` + mark +
		`","method":"get"}},"recurrence":{"frequency":"Day","schedule":{"hours":[9],"minutes":[30]}}}}`
}

// loadWrite is one write of a client's mix.
type loadWrite struct {
	method, path, body string
	// notFound says that 404 is an answer (the shared job was deleted).
	notFound bool
}

// loadClient makes the mix of writes of one client c: creating and
// replacing jobs of its own (PUT), patching them, replacing and deleting
// three jobs all clients share, in one collection.
type loadClient struct {
	c, i    int
	rnd     *rand.Rand
	created map[string]bool
}

func newLoadClient(c int) *loadClient {
	return &loadClient{c: c, rnd: rand.New(rand.NewPCG(uint64(c), 14)), created: map[string]bool{}}
}

// next returns the client's next write.
func (l *loadClient) next() loadWrite {
	l.i++
	jobs := rgPath("rg") + "/load/jobs/"
	mark := fmt.Sprintf("c%d-%d", l.c, l.i)
	switch op := l.rnd.IntN(10); {
	case op < 4:
		name := fmt.Sprintf("own%d-%d", l.c, l.rnd.IntN(5))
		l.created[name] = true
		return loadWrite{method: http.MethodPut, path: jobs + name + apiVersion, body: loadJob(mark)}
	case op < 6 && len(l.created) > 0:
		names := make([]string, 0, len(l.created))
		for n := range l.created {
			names = append(names, n)
		}
		slices.Sort(names)
		return loadWrite{method: http.MethodPatch, path: jobs + names[l.rnd.IntN(len(names))] + apiVersion,
			body: `{"properties":{"action":{"request":{"uri":"https://example.com/?m=` + mark + `"}}}}`}
	case op < 9:
		return loadWrite{method: http.MethodPut, path: jobs + fmt.Sprintf("shared%d", l.rnd.IntN(3)) + apiVersion, body: loadJob(mark)}
	}
	return loadWrite{method: http.MethodDelete, path: jobs + fmt.Sprintf("shared%d", l.rnd.IntN(3)) + apiVersion, notFound: true}
}

// run sends w and returns an error for any answer but 2xx (or 404 when
// w allows it).
func (s *loadServer) run(w loadWrite) error {
	status, body, err := s.do(w.method, w.path, w.body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", w.method, w.path, err)
	}
	if status/100 == 2 || status == http.StatusNotFound && w.notFound {
		return nil
	}
	return fmt.Errorf("%s %s: %d %s", w.method, w.path, status, body)
}

// TestConcurrentAPIWrites has 20 clients write at once through the ARM
// API, in one collection (their own jobs, patches of them, three shared
// jobs replaced and deleted): every answer is 2xx, or 404 for a shared
// job another client deleted; none is 5xx.
func TestConcurrentAPIWrites(t *testing.T) {
	concurrentAPIWrites(t, newLoadServer(t, 20))
}

// TestConcurrentAPIWritesThroughPooler is TestConcurrentAPIWrites with
// the server's store behind PgBouncer in transaction mode (testdb.Pooled:
// its 25 connections' transactions share testdb.PoolSize server
// connections), and checks the rollups and facets afterwards.
func TestConcurrentAPIWritesThroughPooler(t *testing.T) {
	dsn := testdb.DSN(t)
	concurrentAPIWrites(t, newLoadServerOn(t, 20, testdb.Pooled(t, dsn), models.PoolerTransaction))
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testdb.CheckRollups(t, db, "after the writes through the pooler")
	testdb.CheckFacets(t, db)
}

// concurrentAPIWrites has 20 clients send 25 writes each at once to s:
// every answer is 2xx, or 404 for a shared job another client deleted.
func concurrentAPIWrites(t *testing.T, s *loadServer) {
	const clients, writes = 20, 25
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := newLoadClient(c)
			for range writes {
				if err := s.run(l.next()); err != nil {
					t.Errorf("client %d: %v", c, err)
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkConcurrentWrites measures the mix of TestConcurrentAPIWrites
// through the HTTP API with 1 and with 20 clients: b.N writes in all,
// shared among the clients. It reports acknowledged writes per second,
// the 99th percentile of their latency and the errors (answers but 2xx,
// or 404 for a shared job deleted), any of which fails it.
//
// With paced=R/s the 20 clients send R writes a second in all, each on its
// own schedule (open loop: a write's latency counts from when it was due
// to be sent, so a slow answer delays and counts against the writes after
// it): the latency at that rate rather than at the saturation the unpaced
// runs measure.
//
// SKED_BENCH_MAX_WRITES=N runs the server's store with a limit of N
// concurrent write transactions (models.Options.MaxConcurrentWrites; -1:
// none) instead of the default, to compare.
func BenchmarkConcurrentWrites(b *testing.B) {
	for _, run := range []struct {
		clients int
		rate    float64 // writes a second in all; 0: as fast as answered
	}{{1, 0}, {20, 0}, {20, 300}} {
		clients := run.clients
		name := fmt.Sprintf("clients=%d", clients)
		if run.rate > 0 {
			name += fmt.Sprintf(",paced=%.0f/s", run.rate)
		}
		b.Run(name, func(b *testing.B) {
			s := newLoadServer(b, clients)
			lat := make([][]time.Duration, clients)
			errs := make([][]error, clients)
			var wg sync.WaitGroup
			// Warm up: every client's HTTP connection, and as many of the
			// store's, open before the clock starts.
			for range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if status, body, err := s.do(http.MethodGet, rgPath("rg")+"/load/jobs"+apiVersion, ""); err != nil || status != http.StatusOK {
						b.Errorf("warm-up: %d %s %v", status, body, err)
					}
				}()
			}
			wg.Wait()
			b.ResetTimer()
			start := time.Now()
			for c := range clients {
				n := b.N / clients
				if c < b.N%clients {
					n++
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					l := newLoadClient(c)
					// Paced: client c's k-th write is due at start +
					// (c + k·clients)/rate.
					every := time.Duration(float64(clients) / run.rate * float64(time.Second))
					first := start.Add(time.Duration(float64(c) / run.rate * float64(time.Second)))
					for k := range n {
						t0 := time.Now()
						if run.rate > 0 {
							t0 = first.Add(time.Duration(k) * every)
							time.Sleep(time.Until(t0))
						}
						if err := s.run(l.next()); err != nil {
							errs[c] = append(errs[c], err)
							continue
						}
						lat[c] = append(lat[c], time.Since(t0))
					}
				}()
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			all, failed := slices.Concat(lat...), slices.Concat(errs...)
			slices.Sort(all)
			b.ReportMetric(float64(len(all))/elapsed.Seconds(), "writes/s")
			if len(all) > 0 {
				b.ReportMetric(float64(all[(len(all)*99+99)/100-1].Microseconds())/1000, "p99-ms")
			}
			b.ReportMetric(float64(len(failed)), "errors")
			b.ReportMetric(0, "ns/op")
			if len(all) > 0 {
				b.Logf("%d clients: %d writes acknowledged in %v (p50 %v, max %v), %d failed", clients, len(all), elapsed,
					all[len(all)/2], all[len(all)-1], len(failed))
			}
			if len(failed) > 0 {
				b.Errorf("%d of %d writes failed; the first: %v", len(failed), b.N, failed[0])
			}
		})
	}
}
