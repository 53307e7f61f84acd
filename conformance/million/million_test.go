// Package million measures the example service with a large store: it
// seeds the pets in bulk (petstore seed), then drives each kind of request
// alone and all of them at once with wrk, on SQLite and on PostgreSQL, and
// reports what each kind costs beside GET /pets/{id} (the median of
// paired rounds' ratios) and its latencies under the mixed load. The
// figures are measurements for docs/operations.md, not a gate: they depend
// on the machine and on what else runs on it.
//
// What the test holds the service to is that every request is answered
// without error, and that the cost claims hold at this size by the
// databases' own plans: it runs examples/petstore's TestQueryPlans with
// VANE_PLAN_PETS set to the same number of pets (no scan of pets on a
// page or a search, no sort of the matches, PostgreSQL's rows read within
// a page's bound; see plans_test.go there).
//
// It runs when VANE_MILLION_PETS says how many pets to seed: make
// million-quick (CI) seeds 20,000 and runs each load for 5 s (a kind
// alone in five rounds of 1 s, each beside GET /pets/{id}), make million
// seeds 1,000,000 and runs for minutes:
//
//	VANE_MILLION_PETS=1000000 VANE_MILLION_SECONDS=20 go test -count=1 -v -timeout 60m -run TestMillion ./million/
//
// One-word and whole-name searches are measured apart and reported.
package million

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vane-http/vane/internal/examplerun"
	"github.com/vane-http/vane/internal/testtool"
)

// pageSize is the limit of every page read; deepPage the page whose cost
// is measured beside the first, reached by following next.
const (
	pageSize = 20
	deepPage = 1000
)

func TestMillion(t *testing.T) {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		testtool.Unavailable(t, "the large-store test needs wrk (scripts/setup installs it)")
	}
	if os.Getenv("VANE_MILLION_PETS") == "" {
		t.Skip("a load test: VANE_MILLION_PETS=n seeds n pets (make million-quick, make million)")
	}
	pets := envInt(t, "VANE_MILLION_PETS", 0)
	if pets < pageSize*deepPage {
		t.Fatalf("VANE_MILLION_PETS=%d: at least %d pets are needed for page %d", pets, pageSize*deepPage, deepPage)
	}
	seconds := envInt(t, "VANE_MILLION_SECONDS", 3)
	t.Run("query plans", func(t *testing.T) { queryPlans(t, pets) })
	for _, store := range []string{"sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			var env []string
			if store == "postgres" {
				env = append(env, "DATABASE_URL="+freshDatabase(t))
			}
			start := time.Now()
			svc := examplerun.Start(t, examplerun.Options{Seed: pets, Env: env})
			t.Logf("%s: %d pets seeded and the service started in %s", store, pets, time.Since(start).Round(time.Second))
			m := &measurer{t: t, wrk: wrk, base: svc.URL, token: svc.Token, dir: t.TempDir(), seconds: seconds}
			m.measure(store, pets)
		})
	}
}

// measurer runs wrk against one service.
type measurer struct {
	t           *testing.T
	wrk         string
	base, token string
	dir         string
	seconds     int
}

// kind is one kind of request: the wrk script that sends it and the
// connections it has in the mixed load.
type kind struct {
	name   string
	script string
	conns  int
}

// result is what wrk measured of a kind.
type result struct {
	rps, p50, p99 float64 // requests per second; latencies in ms
	requests      int
	errors        int
}

