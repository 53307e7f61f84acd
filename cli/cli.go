// Package cli makes a vane service a command: its options from flags and
// the environment, "serve" (the default) to run it, and "openapi" to write
// its OpenAPI document to standard output without serving, for client
// generation in CI.
//
// The options are a struct whose fields say their flag, environment
// variable, default and help in tags:
//
//	type Options struct {
//		Addr        string        `default:":8080" doc:"address to listen on"`
//		DatabaseURL string        `env:"DATABASE_URL" doc:"PostgreSQL URL; empty: SQLite"`
//		Timeout     time.Duration `default:"15s" doc:"time a request has to answer"`
//	}
//
//	func main() {
//		app := &cli.App[Options]{
//			Name:      "notes",
//			EnvPrefix: "NOTES_",
//			API: func(o *Options) (*vane.Router, openapi.Config, error) {
//				return newAPI(nil), docsConfig, nil // registered, never called
//			},
//			Serve: func(ctx context.Context, o *Options, env *cli.Env) error {
//				db, err := open(o.DatabaseURL)
//				if err != nil {
//					return err
//				}
//				return vane.Serve(ctx, o.Addr, newAPI(db))
//			},
//		}
//		app.Main()
//	}
//
// Then:
//
//	notes                          # serve on :8080 (or $NOTES_ADDR)
//	notes -addr :9000              # the same as: notes serve -addr :9000
//	notes openapi json 3.0         # the OpenAPI 3.0 document as JSON, on standard output
//	notes -h                       # the commands and every option, with its variable and default
//
// # Options
//
// Every exported field of the options struct is an option, read from its
// default, then its environment variable, then its flag, each overriding
// the one before; an empty variable counts as unset. Its tags:
//
//   - flag: the flag's name; "-" for none. Default: the field's name in
//     lower case with dashes between its words (DatabaseURL: -database-url).
//   - env: the variable's name, used as it is; "-" for none. Default:
//     App.EnvPrefix and the field's name in upper case with underscores
//     between its words (NOTES_DATABASE_URL).
//   - default: the value when neither sets it, as a flag would give it.
//   - enum: the values a string option (or each item of a []string) may
//     take, separated by commas, as on vane's inputs; the help lists them
//     in place of the type (-log json|text), and another value is a wrong
//     command line (the default too is checked, at once).
//   - doc: a line of help.
//
// A field is a string, a bool (-debug, -debug=false), an integer (in
// decimal), a float, a time.Duration (15s, 1m30s), a []string (items
// separated by commas in a variable or a default; each flag adds its
// items, the first replacing the others), or any type whose pointer is an
// encoding.TextUnmarshaler (slog.Level, netip.Addr). A struct field is a
// group of options whose flags and derived variables are prefixed with
// its name (DB.URL: -db-url, NOTES_DB_URL); an embedded one's are not.
// Another type, a bad default or two options with one flag or variable
// make Run fail at once, naming the field.
//
// The help (-h) shows each option's flag, variable and default, never the
// value a variable holds, which may be a secret; an error about a
// variable does not repeat its value either.
//
// A struct rather than a registration API (flag.String and so on): the
// options are one typed value that Serve, API and the service's own code
// receive and tests build directly, each option is declared once with its
// flag, variable, default and help side by side, and the same tags
// (default, doc) mean what they mean on vane's inputs.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/openapi"
)

// App is a service's command line. O is the options struct (see the
// package documentation for its tags).
type App[O any] struct {
	// Name is the command's name in its help. Empty: the program's file
	// name.
	Name string

	// Doc says what the service is, in a line or two at the top of the
	// help.
	Doc string

	// EnvPrefix is put before the environment variable names derived from
	// the options' field names: with "NOTES_", the field DatabaseURL is
	// read from NOTES_DATABASE_URL. A variable named in an env tag is used
	// as it is, without the prefix.
	EnvPrefix string

	// API returns the service's router, with every operation registered,
	// and the configuration of its document (what vane.Docs is given):
	// the openapi command writes vane.OpenAPI of them. It is called for
	// the openapi command only, and nothing it returns is served or
	// called, so it opens nothing: build the router as Serve does, with
	// the handlers' dependencies (a database, clients) left nil.
	API func(o *O) (*vane.Router, openapi.Config, error)

	// Serve runs the service until ctx ends (vane.Serve and vane.Server
	// also end it on SIGINT and SIGTERM): the serve command, and the
	// command run when none is named.
	Serve func(ctx context.Context, o *O, env *Env) error

	// Commands are the service's other commands, such as a database
	// migration or seeding, listed in the help after serve and openapi.
	Commands []Command[O]
}

