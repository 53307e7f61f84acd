package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// PetInput is what a client sends to create or replace a pet. Its tags are
// the whole contract: they validate the request and document the API.
//
// Every string it stores is one line of text: no control characters (C0,
// DEL, C1), no line or paragraph separators, and no bidirectional
// embeddings, overrides or isolates (U+202A–U+202E, U+2066–U+2069),
// which would make a name display as another. A name and a tag have a
// visible character too: not only white space or invisible formatting.
// The patterns say so in the document's terms (the characters are
// written as themselves, which ECMA-262 and Go's RE2 read alike).
type PetInput struct {
	Name      string   `json:"name" minLength:"1" maxLength:"80" pattern:"^[^\\x00-\\x1f\\x7f-\\x9f\u2028-\u202e\u2066-\u2069]*[^\\x00-\\x20\\x7f-\\xa0\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2069\u3000\ufeff][^\\x00-\\x1f\\x7f-\\x9f\u2028-\u202e\u2066-\u2069]*$" doc:"The pet's name: one line of text with a visible character (no control characters, line separators or bidirectional overrides)." example:"Rex"`
	Species   string   `json:"species" enum:"dog,cat,bird,fish,rabbit" example:"dog"`
	Status    string   `json:"status,omitempty" enum:"available,pending,adopted" doc:"Where the pet is in the adoption process; available when absent."`
	Tags      []string `json:"tags,omitempty" maxItems:"10" uniqueItems:"true" maxLength:"32" pattern:"^[^\\x00-\\x1f\\x7f-\\x9f\u2028-\u202e\u2066-\u2069]*[^\\x00-\\x20\\x7f-\\xa0\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2069\u3000\ufeff][^\\x00-\\x1f\\x7f-\\x9f\u2028-\u202e\u2066-\u2069]*$" doc:"Free-form labels, each one line of text with a visible character." example:"friendly,trained"`
	BirthDate string   `json:"birthDate,omitempty" format:"date" example:"2021-04-01"`
	Owner     *string  `json:"owner,omitempty" nullable:"true" maxLength:"80" pattern:"^[^\\x00-\\x1f\\x7f-\\x9f\u2028-\u202e\u2066-\u2069]*$" doc:"Who adopted the pet, if anyone: one line of text."`
}

// Pet is a stored pet: the client's fields (embedded, so they appear at the
// top level of the JSON, as encoding/json flattens them) and the server's.
type Pet struct {
	ID int64 `json:"id" readOnly:"true" doc:"Assigned by the server." example:"1"`
	PetInput
	HasPhoto  bool      `json:"hasPhoto" readOnly:"true" doc:"Whether a photo has been uploaded."`
	CreatedAt time.Time `json:"createdAt" readOnly:"true"`
	UpdatedAt time.Time `json:"updatedAt" readOnly:"true"`
	// Version counts the pet's writes: every change stores the next one,
	// and a compare-and-swap write names the one it read. Clients see it
	// as the ETag.
	Version int64 `json:"-"`
}

// Photo is an uploaded picture of a pet.
type Photo struct {
	ContentType string
	Data        []byte
	// SHA256 is the hex SHA-256 of Data, set by the store: the photo's
	// version, which its ETag names.
	SHA256 string
}

// Filter selects pets for List. Zero fields match everything.
type Filter struct {
	Species string
	Status  string
	Tags    []string // a pet must have all of them
	Query   string   // case-insensitive substring of the name
}

// Store keeps the pets in a SQL database: SQLite (OpenSQLite) or
// PostgreSQL (OpenPostgres), through the same queries. It holds no state of
// its own beyond the connection pool, so any number of processes may share
// one PostgreSQL database. Every method runs its queries with the context
// it is given: the API's handlers give it one that their deadline ends
// (finishWhatStarts), so that a write is finished or not begun, never cut
// off half-way by a client that half-closed its connection. It is safe
// for concurrent use.
type Store struct {
	db  *sql.DB
	d   dialect
	now func() time.Time
	// feed fans the events of every change out to this process's
	// streams; its goroutines end with Close.
	feed *feed
	// writer, on SQLite, is held by the transaction that writes: one
	// database has one writer at a time, and waiting here, in order,
	// replaces SQLite's busy handler, which sleeps and retries (up to
	// 100 ms a time) and lets a late writer overtake an early one.
	writer chan struct{}
	// commitFault, in tests, is called after each commit that succeeded,
	// with the transaction's context, and its error taken as the
	// commit's: a commit whose answer was lost.
	commitFault func(context.Context) error
}

