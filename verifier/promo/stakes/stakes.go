// Package stakes reads a promotion's input files, the operator's stake
// files (CSV or JSON Lines) and closed accounts, into a promo.Tally and a
// promo.Closed: the framing and parsing rngctl promo eligibility and
// freeze use, and the very code rngverify freeze --rules recomputes a
// freeze's entrants with (Recompute), so that the two cannot diverge. It
// reads from io.Readers only (docs/promotions.md, "Stake files").
package stakes

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"
	"strings"
	"time"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/verdict"
)

// Input formats of stake files.
const (
	FormatCSV   = "csv"   // RFC 4180, header line naming the columns (promo.StakeColumns, any order)
	FormatJSONL = "jsonl" // JSON Lines: one object per line with the same names
)

// FormatOf guesses a stake file's format from its name: .jsonl/.ndjson is JSON Lines, anything else CSV.
func FormatOf(name string) string {
	if strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".ndjson") {
		return FormatJSONL
	}
	return FormatCSV
}

// IngestStats sums up an ingestion.
type IngestStats struct {
	Lines    int64 // data lines read (header excluded)
	Rejected int64 // malformed or duplicate rows, each reported
	Counted  int64 // rows that count towards a participation day
	Excluded [promo.NumExclusions]int64
}

// Add adds o's counts to s's (several stake files read into one tally).
func (s *IngestStats) Add(o IngestStats) {
	s.Lines += o.Lines
	s.Rejected += o.Rejected
	s.Counted += o.Counted
	for i, n := range o.Excluded {
		s.Excluded[i] += n
	}
}

// Ingest streams stake rows from r into t. Every rejected row is written to
// rejects as "<line>: <field>: <reason>" (line numbers are 1-based lines of
// the file, the CSV header being line 1); nothing is dropped silently. A
// line longer than 64 KiB is a rejected row; one without a line end
// within 1 MiB refuses the file (errRunOn). Once ctx is done, Ingest stops
// reading and returns an error ("interrupted after N lines") wrapping
// ctx.Err().
// progress, if not nil, is called about every 250,000 lines with the number
// of lines and bytes read so far. IngestFile does the same for one of
// several stake files, naming it.
//
// Three stages run concurrently: one goroutine frames rows (CSV records or
// JSON lines) into batches, parseWorkers goroutines parse them, and the
// caller's goroutine tallies them in file order.
func Ingest(ctx context.Context, r io.Reader, format string, t *promo.Tally, rejects io.Writer, progress func(lines, bytes int64)) (IngestStats, error) {
	return IngestFile(ctx, "", r, format, t, rejects, progress)
}

