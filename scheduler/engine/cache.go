package engine

import (
	"bytes"
	"container/list"
	"encoding/json"
	"fmt"
	"maps"
	"sync"
	"time"

	"sked/models/jobdef"
	"sked/scheduler/recurrence"
)

// jobCacheSize is how many compiled jobs an engine keeps.
const jobCacheSize = 100_000

// jobCache keeps the compiled definitions of the jobs the engine runs, so
// that a job running every minute is not parsed every minute. Safe for
// concurrent use.
//
// It holds at most max jobs, least recently used first out, with an
// admission rule (TinyLFU): when it is full, a job not cached replaces the
// least recently used one only if it was asked for more often recently
// (a small count-min sketch of every lookup, halved every 10×max lookups
// so that old counts fade). Plain LRU would never hit when the engine runs
// more jobs than it holds in a cycle (120,000 minute jobs: each is evicted
// before its next run); with admission a stable max of them stay cached
// and hit (max/n of the lookups), and jobs used more often than others win
// their place.
type jobCache struct {
	mu   sync.Mutex
	max  int
	m    map[int64]*list.Element // of *cacheEntry
	lru  *list.List              // most recently used first
	freq *sketch

	// hits and misses count lookups that found the job compiled, or did
	// not (tests, benchmarks).
	hits, misses int64
}

type cacheEntry struct {
	id int64
	cj *compiledJob
}

func newJobCache(max int) *jobCache {
	return &jobCache{max: max, m: make(map[int64]*list.Element), lru: list.New(), freq: newSketch(max)}
}

// get returns the compiled job id with definition def, with its rule for
// base and the calendars cals when base is not nil.
func (c *jobCache) get(id int64, def json.RawMessage, secrets jobdef.Secrets, base *time.Time, cals jobCalendars) (*compiledJob, error) {
	c.mu.Lock()
	c.freq.add(id)
	var cj *compiledJob
	if el, ok := c.m[id]; ok {
		c.lru.MoveToFront(el)
		cj = el.Value.(*cacheEntry).cj
	}
	c.mu.Unlock()
	same := cj != nil && bytes.Equal(cj.def, def) && maps.Equal(cj.secrets, secrets)
	if same && (base == nil || (cj.rule != nil && cj.base.Equal(*base) && cj.stamp == cals.stamp)) {
		c.count(true)
		return cj, nil
	}
	c.count(false)
	var fresh compiledJob
	if same {
		fresh = *cj
	} else {
		job, err := jobdef.ParseWith(def, jobdef.Options{Keep: secrets, Stored: true})
		if err != nil {
			return nil, fmt.Errorf("engine: job %d: %w", id, err)
		}
		fresh = compiledJob{def: append([]byte(nil), def...), secrets: secrets, job: job}
	}
	if base != nil {
		rule, err := recurrence.CompileWith(fresh.job, *base, recurrence.Options{Calendars: cals.cals})
		if err != nil {
			return nil, fmt.Errorf("engine: job %d: %w", id, err)
		}
		fresh.base, fresh.stamp, fresh.rule = *base, cals.stamp, rule
	}
	c.put(id, &fresh)
	return &fresh, nil
}

func (c *jobCache) count(hit bool) {
	c.mu.Lock()
	if hit {
		c.hits++
	} else {
		c.misses++
	}
	c.mu.Unlock()
}

// put caches cj as job id: in place of the job's older entry, in a free
// place, or in place of the least recently used job when id was asked for
// more often (else cj is not cached).
func (c *jobCache) put(id int64, cj *compiledJob) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[id]; ok {
		el.Value.(*cacheEntry).cj = cj
		c.lru.MoveToFront(el)
		return
	}
	if c.lru.Len() >= c.max {
		victim := c.lru.Back()
		v := victim.Value.(*cacheEntry)
		if c.freq.estimate(id) <= c.freq.estimate(v.id) {
			return
		}
		c.lru.Remove(victim)
		delete(c.m, v.id)
	}
	c.m[id] = c.lru.PushFront(&cacheEntry{id: id, cj: cj})
}

// sketch is a count-min sketch of how often job ids were looked up: four
// rows of saturating counters (0 to 15), all halved every reset additions.
// Not safe for concurrent use.
type sketch struct {
	rows       [4][]uint8
	mask       uint64
	added      int
	reset      int
	seedsByRow [4]uint64
}

func newSketch(max int) *sketch {
	width := 64
	for width < 4*max {
		width *= 2
	}
	s := &sketch{mask: uint64(width - 1), reset: 10 * max,
		seedsByRow: [4]uint64{0x9e3779b97f4a7c15, 0xbf58476d1ce4e5b9, 0x94d049bb133111eb, 0xd6e8feb86659fd93}}
	for i := range s.rows {
		s.rows[i] = make([]uint8, width)
	}
	return s
}

func (s *sketch) slot(row int, id int64) uint64 {
	x := uint64(id) + s.seedsByRow[row]
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return (x ^ (x >> 31)) & s.mask
}

func (s *sketch) add(id int64) {
	for r := range s.rows {
		if i := s.slot(r, id); s.rows[r][i] < 15 {
			s.rows[r][i]++
		}
	}
	s.added++
	if s.added >= s.reset {
		s.added = 0
		for r := range s.rows {
			for i := range s.rows[r] {
				s.rows[r][i] >>= 1
			}
		}
	}
}

func (s *sketch) estimate(id int64) uint8 {
	n := uint8(15)
	for r := range s.rows {
		n = min(n, s.rows[r][s.slot(r, id)])
	}
	return n
}
