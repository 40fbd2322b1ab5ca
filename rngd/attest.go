package rngd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	bolt "go.etcd.io/bbolt"

	"tirage.fr/tirage/attestations"
	"tirage.fr/tirage/hsm"
	adminv1 "tirage.fr/tirage/rngd/api/tirage/admin/v1"
	qodv1 "tirage.fr/tirage/rngd/api/tirage/qod/v1"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/verifier/announce"
	"tirage.fr/tirage/verifier/record"
)

// LogAttestation appends a signed attestation (docs/attestations.md) to the
// log, once checked as auditors will check it (checkAttestation).
func (s *adminService) LogAttestation(ctx context.Context, req *adminv1.LogAttestationRequest) (*adminv1.LogAttestationResponse, error) {
	return s.e.logAttestation(ctx, req)
}

// logAttestation logs an attestation record of req's envelope. A retry
// gets the first reply, even if what the checks read has changed since (a
// new executable, another configuration): it is answered before they run.
func (e *engine) logAttestation(ctx context.Context, req *adminv1.LogAttestationRequest) (*adminv1.LogAttestationResponse, error) {
	c, err := newCall(adminServer, "LogAttestation", req)
	if err != nil {
		return nil, err
	}
	if len(req.Envelope) == 0 {
		return nil, refuse(reasonAttestationInvalid, "envelope: required (the DSSE envelope rngctl attest wrote)")
	}
	reply := new(adminv1.LogAttestationResponse)
	if ok, err := e.replayed(c, reply); ok || err != nil {
		return reply, err
	}
	defer e.lockRequest(c).unlock()
	if ok, err := e.replayed(c, reply); ok || err != nil {
		return reply, err
	}
	rec, err := e.checkAttestation(ctx, req.Envelope)
	if err != nil {
		return nil, err
	}
	rec.Req, rec.ReqDigest = c.stamp()
	// attestations.MaxEmbedded keeps the leaf within the log's bound,
	// unless the record's other members are long: then it logs the digest
	// only, as for a larger envelope (published beside the log).
	if leaf, err := record.Format(rec); err == nil && len(leaf) > transparency.MaxLeafSize {
		rec.Statement = nil
	}
	s, err := e.seal(ctx, nil, rec, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	reply = attestationLogged(rec, s.receipt)
	if err := e.commit(&c, reply, nil, []sealed{s}, func(tx *bolt.Tx) error { return putAttestedBuild(tx, rec, s.index) }); err != nil {
		return nil, err
	}
	e.log.Info("attestation logged", "subject", rec.Subject, "type", rec.Type, "key", rec.Key,
		"digest", record.Hex(rec.Digest), "log_index", s.index)
	if rec.Type == attestations.BuildType {
		e.noteBuildAttested(false)
	}
	return reply, nil
}

// attestedBuildKey is the attested-builds key of executable exe run with the
// configuration file of SHA-256 config.
func attestedBuildKey(exe [32]byte, config []byte) []byte {
	return append(exe[:len(exe):len(exe)], config...)
}

// putAttestedBuild notes in the store, at log index, the executable and
// configuration a build attestation record names, if r is one that embeds
// its envelope (one logged by LogAttestation, which took only a statement
// about itself; larger ones, logged by digest, name nothing the store can
// read). The first index of each pair is kept.
func putAttestedBuild(tx *bolt.Tx, r *record.Attestation, index uint64) error {
	if r.Type != attestations.BuildType || len(r.Statement) == 0 {
		return nil
	}
	env, err := attestations.ParseEnvelope(r.Statement)
	if err != nil {
		return nil // record.Parse and the audit judge it; it attests nothing here
	}
	st, err := attestations.Parse(env.Payload)
	if err != nil {
		return nil
	}
	b, ok := st.Predicate.(*attestations.Build)
	if !ok || st.Type() != r.Type {
		return nil // a record whose type is not its statement's attests nothing
	}
	config, err := hex.DecodeString(b.ConfigSHA256)
	if err != nil || len(config) != sha256.Size {
		return nil
	}
	bk := tx.Bucket(bucketAttested)
	key := attestedBuildKey(st.Subject[0].SHA256, config)
	if bk.Get(key) != nil {
		return nil
	}
	return bk.Put(key, u64(index))
}

// noteBuildAttested sets tirage_build_attested from the store: whether the
// log holds a build attestation of the running executable and of the
// configuration file rngd started with (none for a Config made in code).
// Without one, with warn (at the start), it says so: a WARN with the
// command that makes one; in dev mode an INFO saying that its keystore has
// no attestation key to make one with (a production keystore has).
func (e *engine) noteBuildAttested(warn bool) {
	exe, err := executableSHA256()
	if err != nil {
		e.log.Warn("couldn't read this rngd's executable to look for its build attestation", "err", err)
	}
	var index []byte
	if err == nil && e.cfg.fileSHA256 != nil {
		err = e.store.view(func(tx *bolt.Tx) error {
			index = bytes.Clone(tx.Bucket(bucketAttested).Get(attestedBuildKey(exe, e.cfg.fileSHA256)))
			return nil
		})
		if err != nil {
			// Not "none in the log": tirage_build_attested keeps what it
			// said, and the store's failure is raised (storeFailed).
			e.log.Warn("couldn't look up this rngd's build attestation in the state store", "err", err)
			return
		}
	}
	if len(index) == 8 {
		if e.buildAttested.Swap(true) {
			return
		}
		e.metrics.buildAttested.Set(1)
		e.log.Info("this rngd's build is attested in the log", "executable_sha256", record.Hex(exe), "log_index", beUint64(index))
		return
	}
	e.buildAttested.Store(false)
	e.metrics.buildAttested.Set(0)
	if !warn {
		return
	}
	if e.cfg.Dev {
		// Dev mode's keystore has no attestation key (docs/keys.md):
		// rngctl attest build would find none to sign with.
		e.log.Info("no build attestation of this rngd in the log: auditors cannot tie its draws to a known build; "+
			"dev mode's keystore has no attestation key, so none can be made here: attestations need a production keystore "+
			"(rngctl keys init makes the attestation key; docs/keys.md, docs/attestations.md)",
			"executable_sha256", record.Hex(exe), "config_sha256", hex.EncodeToString(e.cfg.fileSHA256))
		return
	}
	e.log.Warn("no build attestation of this rngd in the log: auditors cannot tie its draws to a known build; "+
		"sign one with rngctl attest build, then log it with rngctl attest log (docs/attestations.md)",
		"executable_sha256", record.Hex(exe), "config_sha256", hex.EncodeToString(e.cfg.fileSHA256))
}

// attestationLogged is LogAttestation's reply: what rec logs, and its
// receipt. A retry after a crash gets it again, made from the log
// (rebuilder.adminReply).
func attestationLogged(rec *record.Attestation, receipt *qodv1.Receipt) *adminv1.LogAttestationResponse {
	return &adminv1.LogAttestationResponse{Subject: rec.Subject, PredicateType: rec.Type, KeyId: rec.Key,
		Digest: bytes.Clone(rec.Digest[:]), Receipt: receipt}
}

// checkAttestation checks envelope as verifier/audit will check its
// record, and returns the record to log (without its request identity):
//
//  1. it is a DSSE envelope of an in-toto statement, read strictly
//     (attestations.ParseEnvelope);
//  2. its key is an attestation key the log announced (its first
//     announcement, the one auditors know the id by);
//  3. the signature verifies under that key;
//  4. the payload is a canonical statement of a known type
//     (attestations.Parse) whose predicate is right (attestations.Verify:
//     every figure of a paytable is the rules');
//  5. a build statement is this rngd's (checkSelf).
//
// A malformed or false attestation is ATTESTATION_INVALID; one under a key
// the log did not announce ATTESTATION_KEY_UNKNOWN; a build of another
// rngd ATTESTATION_NOT_SELF. Nothing is appended then.
func (e *engine) checkAttestation(ctx context.Context, envelope []byte) (*record.Attestation, error) {
	// 1.
	env, err := attestations.ParseEnvelope(envelope)
	if err != nil {
		return nil, refuse(reasonAttestationInvalid, "envelope: %v", err)
	}
	// 2.
	lk, err := e.announcedKeys(ctx)
	if errors.Is(err, errStoreFailed) {
		return nil, storeError(err)
	}
	if err != nil {
		return nil, refuse(reasonLogUnavailable, "couldn't read the log's key announcements: %v", err)
	}
	keyID := attestations.KeyID(env)
	f, ok := lk.first[keyUse{announce.UseAttestation, keyID}]
	switch {
	case !ok && lk.pending:
		return nil, refuse(reasonLogUnavailable, "envelope: signatures[0].keyid: %s is not an attestation key of the log's announcements under its checkpoint, and no checkpoint covers the latest one yet: retry", quoted(keyID))
	case !ok:
		return nil, refuse(reasonAttestationKeyUnknown, "envelope: signatures[0].keyid: %s is not an attestation key the log announced (rngctl attest signs with the key of --attestation-label, announced by rngctl keys init or announce)", quoted(keyID))
	}
	key := record.Key{ID: f.id, Use: announce.UseAttestation, Suite: f.suite, PublicKey: f.pub, Fingerprint: record.Fingerprint(f.pub)}
	// 3.
	if err := attestations.VerifyEnvelope(env, key); err != nil {
		return nil, refuse(reasonAttestationInvalid, "envelope: signatures[0].sig: %v", err)
	}
	// 4.
	st, err := attestations.Parse(env.Payload)
	if err != nil {
		return nil, refuse(reasonAttestationInvalid, "envelope: payload: %v", err)
	}
	if err := attestations.Verify(st); err != nil {
		return nil, refuse(reasonAttestationInvalid, "predicate: %v", err)
	}
	// 5.
	if b, ok := st.Predicate.(*attestations.Build); ok {
		if err := e.checkSelf(st, b, lk); err != nil {
			return nil, err
		}
	}
	return attestations.NewRecord(e.now(), keyID, envelope, st), nil
}

// announcedKeys reads the log's key announcements under its checkpoint;
// when one was appended beyond it (at this start), it waits for a
// checkpoint that covers it, as a start waits for its log (logSize), and
// reads them again. Past the wait, those beyond are left out (lk.pending).
func (e *engine) announcedKeys(ctx context.Context) (*loggedKeys, error) {
	cp, err := e.tlog.Checkpoint(ctx)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the log's checkpoint: %w", err)
	}
	lk, err := e.loggedKeysUpTo(ctx, cp.Size, true)
	s, ok := e.tlog.(transparency.Sequencer)
	if err != nil || !lk.pending || !ok {
		return lk, err
	}
	wctx, cancel := context.WithTimeout(ctx, e.checkpointWait())
	defer cancel()
	if later, err := e.tlog.AwaitCheckpoint(wctx, s.Sequenced()); err == nil {
		return e.loggedKeysUpTo(ctx, later.Size, true)
	}
	return lk, nil
}

