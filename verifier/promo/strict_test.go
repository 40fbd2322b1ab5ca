package promo

import (
	"errors"
	"strings"
	"testing"
)

// Integer fields of the rules file are plain decimal scalars: yaml.v3 would
// otherwise read 01200 as octal, truncate 1199.99, take 0x1f4 and 1_000.
func TestRulesIntegerSyntax(t *testing.T) {
	_, base := loadExample(t)
	src := string(base)
	day3 := "minimum_cents: 1200, e_credit_cents: 600, draw: \"1\""
	cases := []struct {
		name, old, new string
		line           int
		field          string
	}{
		{"octal minimum", day3, "minimum_cents: 01200, e_credit_cents: 600, draw: \"1\"", 37, "days[3].minimum_cents"},
		{"octal e-credit", day3, "minimum_cents: 1200, e_credit_cents: 0600, draw: \"1\"", 37, "days[3].e_credit_cents"},
		{"fraction", day3, "minimum_cents: 1199.99, e_credit_cents: 600, draw: \"1\"", 37, "days[3].minimum_cents"},
		{"hex", day3, "minimum_cents: 0x1f4, e_credit_cents: 600, draw: \"1\"", 37, "days[3].minimum_cents"},
		{"octal 0o", day3, "minimum_cents: 0o2260, e_credit_cents: 600, draw: \"1\"", 37, "days[3].minimum_cents"},
		{"underscore", day3, "minimum_cents: 1_200, e_credit_cents: 600, draw: \"1\"", 37, "days[3].minimum_cents"},
		{"plus sign", day3, "minimum_cents: +1200, e_credit_cents: 600, draw: \"1\"", 37, "days[3].minimum_cents"},
		{"exponent", day3, "minimum_cents: 12e2, e_credit_cents: 600, draw: \"1\"", 37, "days[3].minimum_cents"},
		{"quoted", day3, "minimum_cents: \"1200\", e_credit_cents: 600, draw: \"1\"", 37, "days[3].minimum_cents"},
		{"too big", day3, "minimum_cents: 99999999999999999999, e_credit_cents: 600, draw: \"1\"", 37, "days[3].minimum_cents"},
		{"reserves 2.9", "    reserves: 3\n  - id: \"2\"", "    reserves: 2.9\n  - id: \"2\"", 57, "draws[0].reserves"},
		{"value hex", "    value_cents: 200000\n    date: 2016-06-21\n    latest_date: 2016-07-21\n    reserves: 3\n  - id: \"3\"", "    value_cents: 0x30d40\n    date: 2016-06-21\n    latest_date: 2016-07-21\n    reserves: 3\n  - id: \"3\"", 61, "draws[1].value_cents"},
		{"payment days octal", "payment_within_days: 7", "payment_within_days: 07", 30, "e_credit.payment_within_days"},
		{"validity word", "validity_days: 7", "validity_days: seven", 31, "e_credit.validity_days"},
		{"version float", "version: 1\n", "version: 1.0\n", 4, "version"},
		{"beacon round hex", "    reserves: 3\n  - id: \"2\"", "    reserves: 3\n    beacon: {chain: quicknet, round: 0x10}\n  - id: \"2\"", 58, "draws[0].beacon.round"},
		{"beacon round negative", "    reserves: 3\n  - id: \"2\"", "    reserves: 3\n    beacon: {chain: quicknet, round: -1}\n  - id: \"2\"", 58, "draws[0].beacon.round"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(src, c.old) {
				t.Fatalf("fixture text %q not in the example", c.old)
			}
			r, err := ParseRules([]byte(strings.Replace(src, c.old, c.new, 1)))
			if err == nil {
				t.Fatalf("accepted (days[3] minimum %d, e-credit %d; draws[0] reserves %d)", r.Days[3].MinimumCents, r.Days[3].ECreditCents, r.Draws[0].Reserves)
			}
			wantRulesError(t, err, c.line, c.field, "")
		})
	}
	// Plain decimals, and a YAML comment after them, stay fine.
	ok := strings.Replace(src, day3, "minimum_cents: 1200, e_credit_cents: 0, draw: \"1\"", 1)
	ok = strings.Replace(ok, "payment_within_days: 7", "payment_within_days: 0 # paid the same day", 1)
	if r, err := ParseRules([]byte(ok)); err != nil {
		t.Fatalf("plain decimals refused: %v", err)
	} else if r.Days[3].ECreditCents != 0 || r.ECredit.PaymentWithinDays != 0 {
		t.Fatalf("got %d, %d", r.Days[3].ECreditCents, r.ECredit.PaymentWithinDays)
	}
}

// wantRulesError fails unless err holds a RulesError at line for field whose message contains msg.
func wantRulesError(t *testing.T, err error, line int, field, msg string) {
	t.Helper()
	for _, e := range RulesErrors(err) {
		if e.Field == field && e.Line == line && strings.Contains(e.Msg, msg) {
			return
		}
	}
	t.Errorf("want line %d field %s (%q); got %v", line, field, msg, err)
}