// Command is one of a service's own commands.
type Command[O any] struct {
	Name string // what the user types; not serve, openapi or help
	Args string // its arguments, for the help: "N", "[-dry-run] FILE"
	Doc  string // what it does, in a line

	// Run runs it with the options and, in env.Args, the arguments after
	// its name, which it parses itself.
	Run func(ctx context.Context, o *O, env *Env) error
}

// Env is what a command runs with: its arguments and the process's
// output streams and environment, as Run was given them, so that a test
// runs a command in process and reads what it writes.
type Env struct {
	Args   []string                // the arguments after the command's name
	Stdout io.Writer               // the command's output (the document, for openapi)
	Stderr io.Writer               // diagnostics and logs
	Getenv func(key string) string // the environment, as os.Getenv
}

// Main runs the command line of the process (os.Args, the environment,
// standard output and error) and exits: with status 0 on success, 2 when
// the command line is wrong (after the help, on standard error), 1 on any
// other error (after the error, on standard error).
func (a *App[O]) Main() {
	err := a.Run(context.Background(), os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	if err == nil {
		os.Exit(0)
	}
	fmt.Fprintf(os.Stderr, "%s: %v\n", a.name(), err)
	if errors.As(err, new(*UsageError)) {
		os.Exit(2)
	}
	os.Exit(1)
}

// UsageError is Run's error for a command line it cannot run: an unknown
// command or option, a value that does not parse. The help has been
// written to standard error.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Run runs the command line args (without the program's name) with the
// environment getenv, writing to stdout and stderr:
//
//	name [options] [serve [options]]
//	name [options] openapi [options] [json|yaml] [3.1|3.0]
//	name [options] COMMAND [its arguments]
//	name help | -h
//
// The options are read from their defaults, then their environment
// variables, then the flags, each overriding the one before. With no
// command, serve runs. openapi writes the service's OpenAPI document
// (vane.OpenAPI of what API returns) to stdout, in OpenAPI 3.1 unless 3.0
// is asked for (the translation vane serves at /openapi-3.0.json, for
// generators that read only 3.0), as YAML unless json is asked for; it
// calls neither Serve nor any handler. help and -h write the help to
// stdout.
//
// An error in the options struct's tags is reported as an error naming
// the field; a wrong command line as a *UsageError.
func (a *App[O]) Run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	o := new(O)
	opts, err := options(o, a.EnvPrefix)
	if err != nil {
		return err
	}
	for _, c := range a.Commands {
		if c.Name == "" || c.Run == nil || slices.Contains(builtins, c.Name) {
			return fmt.Errorf("cli: command %q: a command needs a Name other than %s, and a Run", c.Name, strings.Join(builtins, ", "))
		}
	}
	for i := range opts {
		if err := opts[i].setFromEnv(getenv); err != nil {
			return &UsageError{err}
		}
	}
	usage := func(w io.Writer) { a.usage(w, opts) }
	fail := func(err error) error {
		usage(stderr)
		return &UsageError{err}
	}
	parse := func(args []string) ([]string, error) {
		fs := flag.NewFlagSet(a.name(), flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		for i := range opts {
			if opts[i].flag != "" {
				fs.Var(opts[i].value, opts[i].flag, opts[i].doc)
			}
		}
		err := fs.Parse(args)
		return fs.Args(), err
	}

	rest, err := parse(args)
	if errors.Is(err, flag.ErrHelp) {
		usage(stdout)
		return nil
	}
	if err != nil {
		return fail(err)
	}
	command := "serve"
	if len(rest) > 0 {
		command, rest = rest[0], rest[1:]
	}
	env := &Env{Args: rest, Stdout: stdout, Stderr: stderr, Getenv: getenv}
	switch command {
	case "help":
		usage(stdout)
		return nil
	case "serve", "openapi":
		// Options may follow these commands too.
		if env.Args, err = parse(rest); errors.Is(err, flag.ErrHelp) {
			usage(stdout)
			return nil
		} else if err != nil {
			return fail(err)
		}
	}
	switch command {
	case "serve":
		if len(env.Args) > 0 {
			return fail(fmt.Errorf("serve takes no arguments, not %q", env.Args))
		}
		if a.Serve == nil {
			return errors.New("cli: the App has no Serve")
		}
		return a.Serve(ctx, o, env)
	case "openapi":
		return a.writeOpenAPI(o, env, fail)
	}
	for _, c := range a.Commands {
		if c.Name == command {
			return c.Run(ctx, o, env)
		}
	}
	return fail(fmt.Errorf("unknown command %q", command))
}

// builtins are the commands every App has.
var builtins = []string{"serve", "openapi", "help"}

// writeOpenAPI is the openapi command.
func (a *App[O]) writeOpenAPI(o *O, env *Env, fail func(error) error) error {
	version, format := "3.1", "yaml"
	for _, arg := range env.Args {
		switch arg {
		case "3.1", "3.0":
			version = arg
		case "json", "yaml":
			format = arg
		default:
			return fail(fmt.Errorf("openapi takes json or yaml and 3.1 or 3.0, not %q", arg))
		}
	}
	if a.API == nil {
		return errors.New("cli: the App has no API")
	}
	r, cfg, err := a.API(o)
	if err != nil {
		return err
	}
	doc, err := vane.OpenAPI(r, cfg)
	if err != nil {
		return err
	}
	out, err := doc.JSON()
	if err == nil && version == "3.0" {
		out, err = openapi.Translate30(out)
	}
	if err == nil && format == "yaml" {
		out, err = openapi.JSONToYAML(out)
	}
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(out)
	return err
}

func (a *App[O]) name() string {
	if a.Name != "" {
		return a.Name
	}
	return filepath.Base(os.Args[0])
}

// usage writes the help: the commands, then every option with its flag,
// variable and default. Values read from the environment are not shown:
// they may be secrets.
func (a *App[O]) usage(w io.Writer, opts []option) {
	name := a.name()
	var b strings.Builder
	if a.Doc != "" {
		b.WriteString(strings.TrimSpace(a.Doc) + "\n\n")
	}
	fmt.Fprintf(&b, "Usage:\n  %s [options] [command]\n\nCommands:\n", name)
	cmds := [][2]string{
		{"serve", "serve the API (the default)"},
		{"openapi [json|yaml] [3.1|3.0]", "write the OpenAPI document to standard output (default: yaml 3.1)"},
	}
	for _, c := range a.Commands {
		cmds = append(cmds, [2]string{strings.TrimSpace(c.Name + " " + c.Args), c.Doc})
	}
	cmds = append(cmds, [2]string{"help", "show this help"})
	width := 0
	for _, c := range cmds {
		width = max(width, len(c[0]))
	}
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, c[0], c[1])
	}
	if len(opts) > 0 {
		b.WriteString("\nOptions (a flag overrides its environment variable, which overrides the default):\n")
	}
	for _, o := range opts {
		if o.flag != "" {
			fmt.Fprintf(&b, "  -%s %s\n", o.flag, o.typeName())
		} else {
			fmt.Fprintf(&b, "  $%s %s\n", o.env, o.typeName())
		}
		var notes []string
		if o.flag != "" && o.env != "" {
			notes = append(notes, "$"+o.env)
		}
		if o.def != "" {
			notes = append(notes, fmt.Sprintf("default %q", o.def))
		}
		line := o.doc
		if len(notes) > 0 {
			line = strings.TrimSpace(line + " (" + strings.Join(notes, ", ") + ")")
		}
		if line != "" {
			fmt.Fprintf(&b, "    \t%s\n", line)
		}
	}
	io.WriteString(w, b.String()) //nolint:errcheck // help text: nothing to do on a failed write
}

// typeName names an option's type in the help, as package flag does, or
// its enum's values: "json|text", "list of a|b".
func (o *option) typeName() string {
	if o.value.isBool() {
		return ""
	}
	t := o.value.v.Type()
	if e := strings.Join(o.value.enum, "|"); e != "" {
		if t.Kind() == reflect.Slice {
			return "list of " + e
		}
		return e
	}
	switch {
	case t == durationType:
		return "duration"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		return "list"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		return "int"
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		return "uint"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return "float"
	}
	return "string"
}
