package promo

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // Europe/Paris must resolve identically on every machine, with or without system tzdata.

	"gopkg.in/yaml.v3"

	"tirage.fr/tirage/verifier/beacon"
	"tirage.fr/tirage/verifier/calendar"
)

// RulesVersion is the only schema version ParseRules accepts.
const RulesVersion = 1

// Rules is an operation's rules file (YAML). docs/promotions.md is the
// reference of its schema; examples/bonus-crescendo.yaml is the worked example.
type Rules struct {
	// Version of the schema: 1.
	Version int `yaml:"version"`
	// Operation is the operation's identifier, [a-z0-9-]{1,64}; it prefixes draw ids.
	Operation string `yaml:"operation"`
	// Title is the operation's name as published.
	Title string `yaml:"title"`
	// Timezone is an IANA zone name; participation days are calendar days there.
	Timezone string `yaml:"timezone"`
	// Currency of every amount, ISO 4217 (amounts are integer minor units).
	Currency string `yaml:"currency"`
	// Channels lists the sales channels whose stakes count (art. 2.1: web sites and apps).
	Channels []string `yaml:"channels"`
	// Ranges names sets of game codes: a day counts the stakes on its range's games.
	Ranges map[string][]string `yaml:"ranges"`
	// Subscriptions says when subscription and Abo+ stakes count (art. 2.2).
	Subscriptions SubscriptionRules `yaml:"subscriptions"`
	// ECredit gives the e-credits' payment and validity delays (art. 3.2.2).
	ECredit ECreditRules `yaml:"e_credit"`
	// Days are the participation days, in calendar order, each at most once.
	Days []Day `yaml:"days"`
	// Draws are the prize draws; each is fed by the days that name it.
	Draws []Draw `yaml:"draws"`

	loc      *time.Location
	days     map[string]int // date → index in Days
	ranges   []map[string]bool
	channels map[string]bool
	subGames map[string]bool // Subscriptions.Games; nil: every game
	drawDays [][]int         // per draw, the indices of the days feeding it
	first    time.Time
	end      time.Time
	// byOrdinal[i] is the index of the day of ordinal firstOrdinal+i, or -1.
	byOrdinal    []int
	firstOrdinal int64
}

// Subscription policies.
const (
	// SubscribedSameDay counts a subscription stake on the day it was
	// subscribed, and only when it was placed that same day (art. 2.2 §1).
	SubscribedSameDay = "subscribed-same-day"
	// RecordedDebitedSameDay counts an Abo+ stake on the day it was both
	// recorded and debited (art. 2.2 §2).
	RecordedDebitedSameDay = "recorded-and-debited-same-day"
	// Counted counts such stakes like any other stake.
	Counted = "counted"
	// Excluded never counts such stakes.
	Excluded = "excluded"
)

// SubscriptionRules says which subscription stakes count.
type SubscriptionRules struct {
	// Games lists the game codes the two policies apply to (art. 2.2: the
	// draw games Loto®, JOKER+® and Euro Millions - My Million). A
	// subscription or Abo+ stake on another game counts like any other
	// stake. Empty: the policies apply to every game.
	Games []string `yaml:"games,omitempty"`
	// Subscription: subscribed-same-day | counted | excluded.
	Subscription string `yaml:"subscription"`
	// AboPlus: recorded-and-debited-same-day | counted | excluded.
	AboPlus string `yaml:"abo_plus"`
}

// ECreditRules gives the e-credit delays in calendar days.
type ECreditRules struct {
	// PaymentWithinDays: the e-credit is paid at the latest this many days
	// after the participation day (art. 3.2.2: 7).
	PaymentWithinDays int `yaml:"payment_within_days"`
	// ValidityDays: the e-credit stays valid this many days after payment (1 week: 7).
	ValidityDays int `yaml:"validity_days"`
}

// Day is one participation day.
type Day struct {
	// Date is the calendar date, YYYY-MM-DD, in Timezone.
	Date string `yaml:"date"`
	// Range names the entry of Ranges whose games count that day.
	Range string `yaml:"range"`
	// MinimumCents is the minimum total of the day's counted stakes.
	MinimumCents int64 `yaml:"minimum_cents"`
	// ECreditCents is the e-credit earned by reaching the minimum (0: none).
	ECreditCents int64 `yaml:"e_credit_cents"`
	// Draw is the id of the draw the day's participants enter, if any.
	Draw string `yaml:"draw,omitempty"`
}