// IngestFile is Ingest for the stake file called name, one of several fed
// to t in turn: each rejection is written as "<name>:<line>: <field>:
// <reason>", and a duplicate names the file where its id was first seen
// ("first seen in stakes-1.csv on line 3"). An empty name is Ingest.
func IngestFile(ctx context.Context, name string, r io.Reader, format string, t *promo.Tally, rejects io.Writer, progress func(lines, bytes int64)) (IngestStats, error) {
	var st IngestStats
	if format != FormatCSV && format != FormatJSONL {
		return st, fmt.Errorf("unknown stake format %q (want csv or jsonl)", format)
	}
	t.StartFile(name)
	where := func(line int) string { return fmt.Sprint(line) }
	if name != "" {
		where = func(line int) string { return fmt.Sprintf("%s:%d", name, line) }
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cr := &countingReader{r: r, ctx: ctx}
	br := bufio.NewReaderSize(cr, maxRunOn)

	const batchSize = 2048
	work := make(chan *ingestJob, 2*parseWorkers)
	order := make(chan *ingestJob, 4*parseWorkers)
	var lines, read int64 // written by the framer, read after done
	done := make(chan error, 1)

	// Framer.
	go func() {
		job := newIngestJob(batchSize)
		flush := func() error {
			// work first: a job the tally waits for is always being parsed.
			for _, ch := range []chan *ingestJob{work, order} {
				select {
				case ch <- job:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			job = newIngestJob(batchSize)
			return nil
		}
		push := func(row rawRow) error {
			job.rows = append(job.rows, row)
			if len(job.rows) == batchSize {
				return flush()
			}
			return nil
		}
		var pst IngestStats
		tick := func(line int) error {
			if line%250_000 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
				if progress != nil {
					progress(pst.Lines, cr.n)
				}
			}
			return nil
		}
		var err error
		if format == FormatCSV {
			err = ingestCSV(br, &pst, push, tick)
		} else {
			err = ingestJSONL(br, &pst, push, tick)
		}
		if err == nil && len(job.rows) > 0 {
			err = flush()
		}
		lines, read = pst.Lines, cr.n
		close(work)
		close(order)
		done <- err
	}()

	// Parsers.
	for range parseWorkers {
		go func() {
			for job := range work {
				job.parse()
			}
		}()
	}

	// Tally, in file order.
	rw := bufio.NewWriter(rejects)
	var werr error
	for job := range order {
		<-job.done
		for i := range job.out {
			p := &job.out[i]
			err := p.err
			if err == nil {
				var why promo.Exclusion
				if why, err = t.Add(p.line, &p.s); err == nil {
					if why == promo.Counts {
						st.Counted++
					} else {
						st.Excluded[why]++
					}
					continue
				}
			}
			st.Rejected++
			t.Reject(p.line, &p.s, err)
			if _, e := fmt.Fprintf(rw, "%s: %v\n", where(p.line), err); e != nil && werr == nil {
				werr = e
				cancel()
			}
		}
	}
	err := <-done
	st.Lines = lines
	if progress != nil {
		progress(lines, read)
	}
	if werr != nil {
		return st, fmt.Errorf("couldn't write the rejections: %w", werr)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return st, fmt.Errorf("interrupted after %d lines: %w", lines, ctx.Err())
		}
		return st, err
	}
	return st, rw.Flush()
}

// parseWorkers is the number of parsing goroutines of Ingest.
const parseWorkers = 2

// rawRow is a framed row: CSV fields, or a JSON line to decode, or why the
// framing rejected it.
type rawRow struct {
	line int
	f    [9]string
	json []byte
	err  error
}

// parsedRow is a parsed row: a stake, or why it is rejected.
type parsedRow struct {
	line int
	s    promo.Stake
	err  error
}

type ingestJob struct {
	rows []rawRow
	out  []parsedRow
	done chan struct{}
}

func newIngestJob(n int) *ingestJob {
	return &ingestJob{rows: make([]rawRow, 0, n), done: make(chan struct{})}
}

func (j *ingestJob) parse() {
	j.out = make([]parsedRow, len(j.rows))
	for i := range j.rows {
		r := &j.rows[i]
		p := &j.out[i]
		p.line, p.err = r.line, r.err
		if p.err != nil {
			continue
		}
		if r.json != nil {
			if r.f, p.err = decodeJSONLine(r.json); p.err != nil {
				continue
			}
		}
		p.s, p.err = promo.ParseStake(r.f)
		if p.err != nil && p.s.Account == "" && promo.CheckAccount(r.f[1]) == nil {
			// Rejected before its account was read (its id): still the
			// row of that account, for a watched one (Tally.Reject).
			p.s.Account = r.f[1]
		}
	}
	j.rows = nil
	close(j.done)
}

// countingReader counts the bytes read, and stops reading once ctx is
// done: every read of the framer (at most maxRunOn bytes) checks it, so an
// interrupt stops even a file without line ends promptly.
type countingReader struct {
	r   io.Reader
	ctx context.Context
	n   int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// ingestCSV frames a CSV stake file line by line: each physical line is
// one row (splitCSVLine). encoding/csv would let a quote left open run on
// over the following lines, and every stake up to the next quote would
// vanish into one rejected "row"; stake fields hold no line break, so here
// the quote fails its own line only and the rows after it are read.
func ingestCSV(br *bufio.Reader, st *IngestStats, push func(rawRow) error, tick func(int) error) error {
	line := 0
	var header []string
	for header == nil {
		b, long, err := readLine(br)
		if err == io.EOF {
			return verdict.Errorf(verdict.MsgStakesEmpty)
		}
		if err != nil {
			return verdict.Errorf(verdict.MsgStakesRead, line+1, err)
		}
		line++
		if long {
			return verdict.Errorf(verdict.MsgStakesHeaderLong, line, maxLine)
		}
		if len(b) == 0 {
			continue
		}
		if header, err = splitCSVLine(b, nil); err != nil {
			return verdict.Errorf(verdict.MsgStakesHeader, line, err)
		}
	}
	cols := make([]int, len(header)) // file column → StakeColumns index
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		cols[i] = slices.Index(promo.StakeColumns, h)
		if cols[i] < 0 {
			return verdict.Errorf(verdict.MsgStakesUnknownColumn, line, clip(h), strings.Join(promo.StakeColumns, ","))
		}
		if seen[h] {
			return verdict.Errorf(verdict.MsgStakesColumnTwice, line, clip(h))
		}
		seen[h] = true
	}
	for _, c := range promo.StakeColumns[:6] {
		if !seen[c] {
			return verdict.Errorf(verdict.MsgStakesMissingColumn, line, c)
		}
	}
	var rec []string
	for {
		b, long, err := readLine(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return verdict.Errorf(verdict.MsgStakesRead, line+1, err)
		}
		line++
		if len(b) == 0 && !long {
			continue // blank lines are no rows (as in encoding/csv)
		}
		st.Lines++
		row := rawRow{line: line}
		switch {
		case long:
			row.err = fmt.Errorf("line longer than %d bytes", maxLine)
		default:
			if rec, err = splitCSVLine(b, rec); err != nil {
				row.err = fmt.Errorf("csv: %w", err)
			} else if len(rec) != len(cols) {
				row.err = fmt.Errorf("row has %d fields, the header %d", len(rec), len(cols))
			} else {
				for i, v := range rec {
					row.f[cols[i]] = v
				}
			}
		}
		if err := push(row); err != nil {
			return err
		}
		if err := tick(line); err != nil {
			return err
		}
	}
}

// readLine returns the next line without its line ending (LF or CRLF),
// io.EOF after the last one. A line longer than maxLine is reported as long
// (a rejected row); a line that does not end within maxRunOn bytes is
// errRunOn: the file is refused, not skipped through to its end, since no
// stake file holds such a line (a binary file, /dev/zero, a wrong format).
func readLine(br *bufio.Reader) (b []byte, long bool, err error) {
	b, err = br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		return nil, false, errRunOn
	}
	if err == io.EOF {
		if len(b) == 0 {
			return nil, false, io.EOF
		}
		err = nil
	}
	if err != nil {
		return nil, false, err
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) > maxLine {
		return nil, true, nil
	}
	return b, false, nil
}

