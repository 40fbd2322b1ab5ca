package promo

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/verifier/record"
)

// watchedTally reads rows into a tally watching account, as the stake
// reader does: a row ParseStake or Add refuses goes to Reject.
func watchedTally(t *testing.T, r *Rules, account string, rows []row) *Tally {
	t.Helper()
	tl := NewTally(r)
	tl.Watch(account)
	tl.StartFile("stakes.csv")
	for i, f := range rows {
		s, err := ParseStake(f)
		if err == nil {
			_, err = tl.Add(i+2, &s)
		}
		if err != nil {
			tl.Reject(i+2, &s, err)
		}
	}
	return tl
}

// Eligibility.Standing says, for each reason, why an account is or is not
// an entrant of draw 1 (fed by Thursday 16 June, Loto, 12 € minimum; drawn
// on 21 June), from the very decision Eligibility made for every account,
// and the watched account's rows that did not count, with where and why.
func TestAccountStanding(t *testing.T) {
	r, _ := loadExample(t)
	rows := []row{
		{"1", "alice", "2016-06-16T10:00:00+02:00", "loto", "1200", "web"},
		{"2", "bob", "2016-06-16T10:00:00+02:00", "loto", "700", "web"},
		{"3", "bob", "2016-06-16T11:00:00+02:00", "loto", "499", "web"},
		{"4", "bob", "2016-06-16T12:00:00+02:00", "loto", "5000", "retail"},          // channel not counted
		{"5", "bob", "2016-06-17T12:00:00+02:00", "loto", "5000", "web"},             // another day's range
		{"5", "bob", "2016-06-16T13:00:00+02:00", "loto", "5000", "web"},             // duplicate id
		{"7", "bob", "2016-06-16T13:00:00+02:00", "loto", "12.00", "web"},            // malformed amount
		{"8", "bob?", "2016-06-16T13:00:00+02:00", "loto", "1200", "web"},            // not an account: nobody's
		{"9", "carol", "2016-06-16T10:00:00+02:00", "loto", "1500", "web"},           // closed 18 June: withheld
		{"10", "dave", "2016-06-16T10:00:00+02:00", "loto", "1500", "web"},           // closed 22 June: stands
		{"11", "erin", "2016-06-16T10:00:00+02:00", "loto", "1500", "web"},           // closed, date unknown
		{"12", "frank", "2016-06-16T10:00:00+02:00", "loto", "1199", "web"},          // one cent short
		{"13", "gina", "2016-06-13T10:00:00+02:00", "illiko-express", "1500", "web"}, // another draw's day
		{"14", "hugo", "2016-06-16T10:00:00+02:00", "loto", "0", "web"},              // rejected only
	}
	closed := Closed{
		"carol": time.Date(2016, 6, 18, 10, 0, 0, 0, time.UTC),
		"dave":  time.Date(2016, 6, 22, 10, 0, 0, 0, time.UTC),
		"erin":  {},
	}
	for _, c := range []struct {
		account  string
		why      Why
		total    int64
		withheld bool
		rows     []string // "line excluded|rejected"
		counted  int64
	}{
		{"alice", WhyEntrant, 1200, false, nil, 1},
		{"bob", WhyBelowMinimum, 1199, false, []string{"5 channel not counted", "6 game not in the day's range", "7 id: duplicate stake id (first seen in stakes.csv on line 6)", "8 amount_cents: must be"}, 2},
		{"carol", WhyClosed, 1500, true, nil, 1},
		{"dave", WhyEntrant, 1500, false, nil, 1},
		{"erin", WhyClosed, 1500, true, nil, 1},
		{"frank", WhyBelowMinimum, 1199, false, nil, 1},
		{"gina", WhyNoStake, 0, false, nil, 1},
		{"hugo", WhyNoStake, 0, false, []string{"15 amount_cents: must be"}, 0},
		{"zed", WhyNoStake, 0, false, nil, 0},
	} {
		tl := watchedTally(t, r, c.account, rows)
		e := tl.Eligibility(closed)
		st, ok := e.Standing("bonus-crescendo/1", c.account)
		if !ok {
			t.Fatal("no standing in bonus-crescendo/1")
		}
		in := slices.Contains(e.Entrants[0], c.account)
		if st.Why() != c.why || st.Entrant != in || (c.why == WhyEntrant) != in || st.Withheld != c.withheld ||
			len(st.Days) != 1 || st.Days[0] != (DayTotal{"2016-06-16", c.total, 1200}) || st.DrawDate != "2016-06-21" {
			t.Errorf("%s: %+v, why %d, in the list %v; want why %d, total %d", c.account, st, st.Why(), in, c.why, c.total)
		}
		if st.Rows == nil || st.Rows.Counted != c.counted || len(st.Rows.Rows) != len(c.rows) || st.Rows.More != 0 {
			t.Fatalf("%s: rows %+v, want %d counted and %q", c.account, st.Rows, c.counted, c.rows)
		}
		for i, want := range c.rows {
			got := st.Rows.Rows[i]
			text := got.Rejected
			if text == "" {
				text = got.Excluded.String()
			}
			if got.File != "stakes.csv" || !strings.HasPrefix(strconv.Itoa(got.Line)+" "+text, want) {
				t.Errorf("%s: row %d %+v, want %q", c.account, i, got, want)
			}
		}
	}
	// Another draw's standing, and none for a draw the rules do not hold.
	tl := watchedTally(t, r, "gina", rows)
	e := tl.Eligibility(closed)
	if st, _ := e.Standing("bonus-crescendo/1", "gina"); st.Why() != WhyNoStake {
		t.Errorf("gina in draw 1: %d", st.Why())
	}
	if _, ok := e.Standing("bonus-crescendo/9", "gina"); ok {
		t.Error("a draw the rules do not hold: a standing")
	}
	// Unwatched, the standing has no rows.
	if st, _ := e.Standing("bonus-crescendo/1", "alice"); st.Rows != nil || st.Why() != WhyEntrant {
		t.Errorf("alice unwatched: %+v", st)
	}
}

