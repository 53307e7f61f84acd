package largeapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"golang.org/x/sys/unix"
)

// Forms are the document forms both frameworks serve, by path, in the
// order measured.
var Forms = []struct{ Name, Path string }{
	{"json", "/openapi.json"},
	{"yaml", "/openapi.yaml"},
	{"json30", "/openapi-3.0.json"},
	{"yaml30", "/openapi-3.0.yaml"},
}

// Cost is what one step took: wall-clock time and CPU time, in
// nanoseconds. The CPU time of a large step (registration, Check, a
// document's first request) is the process's, every thread's, the
// collector's included; that of a request, its thread's (serveAlone).
type Cost struct {
	Wall, CPU int64
}

// Result is what one process measured. Sizes are in bytes.
type Result struct {
	Framework string
	N         int
	Types     int // distinct output types; 0 for the shared variant
	Register  Cost
	Check     *Cost // vane's Router.Check; nil for Huma, which has none
	First     Cost  // the first request to an operation, after registration (and Check)
	Second    Cost
	Forms     map[string]FormResult
	// HeapAfterRegister is the live heap after registration (and Check),
	// Heap after every form was served, each after a collection.
	HeapAfterRegister, Heap uint64
	PeakRSS                 uint64 // the process's peak resident set (VmHWM)
}

// FormResult is one document form's first and second request.
type FormResult struct {
	First, Second Cost
	Bytes         int
}

// Main measures one configuration, named by the flags, and writes its
// Result as JSON to standard output. regs are the registrars of the
// distinct-types variant the program was generated for (nil for the
// shared variant alone).
func Main(regs []Registrar) {
	framework := flag.String("framework", "vane", "vane or huma")
	n := flag.Int("n", 100, "operations")
	memprofile := flag.String("memprofile", "", "write a heap profile (allocations included) here at the end")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run here")
	flag.Parse()
	if *memprofile != "" {
		runtime.MemProfileRate = 64 << 10
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	types := len(regs)
	if types == 0 {
		regs = []Registrar{Shared}
	}
	res, err := Measure(*framework, *n, regs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "largeapi:", err)
		os.Exit(1)
	}
	res.Types = types
	json.NewEncoder(os.Stdout).Encode(res)
	if *memprofile != "" {
		if f, err := os.Create(*memprofile); err == nil {
			pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
		}
	}
}

type clock struct {
	wall time.Time
	cpu  int64
}

func cpuNow() int64 { return clockNow(unix.CLOCK_PROCESS_CPUTIME_ID) }

func clockNow(id int32) int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(id, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}

func start() clock { return clock{time.Now(), cpuNow()} }

// serveAlone serves one request on a thread of its own and returns its
// cost, the CPU time that thread spent: what the request did, collection
// work it was made to assist with included, but not what the runtime did
// meanwhile on its own account (returning the memory freed by the steps
// before to the system, say), which the process's CPU time would count.
func serveAlone(h http.Handler, w http.ResponseWriter, req *http.Request) Cost {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	wall, cpu := time.Now(), clockNow(unix.CLOCK_THREAD_CPUTIME_ID)
	h.ServeHTTP(w, req)
	return Cost{Wall: int64(time.Since(wall)), CPU: clockNow(unix.CLOCK_THREAD_CPUTIME_ID) - cpu}
}

// startSettled collects the garbage of the steps before, then starts the
// clock: a large step's time is its own work, the collections its own
// allocations make included, and not a collection the steps before left
// due. (Small steps, a request, start without: just after a collection,
// every size of allocation first refills its cache, which would be most of
// what they measure.)
func startSettled() clock {
	runtime.GC()
	return start()
}

func (c clock) cost() Cost {
	return Cost{Wall: int64(time.Since(c.wall)), CPU: cpuNow() - c.cpu}
}

