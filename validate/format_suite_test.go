package validate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// suiteExceptions lists the JSON-Schema-Test-Suite format cases vane's
// checkers decide differently, each with the reason. Keyed by file and
// case description.
var suiteExceptions = map[string]string{}

// TestFormatSuite runs every case of the official JSON-Schema-Test-Suite
// (draft 2020-12, optional/format, vendored in testdata/format) for the
// formats vane checks. A value that is not a string passes any format.
func TestFormatSuite(t *testing.T) {
	files, err := filepath.Glob("testdata/format/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no suite files: %v", err)
	}
	total, passed := 0, 0
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		check := formats[name]
		if check == nil {
			t.Errorf("format %s has a suite file but no checker", name)
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var groups []struct {
			Description string
			Tests       []struct {
				Description string
				Data        any
				Valid       bool
			}
		}
		if err := json.Unmarshal(data, &groups); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, g := range groups {
			for _, c := range g.Tests {
				total++
				t.Run(name+"/"+c.Description, func(t *testing.T) {
					s, isString := c.Data.(string)
					got := !isString || check(s)
					if got == c.Valid {
						passed++
						return
					}
					if why, ok := suiteExceptions[name+"/"+c.Description]; ok {
						t.Skipf("%q: the suite says valid=%v; vane differs: %s", s, c.Valid, why)
					}
					t.Errorf("%q: valid=%v, want %v", s, got, c.Valid)
				})
			}
		}
	}
	t.Logf("%d cases, %d decided as the suite says, %d listed exceptions", total, passed, len(suiteExceptions))
}