// checkSelf checks that build statement st (predicate b) describes this
// rngd: its subject's digest is the SHA-256 of the running executable, its
// config_sha256 that of the configuration file rngd started with (without
// a file, of the empty file: the defaults, docs/attestations.md), and its
// keys are the log's (announced with that use and fingerprint), the VRF key
// rngd draws with and the log key it signs checkpoints with among them.
// rngd logs no statement about another build.
func (e *engine) checkSelf(st *attestations.Statement, b *attestations.Build, lk *loggedKeys) error {
	exe, err := executableSHA256()
	if err != nil {
		return refuse(reasonInternal, "couldn't read this rngd's executable: %v", err)
	}
	if got := st.Subject[0].SHA256; got != exe {
		return refuse(reasonAttestationNotSelf, "subject[0].digest.sha256: %s, but this rngd's executable is %s: attest the rngd that logs it (rngctl attest build --binary the running rngd)",
			record.Hex(got), record.Hex(exe))
	}
	if err := checkBuildInfo(b); err != nil {
		return err
	}
	if e.cfg.fileSHA256 == nil {
		return refuse(reasonAttestationNotSelf, "predicate.config_sha256: this rngd was not started from a configuration file, so no digest describes its configuration")
	}
	if want := hex.EncodeToString(e.cfg.fileSHA256); b.ConfigSHA256 != want {
		return refuse(reasonAttestationNotSelf, "predicate.config_sha256: %s, but the configuration file this rngd started with has SHA-256 %s", b.ConfigSHA256, want)
	}
	ann := &record.KeyAnnouncement{}
	for ku, f := range lk.first {
		ann.Keys = append(ann.Keys, record.Key{ID: f.id, Use: ku.use, Suite: f.suite, PublicKey: f.pub, Fingerprint: record.Fingerprint(f.pub)})
	}
	if err := attestations.CheckKeys(b, ann); err != nil {
		if fe := (*attestations.FigureError)(nil); errors.As(err, &fe) {
			return refuse(reasonAttestationNotSelf, "predicate.%s: attested %s, the log announced %s", fe.Field, fe.Attested, fe.Want)
		}
		return refuse(reasonAttestationNotSelf, "predicate.%s (the keys must be the log's)", strings.TrimPrefix(err.Error(), attestations.ErrBad.Error()+": "))
	}
	if !slices.ContainsFunc(b.Keys, func(k attestations.BuildKey) bool {
		return k.Use == announce.UseVRF && k.ID == e.keyID && k.Fingerprint == hsm.Fingerprint(e.pub)
	}) {
		return refuse(reasonAttestationNotSelf, "predicate.keys: the VRF key this rngd draws with, %q (fingerprint %s), is not listed: make the statement with rngctl attest build --vrf-label %s (keys.vrf_label)", e.keyID, hsm.Fingerprint(e.pub), e.keyID)
	}
	// CheckKeys matched each listed key's id to the log's: a log key with
	// this fingerprint is the one announced.
	if fp := hsm.Fingerprint(e.logPub); !slices.ContainsFunc(b.Keys, func(k attestations.BuildKey) bool {
		return k.Use == announce.UseLog && k.Fingerprint == fp
	}) {
		return refuse(reasonAttestationNotSelf, "predicate.keys: the log key this rngd signs checkpoints with (fingerprint %s) is not listed", fp)
	}
	return nil
}