// Close stops the event feed and closes the database.
func (s *Store) Close() error {
	if s.feed != nil {
		s.feed.stop()
	}
	return s.db.Close()
}

// Ping checks that the database answers a query, for the readiness probe.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	return s.db.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// selectPets is the start of every query that reads pets, the columns
// scanPet reads of the pets p, followed by from, the FROM clause that names
// p. The WHERE clause and what follows are the caller's.
func (s *Store) selectPets(from string) string {
	return `SELECT p.id, p.name, p.species, p.status, p.birth_date, p.owner, p.created_at, p.updated_at, p.version,
		EXISTS (SELECT 1 FROM pet_photos ph WHERE ph.pet_id = p.id), ` + s.d.tags + `
		` + from
}

// fromPets is the FROM clause of a query of every pet.
const fromPets = "FROM pets p "

// scanPet reads a row of selectPets.
func scanPet(row interface{ Scan(...any) error }) (Pet, error) {
	var p Pet
	var birth, owner sql.NullString
	var tags []byte
	if err := row.Scan(&p.ID, &p.Name, &p.Species, &p.Status, &birth, &owner, &p.CreatedAt, &p.UpdatedAt, &p.Version,
		&p.HasPhoto, &tags); err != nil {
		return Pet{}, err
	}
	p.BirthDate = birth.String
	if owner.Valid {
		p.Owner = &owner.String
	}
	if err := json.Unmarshal(tags, &p.Tags); err != nil {
		return Pet{}, err
	}
	if len(p.Tags) == 0 {
		p.Tags = nil
	}
	p.CreatedAt, p.UpdatedAt = p.CreatedAt.UTC(), p.UpdatedAt.UTC()
	return p, nil
}

// List returns the pets matching f, in ID order, from offset on, at most
// limit of them, and how many match in all.
func (s *Store) List(ctx context.Context, f Filter, offset, limit int) ([]Pet, int, error) {
	pets, _, total, err := s.ListAfter(ctx, f, 0, offset, limit, true)
	return pets, total, err
}

// ListAfter returns the pets matching f whose ID is above after, in ID
// order, skipping offset of them, at most limit: a page by key, which
// costs the page (an index finds where it starts), not the pages before
// it. more reports whether a pet follows. With count, total is how many
// match in all, which costs a scan of every match; without it, 0.
//
// Tags (f.Tags) are found through their index, which gives the pets of
// a tag in ID order: a page of a tag costs the page, and a tag that no
// pet has costs an index probe. With several tags, a page reads the pets
// of the first (in sorted order) until it has its pets with all of them.
// A search with tags checks the names of the tags' pets.
//
// A search (f.Query) of three characters or more reads an index. On
// SQLite, FTS5 walks the names' trigrams in ID order, so a page of a
// search costs the page too. On PostgreSQL the indexes (GIN) yield their
// matches in no order. A search of one word asks the trigram index; one of
// several words (or with white space around it) asks the index of the
// starts and ends of the names' words (pet_name_affixes), which reads a
// few exact lists where the trigram index would intersect the long lists
// of every trigram of every word. Where the search may be common (see
// nameWordsQuery), the page first looks for its pets among the next
// searchWindow pets by ID, and asks an index only when the window holds
// too few.
func (s *Store) ListAfter(ctx context.Context, f Filter, after int64, offset, limit int, count bool) (pets []Pet, more bool, total int, err error) {
	q := s.listQueries(f, after, offset, limit, count)
	if q.count != nil {
		if err := s.db.QueryRowContext(ctx, q.count.text, q.count.args...).Scan(&total); err != nil {
			return nil, false, 0, err
		}
	}
	if q.window != nil {
		pets, err = s.queryPets(ctx, q.window.text, q.window.args...)
		if err != nil || len(pets) > limit {
			return trimPage(pets, limit, total, err)
		}
	}
	pets, err = s.queryPets(ctx, q.page.text, q.page.args...)
	return trimPage(pets, limit, total, err)
}

