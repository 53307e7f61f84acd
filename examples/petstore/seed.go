package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// seedBatch is how many pets one INSERT statement of Seed carries, and
// seedTx how many one transaction commits.
const (
	seedBatch = 500
	seedTx    = 20_000
)

// Seed adds n generated pets in bulk, for trying the service (and
// measuring it) at the size of a real store: multi-row INSERTs in large
// transactions, then fresh planner statistics. The pets follow the
// documented contract (two-word names, the five species, up to three
// tags); the same n gives the same pets. Seed writes no events: a bulk
// load is not a change that streams announce. progress, if not nil,
// receives a line per transaction.
func (s *Store) Seed(ctx context.Context, n int, progress io.Writer) error {
	var next int64
	if err := s.db.QueryRowContext(ctx, "SELECT COALESCE(MAX(id), 0) + 1 FROM pets").Scan(&next); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(n), 0x9e3779b97f4a7c15))
	now := modTime(s.now())
	start := time.Now()
	for done := 0; done < n; {
		size := min(seedTx, n-done)
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			for b := 0; b < size; b += seedBatch {
				pets := make([]seedPet, min(seedBatch, size-b))
				for i := range pets {
					pets[i] = generatePet(rng, next)
					next++
				}
				if err := insertSeed(ctx, tx, s.d, pets, now); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		done += size
		if progress != nil {
			fmt.Fprintf(progress, "seeded %d of %d pets (%s)\n", done, n, time.Since(start).Round(time.Second))
		}
	}
	if s.d.name == "postgres" {
		// Explicit IDs leave the identity's sequence behind them.
		if _, err := s.db.ExecContext(ctx, "SELECT setval(pg_get_serial_sequence('pets', 'id'), (SELECT MAX(id) FROM pets))"); err != nil {
			return err
		}
		_, err := s.db.ExecContext(ctx, "ANALYZE pets, pet_tags")
		return err
	}
	// The search index's segments, one or more per transaction, merged
	// into one: a search reads each segment's lists.
	if _, err := s.db.ExecContext(ctx, "INSERT INTO pets_fts (pets_fts) VALUES ('optimize')"); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, "ANALYZE")
	return err
}

// seedPet is a generated pet with the ID it is inserted under.
type seedPet struct {
	id   int64
	in   PetInput
	tags []string
}

// The words Seed builds pets from: names are a first and a second word
// (15,000 pairs), so that a search for a whole name finds a few dozen
// pets in a million, and one for a first word about one in a hundred.
var (
	seedFirst = strings.Fields(`Max Bella Luna Charlie Lucy Cooper Daisy Milo Bailey Sadie Rocky Molly Buddy
		Lola Tucker Maggie Bear Sophie Duke Chloe Oliver Zoe Leo Stella Jack Penny Toby Ruby Winston Rosie
		Teddy Lily Oscar Nala Finn Coco Murphy Ellie Louie Pepper Gus Willow Henry Ginger Jasper Olive
		Ziggy Hazel Otis Mabel Rex Nemo Simba Kiwi Mango Pickle Biscuit Waffles Noodle Pumpkin Clover Maple
		Juniper Sage Basil Thistle Bramble Pebble Sunny Storm Shadow Ember Frost Misty Dusty Sable Onyx
		Jet Ivory Amber Goldie Copper Rusty Smokey Socks Whiskers Mittens Patches Boots Tiger Ace Blue
		Scout Ranger Hunter Comet Apollo Zeus Athena Juno Nova Orion Pixel Echo Bolt Dash Flash
		Pip Tilly Poppy Honey Peanut Muffin Cookie Brownie Fudge Toffee Caramel Butters Nutmeg Cinnamon
		Pretzel Dumpling Bao Sushi Tofu Miso Wasabi Ramen Udon Nori Chai Mocha Latte Espresso Truffle Bruno
		Koda Kona Loki Thor Odin Freya Sky Rain Cloud`)
	seedSecond = strings.Fields(`Ashford Blackwood Brightwater Calloway Dunmore Everhart Fairweather Glenrose
		Hollowell Ironside Juniper Kingsley Lockhart Merriweather Northcott Oakhaven Pemberton Quill Ravenscroft
		Stonebridge Thornfield Underhill Valemont Whitlock Yarrow Zephyr Abernathy Birchwood Copperfield
		Darrow Elderberry Foxglove Greystone Hawthorne Islington Jessamy Kettleby Larkspur Moorcroft Nettleton
		Ormsby Pennywhistle Quenby Rosewood Sallowmere Tumbleweed Umberfield Verity Wetherby Wyndham Yewdale
		Alder Bramblewood Cinderfell Dovecote Emberly Fenwick Gladstone Harrowgate Ingleby Jollyboat Kestrel
		Lindenfield Marchbank Nightingale Otterburn Primrose Quarrington Redfern Swallowtail Tarragon
		Upperton Vervain Willowby Woodruff Ashdown Bellweather Clearwater Dewberry Eastwick Fernsby Goldcrest
		Heatherby Ivybridge Juniperwood Kilbride Lavender Mistletoe Nutley Oakridge Plumtree Quickthorn
		Rowanberry Saffron Thistledown`)
	seedTags     = []string{"friendly", "trained", "vaccinated", "neutered", "senior", "puppy", "kitten", "shy", "playful", "indoor", "outdoor", "special-needs"}
	seedSpecies  = []string{"dog", "cat", "bird", "fish", "rabbit"}
	seedStatuses = []string{"available", "available", "available", "pending", "adopted"}
	seedOwners   = []string{"Ana", "Ben", "Chen", "Dara", "Eli", "Fatima", "Goran", "Hana", "Ivo", "June"}
)

