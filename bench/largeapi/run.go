package largeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// Process is one measurement: one framework, size and variant, in one
// round, in a process of its own.
type Process struct {
	Framework string
	N         int
	Types     int     // distinct output types; 0 for shared
	Round     int     // from 1
	Status    string  // "ok" or "failed"
	Reason    string  `json:",omitempty"`
	Result    *Result `json:",omitempty"`
}

// RunOptions say what Run measures, and how.
type RunOptions struct {
	Sizes      []int    // operations
	Variants   []int    // distinct output types; 0 is the shared variant
	Frameworks []string // "vane", "huma"
	Rounds     int
	CPU        int           // the CPU every process is pinned to (taskset), with GOMAXPROCS=1; -1: not pinned
	Timeout    time.Duration // per process
	Log        io.Writer
}

// Command is how a process is started, FRAMEWORK, N and BINARY standing
// for each.
func (o RunOptions) Command() string {
	c := "GOMAXPROCS=1 BINARY -framework FRAMEWORK -n N"
	if o.CPU >= 0 {
		c = "taskset -c " + strconv.Itoa(o.CPU) + " env " + c
	}
	return c
}

// Binary is the program that measures a variant, relative to bench/.
func Binary(types int) string {
	if types == 0 {
		return filepath.Join("bin", "largeapi")
	}
	return filepath.Join("bin", fmt.Sprintf("largeapi-%d", types))
}

// Build builds the programs of the variants, inside bench/: cmd/largeapi
// for the shared one, and a program Generate writes for each number of
// distinct types.
func Build(variants []int, log io.Writer) error {
	for _, k := range variants {
		pkg := "./cmd/largeapi"
		if k > 0 {
			dir := filepath.Join("largeapi", fmt.Sprintf("_distinct%d", k))
			if err := Generate(dir, "github.com/vane-http/vane/bench/largeapi/"+filepath.Base(dir), k); err != nil {
				return err
			}
			pkg = "./" + dir
		}
		fmt.Fprintf(log, "largeapi: building %s (%d distinct types; the Go build cache keeps it)\n", Binary(k), k)
		start := time.Now()
		cmd := exec.Command("go", "build", "-o", Binary(k), pkg)
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("largeapi: go build %s: %v", pkg, err)
		}
		fmt.Fprintf(log, "largeapi: built in %s\n", time.Since(start).Round(time.Second))
	}
	return nil
}

// Run measures every framework at every size of every variant, in every
// round, each in a process of its own, the frameworks' order alternating
// from round to round. Build must have built the programs.
func Run(o RunOptions) []Process {
	var out []Process
	total := o.Rounds * len(o.Variants) * len(o.Sizes) * len(o.Frameworks)
	for round := 1; round <= o.Rounds; round++ {
		for _, k := range o.Variants {
			for _, n := range o.Sizes {
				fws := append([]string(nil), o.Frameworks...)
				if round%2 == 0 {
					for i, j := 0, len(fws)-1; i < j; i, j = i+1, j-1 {
						fws[i], fws[j] = fws[j], fws[i]
					}
				}
				for _, fw := range fws {
					p := Process{Framework: fw, N: n, Types: k, Round: round}
					start := time.Now()
					res, err := o.one(fw, n, k)
					if err != nil {
						p.Status, p.Reason = "failed", err.Error()
					} else {
						p.Status, p.Result = "ok", res
					}
					out = append(out, p)
					fmt.Fprintf(o.Log, "largeapi: [%d/%d] round %d, %d types, %d operations, %s: %s in %s\n",
						len(out), total, round, k, n, fw, p.Status, time.Since(start).Round(time.Millisecond))
					if err != nil {
						fmt.Fprintf(o.Log, "largeapi:   %v\n", err)
					}
				}
			}
		}
	}
	return out
}

func (o RunOptions) one(framework string, n, types int) (*Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
	defer cancel()
	argv := []string{"env", "GOMAXPROCS=1", "./" + Binary(types), "-framework", framework, "-n", strconv.Itoa(n)}
	if o.CPU >= 0 {
		argv = append([]string{"taskset", "-c", strconv.Itoa(o.CPU)}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("no result within %s", o.Timeout)
		}
		return nil, fmt.Errorf("%v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	var res Result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return nil, fmt.Errorf("reading the result: %v", err)
	}
	if res.Framework != framework || res.N != n || res.Types != types {
		return nil, fmt.Errorf("the process measured %s, %d operations, %d types", res.Framework, res.N, res.Types)
	}
	return &res, nil
}