// Draw is one prize draw.
type Draw struct {
	// ID is the draw's identifier within the operation, [a-z0-9-]{1,32}.
	ID string `yaml:"id"`
	// Title is the draw's published name ("Tirage au sort n° 1").
	Title string `yaml:"title"`
	// Prize describes the prize.
	Prize string `yaml:"prize"`
	// ValueCents is the prize's value; optional (absent or 0: not stated
	// on the documents).
	ValueCents int64 `yaml:"value_cents" rules:"optional"`
	// Date is the scheduled date of the ceremony, YYYY-MM-DD.
	Date string `yaml:"date"`
	// LatestDate is the latest date if the scheduled one cannot be kept.
	LatestDate string `yaml:"latest_date"`
	// Reserves is the number of ranked reserve winners drawn with the
	// winner; optional (absent: none).
	Reserves int `yaml:"reserves" rules:"optional"`
	// Beacon, if set, pre-announces a public randomness beacon round whose
	// value the ceremony must bind into α.
	Beacon *BeaconSpec `yaml:"beacon,omitempty"`
}

// BeaconSpec pre-announces a public beacon round: a round of a drand chain
// (verifier/beacon), whose signature the ceremony checks before binding it.
type BeaconSpec struct {
	// Source describes the beacon for people (e.g. "drand quicknet, League
	// of Entropy"); optional.
	Source string `yaml:"source,omitempty"`
	// Chain is the drand chain: "quicknet", "default" (alias "mainnet") or
	// the chain hash (64 hex) of one of them — the chains whose keys the
	// verifier pins (beacon.Pinned).
	Chain string `yaml:"chain"`
	// Round is the round number whose value is bound (≥ 1).
	Round uint64 `yaml:"round"`
}

// Ref returns the announced round as a beacon reference, and its chain.
func (b *BeaconSpec) Ref() (beacon.Ref, *beacon.Chain, error) {
	c := beacon.Pinned(strings.ToLower(b.Chain))
	if c == nil {
		return beacon.Ref{}, nil, fmt.Errorf("chain %q is not a drand chain this verifier pins (quicknet, default, or the chain hash of one)", b.Chain)
	}
	if b.Round == 0 {
		return beacon.Ref{}, nil, errors.New("round must be at least 1")
	}
	return beacon.Ref{Chain: c.Hash(), Round: b.Round}, c, nil
}

// RulesError is one problem in a rules file: where it is and what is wrong.
type RulesError struct {
	Line  int    // 1-based line in the file; 0 when the field is absent
	Field string // path of the field, e.g. days[3].minimum_cents
	Msg   string
}

func (e *RulesError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s: %s", e.Line, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Field, e.Msg)
}

var (
	idRE       = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)
	drawIDRE   = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)
	currencyRE = regexp.MustCompile(`^[A-Z]{3}$`)
)

// maxAmountCents bounds every amount so that sums of millions of them cannot overflow.
const maxAmountCents = 1_000_000_000_00

// ParseRules parses and validates a rules file. On error it returns every
// problem found, each a *RulesError naming the line and the field (use
// errors.As or RulesErrors to list them).
func ParseRules(data []byte) (*Rules, error) {
	var root yaml.Node
	docs := yaml.NewDecoder(bytes.NewReader(data))
	if err := docs.Decode(&root); err != nil {
		if err == io.EOF {
			return nil, &RulesError{Field: "(file)", Msg: "empty rules file"}
		}
		return nil, &RulesError{Line: yamlErrLine(err), Field: "(file)", Msg: err.Error()}
	}
	if len(root.Content) == 0 {
		return nil, &RulesError{Field: "(file)", Msg: "empty rules file"}
	}
	// The rules hash covers the whole file: a second document would be
	// hashed, published and never applied.
	var extra yaml.Node
	if err := docs.Decode(&extra); err != io.EOF {
		line := extra.Line
		if err != nil {
			line = yamlErrLine(err)
		}
		return nil, &RulesError{Line: line, Field: "(file)", Msg: "more than one YAML document: a rules file is one document (remove the ---)"}
	}
	v := &validator{root: root.Content[0], bad: map[string]bool{}}
	v.integers(v.root, reflect.TypeFor[Rules](), "")
	var r Rules
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&r); err != nil {
		return nil, errors.Join(append(v.errs, decodeErrors(err, v.badValues)...)...)
	}
	r.validate(v)
	if len(v.errs) > 0 {
		return nil, errors.Join(v.errs...)
	}
	return &r, nil
}

