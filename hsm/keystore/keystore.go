// Package keystore is the software key custody backend of package hsm: keys
// kept in files, each sealed under a passphrase. It is meant for development
// and tests; production keys live in an HSM (package hsm/pkcs11), and the
// daemon announces loudly when it runs on software keys ([Store.Software]).
//
// # Files
//
// A keystore is a directory of mode 0700 holding one file per key,
// "<label>.key", of mode 0600 (Open refuses looser modes). The file format
// is described at fileMagic in file.go: a readable header (label, purpose,
// algorithm, public key, Argon2id parameters, salt, nonce) authenticated as
// the additional data of AES-256-GCM, and the sealed private key. The
// sealing key is Argon2id (RFC 9106) of the passphrase with a fresh 16-byte
// salt per file and the parameters written in the file (default: the RFC's
// second recommended option, t=3, m=64 MiB, p=4).
//
// [PublicKeys] lists the keys from the readable headers without the
// passphrase; as the headers are authenticated only by the sealed keys, what
// it lists is unchecked until Open unseals them.
//
// Sealed plaintexts: an ECVRF-P256 key is its 32-byte scalar, an RSA-FDH-VRF
// key its PKCS #8 DER (as verifier/vrf encodes them), an Ed25519 key its
// 32-byte seed (RFC 8032), an ECDSA P-256 key its 32-byte scalar.
//
// All keys of one store share one passphrase: Open unseals every key file
// and fails with hsm.ErrBadCredentials if any of them does not open.
//
// # Memory
//
// What Go lets us do: the passphrase and each unsealed plaintext live in
// anonymous mappings outside the Go heap, locked with mlock(2) (no swap),
// marked MADV_DONTDUMP (no core dump), and zeroed as soon as the key is
// parsed (plaintexts) or by Close (the passphrase). What it does not: the
// parsed keys are values of crypto/ed25519, crypto/ecdsa and verifier/vrf on
// the Go heap (crypto/ed25519 even caches its expanded key by the address of
// the key, which must therefore be heap memory), which the runtime may copy
// and which Close wipes only best effort (clear, vrf.PrivateKey.Destroy);
// the Argon2id output and the AES key schedule are heap values zeroed after
// use where we hold them; signing and proving leave intermediate values on
// stacks and in registers. A deployment that needs more runs the daemon with
// mlockall, core dumps disabled, and keys in an HSM.
package keystore

import (
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"golang.org/x/crypto/argon2"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/verifier/vrf"
)

// KDFParams are the Argon2id cost parameters for sealing new key files.
type KDFParams struct {
	Time      uint32 // passes over memory, 1..16
	MemoryKiB uint32 // memory in KiB, 8 MiB .. 4 GiB
	Threads   uint8  // lanes, 1..255
}

// DefaultKDF is RFC 9106 §4's second recommended option.
var DefaultKDF = KDFParams{Time: 3, MemoryKiB: 64 * 1024, Threads: 4}

func (p KDFParams) check() error {
	if p.Time < minKDFTime || p.Time > maxKDFTime || p.MemoryKiB < minKDFMemoryKiB || p.MemoryKiB > maxKDFMemoryKiB || p.Threads < 1 {
		return fmt.Errorf("argon2id parameters t=%d m=%dKiB p=%d out of bounds (t %d..%d, m %d..%d KiB, p ≥ 1)",
			p.Time, p.MemoryKiB, p.Threads, minKDFTime, maxKDFTime, minKDFMemoryKiB, maxKDFMemoryKiB)
	}
	return nil
}

// MinPassphraseLen is the shortest passphrase Open accepts, in bytes.
const MinPassphraseLen = 8

// Config configures a keystore.
type Config struct {
	// Dir is the keystore directory. Open creates it (mode 0700) if it does
	// not exist and refuses it if group or others have any access.
	Dir string
	// Passphrase unseals and seals the key files. Open copies it into
	// locked memory; the caller should zero its own copy after Open.
	Passphrase []byte
	// KDF are the Argon2id parameters for new key files; zero means
	// DefaultKDF. Existing files carry their own.
	KDF KDFParams
	// Logger receives key events (never key material); nil discards them.
	Logger *slog.Logger
}

// Store is an open keystore. It implements hsm.Backend and is safe for
// concurrent use.
type Store struct {
	dir string
	kdf KDFParams
	log *slog.Logger

	mu      sync.RWMutex // guards the fields below; signing and proving hold it for reading
	closed  bool         // Close was called: everything below is wiped
	pass    *lockedBuf   // passphrase, pass.b[:passLen]
	passLen int
	keys    map[string]*entry // by label
}

