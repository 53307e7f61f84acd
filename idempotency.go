package vane

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vane-http/vane/bind"
	"github.com/vane-http/vane/operation"
	"github.com/vane-http/vane/problem"
	"github.com/vane-http/vane/router"
	"github.com/vane-http/vane/schema"
)

// Idempotency keys (the IETF httpapi draft "The Idempotency-Key HTTP
// Header Field"): a client that sends an unsafe request with a key of its
// choosing, and gets no answer, sends it again with the same key and
// gets the first answer instead of a second write. docs/idempotency.md
// says what a client sees; docs/design/2026-11-27-idempotency.md why it
// works the way it does.

const (
	// IdempotencyKeyHeader is the request header field that carries an
	// idempotency key.
	IdempotencyKeyHeader = "Idempotency-Key"
	// ReplayedHeader marks an answer that was recorded for an earlier
	// request with the same key and is sent again: its value is "true".
	// A first answer never has it.
	ReplayedHeader = "Idempotent-Replayed"
	// DefaultIdempotencyRetention is how long an outcome is kept when
	// Idempotency.Retention is zero.
	DefaultIdempotencyRetention = 24 * time.Hour
	// MinIdempotencyKeyLength and MaxIdempotencyKeyLength bound a key's
	// length, in characters, its quotes not counted: a short key is
	// easy to guess, and a long one costs the store.
	MinIdempotencyKeyLength = 16
	MaxIdempotencyKeyLength = 255
	// MaxOutcomeBytes is the largest body an outcome records: an answer
	// with a larger body cannot be recorded (Idempotent.Outcome fails).
	MaxOutcomeBytes = 1 << 20
)

// Problem types of the answers about idempotency keys. Each names a
// section of docs/idempotency.md.
const (
	idempotencyDocs         = "https://github.com/vane-http/vane/blob/main/docs/idempotency.md"
	KeyMissingType          = idempotencyDocs + "#key-missing"
	KeyInUseType            = idempotencyDocs + "#key-in-use"
	KeyReusedType           = idempotencyDocs + "#key-reused"
	idempotencyKeyCharsDesc = "letters, digits and - . _ ~ : + / ="
)

// idempotencyKeyPattern is the grammar of an Idempotency-Key field value,
// as the document publishes it: an sf-string (RFC 8941 section 3.3.3) of
// 16 to 255 characters of idempotencyKeyChars, or the same characters
// without quotes (as many clients send it). parseIdempotencyKey reads
// exactly this.
const idempotencyKeyPattern = `^("[A-Za-z0-9._~:+/=-]{16,255}"|[A-Za-z0-9._~:+/=-]{16,255})$`

// Idempotency configures an operation's idempotency keys (IdempotencyKeys):
// where outcomes are kept, for how long, and who a key belongs to. One
// value may serve many operations.
type Idempotency struct {
	// Store keeps the outcomes. Required.
	Store IdempotencyStore

	// Retention is how long an outcome is kept: a retry after it is a new
	// request. Zero means DefaultIdempotencyRetention (24 hours); Off (any
	// negative duration) keeps outcomes for ever (their Expires is
	// NeverExpires), so that the store grows with every keyed request.
	// The document publishes it.
	Retention time.Duration

	// Required makes a request without an Idempotency-Key a 400 (the
	// document marks the header required). Otherwise a request without
	// one is served as any other, without protection.
	Required bool

	// Principal names who sent a request (a user or client ID, found by
	// the authentication in front of the operation), and scopes keys to
	// it: the same key from two principals is two keys, so that a key
	// never lets one client read another's answer. Nil means every
	// client shares one space of keys, which is right only for a service
	// without authentication; there, a stranger who learns a key and the
	// request made with it can read its answer.
	Principal func(*http.Request) string

	// Now is the clock outcomes expire by. Nil means time.Now.
	Now func() time.Time
}

