package promo

import (
	"bytes"
	"context"
	"crypto"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/atomicfile"
	"tirage.fr/tirage/transparency/tilelog"
	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/record"
)

// OfflineConfig wires an Appliance for an offline ceremony on the
// appliance: the embedded log (transparency/tilelog) in DataDir/log, the
// draws' state in DataDir/promo, keys from an hsm.Backend and entropy from
// the appliance's DRBG. rngd must not run on the same data directory at the
// same time (the log directory is locked by whichever opens it first).
type OfflineConfig struct {
	// DataDir holds log/ and promo/.
	DataDir string
	// Origin names the log (first line of its checkpoints); an existing
	// log refuses another origin.
	Origin string
	// Keys is the key custody backend; VRFLabel and LogLabel name the VRF
	// key and the checkpoint signing key (Ed25519).
	Keys               hsm.Backend
	VRFLabel, LogLabel string
	// Entropy is the DRBG (an *entropy.Generator).
	Entropy io.Reader
	// CheckpointInterval of the log (default: tilelog's).
	CheckpointInterval time.Duration
	// WitnessPolicy, if set, names the witnesses that must cosign each
	// checkpoint before it is published (tilelog.Config.WitnessPolicy).
	WitnessPolicy []byte
	Clock         func() time.Time
	Logger        *slog.Logger
}

// checkpointSigner lets the log sign checkpoints with an hsm.Signer
// (Ed25519 signs the message itself: crypto.Hash(0)).
type checkpointSigner struct{ hsm.Signer }

func (s checkpointSigner) Sign(_ io.Reader, msg []byte, opts crypto.SignerOpts) ([]byte, error) {
	if opts != nil && opts.HashFunc() != 0 {
		return nil, errors.New("only Ed25519 (pure) checkpoint signers are supported")
	}
	return s.Signer.Sign(msg)
}

// OpenOffline opens the log and the keys and returns the Appliance and the
// log (the caller closes it). On a new log it first appends the key
// announcement (hsm.Announce of the VRF and log keys); on an existing one it
// finds the announcement of the VRF key, which must be there. It reads the
// log's promo records once, for the Appliance's index of them.
func OpenOffline(ctx context.Context, cfg OfflineConfig) (*Appliance, transparency.Log, error) {
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	prover, err := cfg.Keys.VRFProver(cfg.VRFLabel)
	if err != nil {
		return nil, nil, fmt.Errorf("vrf key %q: %w", cfg.VRFLabel, err)
	}
	signer, err := cfg.Keys.Signer(cfg.LogLabel)
	if err != nil {
		return nil, nil, fmt.Errorf("log key %q: %w", cfg.LogLabel, err)
	}
	lg, err := tilelog.Open(ctx, tilelog.Config{
		Dir: filepath.Join(cfg.DataDir, "log"), Origin: cfg.Origin,
		Signers: []crypto.Signer{checkpointSigner{signer}}, CheckpointInterval: cfg.CheckpointInterval,
		WitnessPolicy: cfg.WitnessPolicy,
		Logger:        cfg.Logger.With("component", "log"),
	})
	if err != nil {
		return nil, nil, fmt.Errorf("couldn't open the log: %w", err)
	}
	dir := filepath.Join(cfg.DataDir, "promo")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		lg.Close()
		return nil, nil, err
	}
	idx, keyID, err := announcement(ctx, lg, dir, cfg, prover, signer)
	if err != nil {
		lg.Close()
		return nil, nil, err
	}
	a, err := New(Config{Dir: dir, Log: lg, Prover: prover, KeyID: keyID, KeysIndex: int64(idx), Entropy: cfg.Entropy, Clock: cfg.Clock, Logger: cfg.Logger})
	if err != nil {
		lg.Close()
		return nil, nil, err
	}
	// The log's promo records, by draw id: a freeze or a ceremony is
	// refused for a draw id the log already holds one of, whatever the
	// state directory says (see the package doc, No redraw).
	if err := a.indexLog(ctx); err != nil {
		lg.Close()
		return nil, nil, err
	}
	return a, lg, nil
}

