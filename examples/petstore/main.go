// Command petstore is vane's example service: a small pet store API with
// typed, validated operations, an OpenAPI 3.1 document and an API reference
// page, its data in SQLite or PostgreSQL, request logs, health and
// readiness probes, and the shutdown order Kubernetes expects.
//
//	go run ./petstore                       # SQLite in ./petstore-data, serves on :8080
//	go run ./petstore -addr :9000 -data /var/lib/petstore
//	DATABASE_URL=postgres://user@db/pets go run ./petstore
//	go run ./petstore openapi > openapi.yaml
//	go run ./petstore openapi json > openapi.json
//	go run ./petstore seed 1000000         # add a million generated pets, in bulk
//	go run ./petstore -engine fast          # served by vane's fasthttp engine (package fast)
//
// (from the examples directory, the module's root). Reading is open;
// writing needs a bearer token: PETSTORE_TOKEN's, or one the service
// makes and prints at start-up when it is not set:
//
//	curl localhost:8080/pets?species=cat
//	curl -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
//		-d '{"name":"Nemo","species":"fish"}' localhost:8080/pets
//
// Every setting is a flag whose default comes from an environment variable
// (run with -h for the list), apart from the secrets, which come from the
// environment only: PETSTORE_TOKEN, and PETSTORE_CURSOR_KEY, the key that
// signs the list cursors (replicas share it; without it each process
// signs with a random key of its own). Logs are JSON lines on standard
// error: one per request, and every other record of a request with its
// request ID.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/fast"
	"github.com/vane-http/vane/middleware"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "petstore:", err)
		os.Exit(1)
	}
}

