package report

import (
	"encoding/json"
	"os"
)

// Meta is everything about a run that the go test output does not say.
type Meta struct {
	Date       string   // UTC, when the run started
	Quick      bool     // CI's quick mode: numbers are not for reading
	Count      int      // -count
	Benchtime  string   // -benchtime ("" for go test's default)
	GoVersion  string   // go version
	OS         string   // uname -srm
	CPU        string   // model name
	Cores      int      // runtime.NumCPU
	VaneCommit string   // git commit of the checkout measured
	Commands   []string // the exact commands that produced the numbers
	Versions   []Version
	Peers      []string          // column order
	Status     map[string]Status // by Key.String(); a missing key means measured
	Notes      map[string]string // by Key.String(): a footnote on a measured cell
	RawFile    string            // the raw go test output, relative to bench/
}

// Version is one measured module.
type Version struct {
	Name, Module, Version string
}

// Status of a cell decided before timing.
type Status struct {
	State  string // StateLacks, StatePending, StateWrong or StateSkip
	Reason string
}

// States of a cell that has no time.
const (
	StateLacks   = "lacks"   // the peer cannot express the case: "—"
	StatePending = "pending" // work not done yet in vane
	StateWrong   = "wrong"   // the peer answered wrongly: reported, not timed
	StateSkip    = "skip"    // the peer is not part of this workload
)

// E2E is one end-to-end run under wrk: Rounds rounds, each measuring
// every server once, in the order Orders[round]. Files written before
// rounds existed have neither field: one round, in report order.
type E2E struct {
	Date     string
	Tool     string // wrk's version line
	Versions string // of the servers that are not Go modules (FastAPI, uvicorn)
	Command  string // the wrk command, with {url} for each server's address
	Warmup   string
	Duration string
	Threads  int
	Conns    int
	Rounds   int        `json:",omitempty"` // 0 in older files: one round
	Orders   [][]string `json:",omitempty"` // the order of each round
	Results  []E2EResult
}

// E2EResult is one server's measurement. With rounds, the numbers are the
// medians over the rounds that succeeded (Requests and Errors are sums),
// and Rounds holds every round; older files have only the numbers, of
// their one round.
type E2EResult struct {
	Name       string
	Status     string // "ok" (at least one round measured), StatePending, StateWrong or "failed"
	Reason     string // why not ok; for "ok", the rounds that failed, if any
	Requests   int
	ReqPerSec  float64
	AvgMs      float64
	P99Ms      float64
	TransferMB float64    // MB/s
	Errors     int        // socket errors plus non-2xx answers
	Rounds     []E2ERound `json:",omitempty"`
}

// E2ERound is one server's measurement in one round.
type E2ERound struct {
	Round      int    // from 1
	Position   int    // its place in the round's order, from 1
	Status     string // "ok", StateWrong or "failed"
	Reason     string
	Requests   int
	ReqPerSec  float64
	AvgMs      float64
	P99Ms      float64
	TransferMB float64
	Errors     int
	RawFile    string // wrk's output, relative to bench/
}

// ReadJSON loads v from a JSON file.
func ReadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// WriteJSON stores v as indented JSON.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