// IdempotencyStore keeps the outcomes of requests sent with an
// Idempotency-Key, each under a key that vane derives from the client's
// key, the operation and the principal (IdempotencyRecord.Key).
//
// The guarantee that a retry never writes twice rests on one rule: the
// outcome of a write is recorded in the same database transaction as the
// write, so that either both are committed or neither. The handler does
// that: Idempotent.Outcome gives it the record to insert in its
// transaction, and the insert must fail, failing the transaction, when a
// record that has not expired is kept under the same key already; the
// handler then returns an error wrapping ErrIdempotencyKeyInUse (or any
// error) and vane answers with the recorded outcome. A unique index on
// the key does this in SQL.
//
// Save is the fallback for a successful request whose handler recorded
// nothing (it wrote nothing, or its store has no transactions): vane
// saves the outcome after the handler returned. That is atomic with
// nothing: a process killed between the write and Save leaves a write
// whose retry writes again.
//
// Both methods are called concurrently, from many requests.
type IdempotencyStore interface {
	// Lookup returns the record kept under key that has not expired at
	// now (Expires after now), or nil and no error when there is none.
	Lookup(ctx context.Context, key string, now time.Time) (*IdempotencyRecord, error)
	// Save keeps rec under rec.Key until rec.Expires. When a record that
	// has not expired at rec.Created is kept under that key already, it
	// keeps that one and returns ErrIdempotencyKeyInUse.
	Save(ctx context.Context, rec *IdempotencyRecord) error
}

// IdempotencyRecord is the outcome of a request sent with an
// Idempotency-Key: what is kept, and what a retry is answered with.
type IdempotencyRecord struct {
	// Key is the key to keep it under: 43 characters of base64url, a
	// hash of the client's key, the operation and the principal. A store
	// indexes it; it reveals none of the three.
	Key string
	// Fingerprint identifies the request (43 characters of base64url):
	// a retry with the same key and another fingerprint is a 422.
	Fingerprint string
	// Status, Header and Body are the answer, as the operation's output
	// made it: its headers (Content-Type, Location, ETag …) without
	// Set-Cookie, Date and the framing fields.
	Status int
	Header http.Header
	Body   []byte
	// Created is when the request was received, Expires when the record
	// may be forgotten: Created plus the retention.
	Created time.Time
	Expires time.Time
}

// ErrIdempotencyKeyInUse is returned by IdempotencyStore.Save, and by a
// handler's write that found its record's key taken, when another request
// with the same key has recorded its outcome. A handler that returns it
// (wrapped or not) is answered with that outcome, or, when it cannot be
// read, 409.
var ErrIdempotencyKeyInUse = errors.New("vane: an outcome is recorded under this idempotency key")

// Idempotent, embedded in the input of an unsafe operation (POST, PUT,
// PATCH, DELETE) given IdempotencyKeys, binds the request's
// Idempotency-Key header. The document lists the header, its grammar
// and retention, the 409 and the replay marker (ReplayedHeader).
//
// A request with a key is answered, before the handler runs:
//   - with the outcome recorded for its key, when the request is the
//     same (method, operation, path, query and header parameters, and
//     the body as decoded), marked Idempotent-Replayed: true;
//   - 422 when the key's outcome was recorded for another request;
//   - 409 with Retry-After while a request with the key is in progress
//     in this process.
//
// Otherwise the handler runs, and records its outcome in the transaction
// of its write (see IdempotencyStore):
//
//	type CreatePet struct {
//		vane.Idempotent
//		Body PetInput
//	}
//
//	err := store.InTx(ctx, func(tx *sql.Tx) error {
//		pet, err := insertPet(ctx, tx, in.Body)
//		if err != nil {
//			return err
//		}
//		out = &Created{Location: "/pets/" + pet.ID, Body: pet}
//		rec, err := in.Outcome(out) // nil without a key
//		if err != nil || rec == nil {
//			return err
//		}
//		return insertOutcome(ctx, tx, rec) // fails on a key recorded already
//	})
//
// The answer to a keyed request is its recorded outcome. An error is
// recorded by nobody: a request answered 4xx or 5xx changed nothing that
// a retry would repeat, or does not know (a 503 OutcomeUnknown), and a
// retry runs again (and is answered with the outcome, if another request
// with the key recorded one meanwhile).
type Idempotent struct {
	IdempotencyKey string `header:"Idempotency-Key" maxLength:"257" pattern:"^(\"[A-Za-z0-9._~:+/=-]{16,255}\"|[A-Za-z0-9._~:+/=-]{16,255})$" doc:"A key of the client's choosing that makes a retry of this request safe."`

	req *keyedRequest // the request's key, set by vane before the handler runs
}

