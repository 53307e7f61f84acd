package vane_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/internal/oasvalidate"
	"github.com/vane-http/vane/openapi"
)

type OutOfCredit struct {
	Balance  int      `json:"balance" doc:"what is left"`
	Accounts []string `json:"accounts,omitempty"`
}

func TestProblemTypesAreDocumented(t *testing.T) {
	r := vane.New()
	vane.Post(r, "/orders", func(ctx context.Context, in *struct{ Body struct{ Total int } }) (*struct{}, error) {
		return nil, nil
	}, vane.Problems(
		vane.ProblemType{Status: 403, Type: "https://example.com/probs/out-of-credit", Title: "Out of credit", Extensions: OutOfCredit{}},
		vane.ProblemType{Status: 403, Type: "https://example.com/probs/frozen"},
		vane.ProblemType{Status: 401, Headers: map[string]string{"WWW-Authenticate": "how to log in"}},
		vane.ProblemType{Status: 429, Headers: map[string]string{"Retry-After": "seconds to wait"}, Description: "slow down"},
	))
	doc, err := openapi.Build(openapi.Config{Info: openapi.Info{Title: "t", Version: "1"}}, r.Operations())
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var tree struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Description string
				Headers     map[string]any
				Content     map[string]struct{ Schema json.RawMessage }
			}
		}
	}
	if err := json.Unmarshal(js, &tree); err != nil {
		t.Fatal(err)
	}
	res := tree.Paths["/orders"]["post"].Responses
	forbidden := string(res["403"].Content["application/problem+json"].Schema)
	for _, want := range []string{`"anyOf"`, `"const": "https://example.com/probs/out-of-credit"`, `"const": "Out of credit"`, `"$ref": "#/components/schemas/OutOfCredit"`, `"const": "https://example.com/probs/frozen"`, `"$ref": "#/components/schemas/Problem"`} {
		if !strings.Contains(forbidden, want) {
			t.Errorf("403 schema lacks %s:\n%s", want, forbidden)
		}
	}
	if _, ok := res["401"].Headers["WWW-Authenticate"]; !ok {
		t.Errorf("401 without WWW-Authenticate: %+v", res["401"])
	}
	if _, ok := res["429"].Headers["Retry-After"]; !ok || res["429"].Description != "slow down" {
		t.Errorf("429: %+v", res["429"])
	}
	oasvalidate.Validate(t, map[string][]byte{"problems.json": js})
}

func TestProblemTypeRegistrationErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		pt   vane.ProblemType
		want string
	}{
		{"not an error status", vane.ProblemType{Status: 200}, "not an error status"},
		{"not a struct", vane.ProblemType{Status: 400, Extensions: 3}, "not a struct"},
		{"standard member", vane.ProblemType{Status: 400, Extensions: struct {
			Status string `json:"status"`
		}{}}, "standard member"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if msg, _ := recover().(string); !strings.Contains(msg, c.want) {
					t.Errorf("panic %q, want %q", msg, c.want)
				}
			}()
			vane.Get(vane.New(), "/x", func(context.Context, *struct{}) (*struct{}, error) { return nil, nil },
				vane.Problems(c.pt))
		})
	}
}