type entry struct {
	key     hsm.Key
	prover  *prover // for PurposeVRF
	signer  hsm.Signer
	vrfKey  *vrf.PrivateKey
	wipeKey func() // zeroes a signing key, or nil
}

var _ hsm.Backend = (*Store)(nil)

// Open opens (or creates) the keystore in cfg.Dir and unseals every key in it.
func Open(cfg Config) (*Store, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	kdf := cfg.KDF
	if kdf == (KDFParams{}) {
		kdf = DefaultKDF
	}
	if err := kdf.check(); err != nil {
		return nil, err
	}
	if len(cfg.Passphrase) < MinPassphraseLen {
		return nil, fmt.Errorf("keystore passphrase is too short: want at least %d bytes", MinPassphraseLen)
	}
	if cfg.Dir == "" {
		return nil, errors.New("keystore directory is not set")
	}
	if err := makeDir(cfg.Dir); err != nil {
		return nil, err
	}
	// Every header is read and checked before anything is unsealed: a
	// file PublicKeys refuses, Open refuses alike, before the passphrase
	// is used.
	files, err := readKeyFiles(cfg.Dir)
	if err != nil {
		return nil, err
	}
	pass, err := newLockedBuf(len(cfg.Passphrase))
	if err != nil {
		return nil, err
	}
	copy(pass.b, cfg.Passphrase)
	s := &Store{dir: cfg.Dir, kdf: kdf, log: log, pass: pass, passLen: len(cfg.Passphrase), keys: map[string]*entry{}}
	if !pass.locked {
		log.Warn("keystore: couldn't mlock key memory (raise RLIMIT_MEMLOCK): secrets may be swapped out")
	}
	for _, f := range files {
		e, err := s.load(f)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.keys[e.key.Label] = e
	}
	log.Info("keystore opened: software keys (development only)", "dir", cfg.Dir, "keys", len(s.keys))
	return s, nil
}

// PublicKeys lists the keys of the keystore in dir, sorted by label, from
// the clear headers of its key files, without the passphrase: nothing is
// unsealed, and nothing is created (dir must exist).
//
// What it returns is unchecked: a header is authenticated only by its
// sealed key (it is the additional data of the sealing), so until the key
// is unsealed — by [Open], with the passphrase — nothing proves that the
// label, purpose, algorithm and public key are those of the sealed private
// key: whoever can write a key file can change its header, and only Open
// would notice. Callers that show these keys must say so.
//
// It refuses what Open refuses before unsealing, with the same errors:
// a directory or a key file that group or others may access, a key file
// that is not a regular file or whose name is not its label, a file that is
// not a canonical key file, a header whose purpose, algorithm or public key
// is not one the keystore makes.
func PublicKeys(dir string) ([]hsm.Key, error) {
	if dir == "" {
		return nil, errors.New("keystore directory is not set")
	}
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	files, err := readKeyFiles(dir)
	if err != nil {
		return nil, err
	}
	keys := make([]hsm.Key, len(files))
	for i, f := range files {
		keys[i] = f.hdr
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Label < keys[j].Label })
	return keys, nil
}

// makeDir creates the keystore directory dir (mode 0700) if it does not
// exist, and checks it.
func makeDir(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("couldn't create keystore directory: %w", err)
		}
	}
	return checkDir(dir)
}

// checkDir checks that dir is a directory that group and others have no
// access to.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("couldn't open keystore directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("keystore %s is not a directory", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("keystore directory %s has mode %04o: want 0700 (chmod 700 it)", dir, fi.Mode().Perm())
	}
	return nil
}

// A readFile is a key file read and its header checked, not unsealed.
type readFile struct {
	*keyFile
	name string  // the file's base name, label + ".key"
	hdr  hsm.Key // what the header says, unchecked against the sealed key
}

