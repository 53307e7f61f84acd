package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/vane-http/vane/bench/report"
)

// gitState returns the commit checked out in the repository holding dir
// and how the working tree differs from it. Untracked files count (an
// untracked .go file changes the build); the benchmarks' own outputs do not.
func gitState(dir string) (string, report.Tree) {
	root := output("git", "-C", dir, "rev-parse", "--show-toplevel")
	if root == "" {
		return "", report.Tree{}
	}
	commit := output("git", "-C", root, "rev-parse", "HEAD")
	status, _ := exec.Command("git", "-C", root, "status", "--porcelain=v1", "--untracked-files=all").Output()
	return commit, report.Tree{Changed: changedSources(string(status))}
}

// outputs are the paths the benchmarks write, and the tools installed for
// them: they never make a tree dirty.
var outputs = []string{"BENCHMARKS.md", "bench/results/", "bench/charts/", "bench/bin/", ".tools/"}

// changedSources keeps the lines of `git status --porcelain` that are not
// outputs of the benchmarks.
func changedSources(status string) []string {
	var out []string
	for _, line := range strings.Split(status, "\n") {
		if len(line) < 4 {
			continue
		}
		path := line[3:]
		if _, to, ok := strings.Cut(path, " -> "); ok {
			path = to
		}
		path = strings.Trim(path, `"`)
		isOutput := false
		for _, o := range outputs {
			if path == o || (strings.HasSuffix(o, "/") && strings.HasPrefix(path, o)) {
				isOutput = true
			}
		}
		if !isOutput {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}

// prune removes from dir every raw result (bench-*, e2e-*) that keep does
// not name: only the run the report shows stays. It returns what it removed.
func prune(dir string, keep []string) ([]string, error) {
	kept := map[string]bool{}
	for _, k := range keep {
		if k != "" {
			kept[filepath.Base(k)] = true
		}
	}
	var removed []string
	for _, pattern := range []string{"bench-*.txt", "bench-*.json", "e2e-*.txt", "e2e-*.json", "largeapi-*.json"} {
		files, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return removed, err
		}
		for _, f := range files {
			if kept[filepath.Base(f)] {
				continue
			}
			if err := os.Remove(f); err != nil {
				return removed, err
			}
			removed = append(removed, f)
		}
	}
	return removed, nil
}

// shownFiles are the files a report rests on: the raw output and its
// metadata, the end-to-end summary and wrk's output of each of its rounds.
func shownFiles(raw, e2eFile string, e *report.E2E) []string {
	var keep []string
	if raw != "" {
		keep = append(keep, raw, metaFile(raw))
	}
	if e2eFile != "" {
		keep = append(keep, e2eFile)
	}
	if e != nil {
		for _, res := range e.Results {
			for _, r := range res.Rounds {
				keep = append(keep, r.RawFile)
			}
		}
	}
	return keep
}

func metaFile(raw string) string { return strings.TrimSuffix(raw, ".txt") + ".json" }

func output(name string, args ...string) string {
	b, err := exec.Command(name, args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
