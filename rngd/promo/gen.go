package promo

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strconv"
	"time"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/promo/stakes"
)

// GenConfig configures the synthetic stake generator.
type GenConfig struct {
	Rows     int64  // stake rows to write
	Accounts int    // distinct accounts (default Rows/8, at least 1)
	Seed     uint64 // same seed, same file
	Format   string // stakes.FormatCSV or stakes.FormatJSONL
	// Defects adds, about once per 10,000 rows each, a malformed row and a
	// duplicate row, so that rejection reporting is exercised.
	Defects bool
}

// Generate writes a synthetic stake file for rules: stakes spread over the
// participation days and the day before and after, on the rules' games and
// one other game, mostly on counted channels, with subscriptions and Abo+
// stakes, amounts of 1 to 20 €. It returns the accounts it used, so that a
// closed-accounts file can be drawn from them (GenerateClosed).
func Generate(w io.Writer, r *promo.Rules, cfg GenConfig) error {
	if cfg.Rows < 0 {
		return fmt.Errorf("rows must be ≥ 0")
	}
	accounts := cfg.Accounts
	if accounts <= 0 {
		accounts = max(1, int(cfg.Rows/8))
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7469726167652f67))
	var games []string
	for _, name := range sortedKeys(r.Ranges) {
		games = append(games, r.Ranges[name]...)
	}
	games = append(games, "keno")
	channels := append(append([]string{}, r.Channels...), "retail")
	start := r.DayStart(0).AddDate(0, 0, -1)
	end := r.DayStart(len(r.Days)-1).AddDate(0, 0, 2)
	span := end.Unix() - start.Unix()
	loc := r.Location()

	bw := bufio.NewWriterSize(w, 1<<20)
	if cfg.Format == stakes.FormatCSV {
		bw.WriteString("id,account,time,game,amount_cents,channel,kind,subscribed_at,debited_at\n")
	}
	var line []byte
	ts := func(b []byte, t time.Time) []byte { return t.In(loc).AppendFormat(b, time.RFC3339) }
	for i := int64(0); i < cfg.Rows; i++ {
		id := i
		if cfg.Defects && i > 0 && i%10007 == 0 {
			id = i - 1 // duplicate of the previous id
		}
		acct := rng.IntN(accounts)
		t := start.Add(time.Duration(rng.Int64N(span)) * time.Second)
		game := games[rng.IntN(len(games))]
		ch := channels[rng.IntN(len(channels))]
		amount := 100 + rng.IntN(1901)
		var kind string
		var sub, deb time.Time
		switch k := rng.IntN(100); {
		case k < 4:
			kind, sub = promo.KindSubscription, t.Add(-time.Duration(rng.IntN(3*86400))*time.Second)
		case k < 8:
			kind, deb = promo.KindAboPlus, t.Add(time.Duration(rng.IntN(2*86400))*time.Second)
		}
		line = line[:0]
		malformed := cfg.Defects && i%9973 == 5
		if cfg.Format == stakes.FormatJSONL {
			line = append(line, `{"id":"s`...)
			line = strconv.AppendInt(line, id, 10)
			line = append(line, `","account":"A`...)
			line = strconv.AppendInt(line, int64(acct), 10)
			line = append(line, `","time":"`...)
			line = ts(line, t)
			line = append(line, `","game":"`...)
			line = append(line, game...)
			line = append(line, `","amount_cents":`...)
			if malformed {
				line = append(line, `"12,00"`...)
			} else {
				line = strconv.AppendInt(line, int64(amount), 10)
			}
			line = append(line, `,"channel":"`...)
			line = append(line, ch...)
			line = append(line, '"')
			if kind != "" {
				line = append(line, `,"kind":"`...)
				line = append(line, kind...)
				line = append(line, '"')
				if !sub.IsZero() {
					line = append(line, `,"subscribed_at":"`...)
					line = ts(line, sub)
					line = append(line, '"')
				}
				if !deb.IsZero() {
					line = append(line, `,"debited_at":"`...)
					line = ts(line, deb)
					line = append(line, '"')
				}
			}
			line = append(line, "}\n"...)
		} else {
			line = append(line, 's')
			line = strconv.AppendInt(line, id, 10)
			line = append(line, ",A"...)
			line = strconv.AppendInt(line, int64(acct), 10)
			line = append(line, ',')
			if malformed {
				line = t.In(loc).AppendFormat(line, "2006-01-02 15:04:05") // no offset: rejected
			} else {
				line = ts(line, t)
			}
			line = append(line, ',')
			line = append(line, game...)
			line = append(line, ',')
			line = strconv.AppendInt(line, int64(amount), 10)
			line = append(line, ',')
			line = append(line, ch...)
			line = append(line, ',')
			line = append(line, kind...)
			line = append(line, ',')
			if !sub.IsZero() {
				line = ts(line, sub)
			}
			line = append(line, ',')
			if !deb.IsZero() {
				line = ts(line, deb)
			}
			line = append(line, '\n')
		}
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// GenerateClosed writes a closed-accounts file naming about one account in
// 200 of those Generate used with the same Accounts, closed during the period.
func GenerateClosed(w io.Writer, r *promo.Rules, accounts int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0x636c6f736564))
	bw := bufio.NewWriter(w)
	bw.WriteString("account,closed_at\n")
	start := r.DayStart(0)
	for a := 0; a < accounts; a++ {
		if rng.IntN(200) != 0 {
			continue
		}
		at := start.Add(time.Duration(rng.IntN(10*86400)) * time.Second)
		fmt.Fprintf(bw, "A%d,%s\n", a, at.Format(time.RFC3339))
	}
	return bw.Flush()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