// Key returns the request's idempotency key, without its quotes, or ""
// when the request has none.
func (k *Idempotent) Key() string {
	if k.req == nil {
		return ""
	}
	return k.req.clientKey
}

// Outcome returns the record of out as the request's outcome, for the
// handler to insert in the transaction of its write: out is the handler's
// output (a *O, or nil for 204), encoded as vane would answer it. It
// returns nil and no error when the request has no key. The answer to
// the request is the outcome last returned here; a handler whose write
// is retried (Conditional.Write) calls it in each attempt. It fails when
// out is not the operation's output type, or its body is larger than
// MaxOutcomeBytes.
func (k *Idempotent) Outcome(out any) (*IdempotencyRecord, error) {
	if k.req == nil {
		return nil, nil
	}
	return k.req.outcome(out)
}

// idempotent returns k; an input that embeds Idempotent has the method
// too, which is how a typed handler finds it.
func (k *Idempotent) idempotent() *Idempotent { return k }

type idempotentInput interface{ idempotent() *Idempotent }

var idempotentType = reflect.TypeFor[Idempotent]()

// hasIdempotent reports whether the input type t embeds Idempotent.
func hasIdempotent(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.Anonymous && f.Type == idempotentType {
			return true
		}
	}
	return false
}

// parseIdempotencyKey returns the key of an Idempotency-Key field value
// that matches idempotencyKeyPattern, without its quotes.
func parseIdempotencyKey(v string) (string, bool) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	if len(v) < MinIdempotencyKeyLength || len(v) > MaxIdempotencyKeyLength {
		return "", false
	}
	for i := 0; i < len(v); i++ {
		if !keyChar(v[i]) {
			return "", false
		}
	}
	return v, true
}

func keyChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~:+/=", c) >= 0
}

// idempotency is an operation's compiled use of idempotency keys.
type idempotency struct {
	cfg       Idempotency // defaults filled in
	op        string      // the operation's ID: keys are scoped to it
	method    string
	pattern   string
	pathNames []string
	// The declared parameters other than the key, by location, sorted:
	// the request's values of these are part of its fingerprint.
	query, header, cookie []string
	// body returns the input's Body (typed operations), for the
	// fingerprint; nil for an input without one.
	body func(in any) ([]byte, error)

	mu       sync.Mutex
	inFlight map[string]struct{} // scoped keys of requests being served here
}

// compileIdempotency returns the idempotency of an operation of input
// type inT whose spec is op and description d, or nil when it takes no key.
func compileIdempotency(op *spec, inT reflect.Type, d *operation.Description, pathNames []string) (*idempotency, error) {
	has := hasIdempotent(inT)
	switch {
	case !has && op.Idempotency == nil:
		return nil, nil
	case op.Idempotency == nil:
		return nil, fmt.Errorf("%s %s: %v embeds vane.Idempotent: give it vane.IdempotencyKeys (its store)", d.Method, d.Pattern, inT)
	case !has:
		return nil, fmt.Errorf("%s %s: vane.IdempotencyKeys is given, but %v does not embed vane.Idempotent", d.Method, d.Pattern, inT)
	case op.Idempotency.Store == nil:
		return nil, fmt.Errorf("%s %s: vane.IdempotencyKeys: the Idempotency has no Store", d.Method, d.Pattern)
	case safeMethod(d.Method):
		return nil, fmt.Errorf("%s %s: an idempotency key is for unsafe methods; %s is safe", d.Method, d.Pattern, d.Method)
	}
	if outT := d.Output; outT != nil {
		body := outT
		if f, ok := outT.FieldByName("Body"); ok && len(f.Index) == 1 && outT.Kind() == reflect.Struct {
			body = f.Type
		}
		if body.Implements(readerType) || reflect.PointerTo(body).Implements(readerType) {
			return nil, fmt.Errorf("%s %s: an idempotency key needs an answer that can be recorded whole; %v is a stream", d.Method, d.Pattern, body)
		}
	}
	ip := newIdempotency(*op.Idempotency, d, pathNames)
	if f, ok := inT.FieldByName("Body"); ok && len(f.Index) == 1 {
		if rb := d.RequestBody; rb != nil {
			for _, c := range rb.Content {
				if c.MediaType != "application/json" && f.Type != bytesType {
					return nil, fmt.Errorf("%s %s: an idempotency key needs a JSON or []byte body to fingerprint, not %s", d.Method, d.Pattern, c.MediaType)
				}
			}
		}
		if f.Type.Implements(readerType) || reflect.PointerTo(f.Type).Implements(readerType) {
			return nil, fmt.Errorf("%s %s: an idempotency key needs a body read whole, to fingerprint; %v is a stream", d.Method, d.Pattern, f.Type)
		}
		ip.body = func(in any) ([]byte, error) {
			v := reflect.ValueOf(in).Elem().Field(f.Index[0])
			if f.Type == bytesType {
				return v.Bytes(), nil
			}
			return json.Marshal(v.Addr().Interface())
		}
	}
	return ip, nil
}

