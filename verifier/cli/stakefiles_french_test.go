package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/promo/stakes"
	"tirage.fr/tirage/verifier/verdict"
)

// TestStakeFilesFrench: every refusal of a stake or closed-accounts file
// by package stakes (the reader rngverify freeze --rules recomputes the
// entrants with) reads in French with --lang fr, naming the file, and
// reads in English as it did; together the cases reach every message of
// the catalog's block for those files.
func TestStakeFilesFrench(t *testing.T) {
	_, pin := freezeInputsFixture(t)
	dir := t.TempDir()
	in := func(name string) string { return filepath.Join(freezeInputsDir, name) }
	const rules = "../../examples/bonus-crescendo.yaml"
	n := 0
	file := func(text string) string {
		n++
		return write(t, dir, fmt.Sprintf("input-%02d.csv", n), []byte(text))
	}
	type input struct{ stakes, closed string }
	cases := []struct {
		in   input
		en   string // in the English output
		want []verdict.MsgID
	}{
		{input{stakes: file("")}, "stake file: line 1: no header line (the file is empty)", []verdict.MsgID{verdict.MsgStakesEmpty}},
		{input{stakes: file(strings.Repeat("x", 1<<20+10))}, "stake file: line 1: no line end within 1 MiB: not a stake file (a row is at most 64 KiB)", []verdict.MsgID{verdict.MsgStakesRead, verdict.MsgStakesRunOn}},
		{input{stakes: file(strings.Repeat("x", 70<<10) + "\n")}, "stake file: line 1: header longer than 65536 bytes", []verdict.MsgID{verdict.MsgStakesHeaderLong}},
		{input{stakes: file("\nid,\"account\n")}, "stake file: line 2: header: column 4: quoted field not closed on its line", []verdict.MsgID{verdict.MsgStakesHeader, verdict.MsgCSVQuoteNotClosed}},
		{input{stakes: file("id,\"acc\"ount\n")}, "stake file: line 1: header: column 9: extraneous \" in quoted field", []verdict.MsgID{verdict.MsgCSVExtraneousQuote}},
		{input{stakes: file("id,acc\"ount\n")}, "stake file: line 1: header: column 7: bare \" in non-quoted field", []verdict.MsgID{verdict.MsgCSVBareQuote}},
		{input{stakes: file("id,account,when\n")}, `stake file: line 1: unknown column "when" (want id,account,time,`, []verdict.MsgID{verdict.MsgStakesUnknownColumn}},
		{input{stakes: file("id,id,account,time,game,amount_cents,channel\n")}, `stake file: line 1: column "id" twice`, []verdict.MsgID{verdict.MsgStakesColumnTwice}},
		{input{stakes: file("id,account,time,game,amount_cents\n")}, `stake file: line 1: missing column "channel"`, []verdict.MsgID{verdict.MsgStakesMissingColumn}},
		{input{closed: file("")}, "closed accounts: line 1: no header line (the file is empty)", []verdict.MsgID{verdict.MsgClosedEmpty}},
		{input{closed: file("acct\n")}, "closed accounts: line 1: header must be account or account,closed_at", []verdict.MsgID{verdict.MsgClosedHeader}},
		{input{closed: file("account\n\"a\"b\n")}, "closed accounts: line 2: column 3: extraneous or missing \" in quoted field", []verdict.MsgID{verdict.MsgClosedLine, verdict.MsgCSVQuote}},
		{input{closed: file("account\na\"b\n")}, "closed accounts: line 2: column 2: bare \" in non-quoted field", []verdict.MsgID{verdict.MsgClosedLine, verdict.MsgCSVBareQuote}},
		{input{closed: dir}, "closed accounts: read ", []verdict.MsgID{verdict.MsgClosedRead}},
		{input{closed: file("account,closed_at\na\n")}, "closed accounts: line 2: not as many fields (1) as the header (2)", []verdict.MsgID{verdict.MsgClosedFields}},
		{input{closed: file("account\ncompte n°1\n")}, `closed accounts: line 2: account: must match [A-Za-z0-9._:-]{1,64}, got "compte n°1"`, []verdict.MsgID{verdict.MsgClosedAccount}},
		{input{closed: file("account,closed_at\na,2016\n")}, `closed accounts: line 2: closed_at: want RFC 3339 with an offset, got "2016": not an RFC 3339 date-time: too short`, []verdict.MsgID{verdict.MsgClosedAt, verdict.MsgTimeTooShort}},
		{input{closed: file("account,closed_at\na,2016-06-16X10:00:00Z\n")}, "not an RFC 3339 date-time: want dddd-dd-ddTdd:dd:dd at byte 11", []verdict.MsgID{verdict.MsgTimeWant}},
		{input{closed: file("account,closed_at\na,2016-06-16T10:00:00.Z\n")}, "not an RFC 3339 date-time: no digit after '.'", []verdict.MsgID{verdict.MsgTimeFraction}},
		{input{closed: file("account,closed_at\na,2016-06-16T10:00:00+24:00\n")}, "not an RFC 3339 date-time: offset +24:00 out of range (hours 00-23, minutes 00-59)", []verdict.MsgID{verdict.MsgTimeOffsetRange}},
		{input{closed: file("account,closed_at\na,2016-06-16T10:00:00+0200\n")}, "not an RFC 3339 date-time: want an offset Z or ±hh:mm after the seconds", []verdict.MsgID{verdict.MsgTimeOffset}},
		{input{closed: file("account,closed_at\na,2016-13-16T10:00:00Z\n")}, "not an RFC 3339 date-time: parsing time", []verdict.MsgID{verdict.MsgTimeFields}},
	}
	r, err := promo.ParseRules(must(os.ReadFile(rules)))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[verdict.MsgID]bool{}
	for _, c := range cases {
		// A refused closed-accounts file comes with the freeze's stake files.
		args := []string{"freeze", freezeInputsFile, "--pin", pin, "--entrants", freezeInputsEntrants, "--rules", rules}
		named, sf := c.in.stakes, []string{c.in.stakes}
		if c.in.closed != "" {
			named, sf = c.in.closed, []string{in("stakes-1.csv"), in("stakes-2.csv")}
		}
		for _, s := range sf {
			args = append(args, "--stakes", s)
		}
		if c.in.closed != "" {
			args = append(args, "--closed", c.in.closed)
		}
		code, _, errs := run(t, args...)
		if code != ExitUsage || !strings.Contains(errs, "couldn't read the input files: "+named+": ") || !strings.Contains(errs, c.en) {
			t.Errorf("%s: exit %d %s; want %q", named, code, errs, c.en)
		}
		code, _, errs = run(t, append(args, "--lang", "fr")...)
		if code != ExitUsage || !strings.Contains(errs, "impossible de lire les fichiers d'entrée : "+named+" : ") {
			t.Errorf("%s, fr: exit %d %s", named, code, errs)
		}
		frenchOK(t, named, errs)

		// The messages reached: those of the error Recompute returns.
		var files []stakes.File
		for _, s := range sf {
			files = append(files, stakes.File{Name: s, R: bytes.NewReader(must(os.ReadFile(s)))})
		}
		var closed *stakes.File
		if c.in.closed == dir {
			closed = &stakes.File{Name: dir, R: iotest.ErrReader(errors.New("read " + dir + ": is a directory"))}
		} else if c.in.closed != "" {
			closed = &stakes.File{Name: c.in.closed, R: bytes.NewReader(must(os.ReadFile(c.in.closed)))}
		}
		_, err := stakes.Recompute(context.Background(), r, files, closed)
		ids := map[verdict.MsgID]bool{}
		errIDs(err, ids)
		for _, id := range c.want {
			if !ids[id] {
				t.Errorf("%s: %v: no %s in it", named, err, id)
			}
		}
		for id := range ids {
			seen[id] = true
		}
	}

	for _, d := range catalogIDs(t, "// The stake and closed-accounts files package stakes reads: message ids.", "\n)", 25) {
		if !seen[verdict.MsgID(d[2])] {
			t.Errorf("%s: no case above reaches it", d[1])
		}
	}
}

// errIDs adds to ids the message ids of err's chain: a *verdict.MsgError's,
// and those of its arguments'.
func errIDs(err error, ids map[verdict.MsgID]bool) {
	var me *verdict.MsgError
	if !errors.As(err, &me) {
		return
	}
	ids[me.Msg.ID] = true
	for _, a := range me.Msg.Args {
		if e, ok := a.(error); ok {
			errIDs(e, ids)
		}
	}
}