// errRunOn refuses a stake file with a line longer than maxRunOn.
var errRunOn = verdict.Errorf(verdict.MsgStakesRunOn, maxRunOn>>20, maxLine>>10)

// splitCSVLine splits one line into its RFC 4180 fields (appended to
// dst[:0]): comma-separated, a field may be quoted, "" in a quoted field
// is a quote. A quoted field must close on its line.
func splitCSVLine(b []byte, dst []string) ([]string, error) {
	dst = dst[:0]
	i := 0
	for {
		if i < len(b) && b[i] == '"' {
			open := i + 1
			var v []byte
			i++
			for {
				j := bytes.IndexByte(b[i:], '"')
				if j < 0 {
					return dst, verdict.Errorf(verdict.MsgCSVQuoteNotClosed, open)
				}
				v = append(v, b[i:i+j]...)
				i += j + 1
				if i < len(b) && b[i] == '"' {
					v = append(v, '"')
					i++
					continue
				}
				break
			}
			dst = append(dst, string(v))
			if i == len(b) {
				return dst, nil
			}
			if b[i] != ',' {
				return dst, verdict.Errorf(verdict.MsgCSVExtraneousQuote, i+1)
			}
			i++
			continue
		}
		end := len(b)
		if j := bytes.IndexByte(b[i:], ','); j >= 0 {
			end = i + j
		}
		if k := bytes.IndexByte(b[i:end], '"'); k >= 0 {
			return dst, verdict.Errorf(verdict.MsgCSVBareQuote, i+k+1)
		}
		dst = append(dst, string(b[i:end]))
		if end == len(b) {
			return dst, nil
		}
		i = end + 1
	}
}