var (
	bytesType  = reflect.TypeFor[[]byte]()
	readerType = reflect.TypeFor[io.Reader]()
)

func newIdempotency(cfg Idempotency, d *operation.Description, pathNames []string) *idempotency {
	if cfg.Retention == 0 {
		cfg.Retention = DefaultIdempotencyRetention
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	ip := &idempotency{cfg: cfg, op: d.ID, method: d.Method, pattern: d.Pattern, pathNames: pathNames, inFlight: map[string]struct{}{}}
	for _, p := range d.Parameters {
		switch p.In {
		case operation.InQuery:
			ip.query = append(ip.query, p.Name)
		case operation.InHeader:
			if !strings.EqualFold(p.Name, IdempotencyKeyHeader) {
				ip.header = append(ip.header, p.Name)
			}
		case operation.InCookie:
			ip.cookie = append(ip.cookie, p.Name)
		}
	}
	slices.Sort(ip.query)
	slices.Sort(ip.header)
	slices.Sort(ip.cookie)
	return ip
}

// document completes d's description of the key: its parameter (required
// or not, the grammar and the retention), the replay marker on the
// success response, the 409, the 422 of a key reused, the 400 of a
// missing key, and the 503 of a store that cannot be read.
func (ip *idempotency) document(d *operation.Description, reg *schema.Registry) ([]operation.Response, error) {
	d.Parameters = slices.Clone(d.Parameters)
	for i := range d.Parameters {
		p := &d.Parameters[i]
		if p.In == operation.InHeader && strings.EqualFold(p.Name, IdempotencyKeyHeader) {
			p.Required = ip.cfg.Required
			p.Description = "A key of the client's choosing (a UUID, say) that makes a retry of this request safe: " +
				"a request with the key of an earlier one, sent again " + retentionText(ip.cfg.Retention) +
				", is answered with the first request's outcome, marked " + ReplayedHeader + ": true, and changes nothing again; " +
				"with the key of another request, 422; while the first is in progress, 409. " +
				"An sf-string (RFC 8941) or bare: " + strconv.Itoa(MinIdempotencyKeyLength) + " to " + strconv.Itoa(MaxIdempotencyKeyLength) +
				" characters of " + idempotencyKeyCharsDesc + ". Keys are scoped to the operation and the caller."
		}
	}
	list := slices.Clone(d.Responses)
	for i := range list {
		if r := &list[i]; r.Status == d.Status {
			r.Headers = append(slices.Clip(r.Headers), operation.Header{Name: ReplayedHeader,
				Description: "\"true\" when this is the recorded answer to an earlier request with the same Idempotency-Key; absent otherwise.",
				Schema:      &schema.Schema{Type: schema.TypeString}})
		}
	}
	retry := map[string]string{"Retry-After": "Seconds to wait before retrying."}
	types := []ProblemType{
		{Status: http.StatusConflict, Headers: retry,
			Description: "Conflict: a request with this Idempotency-Key is in progress; retry after the Retry-After header's seconds."},
		{Status: http.StatusUnprocessableEntity,
			Description: "Unprocessable Entity: the Idempotency-Key was used for another request (problem type " + KeyReusedType + ")."},
		{Status: http.StatusServiceUnavailable, Headers: retry,
			Description: "Service Unavailable: the outcomes of Idempotency-Keys cannot be read; the request was not processed."},
	}
	if ip.cfg.Required {
		types = append(types, ProblemType{Status: http.StatusBadRequest,
			Description: "Bad Request: the Idempotency-Key is missing (problem type " + KeyMissingType + ")."})
	}
	return documentProblems(list, types, reg)
}

// retentionText says when a retry is answered with the first outcome,
// in words: "within 24 hours", "within 90 minutes", "at any time".
func retentionText(d time.Duration) string {
	switch {
	case d < 0:
		return "at any time"
	case d == time.Hour:
		return "within 1 hour"
	case d%time.Hour == 0:
		return "within " + strconv.FormatInt(int64(d/time.Hour), 10) + " hours"
	case d == time.Minute:
		return "within 1 minute"
	case d%time.Minute == 0:
		return "within " + strconv.FormatInt(int64(d/time.Minute), 10) + " minutes"
	}
	return "within " + d.String()
}

// keyedRequest is one request with an idempotency key.
type keyedRequest struct {
	ip        *idempotency // the operation that took the key (a PATCH's, for the PUT inside it)
	clientKey string       // as sent, without quotes
	key       string       // scoped: IdempotencyRecord.Key
	fp        string
	created   time.Time

	mu       sync.Mutex
	encode   func(out any) (*IdempotencyRecord, error) // the output's encoding, set by the typed handler
	recorded *IdempotencyRecord                        // what Outcome last returned
}

type keyedKey struct{}

// keyedFrom returns the keyed request that ctx carries for an operation
// of pattern: a PATCH's, for the PUT that MergePatch calls.
func keyedFrom(ctx context.Context, pattern string) *keyedRequest {
	kr, _ := ctx.Value(keyedKey{}).(*keyedRequest)
	if kr == nil || kr.ip.pattern != pattern {
		return nil
	}
	return kr
}

func (kr *keyedRequest) outcome(out any) (*IdempotencyRecord, error) {
	kr.mu.Lock()
	defer kr.mu.Unlock()
	if kr.encode == nil {
		return nil, errors.New("vane: Idempotent.Outcome called outside the operation's handler")
	}
	rec, err := kr.encode(out)
	if err != nil {
		return nil, err
	}
	kr.recorded = rec
	return rec, nil
}

// record returns the record of an answer made by the request.
func (kr *keyedRequest) record(status int, h http.Header, body []byte) *IdempotencyRecord {
	return &IdempotencyRecord{Key: kr.key, Fingerprint: kr.fp, Status: status, Header: h, Body: body,
		Created: kr.created, Expires: kr.ip.expires(kr.created)}
}

// NeverExpires is the Expires of an outcome kept for ever (Retention
// Off): the last second of the year 9999, which SQL databases can store.
var NeverExpires = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)