// Every integer field is required: a missing one is not a silent 0.
func TestRulesRequiredIntegers(t *testing.T) {
	_, base := loadExample(t)
	src := string(base)
	cases := []struct {
		name, old, new string
		line           int
		field          string
	}{
		{"payment days", "  payment_within_days: 7\n", "", 29, "e_credit.payment_within_days"},
		{"validity days", "  validity_days: 7\n", "", 29, "e_credit.validity_days"},
		{"e_credit", "e_credit:\n  payment_within_days: 7\n  validity_days: 7\n", "", 0, "e_credit.payment_within_days"},
		{"e_credit null", "e_credit:\n  payment_within_days: 7\n  validity_days: 7\n", "e_credit: ~\n", 29, "e_credit.payment_within_days"},
		{"day null", "  - {date: 2016-06-13, range: illiko,                  minimum_cents: 1000, e_credit_cents: 500}\n", "  - ~\n", 34, "days[0].e_credit_cents"},
		{"day e-credit", "minimum_cents: 1200, e_credit_cents: 600, draw: \"1\"", "minimum_cents: 1200, draw: \"1\"", 37, "days[3].e_credit_cents"},
		{"day minimum", "minimum_cents: 1200, e_credit_cents: 600, draw: \"1\"", "e_credit_cents: 600, draw: \"1\"", 37, "days[3].minimum_cents"},
		{"version", "version: 1\n", "", 0, "version"},
		{"beacon round", "    reserves: 3\n  - id: \"2\"", "    reserves: 3\n    beacon: {chain: quicknet}\n  - id: \"2\"", 58, "draws[0].beacon.round"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(src, c.old) {
				t.Fatalf("fixture text %q not in the example", c.old)
			}
			_, err := ParseRules([]byte(strings.Replace(src, c.old, c.new, 1)))
			if err == nil {
				t.Fatal("accepted")
			}
			wantRulesError(t, err, c.line, c.field, "required")
		})
	}
	// A prize's value and its reserves are optional: absent, none.
	opt := strings.Replace(src, "    value_cents: 200000\n", "", 1)
	opt = strings.Replace(opt, "    reserves: 3\n", "", 1)
	r, err := ParseRules([]byte(opt))
	if err != nil {
		t.Fatal(err)
	}
	if r.Draws[0].ValueCents != 0 || r.Draws[0].Reserves != 0 || r.Draws[1].Reserves != 3 {
		t.Fatalf("draws %+v", r.Draws[:2])
	}
}

func TestRulesTimezoneMachineDependent(t *testing.T) {
	_, base := loadExample(t)
	for _, tz := range []string{"Local", "\"\"", "localtime", "posixrules", "right/Europe/Paris", "posix/Europe/Paris", "\"Europe/Paris \""} {
		t.Run(tz, func(t *testing.T) {
			_, err := ParseRules([]byte(strings.Replace(string(base), "timezone: Europe/Paris", "timezone: "+tz, 1)))
			if err == nil {
				t.Fatal("accepted")
			}
			wantRulesError(t, err, 7, "timezone", "")
		})
	}
	for _, tz := range []string{"UTC", "Europe/Monaco", "America/Argentina/Buenos_Aires", "Etc/GMT-2"} {
		if _, err := ParseRules([]byte(strings.Replace(string(base), "timezone: Europe/Paris", "timezone: "+tz, 1))); err != nil {
			t.Errorf("%s refused: %v", tz, err)
		}
	}
}

// The hashed file is exactly the rules applied: a second document is refused.
func TestRulesSecondDocument(t *testing.T) {
	_, base := loadExample(t)
	for name, tail := range map[string]string{
		"rules":      "---\nversion: 1\noperation: autre\n",
		"empty":      "---\n",
		"after end":  "...\n---\nversion: 1\n",
		"comment":    "---\n# nothing\n",
		"bad syntax": "---\n[x\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseRules(append(append([]byte{}, base...), tail...))
			if err == nil {
				t.Fatal("accepted")
			}
			line := 79
			if name == "after end" {
				line = 80
			}
			wantRulesError(t, err, line, "(file)", "")
		})
	}
	// A document end marker alone is no second document.
	if _, err := ParseRules(append(append([]byte{}, base...), "...\n"...)); err != nil {
		t.Errorf("end marker refused: %v", err)
	}
	if _, err := ParseRules(append([]byte("---\n"), base...)); err != nil {
		t.Errorf("leading --- refused: %v", err)
	}
}

