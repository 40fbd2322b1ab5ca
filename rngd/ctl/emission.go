package ctl

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"tirage.fr/tirage/rngd"
	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
)

func init() {
	register("emission", Command{Summary: "ticket emissions: create, list, import a manifest" + devOnly(", make a demo manifest"), Run: runEmission})
}

// emissionUsage has demo-manifest in a dev build only: a demo manifest's
// codes are public (rngd.DemoManifest), so a production rngctl does not
// make one, and rngd imports one only in dev mode.
var emissionUsage = `usage: rngctl emission create|list|import` + devOnly("|demo-manifest") + ` [FLAGS]

  create         register an emission and its closure date (closure notice)
                 --id ID --closure YYYY-MM-DD (a year from 2000 to 2199)
  list           list the registered emissions
  import         import a ticket manifest (lines emission_id,ticket_hash_hex,stake_cents);
                 its Merkle root and count are logged
                 --id ID --manifest FILE [--count N] [--root HEX]
                 the file must end with a newline (a last line without one is a
                 file cut off: refused, nothing imported); --count and --root,
                 when given, are what the file must hold (its tickets, its
                 Merkle root as import prints it), checked before anything is sent
` + devOnly(`  demo-manifest  dev build only: make a demo manifest and the codes of its tickets
                 (tests, make run). The codes derive from the emission id and a
                 public seed: anyone can recompute them, and rngd refuses the
                 manifest unless it runs in dev mode.
                 --id ID --count N (1 to 1000000) --manifest FILE --codes FILE
                 neither file may exist: both are checked before either is written
`) + `
admin flags (create, list, import):
` + adminSocketHelp + `  --request-id ID     request id of create and import (default: derived from the
                      whole command, so that running the same command again
                      returns the same result, and a different one gets rngd's
                      answer to it)

A flag the subcommand does not use is a usage error.

Exit status: 0 done, 1 failed or refused by rngd, or a manifest refused (cut
off, or not the --count or --root given): nothing imported (one line says
why), 2 usage error.
`