// expires is when an outcome recorded at created may be forgotten.
func (ip *idempotency) expires(created time.Time) time.Time {
	if ip.cfg.Retention < 0 {
		return NeverExpires
	}
	return created.Add(ip.cfg.Retention)
}

func (kr *keyedRequest) setEncoder(enc func(any) (*IdempotencyRecord, error)) {
	kr.mu.Lock()
	kr.encode = enc
	kr.mu.Unlock()
}

func (kr *keyedRequest) lastRecorded() *IdempotencyRecord {
	kr.mu.Lock()
	defer kr.mu.Unlock()
	return kr.recorded
}

// begin starts serving a request of the operation: it reads its key, and
// answers (done) a request that has none and needs one (400), whose key
// is in progress here (409), was recorded (the replay, or 422), or cannot
// be looked up (503). It returns nil, not done, for a request without a
// key that may go without. body gives what the request's body
// contributes to its fingerprint; fail answers a problem.
func (ip *idempotency) begin(w http.ResponseWriter, req *http.Request, body func() ([]byte, *problem.Details),
	fail func(*problem.Details)) (kr *keyedRequest, done bool) {
	lines := req.Header[IdempotencyKeyHeader]
	switch {
	case len(lines) == 0 && !ip.cfg.Required:
		return nil, false
	case len(lines) == 0:
		fail(ofType(problem.New(http.StatusBadRequest, "this operation requires an Idempotency-Key header: a key of your choosing, such as a UUID, sent again with every retry"),
			KeyMissingType, "Idempotency-Key missing"))
		return nil, true
	case len(lines) > 1:
		fail(problem.New(http.StatusBadRequest, "a request carries one Idempotency-Key header, not "+strconv.Itoa(len(lines))))
		return nil, true
	}
	key, ok := parseIdempotencyKey(lines[0])
	if !ok {
		fail(problem.New(http.StatusUnprocessableEntity, "validation failed", problem.FieldError{Location: "header." + IdempotencyKeyHeader,
			Message: "expected " + strconv.Itoa(MinIdempotencyKeyLength) + " to " + strconv.Itoa(MaxIdempotencyKeyLength) +
				" characters of " + idempotencyKeyCharsDesc + ", quoted or not", Value: truncated(lines[0])}))
		return nil, true
	}
	b, prob := body()
	if prob != nil {
		fail(prob)
		return nil, true
	}
	principal := ""
	if ip.cfg.Principal != nil {
		principal = ip.cfg.Principal(req)
	}
	kr = &keyedRequest{ip: ip, clientKey: key, key: ip.scoped(principal, key), fp: ip.fingerprint(req, b), created: ip.cfg.Now()}
	if !ip.claim(kr.key) {
		fail(keyInUse())
		return nil, true
	}
	if kr.replayRecorded(w, req, fail, true) {
		ip.release(kr.key)
		return nil, true
	}
	return kr, false
}