// RulesErrors lists the *RulesError values in err.
func RulesErrors(err error) []*RulesError {
	var out []*RulesError
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if re, ok := e.(*RulesError); ok {
			out = append(out, re)
			return
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		walk(errors.Unwrap(e))
	}
	walk(err)
	return out
}

// RulesHash is the fingerprint of a rules file: SHA-256 of its exact bytes.
// Freeze records and certificates carry it.
func RulesHash(data []byte) [32]byte { return sha256.Sum256(data) }

var lineRE = regexp.MustCompile(`line (\d+)`)

func yamlErrLine(err error) int {
	if m := lineRE.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// decodeErrors turns yaml.v3's type errors ("line 7: cannot unmarshal …",
// "line 9: field foo not found in type promo.Day") into RulesErrors. A
// "cannot unmarshal" of a value in skip (by line) is left out: the integer
// check (validator.integers) already refused it, naming the field.
func decodeErrors(err error, skip map[int][]string) []error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return []error{&RulesError{Line: yamlErrLine(err), Field: "(file)", Msg: err.Error()}}
	}
	var errs []error
	for _, m := range te.Errors {
		field := "(value)"
		msg := m
		line := yamlErrLine(m2err(m))
		if i := strings.Index(m, "field "); i >= 0 && strings.Contains(m, "not found") {
			f := strings.Fields(m[i+len("field "):])
			if len(f) > 0 {
				field = f[0]
			}
			msg = "unknown field"
		} else if i := strings.Index(m, ": "); i >= 0 {
			msg = m[i+2:]
		}
		if strings.Contains(msg, "cannot unmarshal") && slices.ContainsFunc(skip[line], func(v string) bool {
			// yaml.v3 quotes the value, its first 7 bytes and "..." past 10.
			if len(v) > 10 {
				v = v[:7] + "..."
			}
			return strings.Contains(msg, "`"+v+"`")
		}) {
			continue
		}
		errs = append(errs, &RulesError{Line: line, Field: field, Msg: msg})
	}
	return errs
}

type strErr string

func (s strErr) Error() string { return string(s) }
func m2err(s string) error     { return strErr(s) }

// validator collects errors, locating each field in the YAML tree.
type validator struct {
	root *yaml.Node
	errs []error
	// bad holds the paths of the integer fields already refused by
	// integers, whose decoded value (0, or yaml.v3's reading) means nothing;
	// badValues the values it refused, by line.
	bad       map[string]bool
	badValues map[int][]string
}

// fail records a problem at path (dot-separated keys, [i] for sequence items).
func (v *validator) fail(path, format string, args ...any) {
	if v.bad[path] {
		return
	}
	v.errs = append(v.errs, &RulesError{Line: v.line(path), Field: path, Msg: fmt.Sprintf(format, args...)})
}

// decimalRE is the one syntax of an integer in a rules file. yaml.v3 would
// also read 0x1f4, 0o17, 01200 (octal: 640), 1_000, +5, and truncate 1199.99
// or 2.9 into an integer field: the file would say one amount and the
// appliance apply another. A '-' is let through to the range checks, which
// refuse it naming the range.
var decimalRE = regexp.MustCompile(`^(0|-?[1-9][0-9]*)$`)

