package report

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Meta is everything about a run that the go test output does not say.
type Meta struct {
	Date      string // UTC, when the run started
	Quick     bool   // CI's quick mode: numbers are not for reading
	Rounds    int    // rounds: every benchmark once per round
	Benchtime string // -benchtime ("" for go test's default)
	GoVersion string // go version
	OS        string // uname -srm
	CPU       string // model name
	Cores     int    // runtime.NumCPU
	Commit    string // the git commit measured (full hash)
	Tree      Tree   // how the working tree differed from Commit
	Pinning   string // how the benchmarks were pinned to CPUs, in a sentence

	// Command is the command that made the run (cmd/report with its flags).
	Command string
	// PinnedCommand and UnpinnedCommand are what each round ran, in bench/,
	// with N for the round; Unpinned lists the top-level benchmarks run by
	// UnpinnedCommand (the rest ran pinned).
	PinnedCommand   string
	UnpinnedCommand string
	Unpinned        []string
	Commands        []string // the Reproduce section

	Versions []Version
	Peers    []string          // column order
	Status   map[string]Status // by Key.String(); a missing key means measured
	Notes    map[string]string // by Key.String(): a footnote on a measured cell
	RawFile  string            // the raw go test output, relative to bench/
}

// Tree is the state of the working tree when a run started: the paths
// that differed from the commit (git status --porcelain lines), outputs
// of the benchmarks themselves left out.
type Tree struct {
	Changed []string `json:",omitempty"`
}

// Clean reports whether the tree was the commit.
func (t Tree) Clean() bool { return len(t.Changed) == 0 }

// Describe names commit and says whether the tree was clean.
func (t Tree) Describe(commit string) string {
	if commit == "" {
		return ""
	}
	if t.Clean() {
		return "`" + commit + "`, working tree clean"
	}
	shown := t.Changed
	more := ""
	if len(shown) > 8 {
		shown, more = shown[:8], fmt.Sprintf(" and %d more", len(t.Changed)-8)
	}
	var files []string
	for _, c := range shown {
		files = append(files, "`"+c+"`")
	}
	return fmt.Sprintf("`%s` **with uncommitted changes**: %s%s", commit, strings.Join(files, ", "), more)
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
	StateAbsent  = "absent"  // an end-to-end server whose tools are not installed
)

// E2E is one end-to-end run under wrk: Rounds rounds, each measuring
// every server once, in the order Orders[round].
type E2E struct {
	Date          string
	Stamp         string // names the run's files: e2e-<Stamp>.json and e2e-<Stamp>-r<round>-<server>.txt
	Commit        string // the git commit measured
	Tree          Tree
	Tool          string // wrk's version line
	Versions      string // of the servers that are not Go modules (FastAPI, uvicorn)
	ReportCommand string // the cmd/report command that made the run
	ServerCommand string // how a server was started, NAME and PORT standing for each
	Command       string // the wrk command, PORT standing for each server's
	Pinning       string // which CPUs the servers and wrk ran on, in a sentence
	Warmup        string
	Duration      string
	Threads       int
	Conns         int
	Rounds        int
	Slices        int        // each server's measurement in a round: Slices wrk runs of Duration/Slices, interleaved with the other servers' (0 or 1: one run of Duration, the servers in turn)
	Orders        [][]string // the order of each round
	Results       []E2EResult
}

// E2EResult is one server's measurement: the medians over the rounds that
// succeeded (Requests and Errors are sums); Rounds holds every round.
type E2EResult struct {
	Name       string
	Status     string // "ok" (at least one round measured), StateAbsent, StatePending, StateWrong or "failed"
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
