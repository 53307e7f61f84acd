package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vane-http/vane/bench/peers"
	"github.com/vane-http/vane/bench/report"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		err   error
		state string
	}{
		{peers.ErrLacks{Reason: "pending: not built"}, report.StatePending},
		{peers.ErrLacks{Reason: "skip: baseline only"}, report.StateSkip},
		{peers.ErrLacks{Reason: "has no route groups"}, report.StateLacks},
		{errors.New("GET /x: want route /x, route /y ran"), report.StateWrong},
	} {
		got := classify(c.err)
		if got.State != c.state {
			t.Errorf("%v: state %s, want %s", c.err, got.State, c.state)
		}
		if strings.HasPrefix(got.Reason, "pending:") || strings.HasPrefix(got.Reason, "skip:") {
			t.Errorf("%v: the reason keeps its prefix: %q", c.err, got.Reason)
		}
	}
}

// Every cell the report will not time has a reason, and none is wrong.
func TestStatuses(t *testing.T) {
	for k, st := range statuses() {
		if st.Reason == "" {
			t.Errorf("%s: %s without a reason", k, st.State)
		}
		if st.State == report.StateWrong {
			t.Errorf("%s answers wrongly: %s", k, st.Reason)
		}
	}
}

func TestLatest(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"bench-20261121-120000.txt", "bench-20261121-130000.txt", "e2e-20261121-140000.json"} {
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	if got := latest(dir, "bench-*.txt"); filepath.Base(got) != "bench-20261121-130000.txt" {
		t.Errorf("latest = %s", got)
	}
	if got := latest(dir, "none-*.txt"); got != "" {
		t.Errorf("latest of nothing = %q", got)
	}
}