// readKeyFiles reads the key files ("*.key") of the keystore dir, in name
// order, and checks their headers (see [readKeyFile]).
func readKeyFiles(dir string) ([]readFile, error) {
	// The directory is listed, not globbed: its name is a path, and a
	// '[' or '*' in it must not turn it into a pattern.
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("couldn't list keystore directory: %w", err)
	}
	var files []readFile
	for _, ent := range ents { // sorted by name
		if !strings.HasSuffix(ent.Name(), ".key") {
			continue
		}
		f, err := readKeyFile(filepath.Join(dir, ent.Name()))
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// readKeyFile reads the key file name and checks all that can be checked
// without the passphrase: a regular file of mode 0600 or stricter, a
// canonical key file (parseKeyFile), a header the keystore could have
// written (keyFile.key), and the file named after the header's label.
func readKeyFile(name string) (readFile, error) {
	base := filepath.Base(name)
	fi, err := os.Lstat(name)
	if err != nil {
		return readFile{}, fmt.Errorf("couldn't read key file %s: %w", base, err)
	}
	if !fi.Mode().IsRegular() {
		return readFile{}, fmt.Errorf("key file %s is not a regular file", base)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return readFile{}, fmt.Errorf("key file %s has mode %04o: want 0600 (chmod 600 it)", base, fi.Mode().Perm())
	}
	fd, err := os.Open(name)
	if err != nil {
		return readFile{}, fmt.Errorf("couldn't read key file %s: %w", base, err)
	}
	defer fd.Close()
	b, err := io.ReadAll(io.LimitReader(fd, maxFileSize+1)) // parseKeyFile refuses more
	if err != nil {
		return readFile{}, fmt.Errorf("couldn't read key file %s: %w", base, err)
	}
	f, err := parseKeyFile(b)
	if err != nil {
		return readFile{}, fmt.Errorf("key file %s: %w", base, err)
	}
	k, err := f.key()
	if err != nil {
		return readFile{}, fmt.Errorf("key file %s: %w", base, err)
	}
	if f.Label+".key" != base {
		return readFile{}, fmt.Errorf("key file %s: label %q does not match the file name", base, f.Label)
	}
	return readFile{keyFile: f, name: base, hdr: k}, nil
}

// Kind is "software".
func (s *Store) Kind() string { return "software" }

// Software is true: keys are in this process's memory.
func (s *Store) Software() bool { return true }

// Dir is the keystore directory.
func (s *Store) Dir() string { return s.dir }

// Keys lists the keys, sorted by label.
func (s *Store) Keys() ([]hsm.Key, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, errClosed
	}
	out := make([]hsm.Key, 0, len(s.keys))
	for _, e := range s.keys {
		out = append(out, e.key)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out, nil
}

var errClosed = fmt.Errorf("%w: keystore is closed", hsm.ErrUnavailable)

// VRFProver returns the prover of VRF key label.
func (s *Store) VRFProver(label string) (hsm.VRFProver, error) {
	e, err := s.lookup(label, hsm.PurposeVRF)
	if err != nil {
		return nil, err
	}
	return e.prover, nil
}

// Signer returns the signer of signing key label.
func (s *Store) Signer(label string) (hsm.Signer, error) {
	e, err := s.lookup(label, hsm.PurposeSign)
	if err != nil {
		return nil, err
	}
	return e.signer, nil
}

func (s *Store) lookup(label, purpose string) (*entry, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, errClosed
	}
	e, ok := s.keys[label]
	if !ok || e.key.Purpose != purpose {
		return nil, fmt.Errorf("%w: no %s key labelled %q in keystore %s", hsm.ErrNotFound, purpose, label, s.dir)
	}
	return e, nil
}

// GenerateVRF makes a new VRF key (any suite verifier/vrf implements) and
// writes its sealed file.
func (s *Store) GenerateVRF(label string, suite vrf.Suite) (hsm.VRFProver, error) {
	if _, err := vrf.ParseSuite(string(suite)); err != nil {
		return nil, fmt.Errorf("%w: %w", hsm.ErrUnsupported, err)
	}
	e, err := s.generate(label, hsm.PurposeVRF, string(suite), func() ([]byte, error) {
		sk, err := vrf.GenerateKey(suite, rand.Reader)
		if err != nil {
			return nil, err
		}
		defer sk.Destroy()
		return sk.Bytes(), nil
	})
	if err != nil {
		return nil, err
	}
	return e.prover, nil
}