// Times are RFC 3339 (§5.6) strictly: no +24:00 offset, no comma before the fraction.
func TestParseTimeStrict(t *testing.T) {
	for _, s := range []string{
		"2016-06-16T23:59:59+24:00",
		"2016-06-16T23:59:59+02:60",
		"2016-06-16T23:59:59,5+02:00",
		"2016-06-16T23:59:59",
		"2016-06-16T23:59:59+0200",
		"2016-06-16 23:59:59+02:00",
		"2016-06-16T24:00:00+02:00",
		"2016-06-16T23:59:59.+02:00",
		"2016-06-16T3:59:59+02:00",
		"2016-6-16T23:59:59+02:00",
		"",
	} {
		if tm, err := ParseTime(s); err == nil {
			t.Errorf("%q accepted as %v", s, tm)
		}
		if _, err := ParseStake([9]string{"x", "acct", s, "loto", "1200", "web"}); err == nil {
			t.Errorf("stake at %q accepted", s)
		} else if fe := (*FieldError)(nil); !errors.As(err, &fe) || fe.Field != "time" {
			t.Errorf("stake at %q: %v, want a time error", s, err)
		}
	}
	for s, want := range map[string]string{
		"2016-06-16T23:59:59+02:00":           "2016-06-16T21:59:59Z",
		"2016-06-16T21:59:59Z":                "2016-06-16T21:59:59Z",
		"2016-06-16T23:59:59.123456789+02:00": "2016-06-16T21:59:59.123456789Z",
		"2016-06-16T23:59:59-23:59":           "2016-06-17T23:58:59Z",
	} {
		tm, err := ParseTime(s)
		if err != nil {
			t.Errorf("%q refused: %v", s, err)
			continue
		}
		if got := tm.UTC().Format("2006-01-02T15:04:05.999999999Z07:00"); got != want {
			t.Errorf("%q = %s, want %s", s, got, want)
		}
	}
}

// Across several stake files a duplicate names the file of the first.
func TestDuplicateNamesFile(t *testing.T) {
	r, _ := loadExample(t)
	tl := NewTally(r)
	s, err := ParseStake([9]string{"x1", "acct", "2016-06-16T12:00:00+02:00", "loto", "1200", "web"})
	if err != nil {
		t.Fatal(err)
	}
	tl.StartFile("stakes-1.csv")
	if _, err := tl.Add(2, &s); err != nil {
		t.Fatal(err)
	}
	if _, err := tl.Add(7, &s); err == nil || err.Error() != "id: duplicate stake id (first seen in stakes-1.csv on line 2)" {
		t.Errorf("same file: %v", err)
	}
	tl.StartFile("stakes-2.csv")
	_, err = tl.Add(3, &s)
	var de *DuplicateError
	if !errors.As(err, &de) || de.FirstFile != "stakes-1.csv" || de.FirstLine != 2 {
		t.Fatalf("got %v, want first seen in stakes-1.csv on line 2", err)
	}
	s2 := s
	s2.ID = "x2"
	if _, err := tl.Add(2, &s2); err != nil {
		t.Fatal(err)
	}
	tl.StartFile("stakes-3.csv")
	if _, err := tl.Add(9, &s2); err == nil || !strings.Contains(err.Error(), "stakes-2.csv on line 2)") {
		t.Errorf("third file: %v", err)
	}
	// Without file names: lines only, as before.
	tl = NewTally(r)
	tl.Add(4, &s)
	if _, err := tl.Add(5, &s); err == nil || err.Error() != "id: duplicate stake id (first seen on line 4)" {
		t.Errorf("no file: %v", err)
	}
}

// An integer reached through an anchor and a merge key is checked where it is written.
func TestRulesIntegerThroughMerge(t *testing.T) {
	_, base := loadExample(t)
	src := strings.Replace(string(base), "  - {date: 2016-06-13, range: illiko,                  minimum_cents: 1000, e_credit_cents: 500}",
		"  - &d {date: 2016-06-13, range: illiko,                  minimum_cents: 1000, e_credit_cents: 500}", 1)
	src = strings.Replace(src, "  - {date: 2016-06-14, range: bingo-live,              minimum_cents: 1000, e_credit_cents: 500}",
		"  - {<<: *d, date: 2016-06-14, range: bingo-live}", 1)
	r, err := ParseRules([]byte(src))
	if err != nil {
		t.Fatalf("merge refused: %v", err)
	}
	if r.Days[1].MinimumCents != 1000 || r.Days[1].ECreditCents != 500 {
		t.Fatalf("day %+v", r.Days[1])
	}
	_, err = ParseRules([]byte(strings.Replace(src, "minimum_cents: 1000, e_credit_cents: 500}", "minimum_cents: 01000, e_credit_cents: 500}", 1)))
	wantRulesError(t, err, 34, "days[1].minimum_cents", "decimal integer")
}

// A refused integer is reported once, naming its field; another type error
// on the same line is still reported.
func TestRulesIntegerReportedOnce(t *testing.T) {
	_, base := loadExample(t)
	src := strings.Replace(string(base), "minimum_cents: 1200, e_credit_cents: 600, draw: \"1\"", "minimum_cents: twelve, e_credit_cents: 600, draw: [x]", 1)
	_, err := ParseRules([]byte(src))
	errs := RulesErrors(err)
	if len(errs) != 2 {
		t.Fatalf("want 2 errors, got %v", err)
	}
	wantRulesError(t, err, 37, "days[3].minimum_cents", "decimal integer")
	wantRulesError(t, err, 37, "(value)", "cannot unmarshal")
}
