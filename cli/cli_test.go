package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/cli"
	"github.com/vane-http/vane/internal/oasvalidate"
	"github.com/vane-http/vane/openapi"
)

type Limits struct {
	MaxBody int64 `default:"1048576" doc:"largest request body, in bytes"`
}

type Common struct {
	Debug bool `doc:"log at debug level"`
}

// runOptions are the options of the notes service the tests run.
type runOptions struct {
	Common
	Addr        string        `default:":8080" doc:"address to listen on"`
	DatabaseURL string        `env:"DATABASE_URL" doc:"PostgreSQL URL; empty: SQLite"`
	Timeout     time.Duration `default:"15s" doc:"time a request has to answer"`
	Origins     []string      `flag:"origin" default:"https://a.example" doc:"origins allowed to call the API"`
	Level       slog.Level    `default:"info" doc:"log level"`
	Ratio       float64       `default:"0.5"`
	PublicURL   string        `doc:"the API's public URL, for the document's servers"`
	Token       string        `flag:"-" doc:"the bearer token for writes"`
	Limits      Limits
	Internal    string `flag:"-" env:"-"`
}

type GetNote struct {
	ID int64 `path:"id" minimum:"1"`
}

type Note struct {
	ID   int64  `json:"id"`
	Text string `json:"text"`
}

// newAPI is the service's router; store is nil for the openapi command.
func newAPI(store map[int64]string, o *runOptions) (*vane.Router, openapi.Config) {
	r := vane.New()
	vane.Get(r, "/notes/{id}", func(ctx context.Context, in *GetNote) (*Note, error) {
		return &Note{ID: in.ID, Text: store[in.ID]}, nil
	}, vane.ID("getNote"))
	cfg := openapi.Config{Info: openapi.Info{Title: "Notes", Version: "1.2.3"}}
	if o.PublicURL != "" {
		cfg.Servers = []*openapi.Server{{URL: o.PublicURL}}
	}
	vane.Docs(r, vane.DocsConfig{Config: cfg})
	return r, cfg
}

// run runs app with args and env, and returns what it wrote.
type result struct {
	stdout, stderr string
	err            error
	served         *runOptions // the options Serve got; nil if not called
	ran            []string    // the command that ran, and its arguments
}

func runApp(args []string, env map[string]string) result {
	var res result
	app := &cli.App[runOptions]{
		Name:      "notes",
		Doc:       "notes is a small notes service.",
		EnvPrefix: "NOTES_",
		API: func(o *runOptions) (*vane.Router, openapi.Config, error) {
			r, cfg := newAPI(nil, o)
			return r, cfg, nil
		},
		Serve: func(ctx context.Context, o *runOptions, env *cli.Env) error {
			res.served = o
			fmt.Fprintln(env.Stdout, "serving on", o.Addr)
			return nil
		},
		Commands: []cli.Command[runOptions]{{
			Name: "seed", Args: "N", Doc: "add N notes",
			Run: func(ctx context.Context, o *runOptions, env *cli.Env) error {
				res.ran = append([]string{"seed", o.Addr}, env.Args...)
				return nil
			},
		}},
	}
	var stdout, stderr bytes.Buffer
	res.err = app.Run(context.Background(), args, func(k string) string { return env[k] }, &stdout, &stderr)
	res.stdout, res.stderr = stdout.String(), stderr.String()
	return res
}