// integers walks node, the YAML of a value of type t at path, and refuses
// every integer field that is not a plain decimal scalar in range of its Go
// type, and every missing integer field: an integer of the schema is
// required (an explicit 0 where 0 is meaningful, so that no amount, count
// or delay is a silent 0) unless its field is tagged rules:"optional".
// node nil means the enclosing value is absent.
func (v *validator) integers(node *yaml.Node, t reflect.Type, path string) {
	for node != nil && node.Kind == yaml.AliasNode {
		node = node.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	join := func(name string) string {
		if path == "" {
			return name
		}
		return path + "." + name
	}
	switch t.Kind() {
	case reflect.Struct:
		if node != nil && node.Kind == yaml.ScalarNode && node.Tag == "!!null" {
			node = nil // the decoder leaves the zero value: absent
		}
		if node != nil && node.Kind != yaml.MappingNode {
			return // the decoder refuses it
		}
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("yaml")
			if !f.IsExported() || tag == "" || tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			omit := strings.Contains(opts, "omitempty") || f.Tag.Get("rules") == "optional"
			p := join(name)
			var val *yaml.Node
			line := 0
			if node != nil {
				if k, x := mappingValue(node, name); x != nil {
					val, line = x, k.Line
				}
			}
			if val == nil {
				if isInteger(f.Type) && !omit {
					v.refuse(p, v.line(p), nil, "is required")
				} else if f.Type.Kind() == reflect.Struct && !omit {
					v.integers(nil, f.Type, p)
				}
				continue
			}
			if isInteger(f.Type) {
				v.integer(val, f.Type, p, line)
			} else {
				v.integers(val, f.Type, p)
			}
		}
	case reflect.Slice:
		if node == nil || node.Kind != yaml.SequenceNode {
			return
		}
		for i, item := range node.Content {
			v.integers(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Map:
		if node == nil || node.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(node.Content); i += 2 {
			v.integers(node.Content[i+1], t.Elem(), join(node.Content[i].Value))
		}
	}
}

// integer checks the scalar of an integer field of type t at path.
func (v *validator) integer(n *yaml.Node, t reflect.Type, path string, line int) {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 || !decimalRE.MatchString(n.Value) {
		v.refuse(path, line, n, "must be a decimal integer (digits only, no leading zero), got %q", clip(n.Value))
		return
	}
	var err error
	if t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uintptr {
		if strings.HasPrefix(n.Value, "-") {
			v.refuse(path, line, n, "must not be negative, got %s", n.Value)
			return
		}
		_, err = strconv.ParseUint(n.Value, 10, t.Bits())
	} else {
		_, err = strconv.ParseInt(n.Value, 10, t.Bits())
	}
	if err != nil {
		v.refuse(path, line, n, "%s is out of range", clip(n.Value))
	}
}

// refuse records an integer field's problem at line and marks the field
// bad; n is the value refused, nil when the field is missing.
func (v *validator) refuse(path string, line int, n *yaml.Node, format string, args ...any) {
	v.errs = append(v.errs, &RulesError{Line: line, Field: path, Msg: fmt.Sprintf(format, args...)})
	v.bad[path] = true
	if n != nil {
		if v.badValues == nil {
			v.badValues = map[int][]string{}
		}
		v.badValues[n.Line] = append(v.badValues[n.Line], n.Value)
	}
}

func isInteger(t reflect.Type) bool {
	return t.Kind() >= reflect.Int && t.Kind() <= reflect.Uintptr
}

// mappingValue returns the key and value nodes of key in mapping m, looking
// into merged mappings (<<: *anchor) as yaml.v3 does, or nils.
func mappingValue(m *yaml.Node, key string) (k, val *yaml.Node) {
	return mergedValue(m, key, 0)
}

// maxMerge bounds the nesting of merge keys mergedValue follows: an anchor
// merged into itself is a cycle (the decoder refuses it), and merges of
// merges could make the search exponential.
const maxMerge = 8

func mergedValue(m *yaml.Node, key string, depth int) (k, val *yaml.Node) {
	if depth > maxMerge {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i].Tag != "!!merge" {
			return m.Content[i], m.Content[i+1]
		}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Tag != "!!merge" {
			continue
		}
		merged := []*yaml.Node{m.Content[i+1]}
		for merged[0].Kind == yaml.AliasNode {
			merged[0] = merged[0].Alias
		}
		if merged[0].Kind == yaml.SequenceNode {
			merged = merged[0].Content
		}
		for _, x := range merged {
			for x.Kind == yaml.AliasNode {
				x = x.Alias
			}
			if x.Kind == yaml.MappingNode {
				if k, val := mergedValue(x, key, depth+1); val != nil {
					return k, val
				}
			}
		}
	}
	return nil, nil
}

// line finds the line of the deepest existing node along path.
func (v *validator) line(path string) int {
	n := v.root
	line := 0
	for _, part := range splitPath(path) {
		if n == nil {
			break
		}
		if strings.HasPrefix(part, "[") {
			i, err := strconv.Atoi(strings.Trim(part, "[]"))
			if err != nil || n.Kind != yaml.SequenceNode || i >= len(n.Content) {
				break
			}
			n = n.Content[i]
			line = n.Line
			continue
		}
		if n.Kind != yaml.MappingNode {
			break
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == part {
				line = n.Content[i].Line
				next = n.Content[i+1]
				break
			}
		}
		n = next
	}
	return line
}

func splitPath(p string) []string {
	var out []string
	for _, seg := range strings.Split(p, ".") {
		for {
			i := strings.Index(seg, "[")
			if i < 0 {
				break
			}
			if i > 0 {
				out = append(out, seg[:i])
			}
			j := strings.Index(seg, "]")
			if j < i {
				break
			}
			out = append(out, seg[i:j+1])
			seg = seg[j+1:]
		}
		if seg != "" {
			out = append(out, seg)
		}
	}
	return out
}

func (r *Rules) validate(v *validator) {
	if r.Version != RulesVersion {
		v.fail("version", "must be %d, got %d", RulesVersion, r.Version)
	}
	if !idRE.MatchString(r.Operation) {
		v.fail("operation", "must match [a-z0-9][a-z0-9-]{0,63}, got %q", r.Operation)
	}
	if strings.TrimSpace(r.Title) == "" {
		v.fail("title", "is required")
	}
	if r.Timezone == "" {
		v.fail("timezone", "is required (e.g. Europe/Paris)")
	} else if !calendar.ZoneName(r.Timezone) {
		// The days would then depend on the machine, not on the hashed
		// file.
		v.fail("timezone", "must be an IANA time zone name such as Europe/Paris, got %q (machine-dependent or not a zone name)", r.Timezone)
	} else if loc, err := time.LoadLocation(r.Timezone); err != nil {
		v.fail("timezone", "unknown time zone %q", r.Timezone)
	} else {
		r.loc = loc
	}
	if !currencyRE.MatchString(r.Currency) {
		v.fail("currency", "must be an ISO 4217 code like EUR, got %q", r.Currency)
	}
	if len(r.Channels) == 0 {
		v.fail("channels", "at least one counted channel is required")
	}
	r.channels = map[string]bool{}
	for i, c := range r.Channels {
		if !idRE.MatchString(c) {
			v.fail(fmt.Sprintf("channels[%d]", i), "must match [a-z0-9][a-z0-9-]*, got %q", c)
		}
		r.channels[c] = true
	}
	if len(r.Ranges) == 0 {
		v.fail("ranges", "at least one range of games is required")
	}
	for name, games := range r.Ranges {
		if !idRE.MatchString(name) {
			v.fail("ranges."+name, "range name must match [a-z0-9][a-z0-9-]*")
		}
		if len(games) == 0 {
			v.fail("ranges."+name, "a range needs at least one game")
		}
		for i, g := range games {
			if !idRE.MatchString(g) {
				v.fail(fmt.Sprintf("ranges.%s[%d]", name, i), "game code must match [a-z0-9][a-z0-9-]*, got %q", g)
			}
		}
	}
	if len(r.Subscriptions.Games) > 0 {
		inRange := map[string]bool{}
		for _, games := range r.Ranges {
			for _, g := range games {
				inRange[g] = true
			}
		}
		r.subGames = map[string]bool{}
		for i, g := range r.Subscriptions.Games {
			switch {
			case !idRE.MatchString(g):
				v.fail(fmt.Sprintf("subscriptions.games[%d]", i), "game code must match [a-z0-9][a-z0-9-]*, got %q", g)
			case !inRange[g]:
				v.fail(fmt.Sprintf("subscriptions.games[%d]", i), "game %q is in no range (under ranges)", g)
			}
			r.subGames[g] = true
		}
	}
	switch r.Subscriptions.Subscription {
	case SubscribedSameDay, Counted, Excluded:
	default:
		v.fail("subscriptions.subscription", "must be %s, %s or %s, got %q", SubscribedSameDay, Counted, Excluded, r.Subscriptions.Subscription)
	}
	switch r.Subscriptions.AboPlus {
	case RecordedDebitedSameDay, Counted, Excluded:
	default:
		v.fail("subscriptions.abo_plus", "must be %s, %s or %s, got %q", RecordedDebitedSameDay, Counted, Excluded, r.Subscriptions.AboPlus)
	}
	if r.ECredit.PaymentWithinDays < 0 || r.ECredit.PaymentWithinDays > 366 {
		v.fail("e_credit.payment_within_days", "must be between 0 and 366, got %d", r.ECredit.PaymentWithinDays)
	}
	if r.ECredit.ValidityDays < 1 || r.ECredit.ValidityDays > 366 {
		v.fail("e_credit.validity_days", "must be between 1 and 366, got %d", r.ECredit.ValidityDays)
	}

	draws := map[string]int{}
	for i, d := range r.Draws {
		p := fmt.Sprintf("draws[%d]", i)
		if !drawIDRE.MatchString(d.ID) {
			v.fail(p+".id", "must match [a-z0-9][a-z0-9-]{0,31}, got %q", d.ID)
		} else if _, dup := draws[d.ID]; dup {
			v.fail(p+".id", "draw %q defined twice", d.ID)
		}
		draws[d.ID] = i
		if strings.TrimSpace(d.Prize) == "" {
			v.fail(p+".prize", "is required")
		}
		if d.ValueCents < 0 || d.ValueCents > maxAmountCents {
			v.fail(p+".value_cents", "must be between 0 and %d, got %d", int64(maxAmountCents), d.ValueCents)
		}
		if d.Reserves < 0 || d.Reserves > 1000 {
			v.fail(p+".reserves", "must be between 0 and 1000, got %d", d.Reserves)
		}
		date, ok := r.date(v, p+".date", d.Date)
		if d.LatestDate != "" {
			if latest, ok2 := r.date(v, p+".latest_date", d.LatestDate); ok && ok2 && latest.Before(date) {
				v.fail(p+".latest_date", "is before the scheduled date %s", d.Date)
			}
		}
		if d.Beacon != nil {
			if _, _, err := d.Beacon.Ref(); err != nil {
				field := ".beacon.chain"
				if beacon.Pinned(strings.ToLower(d.Beacon.Chain)) != nil {
					field = ".beacon.round"
				}
				v.fail(p+field, "%s", err)
			}
		}
	}

	if len(r.Days) == 0 {
		v.fail("days", "at least one participation day is required")
	} else if len(r.Days) > maxDays {
		v.fail("days", "at most %d participation days, got %d", maxDays, len(r.Days))
	}
	r.days = map[string]int{}
	r.drawDays = make([][]int, len(r.Draws))
	var prev time.Time
	for i, d := range r.Days {
		p := fmt.Sprintf("days[%d]", i)
		t, ok := r.date(v, p+".date", d.Date)
		if ok {
			if _, dup := r.days[d.Date]; dup {
				v.fail(p+".date", "day %s listed twice", d.Date)
			} else if !prev.IsZero() && !t.After(prev) {
				v.fail(p+".date", "days must be in calendar order (%s is not after the previous day)", d.Date)
			}
			r.days[d.Date] = i
			prev = t
		}
		games, ok := r.Ranges[d.Range]
		switch {
		case d.Range == "":
			v.fail(p+".range", "is required")
		case !ok:
			v.fail(p+".range", "unknown range %q (not under ranges)", d.Range)
		}
		set := map[string]bool{}
		for _, g := range games {
			set[g] = true
		}
		r.ranges = append(r.ranges, set)
		if d.MinimumCents <= 0 || d.MinimumCents > maxAmountCents {
			v.fail(p+".minimum_cents", "must be between 1 and %d, got %d", int64(maxAmountCents), d.MinimumCents)
		}
		if d.ECreditCents < 0 || d.ECreditCents > maxAmountCents {
			v.fail(p+".e_credit_cents", "must be between 0 and %d, got %d", int64(maxAmountCents), d.ECreditCents)
		}
		if d.Draw != "" {
			j, ok := draws[d.Draw]
			if !ok {
				v.fail(p+".draw", "unknown draw %q (not under draws)", d.Draw)
			} else {
				r.drawDays[j] = append(r.drawDays[j], i)
				if dd, ok2 := r.parseDate(r.Draws[j].Date); ok2 && ok && !dd.After(t) {
					v.fail(fmt.Sprintf("draws[%d].date", j), "draw %q is scheduled on or before its participation day %s", d.Draw, d.Date)
				}
			}
		}
	}
	for j, dd := range r.drawDays {
		if len(dd) == 0 && j < len(r.Draws) {
			v.fail(fmt.Sprintf("draws[%d].id", j), "no participation day feeds draw %q", r.Draws[j].ID)
		}
	}
	if len(v.errs) == 0 && len(r.Days) > 0 {
		r.first, _ = r.parseDate(r.Days[0].Date)
		r.end = r.startAfter(r.Days[len(r.Days)-1].Date, 1)
		r.firstOrdinal = dateOrdinal(r.Days[0].Date)
		r.byOrdinal = make([]int, dateOrdinal(r.Days[len(r.Days)-1].Date)-r.firstOrdinal+1)
		for i := range r.byOrdinal {
			r.byOrdinal[i] = -1
		}
		for i := range r.Days {
			r.byOrdinal[dateOrdinal(r.Days[i].Date)-r.firstOrdinal] = i
		}
	}
	// Keep ranges' keys sorted so that every derived list is deterministic.
	for name := range r.Ranges {
		sort.Strings(r.Ranges[name])
	}
}

func (r *Rules) date(v *validator, path, s string) (time.Time, bool) {
	if s == "" {
		v.fail(path, "is required (YYYY-MM-DD)")
		return time.Time{}, false
	}
	t, ok := r.parseDate(s)
	if !ok {
		v.fail(path, "must be a date YYYY-MM-DD, got %q", s)
	}
	return t, ok
}

// parseDate returns the start of date s in the rules' zone: its first
// instant, midnight unless the clock skips midnight on that date
// (calendar.DayStart).
func (r *Rules) parseDate(s string) (time.Time, bool) {
	if r.loc == nil {
		return time.Time{}, false
	}
	d, err := calendar.ParseDate(s)
	if err != nil {
		return time.Time{}, false
	}
	return calendar.DayStart(d.Year(), d.Month(), d.Day(), r.loc), true
}

// startAfter is the start, in the rules' zone, of the date n days after
// date s (a valid date: checked by validate), calendar.DayStart.
func (r *Rules) startAfter(s string, n int) time.Time {
	d, _ := calendar.ParseDate(s)
	return calendar.DayStart(d.Year(), d.Month(), d.Day()+n, r.loc)
}

// dateAfter is the date ("YYYY-MM-DD") n days after date s (a valid date).
func dateAfter(s string, n int) string {
	d, _ := calendar.ParseDate(s)
	return d.AddDate(0, 0, n).Format(calendar.Layout)
}

// Location is the rules' time zone.
func (r *Rules) Location() *time.Location { return r.loc }

// DayStart is the instant participation day i starts: 00:00 in the rules'
// zone, or where the clock skips midnight on that date, the change of clock
// (calendar.DayStart).
func (r *Rules) DayStart(i int) time.Time {
	t, _ := r.parseDate(r.Days[i].Date)
	return t
}

// DayIndex returns the participation day containing instant t, or -1.
// Calendar days are taken in the rules' zone, so a day may last 23 or 25
// hours around a daylight-saving change.
func (r *Rules) DayIndex(t time.Time) int {
	if t.Before(r.first) || !t.Before(r.end) {
		return -1
	}
	lt := t.In(r.loc)
	y, m, d := lt.Date()
	off := ordinal(y, m, d) - r.firstOrdinal
	if off < 0 || off >= int64(len(r.byOrdinal)) {
		return -1
	}
	return r.byOrdinal[off]
}

// dateOrdinal is the ordinal of date s (a valid date).
func dateOrdinal(s string) int64 {
	d, _ := calendar.ParseDate(s)
	return ordinal(d.Date())
}

// ordinal numbers calendar days (days since 1970-01-01 of the proleptic calendar).
func ordinal(y int, m time.Month, d int) int64 {
	return time.Date(y, m, d, 12, 0, 0, 0, time.UTC).Unix() / 86400
}

// DrawIndex returns the index in Draws of draw id, or -1.
func (r *Rules) DrawIndex(id string) int {
	for i, d := range r.Draws {
		if d.ID == id {
			return i
		}
	}
	return -1
}

// DrawDays returns the indices of the days feeding draw j.
func (r *Rules) DrawDays(j int) []int { return r.drawDays[j] }

// Counts reports whether game is in day i's range and channel counts.
func (r *Rules) counts(i int, game string) bool { return r.ranges[i][game] }

// PaymentDeadline is the last day the e-credit of day i may be paid.
func (r *Rules) PaymentDeadline(i int) string {
	return dateAfter(r.Days[i].Date, r.ECredit.PaymentWithinDays)
}

// ValidityEnd is the last day an e-credit of day i paid on its deadline is valid.
func (r *Rules) ValidityEnd(i int) string {
	return dateAfter(r.Days[i].Date, r.ECredit.PaymentWithinDays+r.ECredit.ValidityDays)
}

// FullDrawID is the operation-qualified draw id bound into α: "operation/id".
func (r *Rules) FullDrawID(j int) string { return r.Operation + "/" + r.Draws[j].ID }