// sqlQuery is a query's text and its arguments.
type sqlQuery struct {
	text string
	args []any
}

// listQueries are the queries of a ListAfter: count counts every match
// (nil unless asked); window looks for the page among the next
// searchWindow pets by ID (nil unless a PostgreSQL search may be common),
// and page is the page's query, run when there is no window or it holds
// too few.
type listQueries struct {
	count, window, page *sqlQuery
}

// listQueries returns the queries of ListAfter(ctx, f, after, offset,
// limit, count).
func (s *Store) listQueries(f Filter, after int64, offset, limit int, count bool) listQueries {
	var out listQueries
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	from, key := fromPets, "p.id"
	if f.Species != "" {
		where = append(where, "p.species = "+arg(f.Species))
	}
	if f.Status != "" {
		where = append(where, "p.status = "+arg(f.Status))
	}
	tags := tagSet(f.Tags)
	var alsoAfter []string // columns equal to key, bounded by after too
	if len(tags) > 0 {
		// The tag index drives: pet_tags_tag (tag, pet_id) yields the pets
		// of the first tag in ID order, from the page's start; the other
		// tags' lists are joined in the same index, and each pet left is
		// then read by its ID (the joins' order is fixed: see dialect).
		// Nothing reads a pet without every tag.
		from, key = "FROM pet_tags t0 ", "t0.pet_id"
		where = append(where, "t0.tag = "+arg(tags[0]))
		for i, t := range tags[1:] {
			ti := "t" + strconv.Itoa(i+1)
			from += s.d.join + " pet_tags " + ti + " ON " + ti + ".pet_id = t0.pet_id AND " + ti + ".tag = " + arg(t) + " "
			alsoAfter = append(alsoAfter, ti+".pet_id")
		}
		from += s.d.petOfTag
		if len(tags) > 1 {
			// A tag that no pet has ends the query before it reads a pet:
			// each test is one probe of the index, made once (it depends
			// on no row).
			for _, t := range tags {
				where = append(where, "(SELECT pet_id FROM pet_tags WHERE tag = "+arg(t)+" ORDER BY pet_id LIMIT 1) IS NOT NULL")
			}
		}
	}
	words := ""     // a search of words: its tsquery of pet_name_affixes
	window := false // look among the next searchWindow pets first
	if q := foldName(f.Query); q != "" {
		var selective bool
		if s.d.name == "postgres" && len(tags) == 0 {
			words, selective = nameWordsQuery(q)
		}
		switch {
		case len(tags) > 0:
			// The tag index drives (above): the name of each of its pets
			// is checked.
			contains := "instr"
			if s.d.name == "postgres" {
				contains = "strpos"
			}
			where = append(where, contains+"(p.name_folded, "+arg(q)+") > 0")
		case s.d.name == "sqlite" && utf8.RuneCountInString(q) >= 3:
			// A phrase of the trigram index finds the names that contain
			// the search, in rowid order. A search of several words asks
			// for the pieces around its white space only (ftsMatch), and
			// instr keeps the names that contain the whole search.
			from, key = "FROM pets_fts f JOIN pets p ON p.id = f.rowid ", "f.rowid"
			match, whole := ftsMatch(q)
			where = append(where, "pets_fts MATCH "+arg(match))
			if !whole {
				where = append(where, "instr(p.name_folded, "+arg(q)+") > 0")
			}
		case words != "":
			// The index of affixes (the FROM clause, below) gives a superset
			// of the names that contain the search; strpos keeps those.
			where = append(where, "strpos(p.name_folded, "+arg(q)+") > 0")
			window = !selective
		case s.d.name == "sqlite":
			// Shorter than a trigram: every name is read.
			where = append(where, "instr(p.name_folded, "+arg(q)+") > 0")
		default:
			// PostgreSQL's trigram index serves this LIKE (three characters
			// or more); shorter searches read every name.
			where = append(where, "p.name_folded LIKE "+arg("%"+escapeLike(q)+"%")+` ESCAPE '\'`)
			window = true
		}
	}
	// fromArgs gives the FROM clause for the conditions in args: a search
	// of words adds its tsquery as the last argument. OFFSET 0 keeps the
	// planner from walking every pet in ID order, filtering each, to find
	// a page of a rare search.
	fromArgs := func(args []any) (string, []any) {
		if words == "" {
			return from, args
		}
		args = append(slices.Clip(args), words)
		return "FROM (SELECT * FROM pets WHERE pet_name_affixes(name_folded) @@ $" + strconv.Itoa(len(args)) + "::tsquery OFFSET 0) p ", args
	}
	if count {
		from, args := fromArgs(args)
		out.count = &sqlQuery{"SELECT COUNT(*) " + from + whereOf(where), args}
	}
	if after > 0 {
		for _, k := range append([]string{key}, alsoAfter...) {
			where = append(where, k+" > "+arg(after))
		}
	}
	tail := " ORDER BY " + key + " LIMIT " + arg(limit+1) + " OFFSET " + arg(offset)
	if window && offset == 0 {
		// The window: the next pets by ID, read in order, filtered.
		n := len(args)
		windowFrom := "FROM (SELECT * FROM pets p WHERE p.id > " + arg(after) + " ORDER BY p.id LIMIT " + arg(searchWindow) + ") p "
		out.window = &sqlQuery{s.selectPets(windowFrom) + whereOf(where) + tail, args}
		args = args[:n:n]
	}
	from, args = fromArgs(args)
	out.page = &sqlQuery{s.selectPets(from) + whereOf(where) + tail, args}
	return out
}