func (m *measurer) measure(store string, pets int) {
	t := m.t
	walk := m.walk(pets)
	kinds := []kind{
		{"GET /pets/{id}", m.script("get", fmt.Sprintf(`request = function() return wrk.format("GET", "/pets/" .. math.random(1, %d)) end`, pets)), 15},
		{"GET /pets (first page)", m.paths("first", []string{"/pets?limit=" + strconv.Itoa(pageSize)}), 0},
		{fmt.Sprintf("GET /pets (page %d, by next)", deepPage), m.paths("deep", []string{walk.deep}), 0},
		{"GET /pets (pages 1 to 1,000)", m.paths("pages", walk.pages), 15},
		{"GET /pets?q= (one word)", m.paths("word", searches(walk.words)), 0},
		{"GET /pets?q= (a whole name)", m.paths("name", searches(walk.names)), 0},
		{"GET /pets?q= (words and names)", m.paths("search", searches(append(slices.Clone(walk.words), walk.names...))), 15},
		{"POST /pets", m.script("post", `
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer `+m.token+`"
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, "/pets", nil, '{"name":"Load ' .. n .. '","species":"dog","tags":["load"]}')
end`), 5},
	}

	// Each kind alone, four connections: its cost, as a multiple of GET
	// /pets/{id}. The time is cut into rounds, each of which measures GET
	// /pets/{id} and then every other kind, and a kind's cost is the median
	// of its rounds' ratios: a host whose load drifts (other jobs, the
	// database's autovacuum after the seed) moves both sides of a round's
	// ratio, where one long run of each kind would compare different
	// moments.
	rounds, roundSeconds := aloneRounds(m.seconds)
	perRound := map[string][]result{}
	for range rounds {
		for _, k := range kinds {
			if k.name != "POST /pets" {
				perRound[k.name] = append(perRound[k.name], m.run(k, 4, roundSeconds))
			}
		}
	}
	alone, cost := map[string]result{}, map[string]float64{}
	for name, rs := range perRound {
		alone[name], cost[name] = medianRound(perRound[kinds[0].name], rs)
	}
	// Every kind with connections at once: the mixed load (50 connections,
	// a tenth of them writing).
	mixed := map[string]result{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, k := range kinds {
		if k.conns == 0 {
			continue
		}
		wg.Go(func() {
			r := m.run(k, k.conns, 2*m.seconds)
			mu.Lock()
			mixed[k.name] = r
			mu.Unlock()
		})
	}
	wg.Wait()

	var b strings.Builder
	fmt.Fprintf(&b, "\n%s, %d pets, each kind alone (4 connections, %d rounds of %d s; the median round):\n\n| request | req/s | p50 | p99 | cost ÷ GET /pets/{id} |\n|---|---|---|---|---|\n", store, pets, rounds, roundSeconds)
	for _, k := range kinds {
		if r, ok := alone[k.name]; ok {
			fmt.Fprintf(&b, "| %s | %.0f | %.2f ms | %.2f ms | %.1f× |\n", k.name, r.rps, r.p50, r.p99, cost[k.name])
		}
	}
	mget := mixed[kinds[0].name]
	total := 0
	for _, r := range mixed {
		total += r.requests
	}
	fmt.Fprintf(&b, "\n%s, %d pets, mixed load (50 connections, %d s, %d requests):\n\n| request | connections | share | req/s | p50 | p99 | p99 ÷ GET /pets/{id} |\n|---|---|---|---|---|---|---|\n", store, pets, 2*m.seconds, total)
	for _, k := range kinds {
		if r, ok := mixed[k.name]; ok {
			fmt.Fprintf(&b, "| %s | %d | %.0f%% | %.0f | %.2f ms | %.2f ms | %.1f× |\n", k.name, k.conns, 100*float64(r.requests)/float64(total), r.rps, r.p50, r.p99, r.p99/mget.p99)
		}
	}
	t.Log(b.String())

	// Every request answered without error; the costs and latencies above
	// are reported, not bounded (the plans are checked by queryPlans).
	for _, k := range kinds {
		for _, r := range perRound[k.name] {
			if r.errors > 0 {
				t.Errorf("%s alone: %d errors", k.name, r.errors)
			}
		}
	}
	for name, r := range mixed {
		if r.errors > 0 {
			t.Errorf("%s in the mixed load: %d errors", name, r.errors)
		}
	}
}

// queryPlans runs examples/petstore's TestQueryPlans with pets pets, on
// both stores: the databases' plans of the queries each kind of request
// makes, at this size.
func queryPlans(t *testing.T, pets int) {
	dir, pkg := examplerun.Package(testtool.Root(t))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute) // a generous bound on seeding and planning
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-v", "-timeout", "30m", "-run", "^TestQueryPlans$", pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "VANE_PLAN_PETS="+strconv.Itoa(pets))
	out, err := cmd.CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "rows of pets read") || strings.Contains(line, "--- ") {
			t.Log(strings.TrimSpace(line))
		}
	}
	if err != nil {
		t.Fatalf("TestQueryPlans with %d pets: %v\n%s", pets, err, out)
	}
}

// aloneRounds cuts the seconds each kind is measured alone into rounds of
// at least a second: five where there is time for them.
func aloneRounds(seconds int) (rounds, roundSeconds int) {
	rounds = min(5, max(1, seconds))
	return rounds, max(1, seconds/rounds)
}

// medianRound pairs the rounds of a kind with those of GET /pets/{id}
// (get) and returns the kind's round whose cost (get's requests per
// second over the kind's) is the median, and that cost. With an even
// number of rounds, the higher of the two middle ones.
func medianRound(get, kind []result) (result, float64) {
	idx := make([]int, len(kind))
	cost := make([]float64, len(kind))
	for i := range kind {
		idx[i], cost[i] = i, get[i].rps/kind[i].rps
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(cost[a], cost[b]) })
	mid := idx[len(idx)/2]
	return kind[mid], cost[mid]
}

// walked is what following next from the first page found.
type walked struct {
	deep         string   // the path of page deepPage
	pages        []string // the paths of pages 1, 11, 21… up to deepPage
	words, names []string // words of the names seen, and whole names
}

