package e2e

import "testing"

// A wrk 4 report, as printed with --latency.
const wrkOutput = `Running 10s test @ http://127.0.0.1:40123/items/123?verbose=true
  2 threads and 10 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   118.42us  101.92us   5.00ms   96.21%
    Req/Sec     8.65k   411.81    11.28k    84.23%
  Latency Distribution
     50%  101.00us
     75%  130.00us
     90%  180.00us
     99%    1.20ms
  867478 requests in 10.10s, 150.57MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 4
Requests/sec:  85892.15
Transfer/sec:     14.91MB
`

func TestParseWrk(t *testing.T) {
	r, err := ParseWrk(wrkOutput)
	if err != nil {
		t.Fatal(err)
	}
	if r.ReqPerSec != 85892.15 || r.Requests != 867478 || r.Errors != 7 {
		t.Errorf("%+v", r)
	}
	if r.AvgMs < 0.1184 || r.AvgMs > 0.1185 || r.P99Ms != 1.2 || r.TransferMB != 14.91 {
		t.Errorf("%+v", r)
	}
	if _, err := ParseWrk("connection refused"); err == nil {
		t.Error("no error for output without a result")
	}
}