// decodeJSONLine decodes one JSON Lines object into stake fields: the
// common shape (a flat object of known keys with plain ASCII strings and an
// integer amount) by flatJSONLine, anything else by encoding/json, whose
// errors name the problem. The two agree wherever the first answers
// (FuzzFlatJSONLine).
func decodeJSONLine(b []byte) ([9]string, error) {
	if f, ok := flatJSONLine(b); ok {
		return f, nil
	}
	return decodeJSONLineStd(b)
}

// flatJSONLine parses {"key":"value"|digits, …} where keys are exactly
// StakeColumns' names, each at most once, strings hold printable ASCII
// without escapes, and amount_cents is a non-negative integer literal
// without leading zeros. It reports false for anything else, never an error.
func flatJSONLine(b []byte) (f [9]string, ok bool) {
	i := 0
	ws := func() {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
			i++
		}
	}
	str := func() (string, bool) {
		if i >= len(b) || b[i] != '"' {
			return "", false
		}
		i++
		start := i
		for i < len(b) && b[i] != '"' {
			if b[i] < 0x20 || b[i] >= 0x7f || b[i] == '\\' {
				return "", false
			}
			i++
		}
		if i >= len(b) {
			return "", false
		}
		i++
		return string(b[start : i-1]), true
	}
	var seen [9]bool
	ws()
	if i >= len(b) || b[i] != '{' {
		return f, false
	}
	i++
	ws()
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			ws()
			key, ok := str()
			if !ok {
				return f, false
			}
			col := -1
			for j, c := range promo.StakeColumns {
				if key == c {
					col = j
				}
			}
			if col < 0 || seen[col] {
				return f, false
			}
			seen[col] = true
			ws()
			if i >= len(b) || b[i] != ':' {
				return f, false
			}
			i++
			ws()
			if i < len(b) && b[i] == '"' {
				// A quoted amount must be a JSON number literal for
				// encoding/json: leave that case to it.
				if f[col], ok = str(); !ok || col == 4 {
					return f, false
				}
			} else {
				// Only amount_cents may be a number.
				start := i
				for i < len(b) && b[i] >= '0' && b[i] <= '9' {
					i++
				}
				if col != 4 || i == start || (b[start] == '0' && i-start > 1) {
					return f, false
				}
				if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
					return f, false
				}
				f[col] = string(b[start:i])
			}
			ws()
			if i < len(b) && b[i] == ',' {
				i++
				continue
			}
			if i < len(b) && b[i] == '}' {
				i++
				break
			}
			return f, false
		}
	}
	ws()
	return f, i == len(b)
}

