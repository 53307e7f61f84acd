package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	sqlitedriver "modernc.org/sqlite"
)

// queryPlan returns the plan of q as lines: SQLite's EXPLAIN QUERY PLAN
// details, or PostgreSQL's EXPLAIN text.
func queryPlan(t *testing.T, s *Store, q *sqlQuery) []string {
	t.Helper()
	explain := "EXPLAIN QUERY PLAN "
	if s.d.name == "postgres" {
		explain = "EXPLAIN (COSTS OFF) "
	}
	rows, err := s.db.QueryContext(context.Background(), explain+q.text, q.args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, q.text)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprint(vals[len(vals)-1]))
	}
	return lines
}

// tagFilters are filters of one tag and of five (the most a request may
// give), with a tag no pet has, alone, first or last of five, and with
// the other filters.
var tagFilters = []Filter{
	{Tags: []string{"friendly"}},
	{Tags: []string{"absent"}},
	{Tags: []string{"friendly", "trained", "shy", "indoor", "playful"}},
	{Tags: []string{"friendly", "trained", "shy", "indoor", "zz-absent"}},
	{Tags: []string{"aa-absent", "trained", "shy", "indoor", "friendly"}},
	{Tags: []string{"friendly", "trained"}, Species: "cat", Status: "available"},
	{Tags: []string{"friendly"}, Query: "bel"},
	{Tags: []string{"friendly", "shy"}, Query: "ella bla"},
}

// A tag filter starts from the tag index: the plan of its page and of its
// count reads the pets of the first tag from pet_tags_tag, probes the
// other tags there, and reads each pet by its ID; no plan scans pets or
// pet_tags. (EXPLAIN QUERY PLAN on SQLite, EXPLAIN on PostgreSQL, with
// planner statistics of 5,000 pets.)
func TestTagFilterStartsFromTheTagIndex(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.freshStore(t)
		if err := s.Seed(ctx, 5000, nil); err != nil {
			t.Fatal(err)
		}
		for _, f := range tagFilters {
			for _, after := range []int64{0, 2500} {
				q := s.listQueries(f, after, 0, 20, true)
				for name, query := range map[string]*sqlQuery{"page": q.page, "count": q.count} {
					plan := queryPlan(t, s, query)
					if why := tagPlanFault(db.name, plan); why != "" {
						t.Errorf("%+v after %d, %s: %s\n%s", f, after, name, why, strings.Join(plan, "\n"))
					}
				}
			}
		}
	})
}

// tagPlanFault says what is wrong with the plan of a tag filter's query,
// or "" if nothing.
func tagPlanFault(dbName string, plan []string) string {
	if dbName == "sqlite" {
		for i, line := range plan {
			switch {
			case strings.HasPrefix(line, "SCAN "):
				return "a full scan: " + line
			case i == 0 && !strings.HasPrefix(line, "SEARCH t0 USING COVERING INDEX pet_tags_tag (tag=?"):
				return "the first loop is not the first tag's in pet_tags_tag: " + line
			case strings.HasPrefix(line, "SEARCH p ") && line != "SEARCH p USING INTEGER PRIMARY KEY (rowid=?)":
				return "pets read otherwise than by ID: " + line
			}
		}
		return ""
	}
	// PostgreSQL orders the joins of the tags' lists itself (from the
	// rarest, by its statistics): the first list read is one of them.
	text := strings.Join(plan, "\n")
	if strings.Contains(text, "Seq Scan on pets") || strings.Contains(text, "Seq Scan on pet_tags") {
		return "a sequential scan"
	}
	firstList := -1
	for i, line := range plan {
		if firstList < 0 && tagAlias.MatchString(line) {
			firstList = i
			// A bitmap heap scan shows its index scan below its recheck.
			next := strings.Join(plan[i+1:min(i+4, len(plan))], "\n")
			if !strings.Contains(line, "using pet_tags_tag") &&
				!(strings.Contains(line, "Bitmap Heap Scan") && strings.Contains(next, "Bitmap Index Scan on pet_tags_tag")) {
				return "the first list of a tag is not read from pet_tags_tag: " + line
			}
		}
		if strings.Contains(line, "Scan") && strings.Contains(line, " on pets") {
			if firstList < 0 {
				return "pets are read before a tag's list"
			}
			if i+1 == len(plan) || !byTagID.MatchString(plan[i+1]) {
				return "pets are read otherwise than by ID: " + line
			}
		}
	}
	if firstList < 0 {
		return "no tag's list is read"
	}
	return ""
}

var (
	tagAlias = regexp.MustCompile(` on pet_tags t[0-9]$`)
	byTagID  = regexp.MustCompile(`Index Cond: \(id = t[0-9]\.pet_id\)$`)
)

