package main

import (
	"testing"

	"github.com/google/pprof/profile"
)

// sample is a stack of function names, leaf first; each location may
// hold inlined functions, given as "inner|outer".
func sample(stack ...string) *profile.Sample {
	s := &profile.Sample{}
	for _, frame := range stack {
		loc := &profile.Location{}
		for _, fn := range splitBar(frame) {
			loc.Line = append(loc.Line, profile.Line{Function: &profile.Function{Name: fn}})
		}
		s.Location = append(s.Location, loc)
	}
	return s
}

func splitBar(s string) []string {
	var out []string
	start := 0
	for i := range len(s) + 1 {
		if i == len(s) || s[i] == '|' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

func TestOwner(t *testing.T) {
	for _, tc := range []struct {
		s    *profile.Sample
		want string
	}{
		{sample("runtime.memmove", "encoding/json.Marshal", "main.handler", "net/http.HandlerFunc.ServeHTTP", "net/http.(*conn).serve"), "application"},
		{sample("runtime.mallocgc", "github.com/vane-http/vane/codec.Encode", "github.com/vane-http/vane.(*Router).ServeHTTP", "net/http.(*conn).serve"), "vane"},
		{sample("github.com/vane-http/vane/codec.Encode", "github.com/vane-http/vane.(*typedHandler).serve", "main.handler", "net/http.(*conn).serve"), "vane"},
		{sample("net/http.Header.Get", "main.serveVaneFastHTTP.NewFastHTTPHandler.func2.1", "github.com/valyala/fasthttp.(*Server).serveConn"), "server"},
		{sample("github.com/vane-http/vane/router.match|github.com/vane-http/vane/router.(*mux).dispatch", "net/http.serverHandler.ServeHTTP"), "vane"},
		{sample("github.com/vane-http/vane/bench/e2e.NewItem", "github.com/vane-http/vane.(*Router).ServeHTTP"), "application"},
		{sample("internal/runtime/syscall.Syscall6", "syscall.write", "net.(*conn).Write", "bufio.(*Writer).Flush", "net/http.(*response).finishRequest"), "server"},
		{sample("github.com/valyala/fasthttp.(*Server).serveConn"), "server"},
		{sample("internal/runtime/syscall.Syscall6", "syscall.write", "net.(*conn).Write", "github.com/vane-http/vane/fast.(*peerConn).Write", "bufio.(*Writer).Flush", "github.com/valyala/fasthttp.(*Server).serveConn"), "server"},
		{sample("runtime.mallocgc", "github.com/vane-http/vane/fast.(*state).read", "github.com/vane-http/vane/fast.(*server).handle", "github.com/valyala/fasthttp.(*Server).serveConn"), "engine"},
		{sample("github.com/vane-http/vane/bind.(*Binder).BindRequest", "github.com/vane-http/vane.(*typedHandler).serveEngine", "github.com/vane-http/vane/fast.(*server).serveNative"), "vane"},
		{sample("github.com/gofiber/fiber/v3.(*App).next", "github.com/valyala/fasthttp.(*Server).serveConn"), "framework"},
		{sample("github.com/gin-gonic/gin.(*node).getValue", "github.com/gin-gonic/gin.(*Engine).ServeHTTP", "net/http.serverHandler.ServeHTTP"), "framework"},
		{sample("runtime.scanobject", "runtime.gcDrain", "runtime.gcBgMarkWorker"), "GC"},
		{sample("runtime.findRunnable", "runtime.schedule"), "runtime"},
	} {
		if got := owner(tc.s); got != tc.want {
			t.Errorf("%s…: %s, want %s", tc.s.Location[0].Line[0].Function.Name, got, tc.want)
		}
	}
	if !syscall(funcName(sample("internal/runtime/syscall.Syscall6", "syscall.read"), 0)) || syscall(funcName(sample("runtime.mallocgc"), 0)) {
		t.Error("system calls are the leaves in syscall, internal/runtime/syscall and the poller")
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(tc.xs); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
}