// GenerateSigner makes a new signing key: Ed25519 (also for algorithm "")
// or ECDSA P-256.
func (s *Store) GenerateSigner(label, algorithm string) (hsm.Signer, error) {
	var raw func() ([]byte, error)
	switch algorithm {
	case "", hsm.Ed25519:
		algorithm = hsm.Ed25519
		raw = func() ([]byte, error) {
			seed := make([]byte, ed25519.SeedSize)
			_, err := io.ReadFull(rand.Reader, seed)
			return seed, err
		}
	case hsm.ECDSAP256SHA256:
		raw = func() ([]byte, error) {
			k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			if err != nil {
				return nil, err
			}
			return k.Bytes()
		}
	default:
		return nil, fmt.Errorf("%w: signature algorithm %q (want %s or %s)", hsm.ErrUnsupported, algorithm, hsm.Ed25519, hsm.ECDSAP256SHA256)
	}
	e, err := s.generate(label, hsm.PurposeSign, algorithm, raw)
	if err != nil {
		return nil, err
	}
	return e.signer, nil
}

// generate makes a key with newRaw, seals it into a new file and loads it.
func (s *Store) generate(label, purpose, algorithm string, newRaw func() ([]byte, error)) (*entry, error) {
	if err := hsm.CheckLabel(label); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed
	}
	if _, ok := s.keys[label]; ok {
		return nil, fmt.Errorf("%w: %q in keystore %s", hsm.ErrExists, label, s.dir)
	}
	raw, err := newRaw()
	if err != nil {
		return nil, fmt.Errorf("couldn't generate %s key %q: %w", algorithm, label, err)
	}
	defer clear(raw)
	e, err := s.newEntry(label, purpose, algorithm, raw)
	if err != nil {
		return nil, err
	}
	f := &keyFile{Label: label, Purpose: purpose, Algorithm: algorithm, Public: e.key.Public, KDF: s.kdf,
		Salt: make([]byte, 16), Nonce: make([]byte, nonceLen)}
	if _, err := io.ReadFull(rand.Reader, f.Salt); err != nil {
		e.wipe()
		return nil, err
	}
	if _, err := io.ReadFull(rand.Reader, f.Nonce); err != nil {
		e.wipe()
		return nil, err
	}
	aead, err := s.aead(f)
	if err != nil {
		e.wipe()
		return nil, err
	}
	f.Sealed = aead.Seal(nil, f.Nonce, raw, f.header())
	if err := writeNew(filepath.Join(s.dir, label+".key"), f.format()); err != nil {
		e.wipe()
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("%w: %q in keystore %s", hsm.ErrExists, label, s.dir)
		}
		return nil, fmt.Errorf("couldn't write key file for %q: %w", label, err)
	}
	s.keys[label] = e
	s.log.Info("keystore: key generated", "label", label, "purpose", purpose, "algorithm", algorithm,
		"fingerprint", e.key.Fingerprint())
	return e, nil
}

// aead derives the sealing key for f.
func (s *Store) aead(f *keyFile) (cipher.AEAD, error) {
	k := argon2.IDKey(s.pass.b[:s.passLen], f.Salt, f.KDF.Time, f.KDF.MemoryKiB, f.KDF.Threads, 32)
	defer clear(k)
	block, err := aes.NewCipher(k)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// writeNew writes data to a new file name (mode 0600) atomically: it never
// replaces an existing file and never leaves a partial one.
func writeNew(name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), name); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(name))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// load unseals a key file read by readKeyFile, which checked its header.
func (s *Store) load(rf readFile) (*entry, error) {
	f, base := rf.keyFile, rf.name
	aead, err := s.aead(f)
	if err != nil {
		return nil, err
	}
	lb, err := newLockedBuf(len(f.Sealed))
	if err != nil {
		return nil, err
	}
	defer lb.wipe()
	raw, err := aead.Open(lb.b[:0], f.Nonce, f.Sealed, f.header())
	if err != nil {
		return nil, fmt.Errorf("%w: key file %s does not open (or was altered)", hsm.ErrBadCredentials, base)
	}
	e, err := s.newEntry(f.Label, f.Purpose, f.Algorithm, raw)
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", base, err)
	}
	if string(e.key.Public) != string(f.Public) {
		e.wipe()
		return nil, fmt.Errorf("key file %s: the sealed key does not match its public key", base)
	}
	return e, nil
}