// searchWindow is how many pets by ID a PostgreSQL search reads in order
// before it asks an index: about 3 ms of reading, and enough for a page of
// any term found in one name in 250 or more.
var searchWindow = 10_000

// nameWordsQuery turns a search (folded) into a tsquery of the lexemes
// of pet_name_affixes that every name containing it has (nameWordTerms),
// or "" for a search without white space: one word, of which the trigram
// index finds parts. selective reports whether it asks for two lexemes or
// more, none by its start: a few exact lists, whose intersection is small
// for a name's words. A search of one lexeme (a word and a space) may be
// common, and one with a short word reads every list that starts with it:
// a page of those is looked for in the window first.
func nameWordsQuery(q string) (tsquery string, selective bool) {
	terms := nameWordTerms(q)
	if terms == nil {
		return "", false
	}
	quote := strings.NewReplacer(`\`, `\\`, `'`, `''`)
	var b strings.Builder
	selective = len(terms) >= 2
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" & ")
		}
		b.WriteString("'" + quote.Replace(t.lexeme) + "'")
		if t.prefix {
			b.WriteString(":*")
			selective = false
		}
	}
	return b.String(), selective
}

// A wordTerm asks pet_name_affixes for a lexeme, or, with prefix, for any
// lexeme that starts with it.
type wordTerm struct {
	lexeme string
	prefix bool
}