// end releases the key of a request begin returned.
func (ip *idempotency) end(kr *keyedRequest) { ip.release(kr.key) }

func (ip *idempotency) claim(key string) bool {
	ip.mu.Lock()
	defer ip.mu.Unlock()
	if _, taken := ip.inFlight[key]; taken {
		return false
	}
	ip.inFlight[key] = struct{}{}
	return true
}

func (ip *idempotency) release(key string) {
	ip.mu.Lock()
	delete(ip.inFlight, key)
	ip.mu.Unlock()
}

// replayRecorded answers the request with the outcome recorded under its
// key, if there is one, and reports whether it did: the outcome marked
// as a replay, or a 422 when it is another request's. A store that
// cannot be read is a 503 before the request is served, and after it
// leaves the request's own answer to the caller.
func (kr *keyedRequest) replayRecorded(w http.ResponseWriter, req *http.Request, fail func(*problem.Details), before bool) bool {
	rec, err := kr.ip.cfg.Store.Lookup(req.Context(), kr.key, kr.ip.cfg.Now())
	if err != nil {
		slog.ErrorContext(req.Context(), "vane: looking up an idempotency key", "operation", kr.ip.op, "error", err)
		if !before {
			return false // the handler has run: its own answer says more
		}
		fail(Unavailable(time.Second, "the outcomes of idempotency keys cannot be read; the request was not processed"))
		return true
	}
	if rec == nil {
		return false
	}
	if rec.Fingerprint != kr.fp {
		fail(ofType(problem.New(http.StatusUnprocessableEntity,
			"this Idempotency-Key was used for another request (another method, path, parameters or body); use a new key for a new request"),
			KeyReusedType, "Idempotency-Key reused"))
		return true
	}
	writeRecord(w, rec, true)
	return true
}

func keyInUse() *problem.Details {
	return ofType(problem.New(http.StatusConflict, "a request with this Idempotency-Key is in progress; retry once it has been answered"),
		KeyInUseType, "Idempotency-Key in use").WithHeader("Retry-After", "1")
}

// ofType sets p's type and title.
func ofType(p *problem.Details, typ, title string) *problem.Details {
	p.Type, p.Title = typ, title
	return p
}

// truncated is v, cut to 64 bytes for a problem's value.
func truncated(v string) string {
	if len(v) > 64 {
		return v[:64] + "…"
	}
	return v
}