func runEmission(ctx context.Context, env Env) int {
	if code, done := groupHelp(env, emissionUsage); done {
		return code
	}
	if env.Args[0] == "demo-manifest" && !devBuild {
		return usageError(env, "emission", "emission demo-manifest: only in a dev build of rngctl (-tags tirage_dev): a demo manifest's codes are public, and rngd imports one only in dev mode")
	}
	used, known := emissionFlags[env.Args[0]]
	if !known {
		return usageError(env, "emission", "emission: unknown subcommand %q", env.Args[0])
	}
	fs := newFlags("emission " + env.Args[0])
	var a adminFlags
	a.register(fs, env)
	id := fs.String("id", "", "emission id")
	closure := fs.String("closure", "", "closure date, YYYY-MM-DD")
	manifest := fs.String("manifest", "", "manifest file")
	codesFile := fs.String("codes", "", "demo codes file")
	count := fs.Int("count", 0, "tickets")
	rootHex := fs.String("root", "", "manifest root, hex")
	if code, ok := parseArgs(env, fs, env.Args[1:], fs.Name(), emissionUsage, false); !ok {
		return code
	}
	if code, ok := onlyFlags(env, fs, used...); !ok {
		return code
	}
	if code, ok := textFlags(env, fs, "id", "request-id"); !ok {
		return code
	}
	// need reports a missing string flag (--count is checked by its range).
	need := func(names ...string) bool {
		for _, n := range names {
			if fs.Lookup(n).Value.String() == "" {
				usageError(env, "emission", "emission %s: --%s is required", env.Args[0], n)
				return false
			}
		}
		return true
	}
	switch env.Args[0] {
	case "create":
		if !need("id", "closure") {
			return ExitUsage
		}
		if err := rngd.CheckEmissionID(*id); err != nil {
			return usageError(env, "emission", "emission create: --id: %v", err)
		}
		if err := rngd.CheckClosureDate(*closure); err != nil {
			return usageError(env, "emission", "emission create: --closure: %v", err)
		}
		req := &adminv1.CreateEmissionRequest{EmissionId: *id, ClosureDate: *closure}
		enc, err := encoding(req)
		if err != nil {
			return fail(env, err)
		}
		req.RequestId = a.id("CreateEmission", enc)
		adm, done, err := a.dial(ctx)
		if err != nil {
			return fail(env, err)
		}
		defer done()
		r, err := adm.CreateEmission(ctx, req)
		if err != nil {
			return a.fail(env, err)
		}
		fmt.Fprintf(env.Stdout, "emission %s registered: closure %s, stage 2 may start until %s (log index %d)\n",
			*id, *closure, r.Emission.StartDeadline.AsTime().Format(time.RFC3339), r.Receipt.LogIndex)
	case "list":
		adm, done, err := a.dial(ctx)
		if err != nil {
			return fail(env, err)
		}
		defer done()
		r, err := adm.ListEmissions(ctx, &adminv1.ListEmissionsRequest{})
		if err != nil {
			return a.fail(env, err)
		}
		if len(r.Emissions) == 0 {
			fmt.Fprintln(env.Stdout, "no emission is registered (rngctl emission create registers one)")
		}
		for _, e := range r.Emissions {
			fmt.Fprintf(env.Stdout, "%s\tclosure %s\tstart deadline %s\t%d tickets\tmanifests %s\n", e.EmissionId, e.ClosureDate,
				e.StartDeadline.AsTime().Format(time.RFC3339), e.Tickets, strings.Join(e.ManifestRoots, ","))
		}
	case "import":
		if !need("id", "manifest") {
			return ExitUsage
		}
		if err := rngd.CheckEmissionID(*id); err != nil {
			return usageError(env, "emission", "emission import: --id: %v", err)
		}
		countGiven := false
		fs.Visit(func(f *flag.Flag) { countGiven = countGiven || f.Name == "count" })
		if countGiven && *count < 1 {
			return usageError(env, "emission", "emission import: --count %d: want 1 or more", *count)
		}
		var wantRoot []byte
		if *rootHex != "" {
			var err error
			if wantRoot, err = hex.DecodeString(*rootHex); err != nil || len(wantRoot) != sha256.Size {
				return usageError(env, "emission", "emission import: --root: want %d hex digits (the manifest root, as import prints it)", 2*sha256.Size)
			}
		}
		tickets, err := readManifest(*manifest, *id)
		if err != nil {
			return fail(env, err)
		}
		root := rngd.NewManifestRoot()
		for _, t := range tickets {
			root.Add(t)
		}
		// What the operator expects of the file is checked before anything
		// is sent: a file cut at a line break reads as a shorter manifest.
		if countGiven && len(tickets) != *count {
			return fail(env, fmt.Errorf("--count %d: the manifest has %d tickets: nothing imported", *count, len(tickets)))
		}
		if wantRoot != nil && !bytes.Equal(wantRoot, root.Root()) {
			return fail(env, fmt.Errorf("--root %x: the manifest's root is %x: nothing imported", wantRoot, root.Root()))
		}
		// The manifest's root covers every ticket and its emission; the
		// header (emission, count) is hashed too.
		header, err := encoding(&adminv1.ManifestHeader{EmissionId: *id, Count: uint64(len(tickets))})
		if err != nil {
			return fail(env, err)
		}
		requestID := a.id("ImportManifest", header, root.Root())
		adm, done, err := a.dial(ctx)
		if err != nil {
			return fail(env, err)
		}
		defer done()
		r, err := rngd.ImportTickets(ctx, adm, requestID, *id, tickets)
		if err != nil {
			return a.fail(env, err)
		}
		fmt.Fprintf(env.Stdout, "manifest imported: emission %s, %d tickets, root %x (log index %d)\n", r.EmissionId, r.Count, r.Root, r.Receipt.LogIndex)
	case "demo-manifest":
		if !need("id", "manifest", "codes") {
			return ExitUsage
		}
		if err := rngd.CheckEmissionID(*id); err != nil {
			return usageError(env, "emission", "emission demo-manifest: --id: %v", err)
		}
		// Both files are built in memory; and rngd recognises a demo
		// manifest's tickets up to rngd.MaxDemoTickets, however imported.
		if *count < 1 || *count > rngd.MaxDemoTickets {
			return usageError(env, "emission", "emission demo-manifest: --count %d: want 1 to %d", *count, rngd.MaxDemoTickets)
		}
		if filepath.Clean(*manifest) == filepath.Clean(*codesFile) {
			return usageError(env, "emission", "emission demo-manifest: --manifest and --codes are the same file")
		}
		// Both outputs are checked before either is written.
		for _, f := range []struct{ flag, path string }{{"--manifest", *manifest}, {"--codes", *codesFile}} {
			if err := checkNewFile(f.flag, f.path); errors.As(err, new(existsError)) {
				return usageError(env, "emission", "emission demo-manifest: %v", err)
			} else if err != nil {
				return fail(env, err)
			}
		}
		codes, tickets := rngd.DemoManifest(*id, *count)
		var m, c strings.Builder
		fmt.Fprintf(&m, "# tirage ticket manifest: emission %s, %d DEMO tickets: their codes are public, rngd imports them only in dev mode\n", *id, *count)
		for i, t := range tickets {
			m.WriteString(t.Line() + "\n")
			fmt.Fprintf(&c, "%s,%d\n", codes[i], t.StakeCents)
		}
		if err := writeNew(*manifest, m.String(), 0o644); err != nil {
			return fail(env, fmt.Errorf("--manifest: %w", err))
		}
		if err := writeNew(*codesFile, c.String(), 0o600); err != nil {
			os.Remove(*manifest) // all or nothing
			return fail(env, fmt.Errorf("--codes: %w", err))
		}
		fmt.Fprintf(env.Stdout, "demo manifest: %s (%d tickets); their codes: %s (public: anyone who knows the emission id can recompute them; rngd imports this manifest only in dev mode)\n", *manifest, *count, *codesFile)
	}
	return ExitOK
}