// An account with more rows not counting than MaxAccountRows keeps the
// first ones and counts the others.
func TestAccountRowsBounded(t *testing.T) {
	r, _ := loadExample(t)
	var rows []row
	for i := range MaxAccountRows + 5 {
		rows = append(rows, row{"r" + strconv.Itoa(i), "bob", "2016-06-16T10:00:00+02:00", "loto", "100", "retail"})
	}
	tl := watchedTally(t, r, "bob", rows)
	st, _ := tl.Eligibility(nil).Standing("bonus-crescendo/1", "bob")
	if len(st.Rows.Rows) != MaxAccountRows || st.Rows.More != 5 || st.Rows.Rows[0].Line != 2 {
		t.Errorf("rows %d, more %d", len(st.Rows.Rows), st.Rows.More)
	}
}

// FindEntrant answers from the frozen root, not from the list: an account
// in it has an inclusion proof verified against the frozen root and count;
// a list with the account added (the root unchanged) says nothing of it,
// and a list with an account taken out does not make it "not in".
func TestFindEntrant(t *testing.T) {
	list := &EntrantList{Draw: "bonus-crescendo/1", Accounts: []string{"alice", "bob", "carol", "dave", "erin"}}
	list.Key[0] = 7
	tree, err := list.Tree()
	if err != nil {
		t.Fatal(err)
	}
	f := &record.PromoFreeze{Draw: list.Draw, Count: 5, Root: tree.Root()}
	for i, a := range list.Accounts {
		e, err := FindEntrant(list, f, a)
		if err != nil || e == nil || e.Index != int64(i) || e.Leaf != tree.Leaf(int64(i)) || e.Pseudonym() != Pseudonym(tree.Leaf(int64(i))) {
			t.Fatalf("%s: %+v %v", a, e, err)
		}
		if tlog.CheckRecord(e.Proof, 5, f.Root, e.Index, e.Leaf) != nil {
			t.Errorf("%s: the proof does not verify", a)
		}
	}
	if e, err := FindEntrant(list, f, "frank"); e != nil || err != nil {
		t.Errorf("frank: %+v %v, want not in", e, err)
	}

	tampered := func(accounts ...string) *EntrantList {
		return &EntrantList{Draw: list.Draw, Key: list.Key, Accounts: accounts}
	}
	for _, c := range []struct {
		name    string
		list    *EntrantList
		account string
		check   string
		says    string
	}{
		{"frank added, the root unchanged", tampered("alice", "bob", "carol", "dave", "erin", "frank"), "frank", CheckEntrantRoot, "does not verify against the frozen root and count"},
		{"frank in bob's place", tampered("alice", "carol", "dave", "erin", "frank"), "frank", CheckEntrantRoot, "does not verify against the frozen root and count"},
		{"bob taken out", tampered("alice", "carol", "dave", "erin"), "bob", CheckEntrantRoot, "the list holds 4 entrants, 5 were frozen"},
		{"bob replaced", tampered("alice", "bobby", "carol", "dave", "erin"), "bob", CheckEntrantRoot, "does not hash to the frozen root"},
		{"another draw's list", &EntrantList{Draw: "bonus-crescendo/2", Key: list.Key, Accounts: list.Accounts}, "bob", CheckEntrantList, ""},
		{"not canonical", tampered("bob", "alice"), "bob", CheckEntrantList, ""},
	} {
		e, err := FindEntrant(c.list, f, c.account)
		var ce *CheckError
		if e != nil || !errors.As(err, &ce) || ce.Check != c.check || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %+v %v, want %s failing (%q)", c.name, e, err, c.check, c.says)
		}
	}
}

