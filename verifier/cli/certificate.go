package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/promo"
)

func init() {
	register("certificate", "re-check a promotion draw certificate offline (with the entrant list: the bailiff's checks)", runCertificate)
}

const certificateUsage = `usage: rngverify certificate FILE [--entrants LIST] [--log-key VKEY]... [--vrf-key HEX] [--rules FILE] [--reserves N]

Re-checks a promotion draw certificate (certificate.json) offline:

  public checks     the checkpoint is signed by the log key; the freeze, the
                    draw and the key announcement are in the log; the draw
                    links to the freeze and reveals the r it committed to;
                    the VRF proof is valid for α = (draw, root, count, H(r),
                    r, bailiff's share, beacon); the winner and reserves are
                    the ranked sample of β; each pick is in the frozen list
  --entrants LIST   the bailiff's checks too: the private entrant list
                    (entrants.txt) is canonical and hashes to the frozen root
                    and count; prints the picked accounts

  --log-key KEY     pin the log's verifier key: a file with one key per line (as
                    served at /log/vkey) or the key text itself (repeatable);
                    default: the certificate's own keys, printed for comparison
  --vrf-key HEX     pin the VRF public key
  --rules FILE      the operation's rules file: its SHA-256 must be the frozen one
  --reserves N      the number of reserves the rules require

Exit status:
  0  every check passed
  1  a check failed (one line names the check and why)
  2  usage error or unreadable input
`

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func runCertificate(env Env) int {
	fs := flag.NewFlagSet("rngverify certificate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	entrants := fs.String("entrants", "", "")
	vrfKey := fs.String("vrf-key", "", "")
	rules := fs.String("rules", "", "")
	reserves := fs.Int("reserves", -1, "")
	var logKeys multiFlag
	fs.Var(&logKeys, "log-key", "")
	usageErr := func(format string, args ...any) int {
		fmt.Fprintf(env.Stderr, "rngverify certificate: "+format+" (rngverify certificate -h for usage)\n", args...)
		return ExitUsage
	}
	// The file may come before or after the flags.
	args := env.Args
	var file string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		file, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			io.WriteString(env.Stderr, certificateUsage)
			return ExitOK
		}
		return usageErr("%s", err)
	}
	if file == "" && fs.NArg() > 0 {
		file = fs.Arg(0)
		if fs.NArg() > 1 {
			return usageErr("unexpected argument %q", fs.Arg(1))
		}
	} else if fs.NArg() > 0 {
		return usageErr("unexpected argument %q", fs.Arg(0))
	}
	if file == "" {
		return usageErr("missing the certificate FILE")
	}
	if *vrfKey != "" {
		if _, err := hex.DecodeString(*vrfKey); err != nil {
			return usageErr("--vrf-key is not hex")
		}
	}
	cert, err := os.ReadFile(file)
	if err != nil {
		return usageErr("couldn't read the certificate: %v", err)
	}
	var pinned []string
	for _, k := range logKeys {
		if _, err := checkpoint.ParseKey(k); err == nil {
			pinned = append(pinned, k)
			continue
		}
		b, err := os.ReadFile(k)
		if err != nil {
			return usageErr("--log-key: neither a key nor a readable file: %v", err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				pinned = append(pinned, line)
			}
		}
	}
	anchors := promo.Anchors{LogKeys: pinned, VRFPublicKey: *vrfKey, Reserves: *reserves}
	if *rules != "" {
		if anchors.Rules, err = os.ReadFile(*rules); err != nil {
			return usageErr("couldn't read the rules: %v", err)
		}
	}
	var list *promo.EntrantList
	if *entrants != "" {
		b, err := os.ReadFile(*entrants)
		if err != nil {
			return usageErr("couldn't read the entrant list: %v", err)
		}
		if list, err = promo.ParseEntrantList(b); err != nil {
			fmt.Fprintf(env.Stderr, "rngverify certificate: FAILED %s: %v\n", promo.CheckEntrantList, err)
			return ExitFail
		}
	}
	v, err := promo.Verify(cert, list, anchors)
	if err != nil {
		var ce *promo.CheckError
		if errors.As(err, &ce) {
			fmt.Fprintf(env.Stderr, "rngverify certificate: FAILED %s: %v\n", ce.Check, ce.Err)
		} else {
			fmt.Fprintf(env.Stderr, "rngverify certificate: FAILED: %v\n", err)
		}
		return ExitFail
	}
	w := env.Stdout
	fmt.Fprintf(w, "certificate %s\nfingerprint sha256:%s\n", file, promo.Fingerprint(cert))
	fmt.Fprintf(w, "draw %s (%s), rules sha256 %s\n", v.Draw, v.Operation, v.RulesHash)
	fmt.Fprintf(w, "entrants %d (withheld, closed accounts: %d), frozen %s, drawn %s\n",
		v.Count, v.Withheld, promo.FormatTime(v.Freeze.Time), promo.FormatTime(v.DrawRecord.Time))
	fmt.Fprintf(w, "bailiff's share %q\n", v.Share)
	for i, p := range v.Picks {
		role := "winner"
		if p.Rank > 1 {
			role = fmt.Sprintf("reserve %d", p.Rank-1)
		}
		acct := ""
		if v.Accounts != nil {
			acct = "  account " + v.Accounts[i]
		}
		fmt.Fprintf(w, "%-10s %s  entrant %d of %d%s\n", role, p.Pseudonym, p.Index+1, v.Count, acct)
	}
	checks := []string{promo.CheckCheckpoint, promo.CheckFreezeInclusion, promo.CheckDrawInclusion, promo.CheckKeys, promo.CheckRules,
		promo.CheckLink, promo.CheckCommitment, promo.CheckShare, promo.CheckVRF, promo.CheckPicks, promo.CheckPickInclusion}
	if list != nil {
		checks = append(checks, promo.CheckEntrantList, promo.CheckEntrantRoot)
	}
	fmt.Fprintf(w, "ok: %s\n", strings.Join(checks, ", "))
	vk, _ := hex.DecodeString(v.VRFKey)
	fp := sha256.Sum256(vk)
	if len(logKeys) == 0 {
		fmt.Fprintf(w, "note: log keys taken from the certificate; compare with the operator's published keys:\n")
		for _, k := range v.LogKeys {
			fmt.Fprintf(w, "  log key %s\n", k)
		}
	}
	if *vrfKey == "" {
		logged := "announced in the log before the freeze"
		if !v.KeyLogged {
			logged = "NOT found in a logged key announcement: pin it with --vrf-key"
		}
		fmt.Fprintf(w, "note: VRF key sha256 %x, %s\n", fp, logged)
	}
	if list == nil {
		fmt.Fprintln(w, "note: public checks only; the bailiff adds --entrants entrants.txt")
	}
	return ExitOK
}