// emissionFlags are the flags each emission subcommand uses (onlyFlags).
var emissionFlags = map[string][]string{
	"create":        {"socket", "request-id", "id", "closure"},
	"list":          {"socket"},
	"import":        {"socket", "request-id", "id", "manifest", "count", "root"},
	"demo-manifest": {"id", "count", "manifest", "codes"},
}

// devOnly is s in a dev build of rngctl, else "".
func devOnly(s string) string {
	if devBuild {
		return s
	}
	return ""
}

// checkNewFile checks that an output file named by flag can be created:
// it does not exist (else an existsError) and its directory does.
func checkNewFile(flag, path string) error {
	if _, err := os.Lstat(path); err == nil {
		return existsError{flag, path}
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s %s: no directory %s", flag, path, dir)
	}
	return nil
}

// existsError is an output file that exists already: it is never
// overwritten, and naming it is a usage error (exit 2) for every command.
type existsError struct{ flag, path string }

func (e existsError) Error() string {
	return fmt.Sprintf("%s %s exists: it is never overwritten", e.flag, e.path)
}

func readManifest(path, emission string) ([]rngd.Ticket, error) {
	tickets, err := readManifestFile(path, emission)
	if err != nil {
		return nil, fmt.Errorf("--manifest %s: %w", path, rngd.Pathless(err))
	}
	return tickets, nil
}

func readManifestFile(path, emission string) ([]rngd.Ticket, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var tickets []rngd.Ticket
	lr := &lineReader{r: f}
	err = rngd.ReadManifest(bufio.NewReader(lr), func(t rngd.Ticket) error {
		if t.Emission != emission {
			return fmt.Errorf("manifest ticket %x belongs to emission %q, not %q", t.TicketHash, t.Emission, emission)
		}
		tickets = append(tickets, t)
		return nil
	})
	// A last line without its newline is a file cut off (a copy one byte
	// short reads as a ticket with a stake a tenth of its own): whatever
	// the reader made of that line, the file is refused as such.
	if lr.eof && lr.read > 0 && lr.last != '\n' {
		return nil, fmt.Errorf("ends in the middle of line %d (truncated?): nothing imported", lr.lines+1)
	}
	if err == nil && len(tickets) == 0 {
		err = errors.New("the manifest has no ticket")
	}
	return tickets, err
}

// lineReader counts the newlines read through it and keeps the last byte
// read, so that a file whose last line has no newline is recognised.
type lineReader struct {
	r     io.Reader
	lines int   // newlines read
	read  int64 // bytes read
	last  byte  // the last byte read
	eof   bool  // the end of the file was reached
}

func (l *lineReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n > 0 {
		l.read += int64(n)
		l.lines += bytes.Count(p[:n], []byte{'\n'})
		l.last = p[n-1]
	}
	if err == io.EOF {
		l.eof = true
	}
	return n, err
}

// writeNew writes a file that must not exist yet; a failed write leaves
// no file.
func writeNew(path, content string, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = io.WriteString(f, content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}
