package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/vane-http/vane/bench/report"
)

var (
	reLatency  = regexp.MustCompile(`(?m)^\s+Latency\s+([\d.]+)(us|ms|s)\b`)
	reP99      = regexp.MustCompile(`(?m)^\s+99%\s+([\d.]+)(us|ms|s)\b`)
	reRequests = regexp.MustCompile(`(?m)^\s+(\d+) requests in`)
	reRPS      = regexp.MustCompile(`(?m)^Requests/sec:\s+([\d.]+)`)
	reTransfer = regexp.MustCompile(`(?m)^Transfer/sec:\s+([\d.]+)(B|KB|MB|GB)`)
	reSocket   = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	reNon2xx   = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
)

// ParseWrk reads wrk's report (run with --latency).
func ParseWrk(out string) (report.E2EResult, error) {
	var r report.E2EResult
	m := reRPS.FindStringSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("no Requests/sec in wrk's output: %.300s", out)
	}
	r.ReqPerSec, _ = strconv.ParseFloat(m[1], 64)
	if m := reLatency.FindStringSubmatch(out); m != nil {
		r.AvgMs = toMs(m[1], m[2])
	}
	if m := reP99.FindStringSubmatch(out); m != nil {
		r.P99Ms = toMs(m[1], m[2])
	}
	if m := reRequests.FindStringSubmatch(out); m != nil {
		r.Requests, _ = strconv.Atoi(m[1])
	}
	if m := reTransfer.FindStringSubmatch(out); m != nil {
		v, _ := strconv.ParseFloat(m[1], 64)
		r.TransferMB = v * map[string]float64{"B": 1.0 / (1 << 20), "KB": 1.0 / 1024, "MB": 1, "GB": 1024}[m[2]]
	}
	if m := reSocket.FindStringSubmatch(out); m != nil {
		for _, x := range m[1:] {
			n, _ := strconv.Atoi(x)
			r.Errors += n
		}
	}
	if m := reNon2xx.FindStringSubmatch(out); m != nil {
		n, _ := strconv.Atoi(m[1])
		r.Errors += n
	}
	return r, nil
}

func toMs(v, unit string) float64 {
	f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
	switch unit {
	case "us":
		return f / 1000
	case "s":
		return f * 1000
	}
	return f
}