// decodeJSONLineStd decodes one JSON Lines object with encoding/json's
// tokenizer, strictly: every key must be one of StakeColumns exactly (not
// encoding/json's case-insensitive match) and appear at most once (not its
// last-one-wins), so that a line another JSON reader could read otherwise
// ({"amount_cents":500,"AMOUNT_CENTS":50000}) is rejected, not guessed.
func decodeJSONLineStd(b []byte) ([9]string, error) {
	var f [9]string
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil {
		return f, fmt.Errorf("json: %w", err)
	} else if d, ok := tok.(json.Delim); !ok || d != '{' {
		return f, errors.New("json: not an object")
	}
	var seen [9]bool
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return f, fmt.Errorf("json: %w", err)
		}
		key, _ := tok.(string)
		col := slices.Index(promo.StakeColumns, key)
		if col < 0 {
			return f, fmt.Errorf("json: unknown field %q", clip(key))
		}
		if seen[col] {
			return f, fmt.Errorf("json: field %q twice", key)
		}
		seen[col] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return f, fmt.Errorf("json: %w", err)
		}
		if col == 4 {
			var n json.Number
			if err := json.Unmarshal(raw, &n); err != nil {
				return f, fmt.Errorf("json: %s: %w", key, err)
			}
			f[col] = n.String()
		} else if err := json.Unmarshal(raw, &f[col]); err != nil {
			return f, fmt.Errorf("json: %s: %w", key, err)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return f, fmt.Errorf("json: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return f, errors.New("json: more than one value on the line")
	}
	return f, nil
}

// clip shortens a column name or key for an error.
func clip(k string) string {
	if len(k) > 40 {
		return k[:40] + "…"
	}
	return k
}

// maxLine bounds one row of either format: a longer line is rejected, and
// a line running on past maxRunOn (the framer's buffer) refuses the file.
const (
	maxLine  = 64 << 10
	maxRunOn = 1 << 20
)

func ingestJSONL(br *bufio.Reader, st *IngestStats, push func(rawRow) error, tick func(int) error) error {
	line := 0
	for {
		b, long, err := readLine(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return verdict.Errorf(verdict.MsgStakesRead, line+1, err)
		}
		line++
		if line == 1 { // a byte order mark, as ingestCSV takes it
			b = bytes.TrimPrefix(b, []byte("\ufeff"))
		}
		row := rawRow{line: line}
		if long {
			row.err = fmt.Errorf("line longer than %d bytes", maxLine)
		} else if b = bytes.TrimSpace(b); len(b) == 0 {
			continue
		} else {
			row.json = bytes.Clone(b)
		}
		st.Lines++
		if err := push(row); err != nil {
			return err
		}
		if err := tick(line); err != nil {
			return err
		}
	}
}

// ReadClosed reads the closed-accounts input: CSV with a header "account"
// or "account,closed_at" (RFC 3339; empty means closed at an unknown date,
// treated as before everything). Any malformed line fails the whole input:
// a closure that is not understood must not let an account through.
func ReadClosed(r io.Reader) (promo.Closed, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err == io.EOF {
		return nil, verdict.Errorf(verdict.MsgClosedEmpty)
	}
	if err != nil {
		return nil, closedReadError(err)
	}
	if len(header) < 1 || len(header) > 2 || strings.TrimPrefix(header[0], "\ufeff") != "account" || (len(header) == 2 && header[1] != "closed_at") {
		return nil, verdict.Errorf(verdict.MsgClosedHeader)
	}
	out := promo.Closed{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, closedReadError(err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			return nil, verdict.Errorf(verdict.MsgClosedFields, line, len(rec), len(header))
		}
		if promo.CheckAccount(rec[0]) != nil {
			return nil, verdict.Errorf(verdict.MsgClosedAccount, line, clip(rec[0]))
		}
		var at time.Time
		if len(rec) == 2 && rec[1] != "" {
			if at, err = promo.ParseTime(rec[1]); err != nil {
				return nil, verdict.Errorf(verdict.MsgClosedAt, line, clip(rec[1]), err)
			}
		}
		if prev, dup := out[rec[0]]; !dup || at.Before(prev) {
			out[rec[0]] = at
		}
	}
}

// closedReadError is an error of encoding/csv reading the closed
// accounts in the catalog's terms: a parse error named with its line (a
// quote out of place with its column too), a read that failed as it is.
func closedReadError(err error) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return verdict.Errorf(verdict.MsgClosedRead, err)
	}
	why := pe.Err
	switch pe.Err {
	case csv.ErrBareQuote:
		why = verdict.Errorf(verdict.MsgCSVBareQuote, pe.Column)
	case csv.ErrQuote:
		why = verdict.Errorf(verdict.MsgCSVQuote, pe.Column)
	}
	return verdict.Errorf(verdict.MsgClosedLine, pe.Line, why)
}