// nameWordTerms lists the lexemes of pet_name_affixes that a name
// containing the search q has: q's words, split at ASCII white space as
// pet_name_affixes splits, are starts of words of the name where white
// space precedes them in q (<word), ends of words where white space
// follows (>drow, reversed), and whole words where both do (both). A word
// of under three characters is the start of an indexed lexeme, not one. It
// is nil where q has no white space.
func nameWordTerms(q string) []wordTerm {
	words := strings.FieldsFunc(q, isNameSpace)
	if len(words) == 0 || !strings.ContainsFunc(q, isNameSpace) {
		return nil
	}
	lead, trail := isNameSpace(rune(q[0])), isNameSpace(rune(q[len(q)-1]))
	var terms []wordTerm
	for i, w := range words {
		starts, ends := i > 0 || lead, i < len(words)-1 || trail
		r := []rune(w)
		slices.Reverse(r)
		switch short := len(r) < 3; {
		case short && starts && ends: // a short word is a lexeme of its own
			terms = append(terms, wordTerm{"<" + w, false})
		case short && starts:
			terms = append(terms, wordTerm{"<" + w, true})
		case short:
			terms = append(terms, wordTerm{">" + string(r), true})
		default:
			if starts {
				terms = append(terms, wordTerm{"<" + w, false})
			}
			if ends {
				terms = append(terms, wordTerm{">" + string(r), false})
			}
		}
	}
	return terms
}

// ftsMatch gives the FTS5 query that finds the names containing q (three
// characters or more) in the trigram index. For a search with white space
// in it, that is the pieces around each run of white space, two characters
// either side (willow elderberry: "ow el"), and whole reports false: the
// names that have the pieces are a superset, to be checked for q. Each
// trigram of a phrase adds its list to the walk, and those of the names'
// word boundaries are short where those of the words are long: the pieces
// cost a fraction of the whole phrase.
func ftsMatch(q string) (match string, whole bool) {
	phrase := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	r := []rune(q)
	var pieces []string
	for i := 0; i < len(r); {
		if !isNameSpace(r[i]) {
			i++
			continue
		}
		j := i
		for j < len(r) && isNameSpace(r[j]) {
			j++
		}
		pieces = append(pieces, phrase(string(r[max(0, i-2):min(len(r), j+2)])))
		i = j
	}
	if len(pieces) == 0 || len(r) <= 5 { // no piece is shorter than q
		return phrase(q), true
	}
	return strings.Join(pieces, " AND "), false
}

// isNameSpace reports whether r separates the words of a name for
// pet_name_affixes: ASCII white space.
func isNameSpace(r rune) bool { return strings.ContainsRune(" \t\n\r\f\v", r) }

// tagSet returns tags sorted, each once: the set a tag filter asks for.
func tagSet(tags []string) []string {
	if len(tags) == 0 {
		return nil
	}
	return slices.Compact(slices.Sorted(slices.Values(tags)))
}

// whereOf joins conditions into a WHERE clause, or nothing.
func whereOf(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return "WHERE " + strings.Join(conds, " AND ")
}

// queryPets runs a query of selectPets and reads every pet.
func (s *Store) queryPets(ctx context.Context, q string, args ...any) ([]Pet, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var pets []Pet
	for rows.Next() {
		p, err := scanPet(rows)
		if err != nil {
			return nil, err
		}
		pets = append(pets, p)
	}
	return pets, rows.Err()
}

// trimPage cuts pets, read with a limit of limit+1, to the page.
func trimPage(pets []Pet, limit, total int, err error) ([]Pet, bool, int, error) {
	if err != nil {
		return nil, false, 0, err
	}
	if len(pets) > limit {
		return pets[:limit], true, total, nil
	}
	return pets, false, total, nil
}

// foldName is the one case folding of the names and the searches, applied
// in Go to both, so that every way a search is answered (FTS5's trigram
// index, instr, PostgreSQL's trigram and affix indexes, LIKE, strpos)
// compares the same strings, byte for byte: Unicode's full case folding
// (σ, ς and Σ are one letter; ß is ss; the Kelvin sign is k), then the
// canonical composition (NFC: é typed as e and an accent is é). The
// folded name is stored in name_folded, which the indexes read.
func foldName(s string) string {
	return norm.NFC.String(cases.Fold().String(s))
}

// escapeLike escapes the wildcards of a LIKE pattern.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Get returns the pet with id.
func (s *Store) Get(ctx context.Context, id int64) (Pet, error) {
	return s.get(ctx, s.db, id)
}