// scoped is the key a client's key is kept under: a hash of the
// operation, the principal and the key, each prefixed by its length.
func (ip *idempotency) scoped(principal, key string) string {
	h := sha256.New()
	for _, s := range []string{ip.op, principal, key} {
		writeField(h, s)
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// fingerprint identifies the request: its method, operation, path
// parameters, declared query, header and cookie parameters but the key,
// and body (what body returned: the body as decoded, encoded again).
func (ip *idempotency) fingerprint(req *http.Request, body []byte) string {
	h := sha256.New()
	writeField(h, ip.method)
	writeField(h, ip.pattern)
	for _, n := range ip.pathNames {
		writeField(h, router.Param(req, n))
	}
	var q map[string][]string
	if len(ip.query) > 0 {
		q = req.URL.Query()
	}
	for _, n := range ip.query {
		writeField(h, "q"+n)
		for k, vs := range q { // a deepObject parameter's keys are name[…]
			if k == n || strings.HasPrefix(k, n+"[") {
				writeField(h, k)
				for _, v := range vs {
					writeField(h, v)
				}
			}
		}
	}
	for _, n := range ip.header {
		writeField(h, "h"+n)
		for _, v := range req.Header.Values(n) {
			writeField(h, v)
		}
	}
	for _, n := range ip.cookie {
		writeField(h, "c"+n)
		if c, err := req.Cookie(n); err == nil {
			writeField(h, c.Value)
		}
	}
	writeField(h, "b")
	h.Write(body)
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

func writeField(h hash.Hash, s string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
}

// writeRecord answers with rec, marked as a replay when replayed.
func writeRecord(w http.ResponseWriter, rec *IdempotencyRecord, replayed bool) {
	hdr := w.Header()
	for k, v := range rec.Header {
		if !unrecorded[http.CanonicalHeaderKey(k)] {
			hdr[http.CanonicalHeaderKey(k)] = slices.Clone(v)
		}
	}
	if replayed {
		hdr.Set(ReplayedHeader, "true")
	}
	w.WriteHeader(rec.Status)
	if !operation.NoBody(rec.Status) {
		w.Write(rec.Body) //nolint:errcheck // the client went away
	}
}

// unrecorded are the response headers an outcome does not keep: a cookie
// is set once, and the others belong to one message.
var unrecorded = map[string]bool{"Set-Cookie": true, "Date": true, "Content-Length": true, "Transfer-Encoding": true,
	"Connection": true, "Trailer": true, ReplayedHeader: true}

// serveKeyed serves a request of an operation that takes idempotency
// keys, and reports whether it did: false for a request without a key
// that may go without, which serve serves as any other.
func (h *typedHandler[I, O]) serveKeyed(w http.ResponseWriter, req *http.Request, in *I) bool {
	ctx := req.Context()
	fail := func(p *problem.Details) { h.fail(w, req, p) }
	kr := keyedFrom(ctx, h.desc.Pattern)
	if kr == nil {
		var done bool
		kr, done = h.idem.begin(w, req, func() ([]byte, *problem.Details) {
			if h.idem.body == nil {
				return nil, nil
			}
			b, err := h.idem.body(in)
			if err != nil {
				return nil, problemOf(req.Context(), h.desc, err)
			}
			return b, nil
		}, fail)
		if done {
			return true
		}
		if kr == nil {
			return false
		}
		defer h.idem.end(kr)
	}
	kr.setEncoder(func(out any) (*IdempotencyRecord, error) { return h.encodeOutcome(req, kr, out) })
	any(in).(idempotentInput).idempotent().req = kr
	out, err := h.fn(ctx, in)
	if err != nil {
		if out != nil {
			h.out.Discard(out)
		}
		p := problemOf(req.Context(), h.desc, err)
		inUse := errors.Is(err, ErrIdempotencyKeyInUse)
		// Another request with the key may have recorded its outcome
		// while this one ran (in another process): that is the answer.
		if (inUse || p.Status < 500) && kr.replayRecorded(w, req, fail, false) {
			return true
		}
		if inUse {
			p = keyInUse()
		}
		fail(p)
		return true
	}
	rec := kr.lastRecorded()
	if rec == nil {
		if rec, err = h.encodeOutcome(req, kr, out); err != nil {
			fail(problemOf(req.Context(), h.desc, err))
			return true
		}
		if err := kr.ip.cfg.Store.Save(ctx, rec); err != nil {
			// The handler's write is done: its answer stands.
			slog.ErrorContext(ctx, "vane: saving the outcome of an idempotency key", "operation", h.desc.ID, "error", err)
		}
	}
	writeRecord(w, rec, false)
	return true
}

// encodeOutcome encodes out, the operation's output, as it answers it,
// into a record of the request kr.
func (h *typedHandler[I, O]) encodeOutcome(req *http.Request, kr *keyedRequest, out any) (*IdempotencyRecord, error) {
	var o *O
	if out != nil {
		var ok bool
		if o, ok = out.(*O); !ok {
			return nil, fmt.Errorf("vane: Idempotent.Outcome got a %T; the operation's output is a %v", out, reflect.TypeFor[*O]())
		}
	}
	rw := &outcomeWriter{header: http.Header{}}
	if o == nil {
		rw.WriteHeader(http.StatusNoContent)
	} else if err := h.out.Write(rw, req, o, h.status, h.enc); err != nil {
		return nil, err
	}
	if rw.tooLarge {
		return nil, fmt.Errorf("vane: the outcome's body is larger than MaxOutcomeBytes (%d)", MaxOutcomeBytes)
	}
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	hdr := http.Header{}
	for k, v := range rw.header {
		if !unrecorded[k] {
			hdr[k] = v
		}
	}
	return kr.record(rw.status, hdr, rw.body.Bytes()), nil
}

// outcomeWriter keeps an answer, up to MaxOutcomeBytes of body.
type outcomeWriter struct {
	header   http.Header
	status   int
	body     bytes.Buffer
	tooLarge bool
}

func (w *outcomeWriter) Header() http.Header { return w.header }
func (w *outcomeWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}
func (w *outcomeWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.body.Len()+len(b) > MaxOutcomeBytes {
		w.tooLarge = true
		return 0, errors.New("vane: outcome too large")
	}
	return w.body.Write(b)
}

// keyedPatch returns next, the handler of a PATCH registered by
// MergePatch, behind the handling of the request's idempotency key when
// the PATCH takes keys (the PUT's input PI embeds Idempotent): the key is
// the PATCH's, its fingerprint the PATCH's (the patch's media type and
// the patch as decoded), and the PUT that MergePatch calls records its
// outcome under it. limit is the PATCH's body limit.
func keyedPatch[PI any](r *Router, op *spec, d *operation.Description, limit int64, next http.Handler) (http.Handler, error) {
	if op.Idempotency == nil && !hasIdempotent(reflect.TypeFor[PI]()) {
		return next, nil
	}
	names, err := router.ParamNames(d.Pattern)
	if err != nil {
		return nil, err
	}
	// compileIdempotency's checks, with the PATCH's method and spec.
	if _, err := compileIdempotency(op, reflect.TypeFor[PI](), &operation.Description{Method: d.Method, Pattern: d.Pattern}, nil); err != nil {
		return nil, err
	}
	ip := newIdempotency(*op.Idempotency, d, names)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		fail := func(p *problem.Details) { r.WriteError(w, req, p) }
		kr, done := ip.begin(w, req, func() ([]byte, *problem.Details) {
			body, prob := readPatch(req, limit)
			if prob != nil {
				return nil, prob
			}
			mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
			return append([]byte(mt+"\x00"), canonicalJSON(body)...), nil
		}, fail)
		if done {
			return
		}
		if kr == nil {
			next.ServeHTTP(w, req)
			return
		}
		defer ip.end(kr)
		res := newCaptured()
		next.ServeHTTP(res, req.WithContext(context.WithValue(req.Context(), keyedKey{}, kr)))
		if res.status >= 400 && res.status < 500 && kr.lastRecorded() == nil && kr.replayRecorded(w, req, fail, false) {
			return
		}
		res.copyTo(w)
	}), nil
}

// readPatch reads req's body (decoded, when it came compressed) within
// limit, and leaves it readable again as req.Body.
func readPatch(req *http.Request, limit int64) ([]byte, *problem.Details) {
	dec, prob := bind.DecodeBody(req, limit)
	if prob != nil {
		return nil, prob
	}
	var body []byte
	if dec.Body != nil {
		r := dec.Body
		if limit > 0 {
			r = http.MaxBytesReader(nil, r, limit)
		}
		var err error
		if body, err = io.ReadAll(r); err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				return nil, problem.New(http.StatusRequestEntityTooLarge, "the patch is larger than the limit of "+strconv.FormatInt(limit, 10)+" bytes")
			}
			return nil, problem.New(http.StatusBadRequest, "the patch could not be read: "+err.Error())
		}
	}
	req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	req.Header.Del("Content-Encoding")
	return body, nil
}

// canonicalJSON is b decoded and encoded again, its object members in
// the order of their names, numbers as they were written: the same for
// two texts of one JSON value. b itself when it is not JSON.
func canonicalJSON(b []byte) []byte {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return b
	}
	if _, err := d.Token(); err != io.EOF { // more than one value
		return b
	}
	out, err := json.Marshal(v)
	if err != nil {
		return b
	}
	return out
}