// Options come from defaults, then variables, then flags, each overriding
// the one before.
func TestOptionSources(t *testing.T) {
	def := runOptions{Addr: ":8080", Timeout: 15 * time.Second, Origins: []string{"https://a.example"}, Ratio: 0.5,
		Limits: Limits{MaxBody: 1 << 20}}
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		want func(o *runOptions)
	}{
		{"defaults", nil, nil, func(o *runOptions) {}},
		{"variables", nil, map[string]string{
			"NOTES_ADDR": ":9000", "DATABASE_URL": "postgres://db", "NOTES_TIMEOUT": "1m30s", "NOTES_ORIGIN": "x",
			"NOTES_ORIGINS": "https://b.example, https://c.example,", "NOTES_LEVEL": "debug", "NOTES_DEBUG": "true",
			"NOTES_RATIO": "0.25", "NOTES_TOKEN": "secret", "NOTES_LIMITS_MAX_BODY": "256", "NOTES_INTERNAL": "no",
			"NOTES_DATABASE_URL": "ignored: the env tag names the variable",
		}, func(o *runOptions) {
			o.Addr, o.DatabaseURL, o.Timeout = ":9000", "postgres://db", 90*time.Second
			o.Origins, o.Level, o.Debug, o.Ratio = []string{"https://b.example", "https://c.example"}, slog.LevelDebug, true, 0.25
			o.Token, o.Limits.MaxBody = "secret", 256
		}},
		{"an empty variable is unset", nil, map[string]string{"NOTES_ADDR": ""}, func(o *runOptions) {}},
		{"flags over variables", []string{"-addr", ":7000", "-debug", "-origin", "x,y", "-origin=z", "-limits-max-body", "10", "-level", "warn", "-database-url", "pg://f"},
			map[string]string{"NOTES_ADDR": ":9000", "NOTES_ORIGINS": "v", "NOTES_DEBUG": "true", "NOTES_LEVEL": "error"},
			func(o *runOptions) {
				o.Addr, o.Debug, o.Origins, o.Limits.MaxBody, o.Level, o.DatabaseURL = ":7000", true, []string{"x", "y", "z"}, 10, slog.LevelWarn, "pg://f"
			}},
		{"a bool flag set false", []string{"-debug=false"}, map[string]string{"NOTES_DEBUG": "1"}, func(o *runOptions) {}},
		{"options after serve", []string{"-addr", ":1", "serve", "-timeout", "2s", "-origin", "q"}, nil, func(o *runOptions) {
			o.Addr, o.Timeout, o.Origins = ":1", 2*time.Second, []string{"q"}
		}},
		{"lists added to across serve", []string{"-origin", "a", "serve", "-origin", "b"}, nil, func(o *runOptions) {
			o.Origins = []string{"a", "b"}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := runApp(c.args, c.env)
			if res.err != nil || res.served == nil {
				t.Fatalf("%v, served %v; stderr %s", res.err, res.served != nil, res.stderr)
			}
			want := def
			want.Origins = append([]string(nil), def.Origins...)
			c.want(&want)
			if !reflect.DeepEqual(*res.served, want) {
				t.Errorf("options\n%+v\nwant\n%+v", *res.served, want)
			}
			if res.stdout != "serving on "+want.Addr+"\n" {
				t.Errorf("stdout %q", res.stdout)
			}
		})
	}
}

func TestCommandLineErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"unknown flag", []string{"-nope"}, nil, "flag provided but not defined: -nope"},
		{"bad flag value", []string{"-timeout", "soon"}, nil, `invalid value "soon" for flag -timeout`},
		{"an option with neither flag nor variable", []string{"-internal", "x"}, nil, "flag provided but not defined: -internal"},
		{"unknown command", []string{"deploy"}, nil, `unknown command "deploy"`},
		{"serve with arguments", []string{"serve", "now"}, nil, `serve takes no arguments`},
		{"openapi with a bad argument", []string{"openapi", "xml"}, nil, `openapi takes json or yaml and 3.1 or 3.0, not "xml"`},
		{"a bad variable, not repeated", nil, map[string]string{"NOTES_LIMITS_MAX_BODY": "hunter2"}, "$NOTES_LIMITS_MAX_BODY (option runOptions.Limits.MaxBody) is not a valid int"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := runApp(c.args, c.env)
			var ue *cli.UsageError
			if !errors.As(res.err, &ue) || !strings.Contains(res.err.Error(), c.want) {
				t.Fatalf("error %v, want a usage error with %q", res.err, c.want)
			}
			if res.served != nil || res.stdout != "" {
				t.Errorf("ran anyway: %q", res.stdout)
			}
			if strings.Contains(res.err.Error(), "hunter2") || strings.Contains(res.stderr, "hunter2") {
				t.Errorf("the variable's value is repeated: %v %s", res.err, res.stderr)
			}
			if c.env == nil && !strings.Contains(res.stderr, "Usage:") {
				t.Errorf("no help on stderr: %q", res.stderr)
			}
		})
	}
}