func (s *Store) get(ctx context.Context, q querier, id int64) (Pet, error) {
	p, err := scanPet(q.QueryRowContext(ctx, s.selectPets(fromPets)+"WHERE p.id = $1", id))
	if errors.Is(err, sql.ErrNoRows) {
		return Pet{}, errNotFound
	}
	return p, err
}

// Create stores a new pet and returns it as stored.
func (s *Store) Create(ctx context.Context, in PetInput) (Pet, error) {
	var p Pet
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if p, err = insertPet(ctx, tx, in, modTime(s.now())); err != nil {
			return err
		}
		if err := s.recordOutcome(ctx, tx, p); err != nil {
			return err
		}
		return s.addEvent(ctx, tx, "created", p.ID, PetCreated{Pet: p})
	})
	return p, err
}

// insertPet inserts a pet and its tags with tx.
func insertPet(ctx context.Context, tx *sql.Tx, in PetInput, now time.Time) (Pet, error) {
	if in.Status == "" {
		in.Status = "available"
	}
	p := Pet{PetInput: in, CreatedAt: now, UpdatedAt: now, Version: 1}
	err := tx.QueryRowContext(ctx, `INSERT INTO pets (name, name_folded, species, status, birth_date, owner, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
		in.Name, foldName(in.Name), in.Species, in.Status, nullable(in.BirthDate), in.Owner, now, now).Scan(&p.ID)
	if err != nil {
		return Pet{}, err
	}
	if err := insertTags(ctx, tx, p.ID, in.Tags); err != nil {
		return Pet{}, err
	}
	p.Tags = cloneTags(in.Tags)
	if in.Owner != nil {
		o := *in.Owner
		p.Owner = &o
	}
	return p, nil
}

func insertTags(ctx context.Context, tx *sql.Tx, id int64, tags []string) error {
	for i, t := range tags {
		if _, err := tx.ExecContext(ctx, "INSERT INTO pet_tags (pet_id, position, tag) VALUES ($1, $2, $3)", id, i, t); err != nil {
			return err
		}
	}
	return nil
}

// Update replaces the client's fields of the pet with id, whatever its
// version.
func (s *Store) Update(ctx context.Context, id int64, in PetInput) (Pet, error) {
	p, _, err := s.UpdateIf(ctx, id, 0, in)
	return p, err
}

// UpdateIf replaces the client's fields of the pet with id if its version
// is still version (a compare-and-swap; 0: any version), and reports
// whether it did: false, with no error, when another write came first.
// An unknown pet is errNotFound.
func (s *Store) UpdateIf(ctx context.Context, id, version int64, in PetInput) (Pet, bool, error) {
	if in.Status == "" {
		in.Status = "available"
	}
	var p Pet
	swapped := false
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		args := []any{in.Name, foldName(in.Name), in.Species, in.Status, nullable(in.BirthDate), in.Owner,
			modTime(s.now()), id}
		res, err := tx.ExecContext(ctx, `UPDATE pets SET name = $1, name_folded = $2, species = $3, status = $4,
			birth_date = $5, owner = $6, updated_at = $7, version = version + 1 WHERE id = $8`+ifVersion(version, &args), args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return orErr(err, missedSwap(version))
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM pet_tags WHERE pet_id = $1", id); err != nil {
			return err
		}
		if err := insertTags(ctx, tx, id, in.Tags); err != nil {
			return err
		}
		if p, err = s.get(ctx, tx, id); err != nil {
			return err
		}
		swapped = true
		if err := s.recordOutcome(ctx, tx, p); err != nil {
			return err
		}
		return s.addEvent(ctx, tx, "updated", id, PetUpdated{Pet: p})
	})
	if errors.Is(err, errVersionMoved) {
		return Pet{}, false, nil
	}
	return p, swapped, err
}

// ifVersion is the condition of a compare-and-swap on version, its
// argument appended to args; none for version 0 (any).
func ifVersion(version int64, args *[]any) string {
	if version == 0 {
		return ""
	}
	*args = append(*args, version)
	return " AND version = $" + strconv.Itoa(len(*args))
}

// errVersionMoved is a compare-and-swap that found another version.
var errVersionMoved = errors.New("the pet's version moved")

// missedSwap is the error of a write that changed no row: with a version
// to match, errVersionMoved (another write came first, the pet perhaps
// deleted: the caller reads again and decides), else errNotFound.
func missedSwap(version int64) error {
	if version != 0 {
		return errVersionMoved
	}
	return errNotFound
}

// Delete removes the pet with id, its tags and its photo, whatever its
// version, and its data from the events (redactEvents).
func (s *Store) Delete(ctx context.Context, id int64) error {
	_, err := s.DeleteIf(ctx, id, 0)
	return err
}

// DeleteIf removes the pet with id, as Delete does, if its version is
// still version (0: any), and reports whether it did. An unknown pet is
// errNotFound.
func (s *Store) DeleteIf(ctx context.Context, id, version int64) (bool, error) {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		args := []any{id}
		res, err := tx.ExecContext(ctx, "DELETE FROM pets WHERE id = $1"+ifVersion(version, &args), args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return orErr(err, missedSwap(version))
		}
		if err := s.recordOutcome(ctx, tx, Pet{ID: id}); err != nil {
			return err
		}
		if err := redactEvents(ctx, tx, id); err != nil {
			return err
		}
		return s.addEvent(ctx, tx, "deleted", id, PetDeleted{ID: id})
	})
	if errors.Is(err, errVersionMoved) {
		return false, nil
	}
	return err == nil, err
}

// SetPhoto stores the photo of the pet with id, replacing any other.
func (s *Store) SetPhoto(ctx context.Context, id int64, ph Photo) (Pet, error) {
	var p Pet
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE pets SET updated_at = $1, version = version + 1 WHERE id = $2", modTime(s.now()), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return orErr(err, errNotFound)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO pet_photos (pet_id, content_type, data, sha256) VALUES ($1, $2, $3, $4)
			ON CONFLICT (pet_id) DO UPDATE SET content_type = excluded.content_type, data = excluded.data, sha256 = excluded.sha256`,
			id, ph.ContentType, ph.Data, photoHash(ph.Data))
		if err != nil {
			return err
		}
		if p, err = s.get(ctx, tx, id); err != nil {
			return err
		}
		return s.addEvent(ctx, tx, "updated", id, PetUpdated{Pet: p})
	})
	return p, err
}