// newEntry builds the in-memory key from its raw private encoding. raw is
// not kept.
func (s *Store) newEntry(label, purpose, algorithm string, raw []byte) (*entry, error) {
	if err := hsm.CheckLabel(label); err != nil {
		return nil, err
	}
	e := &entry{}
	switch {
	case purpose == hsm.PurposeVRF:
		suite, err := vrf.ParseSuite(algorithm)
		if err != nil {
			return nil, err
		}
		sk, err := vrf.NewPrivateKey(suite, raw)
		if err != nil {
			return nil, fmt.Errorf("bad %s private key: %w", suite, err)
		}
		e.vrfKey = sk
		e.prover = &prover{s: s, sk: sk}
		e.key = hsm.ProverKey(label, e.prover)
		return e, nil
	case purpose == hsm.PurposeSign && algorithm == hsm.Ed25519:
		if len(raw) != ed25519.SeedSize {
			return nil, fmt.Errorf("bad Ed25519 seed: %d bytes, want %d", len(raw), ed25519.SeedSize)
		}
		priv := ed25519.NewKeyFromSeed(raw)
		e.wipeKey = func() { clear(priv) }
		e.signer = &edSigner{s: s, priv: priv, pub: priv.Public().(ed25519.PublicKey)}
	case purpose == hsm.PurposeSign && algorithm == hsm.ECDSAP256SHA256:
		k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), raw)
		if err != nil {
			return nil, fmt.Errorf("bad ECDSA P-256 private key: %w", err)
		}
		// Best effort, as for the others: crypto/ecdsa may keep its own
		// copy of the scalar (package doc, Memory).
		e.wipeKey = func() {
			//lint:ignore SA1019 the deprecated big.Int is the scalar's only copy we can reach: wiping it is what Close promises
			clear(k.D.Bits())
			//lint:ignore SA1019 as above
			k.D.SetInt64(0)
		}
		e.signer = &ecSigner{s: s, priv: k}
	default:
		return nil, fmt.Errorf("%w: purpose %q algorithm %q", hsm.ErrUnsupported, purpose, algorithm)
	}
	k, err := hsm.SignerKey(label, e.signer)
	if err != nil {
		e.wipe()
		return nil, err
	}
	e.key = k
	return e, nil
}

func (e *entry) wipe() {
	if e.wipeKey != nil {
		e.wipeKey()
	}
	if e.vrfKey != nil {
		e.vrfKey.Destroy()
	}
}

// Close wipes the passphrase and every key from memory. Provers and signers
// of this store then fail with hsm.ErrUnavailable.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.pass.wipe()
	for _, e := range s.keys {
		e.wipe()
	}
	s.keys = nil
	return nil
}

type prover struct {
	s  *Store
	sk *vrf.PrivateKey
}

func (p *prover) Suite() vrf.Suite          { return p.sk.Suite() }
func (p *prover) PublicKey() *vrf.PublicKey { return p.sk.Public() }

func (p *prover) Prove(alpha []byte) (proof, beta []byte, err error) {
	p.s.mu.RLock()
	defer p.s.mu.RUnlock()
	if p.s.closed {
		return nil, nil, errClosed
	}
	pi, beta, err := p.sk.ProveHash(alpha)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: software VRF prove: %w", hsm.ErrUnavailable, err)
	}
	return pi, beta, nil
}

type edSigner struct {
	s    *Store
	priv ed25519.PrivateKey // zeroed by Close; guarded by s.mu
	pub  ed25519.PublicKey
}

func (e *edSigner) Public() crypto.PublicKey { return e.pub }
func (e *edSigner) Algorithm() string        { return hsm.Ed25519 }

func (e *edSigner) Sign(msg []byte) ([]byte, error) {
	e.s.mu.RLock()
	defer e.s.mu.RUnlock()
	if e.s.closed {
		return nil, errClosed
	}
	return ed25519.Sign(e.priv, msg), nil
}

type ecSigner struct {
	s    *Store
	priv *ecdsa.PrivateKey
}

func (e *ecSigner) Public() crypto.PublicKey { return &e.priv.PublicKey }
func (e *ecSigner) Algorithm() string        { return hsm.ECDSAP256SHA256 }

func (e *ecSigner) Sign(msg []byte) ([]byte, error) {
	return e.SignDigest(sha256Sum(msg))
}

// SignDigest signs a SHA-256 digest (hsm.DigestSigner).
func (e *ecSigner) SignDigest(digest []byte) ([]byte, error) {
	e.s.mu.RLock()
	defer e.s.mu.RUnlock()
	if e.s.closed {
		return nil, errClosed
	}
	sig, err := ecdsa.SignASN1(rand.Reader, e.priv, digest)
	if err != nil {
		return nil, fmt.Errorf("%w: ECDSA sign: %w", hsm.ErrUnavailable, err)
	}
	return sig, nil
}

func sha256Sum(msg []byte) []byte {
	h := sha256.Sum256(msg)
	return h[:]
}