// pagesRead returns how many pages of the database SQLite's connection
// conn reads (from its cache or the file) while fn runs: a count of work.
func pagesRead(t *testing.T, s *Store, fn func(q func(*sqlQuery))) int {
	t.Helper()
	ctx := context.Background()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	status := func(reset bool) int {
		n := 0
		err := conn.Raw(func(dc any) error {
			for _, op := range []sqlitedriver.DBStatusOp{sqlitedriver.DBStatusCacheHit, sqlitedriver.DBStatusCacheMiss} {
				cur, _, err := dc.(sqlitedriver.DBStatus).Status(op, reset)
				if err != nil {
					return err
				}
				n += cur
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	status(true)
	fn(func(q *sqlQuery) {
		rows, err := conn.QueryContext(ctx, q.text, q.args...)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	})
	return status(false)
}

// A tag that no pet has costs a few probes of the index, alone or among
// five: the query ends before it reads a pet (SQLite: the pages its
// connection reads; PostgreSQL: EXPLAIN ANALYZE, in which the pets are
// never read). A filter of five tags that all exist, and that no pet has
// together, reads the first tag's list: the contrast that shows the count
// measures the work.
func TestAbsentTagCostsNothing(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		ctx := context.Background()
		s := db.freshStore(t)
		if err := s.Seed(ctx, 5000, nil); err != nil {
			t.Fatal(err)
		}
		absent := []Filter{tagFilters[1], tagFilters[3], tagFilters[4]}
		if db.name == "sqlite" {
			for _, f := range absent {
				q := s.listQueries(f, 0, 0, 20, true)
				n := pagesRead(t, s, func(run func(*sqlQuery)) { run(q.page); run(q.count) })
				t.Logf("%v: %d pages read for a page and a count", f.Tags, n)
				if n > 64 { // two queries, each at most six probes of an index three pages deep, and their tables
					t.Errorf("%v: %d pages read for a page and a count of nothing", f.Tags, n)
				}
			}
			all := s.listQueries(tagFilters[2], 0, 0, 20, true)
			n := pagesRead(t, s, func(run func(*sqlQuery)) { run(all.page) })
			t.Logf("%v: %d pages read for a page", tagFilters[2].Tags, n)
			if n < 200 {
				t.Errorf("five tags that no pet has together: %d pages read; the count does not measure the work", n)
			}
			return
		}
		for _, f := range absent {
			q := s.listQueries(f, 0, 0, 20, true)
			var doc []struct{ Plan planNode }
			var raw string
			if err := s.db.QueryRowContext(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) "+q.page.text, q.page.args...).Scan(&raw); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(raw), &doc); err != nil {
				t.Fatal(err)
			}
			var read []string
			doc[0].Plan.walk(func(n planNode) {
				if n.Relation == "pets" && n.Loops > 0 {
					read = append(read, fmt.Sprintf("%s on pets: %d loops", n.Type, n.Loops))
				}
				if n.Alias == "t0" && len(f.Tags) > 1 && n.Loops > 0 {
					read = append(read, fmt.Sprintf("%s on the first tag's rows: %d loops", n.Type, n.Loops))
				}
			})
			if len(read) > 0 {
				t.Errorf("%v: %v\n%s", f.Tags, read, raw)
			}
		}
	})
}

// planNode is a node of PostgreSQL's EXPLAIN (ANALYZE, FORMAT JSON).
type planNode struct {
	Type     string     `json:"Node Type"`
	Relation string     `json:"Relation Name"`
	Alias    string     `json:"Alias"`
	Loops    int        `json:"Actual Loops"`
	Plans    []planNode `json:"Plans"`
}

func (n planNode) walk(fn func(planNode)) {
	fn(n)
	for _, c := range n.Plans {
		c.walk(fn)
	}
}

// Tag filters find the pets with every tag, once each, in ID order, page
// by page, with the other filters, as a scan finds them.
func TestTagFilterPagesMatchAScan(t *testing.T) {
	eachDB(t, func(t *testing.T, db testDB) {
		s, all := seededStore(t, db, 1500)
		for _, f := range append(tagFilters, Filter{Tags: []string{"shy", "shy", "friendly"}}, Filter{Tags: []string{"shy"}, Query: "a"}) {
			var want, got []int64
			for _, p := range all {
				if (f.Species == "" || p.Species == f.Species) && (f.Status == "" || p.Status == f.Status) &&
					strings.Contains(foldName(p.Name), foldName(f.Query)) &&
					!slices.ContainsFunc(f.Tags, func(t string) bool { return !slices.Contains(p.Tags, t) }) {
					want = append(want, p.ID)
				}
			}
			got = pagedIDs(t, s, f, 7)
			if !slices.Equal(got, want) {
				t.Errorf("%+v: paged %d pets %v…, a scan finds %d %v…", f, len(got), head(got), len(want), head(want))
			}
			if _, _, total, err := s.ListAfter(context.Background(), f, 0, 0, 1, true); err != nil || total != len(want) {
				t.Errorf("%+v: a total of %d (%v), want %d", f, total, err, len(want))
			}
		}
	})
}