// generatePet makes the pet with id from rng.
func generatePet(rng *rand.Rand, id int64) seedPet {
	p := seedPet{id: id}
	p.in.Name = seedFirst[rng.IntN(len(seedFirst))] + " " + seedSecond[rng.IntN(len(seedSecond))]
	p.in.Species = seedSpecies[rng.IntN(len(seedSpecies))]
	p.in.Status = seedStatuses[rng.IntN(len(seedStatuses))]
	if rng.IntN(4) > 0 {
		born := time.Date(2008, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(6500))
		p.in.BirthDate = born.Format(time.DateOnly)
	}
	if p.in.Status == "adopted" {
		o := seedOwners[rng.IntN(len(seedOwners))]
		p.in.Owner = &o
	}
	for _, i := range rng.Perm(len(seedTags))[:rng.IntN(4)] {
		p.tags = append(p.tags, seedTags[i])
	}
	return p
}

// insertSeed inserts pets and their tags with two multi-row statements.
// SQLite's are numbered by position (?): it looks named ones ($n) up one
// by one, which costs the square of their number.
func insertSeed(ctx context.Context, tx *sql.Tx, d dialect, pets []seedPet, now time.Time) error {
	var q strings.Builder
	args := make([]any, 0, len(pets)*9)
	q.WriteString("INSERT INTO pets (id, name, name_folded, species, status, birth_date, owner, created_at, updated_at) VALUES ")
	row := func(n int) {
		q.WriteByte('(')
		for i := range n {
			if i > 0 {
				q.WriteByte(',')
			}
			if d.name == "sqlite" {
				q.WriteByte('?')
			} else {
				q.WriteString("$" + strconv.Itoa(len(args)-n+i+1))
			}
		}
		q.WriteByte(')')
	}
	for i, p := range pets {
		if i > 0 {
			q.WriteByte(',')
		}
		args = append(args, p.id, p.in.Name, foldName(p.in.Name), p.in.Species, p.in.Status,
			nullable(p.in.BirthDate), p.in.Owner, now, now)
		row(9)
	}
	if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
		return err
	}
	q.Reset()
	args = args[:0]
	q.WriteString("INSERT INTO pet_tags (pet_id, position, tag) VALUES ")
	for _, p := range pets {
		for i, t := range p.tags {
			if len(args) > 0 {
				q.WriteByte(',')
			}
			args = append(args, p.id, i, t)
			row(3)
		}
	}
	if len(args) == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, q.String(), args...)
	return err
}