// The help lists the commands and every option with its flag, variable
// and default, and never a variable's value.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"--help"}, {"serve", "-h"}} {
		res := runApp(args, map[string]string{"NOTES_TOKEN": "s3cr3t-token", "DATABASE_URL": "postgres://u:pw@db"})
		if res.err != nil || res.served != nil {
			t.Fatalf("%v: %v", args, res.err)
		}
		for _, want := range []string{
			"notes is a small notes service.", "notes [options] [command]",
			"serve ", "openapi [json|yaml] [3.1|3.0]", "seed N ", "add N notes",
			"-addr string\n    \taddress to listen on ($NOTES_ADDR, default \":8080\")",
			"-database-url string\n    \tPostgreSQL URL; empty: SQLite ($DATABASE_URL)",
			"-timeout duration", "-origin list", "-debug \n", "-limits-max-body int\n    \tlargest request body, in bytes ($NOTES_LIMITS_MAX_BODY, default \"1048576\")",
			"$NOTES_TOKEN string\n    \tthe bearer token for writes",
		} {
			if !strings.Contains(res.stdout, want) {
				t.Errorf("%v: the help lacks %q:\n%s", args, want, res.stdout)
			}
		}
		if strings.Contains(res.stdout, "s3cr3t") || strings.Contains(res.stdout, "pw@") || strings.Contains(res.stdout, "internal") {
			t.Errorf("%v: the help shows a variable's value or an option with neither flag nor variable:\n%s", args, res.stdout)
		}
	}
}

func TestCommands(t *testing.T) {
	res := runApp([]string{"-addr", ":5", "seed", "100", "-fast"}, nil)
	if res.err != nil || res.served != nil || fmt.Sprint(res.ran) != "[seed :5 100 -fast]" {
		t.Errorf("%v %v %v", res.err, res.served != nil, res.ran)
	}
}

