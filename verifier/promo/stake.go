package promo

import (
	"crypto/sha256"
	"fmt"
	"sort"
	"strconv"
	"time"

	"tirage.fr/tirage/verifier/verdict"
)

// Stake kinds (column "kind").
const (
	KindSingle       = "single"       // an ordinary stake (also the empty string)
	KindSubscription = "subscription" // a stake made through a subscription
	KindAboPlus      = "abo+"         // a stake recorded under the Abo+ service
)

// StakeColumns are the fields of a stake row, in the CSV header's canonical
// order; JSON Lines objects use the same names.
//
//	id             the operator's unique transaction id (duplicates are rejected)
//	account        the player account id, [A-Za-z0-9._:-]{1,64}
//	time           when the stake was placed (recorded), RFC 3339 with an offset
//	game           the game code (see the rules' ranges)
//	amount_cents   the stake, integer cents, 1 … 10^11
//	channel        the sales channel (see the rules' channels)
//	kind           single (or empty) | subscription | abo+
//	subscribed_at  subscription stakes: when the subscription was taken (RFC 3339)
//	debited_at     Abo+ stakes: when the account was debited (RFC 3339)
var StakeColumns = []string{"id", "account", "time", "game", "amount_cents", "channel", "kind", "subscribed_at", "debited_at"}

// Stake is one validated stake row.
type Stake struct {
	ID           string
	Account      string
	Time         time.Time
	Game         string
	AmountCents  int64
	Channel      string
	Kind         string
	SubscribedAt time.Time
	DebitedAt    time.Time
}