// photoHash is the hex SHA-256 of a photo's bytes.
func photoHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Photo returns the photo of the pet with id.
func (s *Store) Photo(ctx context.Context, id int64) (Photo, error) {
	var ph Photo
	err := s.db.QueryRowContext(ctx, "SELECT content_type, data, sha256 FROM pet_photos WHERE pet_id = $1", id).
		Scan(&ph.ContentType, &ph.Data, &ph.SHA256)
	if errors.Is(err, sql.ErrNoRows) {
		return Photo{}, errNotFound
	}
	return ph, err
}

// inTx runs fn in a transaction, committed if fn returns nil and rolled
// back otherwise. A commit whose answer was lost is a lostCommit.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	if s.writer != nil {
		select {
		case s.writer <- struct{}{}:
			defer func() { <-s.writer }()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := s.commit(ctx, tx); err != nil {
		return err
	}
	if s.feed != nil {
		s.feed.poke() // this process's streams read the new events at once
	}
	return nil
}

// modTime is t as the store keeps the times of its pets: UTC, to the
// microsecond, the precision of PostgreSQL's timestamps (and SQLite keeps
// what it is given), so that a pet read back has the time it was written
// with. Writes within one second have different times: a date
// precondition can tell them apart.
func modTime(t time.Time) time.Time {
	return t.UTC().Truncate(time.Microsecond)
}

// nullable maps "" to SQL NULL.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// orErr returns err, or def when err is nil.
func orErr(err, def error) error {
	if err != nil {
		return err
	}
	return def
}

func cloneTags(tags []string) []string {
	if len(tags) == 0 {
		return nil
	}
	return append([]string(nil), tags...)
}