// File is an input file to read: its name (as given; display only, and
// its format by FormatOf) and its bytes.
type File struct {
	Name string
	R    io.Reader
}

// Recomputed is what Recompute read.
type Recomputed struct {
	// Eligibility is computed as rngctl promo freeze computes it.
	Eligibility *promo.Eligibility
	// Inputs are the files read with their SHA-256s, of the bytes read
	// to their end: the stake files in order, then the closed accounts.
	Inputs []promo.InputFile
	Stats  IngestStats
}

// Recompute reads the stake files (in order) and the closed accounts
// (closed nil: none) under the rules r as rngctl promo freeze reads them —
// IngestFile into one promo.Tally, ReadClosed, Tally.Eligibility; rejected
// rows are counted, not reported — hashing each file as it is read, once.
// A file refused (one rngctl would have refused too) is an error naming
// it.
func Recompute(ctx context.Context, r *promo.Rules, stakeFiles []File, closed *File) (*Recomputed, error) {
	return RecomputeAccount(ctx, r, stakeFiles, closed, "")
}

// RecomputeAccount is Recompute, noting as it reads them the rows of
// account that do not count (promo.Tally.Watch; promo.Eligibility.Standing
// gives them with the account's standing): one reading of the files
// answers for everyone and for that account. An empty account is
// Recompute.
func RecomputeAccount(ctx context.Context, r *promo.Rules, stakeFiles []File, closed *File, account string) (*Recomputed, error) {
	out := &Recomputed{}
	t := promo.NewTally(r)
	if account != "" {
		t.Watch(account)
	}
	for _, f := range stakeFiles {
		var st IngestStats
		sum, err := Hashed(f.R, func(r io.Reader) (err error) {
			st, err = IngestFile(ctx, f.Name, r, FormatOf(f.Name), t, io.Discard, nil)
			return err
		})
		if err != nil {
			return nil, verdict.Errorf(verdict.MsgColon, f.Name, err)
		}
		out.Stats.Add(st)
		out.Inputs = append(out.Inputs, promo.NewInputFile(promo.InputStakes, f.Name, sum))
	}
	var c promo.Closed
	if closed != nil {
		sum, err := Hashed(closed.R, func(r io.Reader) (err error) {
			c, err = ReadClosed(r)
			return err
		})
		if err != nil {
			return nil, verdict.Errorf(verdict.MsgColon, closed.Name, err)
		}
		out.Inputs = append(out.Inputs, promo.NewInputFile(promo.InputClosed, closed.Name, sum))
	}
	out.Eligibility = t.Eligibility(c)
	return out, nil
}

// Hashed gives read the bytes of r and returns their SHA-256, to r's end:
// what read leaves unread is read and hashed after it, so that the digest
// is the whole file's (a freeze binds it) — but r is never read again once
// it has given its end (standard input on a terminal would wait for a
// second end of file). read's error is returned as it is.
func Hashed(r io.Reader, read func(io.Reader) error) ([32]byte, error) {
	x := &hashReader{r: r, h: sha256.New()}
	var sum [32]byte
	if err := read(x); err != nil {
		return sum, err
	}
	if !x.eof {
		if _, err := io.Copy(io.Discard, x); err != nil {
			return sum, err
		}
	}
	x.h.Sum(sum[:0])
	return sum, nil
}

// hashReader hashes what it reads and notes r's end.
type hashReader struct {
	r   io.Reader
	h   hash.Hash
	eof bool
}

func (x *hashReader) Read(p []byte) (int, error) {
	if x.eof {
		return 0, io.EOF
	}
	n, err := x.r.Read(p)
	x.h.Write(p[:n])
	if err == io.EOF {
		x.eof = true
	}
	return n, err
}
