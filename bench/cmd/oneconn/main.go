// Command oneconn sends n requests of the seed-003 service, one after
// another on one keep-alive connection, reading each answer whole, and
// exits: a fixed amount of work for counting a server's instructions
// (bench/e2e-instructions), where wrk gives a fixed time.
//
//	oneconn -addr 127.0.0.1:18099 -n 1000
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/vane-http/vane/bench/e2e"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18099", "the server")
	n := flag.Int("n", 1000, "requests")
	wait := flag.Duration("wait", time.Minute, "how long to wait for the server to listen")
	flag.Parse()
	if err := run(*addr, *n, *wait); err != nil {
		fmt.Fprintln(os.Stderr, "oneconn:", err)
		os.Exit(1)
	}
}

func run(addr string, n int, wait time.Duration) error {
	var c net.Conn
	var err error
	for deadline := time.Now().Add(wait); ; time.Sleep(50 * time.Millisecond) {
		if c, err = net.Dial("tcp", addr); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		return err
	}
	defer c.Close()
	req := []byte("GET " + e2e.Path + " HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: " + e2e.Auth + "\r\n\r\n")
	br := bufio.NewReader(c)
	for i := 0; i < n; i++ {
		if _, err := c.Write(req); err != nil {
			return err
		}
		if err := readAnswer(br); err != nil {
			return fmt.Errorf("answer %d: %w", i+1, err)
		}
	}
	return nil
}

// readAnswer reads one answer with a Content-Length body, which must be a
// 200.
func readAnswer(br *bufio.Reader) error {
	status, err := br.ReadSlice('\n')
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(status, []byte("HTTP/1.1 200 ")) {
		return fmt.Errorf("status line %q", status)
	}
	length := -1
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			break
		}
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(k, []byte("Content-Length")) {
			if length, err = strconv.Atoi(string(bytes.TrimSpace(v))); err != nil {
				return err
			}
		}
	}
	if length < 0 {
		return fmt.Errorf("no Content-Length")
	}
	_, err = io.CopyN(io.Discard, br, int64(length))
	return err
}
