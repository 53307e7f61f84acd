package main

import (
	"bufio"
	"strings"
	"testing"
)

// TestReadAnswer: an answer is read to the end of its body, so the next
// one starts where it ends; a non-200 or an answer without a length is an
// error.
func TestReadAnswer(t *testing.T) {
	two := "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nde"
	br := bufio.NewReader(strings.NewReader(two))
	for i := range 2 {
		if err := readAnswer(br); err != nil {
			t.Fatalf("answer %d: %v", i+1, err)
		}
	}
	if _, err := br.ReadByte(); err == nil {
		t.Error("bytes left after two answers")
	}
	for _, bad := range []string{"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", "HTTP/1.1 200 OK\r\n\r\n"} {
		if err := readAnswer(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