// FuzzAccountStanding: whatever the rows and closures, an account's
// standing in each draw says it is an entrant exactly when Eligibility
// entered it, its reason is WhyEntrant exactly then, and the watched rows
// add up to the account's rows read.
func FuzzAccountStanding(f *testing.F) {
	f.Add([]byte{0, 4, 120, 0, 1, 4, 119, 1, 2, 5, 200, 0}, byte(2), byte(5))
	f.Add([]byte{3, 3, 255, 0, 3, 3, 255, 1}, byte(3), byte(0))
	r, _ := loadExample(f)
	f.Fuzz(func(t *testing.T, data []byte, closedAcct, closedDay byte) {
		accounts := []string{"a", "b", "c", "d"}
		var rows []row
		n := map[string]int{}
		for i := 0; i+3 < len(data) && i < 4*200; i += 4 {
			a := accounts[data[i]%4]
			day := 10 + int(data[i+1]%12) // 2016-06-10 … 21
			channel := []string{"web", "retail"}[data[i+3]%2]
			rows = append(rows, row{"r" + strconv.Itoa(i), a, "2016-06-" + strconv.Itoa(day) + "T12:00:00+02:00", "loto", strconv.Itoa(1 + int(data[i+2])*10), channel})
			n[a]++
		}
		closed := Closed{accounts[closedAcct%4]: time.Date(2016, 6, 10+int(closedDay%15), 12, 0, 0, 0, time.UTC)}
		for _, a := range accounts {
			tl := watchedTally(t, r, a, rows)
			e := tl.Eligibility(closed)
			for j := range r.Draws {
				st, ok := e.Standing(r.FullDrawID(j), a)
				in := slices.Contains(e.Entrants[j], a)
				if !ok || st.Entrant != in || (st.Why() == WhyEntrant) != in {
					t.Fatalf("%s in draw %d: standing %+v (why %d), in the list %v", a, j, st, st.Why(), in)
				}
				if got := st.Rows.Counted + int64(len(st.Rows.Rows)) + st.Rows.More; got != int64(n[a]) {
					t.Fatalf("%s: %d rows noted, %d read", a, got, n[a])
				}
			}
		}
	})
}