// The openapi command writes the router's document in each form, the
// same as vane serves, and serves nothing.
func TestOpenAPI(t *testing.T) {
	o := &runOptions{PublicURL: "https://notes.example/api"}
	r, _ := newAPI(nil, o)
	served := func(path string) []byte {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if w.Code != http.StatusOK {
			t.Fatalf("GET %s: %d", path, w.Code)
		}
		return w.Body.Bytes()
	}
	docs := map[string][]byte{}
	for _, c := range []struct {
		args []string
		path string
	}{
		{[]string{"openapi"}, "/openapi.yaml"},
		{[]string{"openapi", "yaml", "3.1"}, "/openapi.yaml"},
		{[]string{"openapi", "json"}, "/openapi.json"},
		{[]string{"openapi", "3.0"}, "/openapi-3.0.yaml"},
		{[]string{"openapi", "3.0", "json"}, "/openapi-3.0.json"},
		{[]string{"openapi", "json", "3.0"}, "/openapi-3.0.json"},
	} {
		args := append([]string{"-public-url", o.PublicURL}, c.args...)
		res := runApp(args, nil)
		if res.err != nil || res.served != nil || res.stderr != "" {
			t.Fatalf("%v: %v, served %v, stderr %s", c.args, res.err, res.served != nil, res.stderr)
		}
		got, want := decode(t, res.stdout), decode(t, string(served(c.path)))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v is not %s:\n%s", c.args, c.path, res.stdout)
		}
		docs[strings.TrimPrefix(c.path, "/")] = []byte(res.stdout)
	}
	// The options reach the document (its servers), and the 3.0 form is 3.0.
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Servers []struct{ URL string }    `json:"servers"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal([]byte(docs["openapi-3.0.json"]), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != openapi.Version30 || len(doc.Servers) != 1 || doc.Servers[0].URL != o.PublicURL || doc.Paths["/notes/{id}"]["get"] == nil {
		t.Errorf("3.0 document: %+v", doc)
	}
	// An independent validator reads each form as valid OpenAPI.
	oasvalidate.Validate(t, docs)
}

// decode reads a JSON or YAML document into plain values.
func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(s), &v); err != nil { // YAML reads JSON too
		t.Fatalf("%v:\n%s", err, s)
	}
	return v
}

// A document that cannot be built is the command's error.
func TestOpenAPIError(t *testing.T) {
	app := &cli.App[struct{}]{API: func(*struct{}) (*vane.Router, openapi.Config, error) {
		r := vane.New()
		vane.Get(r, "/x", func(context.Context, *struct{}) (*Note, error) { return nil, nil },
			vane.Security("nowhere"))
		return r, openapi.Config{}, nil
	}}
	var out bytes.Buffer
	err := app.Run(context.Background(), []string{"openapi"}, func(string) string { return "" }, &out, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "nowhere") || out.Len() != 0 {
		t.Errorf("%v, wrote %q", err, out.String())
	}
	app.API = func(*struct{}) (*vane.Router, openapi.Config, error) {
		return nil, openapi.Config{}, errors.New("no API today")
	}
	if err := app.Run(context.Background(), []string{"openapi"}, func(string) string { return "" }, &out, io.Discard); err == nil || err.Error() != "no API today" {
		t.Errorf("%v", err)
	}
}

// Tags and types that cannot work are refused at once, naming the field.
func TestOptionErrors(t *testing.T) {
	check := func(name string, run func() error, want string) {
		t.Helper()
		err := run()
		var ue *cli.UsageError
		if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", name, err, want)
		}
	}
	noenv := func(string) string { return "" }
	type withMap struct {
		Addr  string
		Hooks map[string]string `flag:"-" env:"-"`
	}
	check("a map", func() error {
		return (&cli.App[withMap]{}).Run(context.Background(), nil, noenv, io.Discard, io.Discard)
	}, "option withMap.Hooks: a map[string]string cannot be read from text")
	check("a pointer", func() error {
		return (&cli.App[struct{ P *int }]{}).Run(context.Background(), nil, noenv, io.Discard, io.Discard)
	}, "option .P: a *int cannot be read")
	check("a bad default", func() error {
		return (&cli.App[struct {
			N int `default:"ten"`
		}]{}).Run(context.Background(), nil, noenv, io.Discard, io.Discard)
	}, `option .N: default "ten"`)
	check("one flag twice", func() error {
		return (&cli.App[struct {
			A string `flag:"x"`
			B string `flag:"x"`
		}]{}).Run(context.Background(), nil, noenv, io.Discard, io.Discard)
	}, ".A and .B both have the flag -x")
	check("one variable twice", func() error {
		return (&cli.App[struct {
			A string `env:"X"`
			B string `env:"X"`
		}]{}).Run(context.Background(), nil, noenv, io.Discard, io.Discard)
	}, ".A and .B both read $X")
	check("not a struct", func() error {
		return (&cli.App[int]{}).Run(context.Background(), nil, noenv, io.Discard, io.Discard)
	}, "the options are a int, not a struct")
	check("a command named serve", func() error {
		return (&cli.App[struct{}]{Commands: []cli.Command[struct{}]{{Name: "serve", Run: func(context.Context, *struct{}, *cli.Env) error { return nil }}}}).
			Run(context.Background(), nil, noenv, io.Discard, io.Discard)
	}, `command "serve"`)
	check("no Serve", func() error {
		return (&cli.App[struct{}]{}).Run(context.Background(), nil, noenv, io.Discard, io.Discard)
	}, "the App has no Serve")
}

func TestNames(t *testing.T) {
	type names struct {
		DatabaseURL string
		HTTPAddr    string
		MaxBodyMB   int
		ID          string
		V2Key       string
		CORSOrigins []string
	}
	var help bytes.Buffer
	err := (&cli.App[names]{Name: "x", EnvPrefix: "X_"}).Run(context.Background(), []string{"help"}, func(string) string { return "" }, &help, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"-database-url string\n    \t($X_DATABASE_URL)", "-http-addr string\n    \t($X_HTTP_ADDR)",
		"-max-body-mb int\n    \t($X_MAX_BODY_MB)", "-id string\n    \t($X_ID)", "-v2-key string\n    \t($X_V2_KEY)",
		"-cors-origins list\n    \t($X_CORS_ORIGINS)",
	} {
		if !strings.Contains(help.String(), want) {
			t.Errorf("the help lacks %q:\n%s", want, help.String())
		}
	}
}

// An enum option takes only its values, from a flag, a variable or its
// default; the help lists them.
func TestEnum(t *testing.T) {
	type enumOptions struct {
		Log    string   `default:"json" enum:"json,text" doc:"log format"`
		Engine string   `env:"ENGINE" enum:"net/http, fast"`
		Tags   []string `enum:"a,b"`
	}
	run := func(args []string, env map[string]string) (*enumOptions, string, error) {
		var got *enumOptions
		var stdout, stderr bytes.Buffer
		app := &cli.App[enumOptions]{Name: "e", EnvPrefix: "E_", Serve: func(_ context.Context, o *enumOptions, _ *cli.Env) error {
			got = o
			return nil
		}}
		err := app.Run(context.Background(), args, func(k string) string { return env[k] }, &stdout, &stderr)
		return got, stdout.String(), err
	}
	for _, c := range []struct {
		args []string
		env  map[string]string
		want enumOptions
	}{
		{nil, nil, enumOptions{Log: "json"}},
		{[]string{"-log", "text", "-engine", "fast", "-tags", "b,a", "-tags", "a"}, nil, enumOptions{"text", "fast", []string{"b", "a", "a"}}},
		{nil, map[string]string{"E_LOG": "text", "ENGINE": "net/http", "E_TAGS": "a, b"}, enumOptions{"text", "net/http", []string{"a", "b"}}},
	} {
		got, _, err := run(c.args, c.env)
		if err != nil || got == nil || !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%v %v: %+v, %v; want %+v", c.args, c.env, got, err, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"-log", "xml"}, nil, `invalid value "xml" for flag -log: not one of json, text`},
		{[]string{"-engine", "fasthttp"}, nil, `invalid value "fasthttp" for flag -engine: not one of net/http, fast`},
		{[]string{"-tags", "a,c"}, nil, `invalid value "a,c" for flag -tags: not one of a, b`},
		{[]string{"-log", "JSON"}, nil, `invalid value "JSON" for flag -log: not one of json, text`},
		{nil, map[string]string{"E_LOG": "hunter2"}, "$E_LOG (option enumOptions.Log) is not one of json, text"},
		{nil, map[string]string{"E_TAGS": "a,hunter2"}, "$E_TAGS (option enumOptions.Tags) is not one of a, b"},
	} {
		got, _, err := run(c.args, c.env)
		var ue *cli.UsageError
		if !errors.As(err, &ue) || err.Error() != c.want || got != nil {
			t.Errorf("%v %v: %v (served: %v), want the usage error %q", c.args, c.env, err, got != nil, c.want)
		}
	}
	_, help, err := run([]string{"-h"}, nil)
	for _, want := range []string{"-log json|text\n    \tlog format ($E_LOG, default \"json\")", "-engine net/http|fast\n", "-tags list of a|b\n"} {
		if err != nil || !strings.Contains(help, want) {
			t.Errorf("the help lacks %q (%v):\n%s", want, err, help)
		}
	}
}

// An enum on an option it cannot constrain, an empty one, or a default
// outside it is refused at once, naming the field.
func TestEnumErrors(t *testing.T) {
	noenv := func(string) string { return "" }
	for _, c := range []struct {
		run  func() error
		want string
	}{
		{func() error {
			return (&cli.App[struct {
				N int `enum:"1,2"`
			}]{}).Run(context.Background(), nil, noenv, io.Discard, io.Discard)
		}, "option .N: an enum is for a string or a []string, not a int"},
		{func() error {
			return (&cli.App[struct {
				L slog.Level `enum:"info"`
			}]{}).Run(context.Background(), nil, noenv, io.Discard, io.Discard)
		}, "option .L: an enum is for a string or a []string, not a slog.Level"},
		{func() error {
			return (&cli.App[struct {
				S string `enum:" , "`
			}]{}).Run(context.Background(), nil, noenv, io.Discard, io.Discard)
		}, "option .S: an empty enum"},
		{func() error {
			return (&cli.App[struct {
				S string `default:"xml" enum:"json,text"`
			}]{}).Run(context.Background(), nil, noenv, io.Discard, io.Discard)
		}, `option .S: default "xml": not one of json, text`},
	} {
		err := c.run()
		var ue *cli.UsageError
		if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want an error with %q", err, c.want)
		}
	}
}