// Measure builds the API in this process and measures it.
func Measure(framework string, n int, regs []Registrar) (*Result, error) {
	res := &Result{Framework: framework, N: n, Forms: map[string]FormResult{}}
	var h http.Handler
	c := startSettled()
	switch framework {
	case "vane":
		r := BuildVane(n, regs)
		res.Register = c.cost()
		h = r
		c = startSettled()
		if err := r.Check(); err != nil {
			return nil, err
		}
		check := c.cost()
		res.Check = &check
	case "huma":
		h = BuildHuma(n, regs)
		res.Register = c.cost()
	default:
		return nil, fmt.Errorf("unknown framework %q", framework)
	}
	res.HeapAfterRegister = liveHeap()

	op := n / 2
	for i, dst := range []*Cost{&res.First, &res.Second} {
		d, _, err := get(h, false, RequestPath(op), `"id":7`, "X-Tenant", "t")
		if err != nil {
			return nil, fmt.Errorf("request %d: %w", i+1, err)
		}
		*dst = d
	}
	for _, f := range Forms {
		var fr FormResult
		for i, dst := range []*Cost{&fr.First, &fr.Second} {
			d, size, err := get(h, i == 0, f.Path, "/r"+strconv.Itoa(n/2)+"/items/{id}")
			if err != nil {
				return nil, fmt.Errorf("%s request %d: %w", f.Path, i+1, err)
			}
			*dst, fr.Bytes = d, size
		}
		res.Forms[f.Name] = fr
	}
	res.Heap = liveHeap()
	res.PeakRSS = peakRSS()
	runtime.KeepAlive(h)
	return res, nil
}

// get serves one GET request and returns what ServeHTTP cost and the
// body's length: a large step (settle set) after a collection, in the
// process's CPU time; a request in its thread's (serveAlone); a status other than 200, or a body without want, is an
// error. The body is not kept: a document of 20,000 operations would
// weigh on the peak memory measured.
func get(h http.Handler, settle bool, target string, want string, header ...string) (Cost, int, error) {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	w := &scanWriter{header: http.Header{}, want: []byte(want)}
	var d Cost
	if settle {
		c := startSettled()
		h.ServeHTTP(w, req)
		d = c.cost()
	} else {
		d = serveAlone(h, w, req)
	}
	if w.status != 0 && w.status != http.StatusOK {
		return Cost{}, 0, fmt.Errorf("GET %s: status %d: %.300s", target, w.status, w.head)
	}
	if !w.found {
		return Cost{}, 0, fmt.Errorf("GET %s: the body lacks %q: %.300s", target, want, w.head)
	}
	return d, w.n, nil
}

// scanWriter is a ResponseWriter that keeps a body's length, its first
// bytes, and whether it holds want, and nothing else.
type scanWriter struct {
	header http.Header
	status int
	n      int
	head   []byte
	want   []byte
	tail   []byte // the last len(want)-1 bytes, for a match across writes
	found  bool
}

func (w *scanWriter) Header() http.Header { return w.header }
func (w *scanWriter) WriteHeader(s int) {
	if w.status == 0 {
		w.status = s
	}
}

func (w *scanWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.n += len(b)
	if len(w.head) < 300 {
		w.head = append(w.head, b[:min(len(b), 300-len(w.head))]...)
	}
	if !w.found {
		// A match within b, or across the end of what came before.
		keep := len(w.want) - 1
		joined := append(w.tail, b[:min(len(b), keep)]...)
		w.found = bytes.Contains(b, w.want) || bytes.Contains(joined, w.want)
		if len(b) >= keep {
			w.tail = append(w.tail[:0], b[len(b)-keep:]...)
		} else {
			w.tail = append(w.tail[:0], joined[max(0, len(joined)-keep):]...)
		}
	}
	return len(b), nil
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// peakRSS reads the process's peak resident set size from
// /proc/self/status (VmHWM); 0 where there is none.
func peakRSS() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func humaNew(mux *http.ServeMux) huma.API {
	return humago.New(mux, huma.DefaultConfig("API", "0.0.0"))
}