// checkBuildInfo checks that build predicate b gives this rngd's build
// information (debug.ReadBuildInfo, which rngctl attest build reads from
// the executable's file): the executable's digest alone would let a
// statement about this binary say anything of its build.
func checkBuildInfo(b *attestations.Build) error {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return refuse(reasonInternal, "this rngd has no build information")
	}
	// Only its build members are compared: the digests and keys given
	// are placeholders (checkSelf checks the statement's).
	own, err := attestations.NewBuildStatement(attestations.BuildInput{Info: info, Executable: [32]byte{1}, Keys: []record.Key{{ID: "-", Use: "-"}}})
	if err != nil {
		return refuse(reasonInternal, "couldn't read this rngd's build information: %v", err)
	}
	o := own.Predicate.(*attestations.Build)
	for _, f := range []struct {
		name      string
		got, want any
	}{{"go_version", b.GoVersion, o.GoVersion}, {"path", b.Path, o.Path}, {"main", b.Main, o.Main},
		{"deps", b.Deps, o.Deps}, {"settings", b.Settings, o.Settings}, {"vcs", b.VCS, o.VCS}} {
		got, err1 := json.Marshal(f.got)
		want, err2 := json.Marshal(f.want)
		if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
			return refuse(reasonAttestationNotSelf, "predicate.%s: %s, but this rngd's build information gives %s", f.name, quoted(string(got)), quoted(string(want)))
		}
	}
	return nil
}

// executableSHA256 is the SHA-256 of the running executable: on Linux the
// file /proc/self/exe opens, which is the one running even if its path has
// been replaced since (an upgrade not yet restarted), else os.Executable's.
//
// It is read once per process: the running executable's bytes do not
// change under it (a file being executed cannot be written), and a log
// outage's recovery looks it up under the engine's gate (resync).
var executableSHA256 = sync.OnceValues(readExecutableSHA256)

func readExecutableSHA256() ([32]byte, error) {
	d, err := FileSHA256("/proc/self/exe")
	if err == nil {
		return d, nil
	}
	p, perr := os.Executable()
	if perr != nil {
		return d, perr
	}
	return FileSHA256(p)
}

// FileSHA256 is the SHA-256 of the file at path (rngd's executable and
// configuration, as a build attestation names them; rngctl attest build
// hashes the same files). Its errors do not repeat the path.
func FileSHA256(path string) ([32]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return [32]byte{}, Pathless(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return [32]byte{}, fmt.Errorf("couldn't hash it: %w", Pathless(err))
	}
	return [32]byte(h.Sum(nil)), nil
}