// announcement returns the log index of the key announcement naming the
// VRF key and the key's id, appending the announcement to an empty log.
//
// The key is found by its public key and its suite (the prover's): one
// P-256 key proves under ECVRF-P256-SHA256-TAI and -SSWU, two outputs for
// each α, so auditors (verifier/audit) hold a key's bytes to the suite of
// their first announcement (with a suite and key they can parse), report
// the same bytes under another suite as misbehaviour and count no proof
// under it. A key whose bytes the log first announced under another suite
// is refused, with nothing appended: every draw under it would fail the
// audit.
func announcement(ctx context.Context, lg transparency.Log, dir string, cfg OfflineConfig, prover hsm.VRFProver, signer hsm.Signer) (uint64, string, error) {
	pub := prover.PublicKey().Bytes()
	suite := string(prover.Suite())
	// ours reads a VRF key of an announcement: it announces the prover's
	// key (its bytes under its suite), or its bytes under another suite
	// (clash: auditors parse it and hold the bytes to that suite), or
	// neither (another key, or one auditors cannot parse: they hold its
	// bytes to no suite).
	ours := func(k record.Key) (match, clash bool) {
		if k.Use != hsm.UseVRF || !bytes.Equal(k.PublicKey, pub) {
			return false, false
		}
		if k.Suite == suite {
			return true, false
		}
		return false, vrfKeyParses(k)
	}
	// find returns the id of the prover's key in an announcement, unless
	// the announcement names its bytes under another suite first.
	find := func(leaf []byte) (string, bool) {
		ann, err := hsm.CheckAnnouncement(leaf)
		if err != nil {
			return "", false
		}
		for _, k := range ann.Keys {
			match, clash := ours(k)
			if match {
				return k.ID, true
			}
			if clash {
				return "", false
			}
		}
		return "", false
	}
	path := filepath.Join(dir, "announcement.idx")
	cp, err := lg.Checkpoint(ctx)
	if err != nil {
		return 0, "", fmt.Errorf("couldn't read the log's checkpoint: %w", err)
	}
	if i, err := readIndex(path); err == nil {
		if uint64(i) >= cp.Size {
			return 0, "", fmt.Errorf("announcement.idx names log index %d, beyond the log's checkpoint (%d records): wrong data directory? (remove promo/announcement.idx to look the announcement up again)", i, cp.Size)
		}
		es, err := lg.Entries(ctx, uint64(i), uint64(i)+1, cp.Size)
		if err == nil && len(es) != 1 {
			err = fmt.Errorf("%d entries returned", len(es))
		}
		if err != nil {
			return 0, "", fmt.Errorf("couldn't read the key announcement at log index %d: %w", i, err)
		}
		if id, ok := find(es[0]); ok {
			return uint64(i), id, nil
		}
		// Another VRF key than when it was written (a rotation), or the
		// same bytes under another suite (the key re-sealed, or copied
		// under a new label, as the other suite): look again.
	} else if !errors.Is(err, fs.ErrNotExist) {
		return 0, "", err
	}
	// Look for it in the log. Auditors know an id by its first
	// announcement: the key's id must not have been announced before with
	// another key (a new key under an old label); and its bytes by their
	// first announcement: not under another suite.
	first := map[string][]byte{}
	for start := uint64(0); start < cp.Size; {
		es, err := lg.Entries(ctx, start, min(start+transparency.MaxEntries, cp.Size), cp.Size)
		if err != nil {
			return 0, "", err
		}
		for j, e := range es {
			ann, err := hsm.CheckAnnouncement(e)
			if err != nil {
				continue // not a key announcement
			}
			for _, k := range ann.Keys {
				if k.Use != hsm.UseVRF {
					continue
				}
				i := start + uint64(j)
				other, seen := first[k.ID]
				match, clash := ours(k)
				if clash {
					return 0, "", twoSuitesError(cfg.VRFLabel, suite, pub, k, i)
				}
				if !match {
					if !seen {
						first[k.ID] = k.PublicKey
					}
					continue
				}
				if seen && !bytes.Equal(other, pub) {
					return 0, "", fmt.Errorf("VRF key id %q was first announced in the log with another public key (fingerprint %s): auditors would check this key's draws against that one; use a key with a new label", k.ID, hsm.Fingerprint(other))
				}
				return i, k.ID, atomicfile.Write(path, formatIndex(i), 0o644)
			}
		}
		start += uint64(len(es))
	}
	if cp.Size > 0 {
		return 0, "", fmt.Errorf("the log (%d records) holds no announcement of VRF key %q: announce it first (rngctl keys announce)", cp.Size, cfg.VRFLabel)
	}
	leaf, err := hsm.Announce(cfg.Clock(), []hsm.AnnouncedKey{
		{Use: hsm.UseVRF, Label: cfg.VRFLabel, Prover: prover},
		{Use: hsm.UseLog, Label: cfg.LogLabel, Signer: signer},
	})
	if err != nil {
		return 0, "", fmt.Errorf("couldn't make the key announcement: %w", err)
	}
	id, ok := find(leaf)
	if !ok {
		return 0, "", errors.New("the key announcement made does not announce the VRF key in use")
	}
	i, err := lg.Append(ctx, leaf)
	if err != nil {
		return 0, "", fmt.Errorf("couldn't append the key announcement: %w", err)
	}
	cfg.Logger.Info("keys announced", "log_index", i)
	return i, id, atomicfile.Write(path, formatIndex(i), 0o644)
}

// vrfKeyParses tells whether auditors can parse VRF key k's suite and
// public key (verifier/audit reports one they cannot as a bad key record,
// and holds its bytes to no suite).
func vrfKeyParses(k record.Key) bool {
	_, err := announce.VRFKey(k)
	return err == nil
}

// twoSuitesError is the refusal of the VRF key under label, of suite suite
// and public key pub, whose bytes the log first announced as key f, at
// record index, under another suite.
func twoSuitesError(label, suite string, pub []byte, f record.Key, index uint64) error {
	return fmt.Errorf("vrf key %q (fingerprint %s) is an %s key, but the log announced the same public key at record %d as vrf key %q under %s: "+
		"one P-256 key proves under both suites, two outputs for each α, so auditors hold a key to the suite it was first announced under, "+
		"report its announcement under two suites as misbehaviour and count no proof under the other: every draw under this key would fail the audit; nothing was appended. "+
		"A key is never used under another suite: make a new key under a new label (rngctl keys init --vrf-label NEW), announce it in the log and use --vrf-label NEW, "+
		"or go back to %s (--vrf-label %q, with the key file as rngctl keys init made it)",
		label, hsm.Fingerprint(pub), suite, index, f.ID, f.Suite, f.Suite, f.ID)
}
