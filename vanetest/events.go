package vanetest

import (
	"bufio"
	"io"
	"strings"
)

// Event is one server-sent event as a browser's EventSource reads it:
// its id, its name (event) and its data, lines joined by "\n".
type Event struct {
	ID, Name, Data string
}

// Events reads the server-sent events of an event stream body r and
// sends each, in order, until r ends; the channel is then closed. Comment
// lines (heartbeats) are skipped. The caller closes r to stop it early.
func Events(r io.Reader) <-chan Event {
	c := make(chan Event, 64)
	go func() {
		defer close(c)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		var cur Event
		var data []string
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				if cur.Name != "" || len(data) > 0 {
					cur.Data = strings.Join(data, "\n")
					c <- cur
				}
				cur, data = Event{}, nil
				continue
			}
			if strings.HasPrefix(line, ":") {
				continue
			}
			k, v, _ := strings.Cut(line, ":")
			v = strings.TrimPrefix(v, " ")
			switch k {
			case "id":
				cur.ID = v
			case "event":
				cur.Name = v
			case "data":
				data = append(data, v)
			}
		}
	}()
	return c
}