// run is the whole command, apart from the process's exit: args are the
// command-line arguments, getenv reads the environment, stdout receives
// what it prints and stderr its logs.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	envOr := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	durationEnv := func(name string, def time.Duration) time.Duration {
		if d, err := time.ParseDuration(getenv(name)); err == nil {
			return d
		}
		return def
	}
	flags := flag.NewFlagSet("petstore", flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("addr", envOr("PETSTORE_ADDR", ":8080"), "address to listen on ($PETSTORE_ADDR)")
	dataDir := flags.String("data", envOr("PETSTORE_DATA", "petstore-data"),
		"directory of the SQLite database, used when no PostgreSQL URL is given ($PETSTORE_DATA)")
	dbURL := flags.String("database-url", getenv("DATABASE_URL"), "PostgreSQL URL; empty: SQLite ($DATABASE_URL)")
	origins := flags.String("cors-origins", getenv("PETSTORE_CORS_ORIGINS"),
		"comma-separated origins whose browser pages may call the API, such as https://app.example.com ($PETSTORE_CORS_ORIGINS)")
	proxies := flags.String("trusted-proxies", getenv("PETSTORE_TRUSTED_PROXIES"),
		"comma-separated addresses and CIDR prefixes of the proxies whose X-Forwarded-For is believed ($PETSTORE_TRUSTED_PROXIES)")
	timeout := flags.Duration("timeout", durationEnv("PETSTORE_TIMEOUT", 15*time.Second),
		"time an API request has to answer before a 503 ($PETSTORE_TIMEOUT)")
	drain := flags.Duration("drain-delay", durationEnv("PETSTORE_DRAIN_DELAY", 0),
		"at shutdown, time to keep serving with readiness failing before the listener closes; 5s-15s behind a load balancer ($PETSTORE_DRAIN_DELAY)")
	logFormat := flags.String("log", envOr("PETSTORE_LOG", "json"), "log format: json or text ($PETSTORE_LOG)")
	engine := flags.String("engine", envOr("PETSTORE_ENGINE", "net/http"),
		"the server under the service: net/http, or fast (vane's fasthttp engine, HTTP/1.1 only) ($PETSTORE_ENGINE)")
	flags.Usage = func() {
		fmt.Fprintf(flags.Output(), "usage: petstore [flags]\n"+
			"       petstore openapi [yaml|json]   write the OpenAPI document to standard output\n"+
			"       petstore seed N                add N generated pets to the store, in bulk, and exit\n"+
			"PETSTORE_TOKEN sets the bearer token for writing (default: a new random one, printed).\n"+
			"PETSTORE_CURSOR_KEY sets the key that signs list cursors, at least 32 characters, the same on every replica\n"+
			"(default: a new random one, which only this process knows).\n")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}

	if *engine != "net/http" && *engine != "fast" {
		return fmt.Errorf("unknown engine %q (want net/http or fast)", *engine)
	}

	token, tokenMade := getenv("PETSTORE_TOKEN"), false
	if token == "" {
		token, tokenMade = randomToken(), true
	}
	tokens := map[string]string{token: "demo"}
	cursorKey := []byte(getenv("PETSTORE_CURSOR_KEY"))
	if len(cursorKey) > 0 && len(cursorKey) < minCursorKey {
		return fmt.Errorf("PETSTORE_CURSOR_KEY has %d characters; it needs at least %d (openssl rand -hex 32 makes one)", len(cursorKey), minCursorKey)
	}

	seed := 0
	switch flags.Arg(0) {
	case "":
	case "seed":
		n, err := strconv.Atoi(flags.Arg(1))
		if err != nil || n < 1 {
			return fmt.Errorf("seed: want a number of pets, not %q", flags.Arg(1))
		}
		seed = n
	case "openapi":
		return writeOpenAPI(stdout, newService(nil, tokens, options{timeout: *timeout}), flags.Arg(1))
	default:
		flags.Usage()
		return fmt.Errorf("unknown command %q", flags.Arg(0))
	}

	var handler slog.Handler
	switch *logFormat {
	case "json":
		handler = slog.NewJSONHandler(stderr, nil)
	case "text":
		handler = slog.NewTextHandler(stderr, nil)
	default:
		return fmt.Errorf("unknown log format %q (want json or text)", *logFormat)
	}
	logger := slog.New(requestIDHandler{handler})
	// What logs through slog's default (vane's "operation failed"
	// records, the log package) is written as the service's own records,
	// while run runs: slog's default is the process's, one service's.
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(logger)
	trusted, err := middleware.ParseTrustedProxies(*proxies)
	if err != nil {
		return err
	}

	var store *Store
	where := ""
	if *dbURL != "" {
		store, err = OpenPostgres(ctx, *dbURL, logger)
		where = "postgres " + redactURL(*dbURL)
	} else {
		store, err = OpenSQLite(ctx, *dataDir, logger)
		where = "sqlite " + *dataDir
	}
	if err != nil {
		return err
	}
	defer store.Close()
	if seed > 0 {
		return store.Seed(ctx, seed, stdout)
	}
	if len(cursorKey) == 0 {
		cursorKey = randomKey()
		logger.WarnContext(ctx, "PETSTORE_CURSOR_KEY is not set: list cursors are signed with a random key of this process, "+
			"and are refused by any other. Replicas need one shared key: set PETSTORE_CURSOR_KEY to the same secret on each.")
	}
	shownToken := "from PETSTORE_TOKEN"
	if tokenMade {
		shownToken = token
	}

	srv := &vane.Server{
		Addr:       *addr,
		Logger:     logger,
		DrainDelay: *drain,
		OnListen: func(a net.Addr) {
			base := "http://" + browsable(a)
			fmt.Fprintf(stdout, "pet store: %s/pets\ndocs page: %s/docs\nOpenAPI:   %s/openapi.yaml\nhealth:    %s/healthz %s/readyz\n"+
				"database:  %s\ntoken:     %s (for POST, PUT, DELETE and /me)\n",
				base, base, base, base, base, where, shownToken)
		},
	}
	srv.Handler = newService(store, tokens, options{
		logger:         logger,
		cursorKey:      cursorKey,
		trustedProxies: trusted,
		corsOrigins:    splitList(*origins),
		timeout:        *timeout,
		ready:          readiness(srv, store),
	})
	// ListenAndServe stops when ctx ends or on Ctrl-C or SIGTERM: readiness
	// fails at once, the listener closes after the drain delay, and the
	// requests in flight finish.
	if *engine == "fast" {
		return fast.ListenAndServe(ctx, srv)
	}
	return srv.ListenAndServe(ctx)
}

// writeOpenAPI writes the service's OpenAPI document, as YAML or JSON.
func writeOpenAPI(w io.Writer, r *vane.Router, format string) error {
	doc, err := vane.OpenAPI(r, docsConfig().Config)
	if err != nil {
		return err
	}
	var out []byte
	switch format {
	case "", "yaml":
		out, err = doc.YAML()
	case "json":
		out, err = doc.JSON()
	default:
		return fmt.Errorf("unknown format %q (want yaml or json)", format)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// browsable turns a listener's address into one a browser can open:
// "[::]:8080" becomes "localhost:8080".
func browsable(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// redactURL hides the password of a database URL, for printing.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "(a PostgreSQL connection string)" // keyword=value form: it may hold a password
	}
	return u.Redacted()
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

func randomToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// minCursorKey is the fewest characters PETSTORE_CURSOR_KEY may have: a
// key that a list of guesses could hold would let anyone who has one
// cursor forge others offline.
const minCursorKey = 32

// randomKey returns a new cursor key of 32 random bytes.
func randomKey() []byte {
	b := make([]byte, 32)
	rand.Read(b)
	return b
}