// walk follows next from the first page to page deepPage, as a client
// does, and keeps what the loads need.
func (m *measurer) walk(pets int) walked {
	t := m.t
	var w walked
	seenWord, seenName := map[string]bool{}, map[string]bool{}
	path := "/pets?limit=" + strconv.Itoa(pageSize)
	for page := 1; page <= deepPage; page++ {
		if page%10 == 1 {
			w.pages = append(w.pages, path)
		}
		if page == deepPage {
			w.deep = path
			break
		}
		var body struct {
			Items []struct{ Name string }
			Next  *string
		}
		res, err := http.Get(m.base + path)
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if err != nil || res.StatusCode != 200 || body.Next == nil || len(body.Items) != pageSize {
			t.Fatalf("page %d (%s): %d, %d items, next %v: %v", page, path, res.StatusCode, len(body.Items), body.Next, err)
		}
		for _, it := range body.Items {
			name := strings.ToLower(it.Name)
			if !seenName[name] && len(w.names) < 200 {
				seenName[name] = true
				w.names = append(w.names, name)
			}
			for _, word := range strings.Fields(name) {
				if !seenWord[word] && len(word) >= 3 {
					seenWord[word] = true
					w.words = append(w.words, word)
				}
			}
		}
		path = *body.Next
	}
	return w
}

// searches turns search terms into paths.
func searches(terms []string) []string {
	var out []string
	for _, s := range terms {
		out = append(out, "/pets?limit="+strconv.Itoa(pageSize)+"&q="+url.QueryEscape(s))
	}
	return out
}

// paths writes a wrk script that requests one of paths at random.
func (m *measurer) paths(name string, paths []string) string {
	list := filepath.Join(m.dir, name+".txt")
	if err := os.WriteFile(list, []byte(strings.Join(paths, "\n")+"\n"), 0o644); err != nil {
		m.t.Fatal(err)
	}
	return m.script(name, fmt.Sprintf(`
local paths = {}
for line in io.lines(%q) do paths[#paths + 1] = line end
request = function() return wrk.format("GET", paths[math.random(#paths)]) end`, list))
}

// script writes a wrk script and returns its path.
func (m *measurer) script(name, lua string) string {
	p := filepath.Join(m.dir, name+".lua")
	seed := fmt.Sprintf("math.randomseed(%d)\n", time.Now().UnixNano()%1_000_000_007)
	if err := os.WriteFile(p, []byte(seed+lua+"\n"), 0o644); err != nil {
		m.t.Fatal(err)
	}
	return p
}

// run runs wrk with k's script, conns connections and one thread for
// seconds, bounded in time, and reads its report.
func (m *measurer) run(k kind, conns, seconds int) result {
	t := m.t
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(seconds+60)*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, m.wrk, "-t1", "-c"+strconv.Itoa(conns), "-d"+strconv.Itoa(seconds)+"s",
		"--timeout", "10s", "--latency", "-s", k.script, m.base).CombinedOutput()
	if err != nil {
		t.Fatalf("wrk (%s): %v\n%s", k.name, err, out)
	}
	r, err := parseWrk(string(out))
	if err != nil {
		t.Fatalf("%s: %v", k.name, err)
	}
	return r
}

var (
	reRPS      = regexp.MustCompile(`(?m)^Requests/sec:\s+([\d.]+)`)
	reRequests = regexp.MustCompile(`(?m)^\s+(\d+) requests in`)
	rePercent  = regexp.MustCompile(`(?m)^\s+(50|99)%\s+([\d.]+)(us|ms|s)\b`)
	reSocket   = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	reNon2xx   = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
)

// parseWrk reads wrk's report, run with --latency.
func parseWrk(out string) (result, error) {
	var r result
	m := reRPS.FindStringSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("no Requests/sec in wrk's report: %.400s", out)
	}
	r.rps, _ = strconv.ParseFloat(m[1], 64)
	if m := reRequests.FindStringSubmatch(out); m != nil {
		r.requests, _ = strconv.Atoi(m[1])
	}
	for _, m := range rePercent.FindAllStringSubmatch(out, -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		v *= map[string]float64{"us": 0.001, "ms": 1, "s": 1000}[m[3]]
		if m[1] == "50" {
			r.p50 = v
		} else {
			r.p99 = v
		}
	}
	for _, re := range []*regexp.Regexp{reSocket, reNon2xx} {
		if m := re.FindStringSubmatch(out); m != nil {
			for _, x := range m[1:] {
				n, _ := strconv.Atoi(x)
				r.errors += n
			}
		}
	}
	if r.rps == 0 || r.p99 == 0 {
		return r, fmt.Errorf("wrk measured nothing: %.400s", out)
	}
	return r, nil
}

// freshDatabase creates a database of the test's own in the test
// PostgreSQL server (psql, as the setup script's user) and returns its
// URL; it is dropped when the test ends.
func freshDatabase(t *testing.T) string {
	t.Helper()
	admin := testtool.PostgresURL(t)
	psql, err := exec.LookPath("psql")
	if err != nil {
		testtool.Unavailable(t, "the large-store test needs psql (scripts/setup installs PostgreSQL)")
	}
	name := "million_" + strings.ToLower(rand.Text()[:10])
	sql := func(stmt string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if out, err := exec.CommandContext(ctx, psql, admin, "-v", "ON_ERROR_STOP=1", "-qc", stmt).CombinedOutput(); err != nil {
			t.Fatalf("psql %s: %v\n%s", stmt, err, out)
		}
	}
	sql("CREATE DATABASE " + name)
	t.Cleanup(func() { sql("DROP DATABASE " + name + " WITH (FORCE)") })
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("the test server's URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

// envInt reads a positive integer from the environment, or def.
func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}
