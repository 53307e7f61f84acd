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
//	go run ./petstore openapi json 3.0 > openapi-3.0.json   # for generators that read only 3.0
//	go run ./petstore seed 1000000         # add a million generated pets, in bulk
//	go run ./petstore -engine fast          # served by vane's fasthttp engine (package fast)
//	go run ./petstore -h                    # every setting, with its flag, variable and default
//
// (from the examples directory, the module's root). Reading is open;
// writing needs a bearer token: PETSTORE_TOKEN's, or one the service
// makes and prints at start-up when it is not set:
//
//	curl localhost:8080/pets?species=cat
//	curl -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
//		-d '{"name":"Nemo","species":"fish"}' localhost:8080/pets
//
// The command line is package cli's: every setting is a flag and an
// environment variable (the flag wins over the variable, the variable
// over the default), apart from the secrets, which come from the
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
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/vane-http/vane"
	"github.com/vane-http/vane/cli"
	"github.com/vane-http/vane/fast"
	"github.com/vane-http/vane/middleware"
	"github.com/vane-http/vane/openapi"
)

// settings are the command's options. Each is the flag its field's name
// gives (CORSOrigins: -cors-origins) and the variable PETSTORE_ and its
// name (PETSTORE_CORS_ORIGINS), unless its tags say otherwise.
type settings struct {
	Addr        string `default:":8080" doc:"address to listen on"`
	Data        string `default:"petstore-data" doc:"directory of the SQLite database, used when no PostgreSQL URL is given"`
	DatabaseURL string `env:"DATABASE_URL" doc:"PostgreSQL URL; empty: SQLite"`
	Engine      string `default:"net/http" enum:"net/http,fast" doc:"the server under the service; fast is vane's fasthttp engine, HTTP/1.1 only"`

	CORSOrigins    []string      `doc:"comma-separated origins whose browser pages may call the API, such as https://app.example.com"`
	TrustedProxies []string      `doc:"comma-separated addresses and CIDR prefixes of the proxies whose X-Forwarded-For is believed"`
	Timeout        time.Duration `default:"15s" doc:"time an API request has to answer before a 503"`
	DrainDelay     time.Duration `doc:"at shutdown, time to keep serving with readiness failing before the listener closes; 5s-15s behind a load balancer"`
	Log            string        `default:"json" enum:"json,text" doc:"the format of the logs on standard error"`

	Token     string `flag:"-" doc:"the bearer token for writing (default: a new random one, printed)"`
	CursorKey string `flag:"-" doc:"the key that signs list cursors, at least 32 characters, the same on every replica (default: a new random one, which only this process knows)"`
}

// app is the command: serve (the default), openapi and seed.
var app = &cli.App[settings]{
	Name:      "petstore",
	Doc:       "petstore is vane's example service: a pet store API, its data in SQLite or PostgreSQL.",
	EnvPrefix: "PETSTORE_",
	API: func(s *settings) (*vane.Router, openapi.Config, error) {
		return newService(nil, nil, options{timeout: s.Timeout}), docsConfig().Config, nil
	},
	Serve: serve,
	Commands: []cli.Command[settings]{{
		Name: "seed", Args: "N", Doc: "add N generated pets to the store, in bulk, and exit",
		Run: seedStore,
	}},
}

func main() { app.Main() }

// serve runs the service until ctx ends, or until Ctrl-C or SIGTERM:
// readiness fails at once, the listener closes after the drain delay, and
// the requests in flight finish.
func serve(ctx context.Context, s *settings, env *cli.Env) error {
	cursorKey := []byte(s.CursorKey)
	if len(cursorKey) > 0 && len(cursorKey) < minCursorKey {
		return fmt.Errorf("PETSTORE_CURSOR_KEY has %d characters; it needs at least %d (openssl rand -hex 32 makes one)", len(cursorKey), minCursorKey)
	}
	trusted, err := middleware.ParseTrustedProxies(strings.Join(s.TrustedProxies, ","))
	if err != nil {
		return err
	}
	token, tokenMade := s.Token, false
	if token == "" {
		token, tokenMade = randomToken(), true
	}
	tokens := map[string]string{token: "demo"}

	logger := newLogger(s.Log, env.Stderr)
	// What logs through slog's default (vane's "operation failed"
	// records, the log package) is written as the service's own records,
	// while serve runs: slog's default is the process's, one service's.
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(logger)
	store, where, err := openStore(ctx, s, logger)
	if err != nil {
		return err
	}
	defer store.Close()
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
		Addr:       s.Addr,
		Logger:     logger,
		DrainDelay: s.DrainDelay,
		OnListen: func(a net.Addr) {
			base := "http://" + browsable(a)
			fmt.Fprintf(env.Stdout, "pet store: %s/pets\ndocs page: %s/docs\nOpenAPI:   %s/openapi.yaml\nhealth:    %s/healthz %s/readyz\n"+
				"database:  %s\ntoken:     %s (for POST, PUT, DELETE and /me)\n",
				base, base, base, base, base, where, shownToken)
		},
	}
	srv.Handler = newService(store, tokens, options{
		logger:         logger,
		cursorKey:      cursorKey,
		trustedProxies: trusted,
		corsOrigins:    s.CORSOrigins,
		timeout:        s.Timeout,
		ready:          readiness(srv, store),
	})
	if s.Engine == "fast" {
		return fast.ListenAndServe(ctx, srv)
	}
	return srv.ListenAndServe(ctx)
}

// seedStore is the seed command: it adds N generated pets to the store,
// in bulk, printing its progress.
func seedStore(ctx context.Context, s *settings, env *cli.Env) error {
	if len(env.Args) != 1 {
		return fmt.Errorf("seed: want one number of pets, not %q", env.Args)
	}
	n, err := strconv.Atoi(env.Args[0])
	if err != nil || n < 1 {
		return fmt.Errorf("seed: want a number of pets, not %q", env.Args[0])
	}
	store, _, err := openStore(ctx, s, newLogger(s.Log, env.Stderr))
	if err != nil {
		return err
	}
	defer store.Close()
	return store.Seed(ctx, n, env.Stdout)
}

// newLogger returns the service's logger: records in format (json or
// text) on w, each with its request's ID.
func newLogger(format string, w io.Writer) *slog.Logger {
	var h slog.Handler = slog.NewJSONHandler(w, nil)
	if format == "text" {
		h = slog.NewTextHandler(w, nil)
	}
	return slog.New(requestIDHandler{h})
}

// openStore opens the store the settings name, PostgreSQL or SQLite, and
// says which, for printing.
func openStore(ctx context.Context, s *settings, logger *slog.Logger) (*Store, string, error) {
	if s.DatabaseURL != "" {
		store, err := OpenPostgres(ctx, s.DatabaseURL, logger)
		return store, "postgres " + redactURL(s.DatabaseURL), err
	}
	store, err := OpenSQLite(ctx, s.Data, logger)
	return store, "sqlite " + s.Data, err
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
