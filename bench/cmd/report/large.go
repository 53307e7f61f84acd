package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vane-http/vane/bench/largeapi"
	"github.com/vane-http/vane/bench/report"
)

// largeRun runs the large-API workload (package largeapi) and keeps its
// results in dir as largeapi-<stamp>.json.
func largeRun(dir string, o largeapi.RunOptions, command string) error {
	o.Log = os.Stderr
	if err := largeapi.Build(o.Variants, o.Log); err != nil {
		return err
	}
	res := report.LargeAPI{
		Date:           time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		Stamp:          time.Now().UTC().Format("20060102-150405"),
		ReportCommand:  command,
		ProcessCommand: o.Command(),
		Rounds:         o.Rounds,
		Sizes:          o.Sizes,
		Variants:       o.Variants,
	}
	res.Commit, res.Tree = gitState("..")
	res.Processes = largeapi.Run(o)
	return report.WriteJSON(filepath.Join(dir, "largeapi-"+res.Stamp+".json"), res)
}

// intList parses "100,1000" into numbers.
func intList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}
