// Command profshare splits the CPU profiles that bench/e2e-profile takes
// by whose code each sample is in, per request served: the application's
// handler, vane, a peer framework (fiber, gin, echo, chi, huma), the HTTP
// server (net/http or fasthttp), the garbage
// collector's background work, and the rest of the runtime (scheduler,
// network poller). It prints a Markdown table, medians over the rounds.
//
//	go run ./cmd/profshare -dir results/profile -rounds 3 net/http vane fiber
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// owners of code. A sample is its innermost owned frame's owner: the
// leaf's if it is owned, else its caller's, and so on, so that encoding/json
// called by a handler is the application's, an allocation in vane's codec
// vane's, and a system call made by the server the server's.
var owners = []struct {
	name string
	is   func(fn string) bool
}{
	{"server", func(fn string) bool {
		return strings.HasPrefix(fn, "net/http.") || strings.HasPrefix(fn, "github.com/valyala/fasthttp") ||
			strings.Contains(fn, "NewFastHTTPHandler") // fasthttpadaptor's closure, inlined where it is made
	}},
	{"application", func(fn string) bool {
		return strings.HasPrefix(fn, "main.") || strings.HasPrefix(fn, "github.com/vane-http/vane/bench/")
	}},
	{"engine", func(fn string) bool { // vane's fast engine: between fasthttp and vane's handlers
		return strings.HasPrefix(fn, "github.com/vane-http/vane/fast.") || strings.HasPrefix(fn, "github.com/vane-http/vane/internal/engine.")
	}},
	{"vane", func(fn string) bool { return strings.HasPrefix(fn, "github.com/vane-http/vane") }},
	{"framework", func(fn string) bool {
		for _, peer := range []string{"github.com/gofiber/", "github.com/gin-gonic/", "github.com/labstack/echo", "github.com/go-chi/", "github.com/danielgtaylor/huma"} {
			if strings.HasPrefix(fn, peer) {
				return true
			}
		}
		return false
	}},
	{"GC", func(fn string) bool {
		return fn == "runtime.gcBgMarkWorker" || fn == "runtime.bgsweep" || fn == "runtime.bgscavenge"
	}},
}

// unowned are functions whose samples go to their callers: the fast
// engine's connection, which fasthttp reads and writes through, so that
// its system calls are the server's as they are under fiber.
var unowned = map[string]bool{
	"github.com/vane-http/vane/fast.(*peerConn).Read":  true,
	"github.com/vane-http/vane/fast.(*peerConn).Write": true,
}

// syscall reports whether a leaf function is a system call or the poller.
func syscall(fn string) bool {
	return strings.HasPrefix(fn, "syscall.") || strings.HasPrefix(fn, "internal/runtime/syscall") ||
		strings.HasPrefix(fn, "runtime.netpoll") || strings.HasPrefix(fn, "runtime/internal/syscall") ||
		fn == "runtime.futex" || fn == "runtime.epollwait"
}

var reRequests = regexp.MustCompile(`(?m)^\s+(\d+) requests in`)

func main() {
	dir := flag.String("dir", "results/profile", "where e2e-profile left the profiles and wrk reports")
	rounds := flag.Int("rounds", 3, "rounds")
	flag.Parse()
	cols := []string{"application", "vane", "engine", "framework", "server", "GC", "runtime"}
	fmt.Println("| implementation | requests/s | CPU µs per request | " + strings.Join(cols, " | ") + " | of which system calls |")
	fmt.Println("|---|---|---|" + strings.Repeat("---|", len(cols)+1))
	for _, impl := range flag.Args() {
		name := strings.ReplaceAll(impl, "/", "-")
		per := map[string][]float64{}
		var rps, total []float64
		for r := 1; r <= *rounds; r++ {
			base := filepath.Join(*dir, name+"-r"+strconv.Itoa(r))
			n, secs := requests(base+".warm"), 0.0
			measured := requests(base + ".wrk")
			n += measured
			if m := regexp.MustCompile(`(?m)^Requests/sec:\s+([\d.]+)`).FindStringSubmatch(read(base + ".wrk")); m != nil {
				v, _ := strconv.ParseFloat(m[1], 64)
				rps = append(rps, v)
			}
			f, err := os.Open(base + ".prof")
			if err != nil {
				log.Fatal(err)
			}
			p, err := profile.Parse(f)
			f.Close()
			if err != nil {
				log.Fatalf("%s: %v", base, err)
			}
			cpu := len(p.SampleType) - 1 // cpu nanoseconds
			byOwner := map[string]float64{}
			for _, s := range p.Sample {
				ns := float64(s.Value[cpu])
				secs += ns / 1e9
				byOwner[owner(s)] += ns
				if leaf := funcName(s, 0); syscall(leaf) {
					byOwner["syscall"] += ns
				}
			}
			total = append(total, secs*1e6/float64(n))
			for k, v := range byOwner {
				per[k] = append(per[k], v/1e3/float64(n))
			}
		}
		row := fmt.Sprintf("| %s | %.0f | %.2f |", impl, median(rps), median(total))
		for _, c := range append(cols, "syscall") {
			row += fmt.Sprintf(" %.2f |", median(per[c]))
		}
		fmt.Println(row)
	}
}

// owner names whose code the sample s is in.
func owner(s *profile.Sample) string {
	for _, loc := range s.Location {
		for _, l := range loc.Line { // inlined functions too, innermost first
			if unowned[l.Function.Name] {
				continue
			}
			for _, o := range owners {
				if o.is(l.Function.Name) {
					return o.name
				}
			}
		}
	}
	return "runtime"
}

// funcName is the innermost function of the i-th location of s (0: the
// leaf).
func funcName(s *profile.Sample, i int) string {
	if i >= len(s.Location) || len(s.Location[i].Line) == 0 {
		return ""
	}
	return s.Location[i].Line[0].Function.Name
}

func requests(file string) int {
	m := reRequests.FindStringSubmatch(read(file))
	if m == nil {
		log.Fatalf("%s: no request count", file)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func read(file string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		log.Fatal(err)
	}
	return string(b)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	xs = slices.Clone(xs)
	slices.Sort(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}