// FieldError says which field of a row is wrong and why.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// validAccount reports whether a matches [A-Za-z0-9._:-]{1,64} (a loop: this runs per stake row).
func validAccount(a string) bool {
	if len(a) == 0 || len(a) > 64 {
		return false
	}
	for i := 0; i < len(a); i++ {
		c := a[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

// validCode reports whether c matches [a-z0-9][a-z0-9-]{0,63}.
func validCode(s string) bool {
	if len(s) == 0 || len(s) > 64 || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// CheckAccount validates an account id.
func CheckAccount(a string) error {
	if !validAccount(a) {
		return &FieldError{"account", fmt.Sprintf("must match [A-Za-z0-9._:-]{1,64}, got %q", clip(a))}
	}
	return nil
}

// ParseStake validates one row given as its fields in StakeColumns order
// (missing trailing fields are empty). It does not look at the rules.
func ParseStake(f [9]string) (Stake, error) {
	var s Stake
	if f[0] == "" || len(f[0]) > 128 {
		return s, &FieldError{"id", "required, at most 128 bytes"}
	}
	s.ID = f[0]
	if err := CheckAccount(f[1]); err != nil {
		return s, err
	}
	s.Account = f[1]
	t, err := parseInstant(f[2])
	if err != nil {
		return s, &FieldError{"time", err.Error()}
	}
	s.Time = t
	if !validCode(f[3]) {
		return s, &FieldError{"game", fmt.Sprintf("must be a game code [a-z0-9-], got %q", clip(f[3]))}
	}
	s.Game = f[3]
	a, err := strconv.ParseInt(f[4], 10, 64)
	if err != nil || a <= 0 || a > maxAmountCents {
		return s, &FieldError{"amount_cents", fmt.Sprintf("must be an integer number of cents between 1 and %d, got %q", int64(maxAmountCents), clip(f[4]))}
	}
	s.AmountCents = a
	if !validCode(f[5]) {
		return s, &FieldError{"channel", fmt.Sprintf("must be a channel code [a-z0-9-], got %q", clip(f[5]))}
	}
	s.Channel = f[5]
	switch f[6] {
	case "", KindSingle:
		s.Kind = KindSingle
		if f[7] != "" || f[8] != "" {
			return s, &FieldError{"kind", "single stake with subscribed_at or debited_at: say subscription or abo+"}
		}
	case KindSubscription:
		s.Kind = KindSubscription
		if s.SubscribedAt, err = parseInstant(f[7]); err != nil {
			return s, &FieldError{"subscribed_at", err.Error()}
		}
	case KindAboPlus:
		s.Kind = KindAboPlus
		if s.DebitedAt, err = parseInstant(f[8]); err != nil {
			return s, &FieldError{"debited_at", err.Error()}
		}
	default:
		return s, &FieldError{"kind", fmt.Sprintf("must be single, subscription or abo+, got %q", clip(f[6]))}
	}
	return s, nil
}

func parseInstant(v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, fmt.Errorf("required (RFC 3339 with an offset)")
	}
	t, err := ParseTime(v)
	if err != nil {
		return time.Time{}, fmt.Errorf("must be RFC 3339 with an offset like 2016-06-13T00:00:00+02:00, got %q", clip(v))
	}
	return t, nil
}

// ParseTime parses an instant written as an RFC 3339 date-time (§5.6),
// offset included: 2016-06-13T00:00:00+02:00, …Z, with an optional
// fraction of seconds after a '.'; 'T' and 'Z' in capitals. Unlike
// time.Parse with time.RFC3339 (go.dev/issue/54580; Time.UnmarshalText's
// strict checks are disabled too) it refuses what §5.6 does not allow:
// an offset hour past 23 or minute past 59 (+24:00), a ',' before the
// fraction, one-digit fields. Every time of the operator's inputs (stakes,
// closed accounts) is read by it.
func ParseTime(s string) (time.Time, error) {
	// full-date "T" partial-time without the fraction: 2006-01-02T15:04:05.
	const head = "dddd-dd-ddTdd:dd:dd"
	if len(s) < len(head) {
		return time.Time{}, verdict.Errorf(verdict.MsgTimeTooShort)
	}
	for i := range len(head) {
		if c := s[i]; head[i] == 'd' && !isDigit(c) || head[i] != 'd' && c != head[i] {
			return time.Time{}, verdict.Errorf(verdict.MsgTimeWant, head, i+1)
		}
	}
	rest := s[len(head):]
	if len(rest) > 0 && rest[0] == '.' {
		n := 1
		for n < len(rest) && isDigit(rest[n]) {
			n++
		}
		if n == 1 {
			return time.Time{}, verdict.Errorf(verdict.MsgTimeFraction)
		}
		rest = rest[n:]
	}
	// time-offset = "Z" / time-numoffset, time-numoffset = ("+" / "-") time-hour ":" time-minute
	switch {
	case rest == "Z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && isDigit(rest[1]) && isDigit(rest[2]) && rest[3] == ':' && isDigit(rest[4]) && isDigit(rest[5]):
		if h, m := rest[1:3], rest[4:6]; h > "23" || m > "59" {
			return time.Time{}, verdict.Errorf(verdict.MsgTimeOffsetRange, rest)
		}
	default:
		return time.Time{}, verdict.Errorf(verdict.MsgTimeOffset)
	}
	// The shape is right: time.Parse checks the ranges of the fields
	// (month, day of the month, hour, minute, second).
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, verdict.Errorf(verdict.MsgTimeFields, err)
	}
	return t, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Exclusion says why a valid stake does not count. The zero value means it counts.
type Exclusion uint8

// Exclusion reasons (NumExclusions of them, Counts included).
const (
	Counts Exclusion = iota
	OutsidePeriod
	ChannelNotCounted
	GameNotInRange
	SubscriptionOtherDay
	AboPlusOtherDay
	SubscriptionExcluded
	AboPlusExcluded
	NumExclusions
)

var exclusionNames = [...]string{
	Counts:               "counts",
	OutsidePeriod:        "outside the participation period",
	ChannelNotCounted:    "channel not counted",
	GameNotInRange:       "game not in the day's range",
	SubscriptionOtherDay: "subscription not taken on the stake's day",
	AboPlusOtherDay:      "abo+ stake not debited on the day it was recorded",
	SubscriptionExcluded: "subscription stakes excluded",
	AboPlusExcluded:      "abo+ stakes excluded",
}

func (e Exclusion) String() string { return exclusionNames[e] }

// Classify applies the rules to one stake: the participation day it counts
// for, or why it does not count.
func (r *Rules) Classify(s *Stake) (day int, why Exclusion) {
	day = r.DayIndex(s.Time)
	if day < 0 {
		return -1, OutsidePeriod
	}
	if !r.channels[s.Channel] {
		return -1, ChannelNotCounted
	}
	if !r.counts(day, s.Game) {
		return -1, GameNotInRange
	}
	if s.Kind == KindSingle || r.subGames != nil && !r.subGames[s.Game] {
		// The subscription policies (art. 2.2) concern the games of
		// Subscriptions.Games only: on another game a subscription or
		// Abo+ stake counts like any other stake.
		return day, Counts
	}
	switch s.Kind {
	case KindSubscription:
		switch r.Subscriptions.Subscription {
		case Excluded:
			return -1, SubscriptionExcluded
		case SubscribedSameDay:
			if r.DayIndex(s.SubscribedAt) != day {
				return -1, SubscriptionOtherDay
			}
		}
	case KindAboPlus:
		switch r.Subscriptions.AboPlus {
		case Excluded:
			return -1, AboPlusExcluded
		case RecordedDebitedSameDay:
			if r.DayIndex(s.DebitedAt) != day {
				return -1, AboPlusOtherDay
			}
		}
	}
	return day, Counts
}

// DuplicateError rejects a stake whose id was already seen.
type DuplicateError struct {
	// FirstFile is the name of the stake file of the first stake with the
	// id (Tally.StartFile); empty when no name was given.
	FirstFile string
	FirstLine int
}

func (e *DuplicateError) Error() string {
	if e.FirstFile != "" {
		return fmt.Sprintf("id: duplicate stake id (first seen in %s on line %d)", e.FirstFile, e.FirstLine)
	}
	return fmt.Sprintf("id: duplicate stake id (first seen on line %d)", e.FirstLine)
}

// Tally accumulates stakes into totals per account per participation day.
// It holds one int64 per account per day and one 20-byte entry per stake id;
// feed it rows in any order. It is not safe for concurrent use.
type Tally struct {
	rules    *Rules
	ids      map[string]uint32
	accounts []string
	totals   []int64 // totals[acct*len(days)+day]
	// seen maps a stake id to where it was first seen: its line plus the
	// base of its file (files[i].base), so that several files share one
	// uint32 per id.
	seen  map[[16]byte]uint32
	files []stakeFile
	next  uint32 // the largest value in seen: the base of the next file
	// Rows counts the stakes added; Excluded counts those not counting, by reason.
	Rows     int64
	Excluded [NumExclusions]int64
	// watch notes one account's rows (Watch); nil: none.
	watch *AccountRows
}

// NewTally starts an empty tally for rules.
func NewTally(r *Rules) *Tally {
	return &Tally{rules: r, ids: map[string]uint32{}, seen: map[[16]byte]uint32{}}
}

// Add counts stake s read from line. It returns a *DuplicateError (and
// changes nothing) when the stake id was seen before, otherwise why the
// stake does not count (Counts if it does). A reader gives the rows it
// rejects, duplicates included, to Reject.
func (t *Tally) Add(line int, s *Stake) (Exclusion, error) {
	key := idKey(s.ID)
	if first, dup := t.seen[key]; dup {
		return Counts, t.duplicate(first)
	}
	var base uint32
	if len(t.files) > 0 {
		base = t.files[len(t.files)-1].base
	}
	at := base + uint32(line)
	t.seen[key] = at
	t.next = max(t.next, at)
	t.Rows++
	day, why := t.rules.Classify(s)
	if t.watch != nil {
		t.noteAdded(line, s, why)
	}
	if why != Counts {
		t.Excluded[why]++
		return why, nil
	}
	n := len(t.rules.Days)
	id, ok := t.ids[s.Account]
	if !ok {
		id = uint32(len(t.accounts))
		t.ids[s.Account] = id
		t.accounts = append(t.accounts, s.Account)
		t.totals = append(t.totals, zeros[:n]...)
	}
	// Saturate rather than overflow: past 2^62 cents every minimum is met anyway.
	i := int(id)*n + day
	if t.totals[i] += s.AmountCents; t.totals[i] > 1<<62 {
		t.totals[i] = 1 << 62
	}
	return Counts, nil
}

// stakeFile is a stake file fed to a Tally: its name, and the base added
// to its line numbers in Tally.seen.
type stakeFile struct {
	name string
	base uint32
}

// StartFile says that the stakes added from now on are read from the file
// called name: a duplicate then names the file of the first stake with its
// id (several files share one duplicate check).
func (t *Tally) StartFile(name string) {
	t.files = append(t.files, stakeFile{name: name, base: t.next})
}

// duplicate locates the value at of seen in its file.
func (t *Tally) duplicate(at uint32) *DuplicateError {
	// The last file whose base is below at: lines are 1-based.
	i := sort.Search(len(t.files), func(i int) bool { return t.files[i].base >= at }) - 1
	if i < 0 {
		return &DuplicateError{FirstLine: int(at)}
	}
	return &DuplicateError{FirstFile: t.files[i].name, FirstLine: int(at - t.files[i].base)}
}

// zeros backs the totals of a new account (at most len(zeros) days; checked by ParseRules).
var zeros [maxDays]int64

// maxDays bounds the participation days of a rules file.
const maxDays = 366

// Grow makes room for about rows more stakes, so that the duplicate check
// does not rehash millions of ids as it grows (a hint: any value is safe).
func (t *Tally) Grow(rows int) {
	if rows <= len(t.seen) || rows > 1<<30 {
		return
	}
	seen := make(map[[16]byte]uint32, rows)
	for k, v := range t.seen {
		seen[k] = v
	}
	t.seen = seen
}

// idKey is the duplicate check's key of a stake id: the id itself when it
// fits (first byte its length, 1 to 15), else 0xff and 120 bits of its SHA-256.
func idKey(id string) [16]byte {
	var key [16]byte
	if len(id) < 16 {
		key[0] = byte(len(id))
		copy(key[1:], id)
		return key
	}
	h := sha256.Sum256([]byte(id))
	copy(key[:], h[:16])
	key[0] = 0xff
	return key
}

// Accounts is the number of accounts with at least one counted stake.
func (t *Tally) Accounts() int { return len(t.accounts) }
