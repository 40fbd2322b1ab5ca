//go:build cgo

package pkcs11

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	p11 "github.com/miekg/pkcs11"

	"tirage.fr/tirage/hsm"
	"tirage.fr/tirage/verifier/vrf"
)

// PKCS#11 3.0 values that github.com/miekg/pkcs11 v1.1.2 does not define.
const (
	ckkECEdwards           = 0x00000040 // CKK_EC_EDWARDS
	ckmECEdwardsKeyPairGen = 0x00001055 // CKM_EC_EDWARDS_KEY_PAIR_GEN
	ckmEdDSA               = 0x00001057 // CKM_EDDSA
	defaultSessions        = 4
	defaultRSABits         = 2048
	defaultCallTimeout     = 10 * time.Second
	minGenerateTimeout     = 10 * time.Minute // key generation (RSA 8192 takes minutes on some tokens)
	maxObjects             = 1024
)

// DER OIDs for CKA_EC_PARAMS.
var (
	oidP256    = []byte{0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07} // 1.2.840.10045.3.1.7
	oidEd25519 = []byte{0x06, 0x03, 0x2b, 0x65, 0x70}                               // 1.3.101.112
)

// modules holds the loaded PKCS#11 libraries of this process: a library is
// initialised once per process, and one token is open at most once (a
// second login would succeed whatever the PIN, since PKCS#11 login state is
// per application).
//
// A library is tracked by what it is, not by the string that named it:
// dlopen gives one handle for one file however it is named (a symlink, a
// hard link, /usr/lib/softhsm/libsofthsm2.so and the file it points to),
// and that one instance has one C_Initialize / C_Finalize state. Two
// entries for one library would finalise it under the other's open tokens
// when the first is closed, and would open the same token twice. So a path
// is resolved (filepath.EvalSymlinks) and the file identified by device and
// inode (os.SameFile): every path to one library shares one module, one
// initialisation and one reference count.
var modules = struct {
	sync.Mutex // guards list and the fields of its modules
	list       []*module
}{}

type module struct {
	path string      // the resolved path it was loaded by
	file os.FileInfo // the library's file; nil if it could not be stat'ed (a bare name the dynamic loader searches)
	ctx  *p11.Ctx
	refs int           // open tokens
	open map[uint]bool // slots with an open Token
}

// moduleFile resolves path to the library's file: its path with every
// symlink resolved, and its FileInfo (nil when it cannot be found, e.g. a
// bare file name, which dlopen looks up in the loader's search path).
func moduleFile(path string) (string, os.FileInfo) {
	if !strings.ContainsRune(path, '/') {
		return path, nil
	}
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return path, nil
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return resolved, nil
	}
	return resolved, fi
}

// same reports whether m is the library at resolved, with FileInfo fi.
func (m *module) same(resolved string, fi os.FileInfo) bool {
	if m.path == resolved { // dlopen returns the loaded object of that name
		return true
	}
	return fi != nil && m.file != nil && os.SameFile(fi, m.file)
}

func acquireModule(path string) (*module, error) {
	resolved, fi := moduleFile(path)
	modules.Lock()
	defer modules.Unlock()
	for _, m := range modules.list {
		if m.same(resolved, fi) {
			m.refs++
			return m, nil
		}
	}
	ctx := p11.New(resolved)
	if ctx == nil {
		return nil, fmt.Errorf("%w: couldn't load PKCS#11 module %s", hsm.ErrUnavailable, path)
	}
	if err := ctx.Initialize(); err != nil {
		// CKR_CRYPTOKI_ALREADY_INITIALIZED: the library is initialised
		// in this process, but not through a module of ours (other code,
		// or a name we could not resolve to its file). Sharing it would
		// let the first of us to finish C_Finalize it under the other.
		ctx.Destroy() // dlclose only: the other user's initialisation stands
		if isCode(err, p11.CKR_CRYPTOKI_ALREADY_INITIALIZED) {
			return nil, fmt.Errorf("%w: PKCS#11 module %s is already initialised in this process by other code: "+
				"refusing to share it (give the module's full path)", hsm.ErrUnavailable, path)
		}
		return nil, fmt.Errorf("%w: couldn't initialise PKCS#11 module %s: %w", hsm.ErrUnavailable, path, err)
	}
	m := &module{path: resolved, file: fi, ctx: ctx, refs: 1, open: map[uint]bool{}}
	modules.list = append(modules.list, m)
	return m, nil
}

func (m *module) release(slot uint, held bool) {
	modules.Lock()
	defer modules.Unlock()
	if held {
		delete(m.open, slot)
	}
	m.refs--
	if m.refs == 0 {
		m.ctx.Finalize()
		m.ctx.Destroy()
		modules.list = slices.DeleteFunc(modules.list, func(x *module) bool { return x == m })
	}
}

func isCode(err error, code uint) bool {
	var e p11.Error
	return errors.As(err, &e) && uint(e) == code
}

// Token is an open PKCS#11 token. It implements hsm.Backend.
type Token struct {
	mod      *module
	ctx      *p11.Ctx
	label    string
	rsaBits  int
	log      *slog.Logger
	eddsa    bool          // the token has CKM_EDDSA and CKM_EC_EDWARDS_KEY_PAIR_GEN
	soft     bool          // a software token, whose keys are files on the host (softwareToken)
	login    bool          // logged in (Open); false for PublicKeys's read-only session
	timeout  time.Duration // Config.CallTimeout
	nsess    int           // sessions per conn
	sessFlag uint          // C_OpenSession flags

	mu      sync.RWMutex   // operations hold it for reading, Close for writing
	closed  bool           // guarded by mu
	running sync.WaitGroup // calls running in the token, timed out or not, and reopens
	stuck   atomic.Int64   // calls still running after their caller timed out

	// calls is held for reading by every call from the moment it takes a
	// session until the session is back in its conn's pool, and for
	// writing (TryLock only) by reopen: the token is reopened, and its
	// library re-initialised, with no call in it.
	calls sync.RWMutex

	state     sync.Mutex       // guards the fields below
	cur       *conn            // the sessions in use; nil while the token is lost
	stale     []*conn          // conns lost, whose sessions reopen or shutdown closes
	slot      uint             // the slot held in mod.open
	gen       uint64           // generation of the latest conn
	lost      error            // why the token is lost (cur nil), or why it last failed to reopen
	lostMsg   string           // lost's text when it was logged, so that a repeated loss is logged once
	quiet     bool             // the last loss was not logged at warn level: nor is its reopening
	lostAt    time.Time        // when the token was lost
	tried     time.Time        // last loss or reopen attempt: the next is reopenEvery later
	reopening bool             // a reopen is running
	final     error            // reopen refused for good (PIN refused): not tried again
	pin       []byte           // copy of Config.PIN, to log in again on reopen; wiped by shutdown
	now       func() time.Time // the clock of the reopen rate limit (tests)

	genMu sync.Mutex // serialises key generation (label uniqueness)

	beforeSign func() // tests: run before C_SignInit
}

// conn is one opening of the token: its sessions, logged in. A token that
// is lost and reopened gets a new conn, of a new generation; key handles
// found in an older one are found again before use (keyHandle).
type conn struct {
	gen      uint64
	sessions chan p11.SessionHandle // the free sessions
	all      []p11.SessionHandle    // every session, for closing
}

// reopenEvery is the least time between a token's loss, or an attempt to
// reopen it, and the next attempt.
const reopenEvery = time.Second

// lostCodes are the PKCS#11 return values after which the token is taken
// for lost and reopened (see the package doc, "Sessions and failure"):
// the session or the login is gone (SESSION_HANDLE_INVALID,
// SESSION_CLOSED, USER_NOT_LOGGED_IN), the token or its link is
// (DEVICE_REMOVED, TOKEN_NOT_PRESENT, TOKEN_NOT_RECOGNIZED, SLOT_ID_INVALID,
// DEVICE_ERROR: network HSM clients report a dead link so), or the library
// lost its state (CRYPTOKI_NOT_INITIALIZED, GENERAL_ERROR, which the
// standard says only re-initialising the library cures). A key's handle
// that is no longer valid (OBJECT_HANDLE_INVALID, KEY_HANDLE_INVALID:
// SoftHSM2's answer once its token files are gone) is not: the key is
// found again by label at its next use (keyHandle), and the token taken
// for lost only if it is not there. Errors about the request itself
// (mechanism, data, key type, PIN, memory) are not either: reopening would
// not change them.
var lostCodes = []uint{
	p11.CKR_SESSION_HANDLE_INVALID, p11.CKR_SESSION_CLOSED, p11.CKR_USER_NOT_LOGGED_IN,
	p11.CKR_DEVICE_REMOVED, p11.CKR_TOKEN_NOT_PRESENT, p11.CKR_TOKEN_NOT_RECOGNIZED, p11.CKR_SLOT_ID_INVALID,
	p11.CKR_DEVICE_ERROR, p11.CKR_CRYPTOKI_NOT_INITIALIZED, p11.CKR_GENERAL_ERROR,
}

// reopenError is a failure to find a key again after a reopen: the token
// is taken for lost, as on a code of lostCodes.
type reopenError struct{ err error }

func (e *reopenError) Error() string { return e.err.Error() }
func (e *reopenError) Unwrap() error { return e.err }

// isLost reports whether err means the token is gone (see lostCodes).
func isLost(err error) bool {
	var r *reopenError
	if errors.As(err, &r) {
		return true
	}
	var e p11.Error
	return errors.As(err, &e) && slices.Contains(lostCodes, uint(e))
}

var _ hsm.Backend = (*Token)(nil)

// beforeLogin, when set (tests), runs before C_Login, as on a token that
// stops answering while it is opened.
var beforeLogin atomic.Pointer[func()]

// Open loads cfg.Module, finds the token labelled cfg.TokenLabel, opens
// cfg.Sessions sessions and logs in with cfg.PIN. Like every call to the
// token, opening it is bounded by Config.CallTimeout: a token that does not
// answer fails Open with an error wrapping hsm.ErrUnavailable and
// context.DeadlineExceeded instead of holding the daemon's start; if the
// token answers later, what was opened is closed again.
func Open(cfg Config) (hsm.Backend, error) {
	t, err := openBounded(cfg, true)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// PublicKeys opens the token labelled cfg.TokenLabel read-only, without
// logging in (cfg.PIN must be empty), and lists the keys of the public key
// objects it shows, sorted by label: those marked CKA_PRIVATE false, which
// PKCS#11 lets anyone with access to the token read. They are found and
// decoded as [Token.Keys] finds and decodes a key pair's public half, but
// without login the private keys cannot be seen: a public key is not
// matched to its private key, so what PublicKeys lists is unchecked (it
// could be a public key object with no private key, or a stray one). Keys
// whose public object is marked private are not shown at all: PublicKeys
// fails, naming the label, when a label of labels has no readable public
// key object of a type Tirage uses ([hsm.ErrNotFound]: missing, or marked
// private; [hsm.ErrUnsupported]), when two readable public keys share a
// label (which one is the key pair's cannot be told without login), and
// when the token shows a public key object marked private (a session that
// sees private objects is not the anonymous one this reads). Opening and
// listing are bounded by cfg.CallTimeout as for Open; cfg.Sessions and
// cfg.RSABits are not used.
func PublicKeys(cfg Config, labels ...string) ([]hsm.Key, error) {
	if len(cfg.PIN) != 0 {
		return nil, fmt.Errorf("pkcs11.PublicKeys reads token %q without logging in: its PIN must not be given (Open logs in)", cfg.TokenLabel)
	}
	for _, l := range labels {
		if err := hsm.CheckLabel(l); err != nil {
			return nil, err
		}
	}
	t, err := openBounded(cfg, false)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	return t.publicKeys(labels)
}

// openBounded is openToken bounded by cfg.CallTimeout (see Open).
func openBounded(cfg Config, login bool) (*Token, error) {
	timeout := cfg.CallTimeout
	if timeout == 0 {
		timeout = defaultCallTimeout
	}
	if timeout < 0 {
		return openToken(cfg, login) // refused there, before any call
	}
	// The caller may wipe cfg.PIN once Open returns, while the stalled
	// open still needs it.
	pin := append([]byte(nil), cfg.PIN...)
	cfg.PIN = pin
	type result struct {
		t   *Token
		err error
	}
	done := make(chan result, 1)
	go func() {
		t, err := openToken(cfg, login)
		clear(pin)
		done <- result{t, err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.t, r.err
	case <-timer.C:
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log.Error("pkcs11: token did not answer while being opened", "token", cfg.TokenLabel, "timeout", timeout)
	go func() {
		if r := <-done; r.t != nil {
			r.t.Close()
			log.Warn("pkcs11: a token that answered after Open gave up was closed again", "token", cfg.TokenLabel)
		}
	}()
	return nil, fmt.Errorf("%w: PKCS#11 token %q did not answer within %v while being opened: %w",
		hsm.ErrUnavailable, cfg.TokenLabel, timeout, context.DeadlineExceeded)
}

// openToken opens the token of cfg: with login, cfg.Sessions read-write
// sessions logged in with cfg.PIN; without, one read-only session, not
// logged in.
func openToken(cfg Config, login bool) (*Token, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Module == "" {
		return nil, errors.New("PKCS#11 module path is not set")
	}
	if cfg.TokenLabel == "" {
		return nil, errors.New("PKCS#11 token label is not set")
	}
	if login && len(cfg.PIN) == 0 {
		return nil, fmt.Errorf("%w: empty PIN for token %q", hsm.ErrBadCredentials, cfg.TokenLabel)
	}
	n, flags := cfg.Sessions, uint(p11.CKF_SERIAL_SESSION|p11.CKF_RW_SESSION)
	if n <= 0 {
		n = defaultSessions
	}
	if !login {
		n, flags = 1, p11.CKF_SERIAL_SESSION
	}
	bits := cfg.RSABits
	if bits == 0 {
		bits = defaultRSABits
	}
	if bits < 2048 || bits > 8192 || bits%8 != 0 {
		return nil, fmt.Errorf("RSA modulus size %d: want a multiple of 8 from 2048 to 8192", bits)
	}
	timeout := cfg.CallTimeout
	if timeout == 0 {
		timeout = defaultCallTimeout
	}
	if timeout < 0 {
		return nil, fmt.Errorf("PKCS#11 call timeout %v: want a positive duration, or zero for %v", timeout, defaultCallTimeout)
	}
	m, err := acquireModule(cfg.Module)
	if err != nil {
		return nil, err
	}
	slot, ti, err := findSlot(m, cfg.Module, cfg.TokenLabel)
	if err != nil {
		m.release(0, false)
		return nil, err
	}
	si, err := m.ctx.GetSlotInfo(slot)
	if err != nil {
		m.release(0, false)
		return nil, fmt.Errorf("%w: couldn't read the slot information of token %q: %w", hsm.ErrUnavailable, cfg.TokenLabel, err)
	}
	soft := softwareToken(si.ManufacturerID, ti.ManufacturerID, ti.Model)
	custody := []any{"token", cfg.TokenLabel, "manufacturer", trimField(ti.ManufacturerID), "model", trimField(ti.Model),
		"hw_slot", si.Flags&p11.CKF_HW_SLOT != 0}
	if soft {
		// Info, not a warning: the caller announces software keys as its
		// policy says (rngd: banner, ERROR line, tirage_software_keys).
		log.Info("pkcs11: software token: its keys are files on this host, not hardware custody", custody...)
	}
	modules.Lock()
	busy := m.open[slot]
	if !busy {
		m.open[slot] = true
	}
	modules.Unlock()
	if busy {
		m.release(0, false)
		return nil, fmt.Errorf("PKCS#11 token %q is already open in this process", cfg.TokenLabel)
	}
	t := &Token{mod: m, ctx: m.ctx, slot: slot, label: cfg.TokenLabel, rsaBits: bits, log: log,
		timeout: timeout, login: login, soft: soft, nsess: n, sessFlag: flags, now: time.Now}
	if login {
		t.pin = bytes.Clone(cfg.PIN)
	}
	c, err := t.openConn(slot, false)
	if err != nil {
		t.shutdown(false)
		if errors.Is(err, hsm.ErrBadCredentials) && !isCode(err, p11.CKR_PIN_LOCKED) && !isCode(err, p11.CKR_PIN_EXPIRED) {
			log.Warn("pkcs11: login refused", "token", cfg.TokenLabel, "err", err)
		}
		return nil, err
	}
	t.gen, c.gen, t.cur = 1, 1, c
	if !login {
		log.Info("pkcs11: token opened read-only, not logged in", "module", cfg.Module, "token", cfg.TokenLabel, "slot", slot,
			"software", soft, "call_timeout", timeout)
		return t, nil
	}
	t.eddsa = t.hasMechanisms(slot, ckmEdDSA, ckmECEdwardsKeyPairGen)
	log.Info("pkcs11: token opened", "module", cfg.Module, "token", cfg.TokenLabel, "slot", slot,
		"sessions", n, "eddsa", t.eddsa, "software", soft, "call_timeout", timeout)
	return t, nil
}

// openConn opens t's sessions on slot and, if t logs in, logs in with its
// PIN. On reopen, a token still logged in (CKR_USER_ALREADY_LOGGED_IN: the
// login this Token made with the PIN Open checked) is taken as it is.
func (t *Token) openConn(slot uint, reopen bool) (*conn, error) {
	c := &conn{sessions: make(chan p11.SessionHandle, t.nsess)}
	for range t.nsess {
		sh, err := t.ctx.OpenSession(slot, t.sessFlag)
		if err != nil {
			t.closeConn(c)
			return nil, fmt.Errorf("%w: couldn't open a session on token %q: %w", hsm.ErrUnavailable, t.label, err)
		}
		c.all = append(c.all, sh)
		c.sessions <- sh
	}
	if !t.login {
		return c, nil
	}
	if f := beforeLogin.Load(); f != nil {
		(*f)()
	}
	err := t.ctx.Login(c.all[0], p11.CKU_USER, string(t.pin))
	if err == nil || reopen && isCode(err, p11.CKR_USER_ALREADY_LOGGED_IN) {
		return c, nil
	}
	t.closeConn(c)
	switch {
	case isCode(err, p11.CKR_PIN_INCORRECT), isCode(err, p11.CKR_PIN_INVALID), isCode(err, p11.CKR_PIN_LEN_RANGE):
		return nil, fmt.Errorf("%w: token %q refused the PIN (%w)", hsm.ErrBadCredentials, t.label, err)
	case isCode(err, p11.CKR_PIN_LOCKED), isCode(err, p11.CKR_PIN_EXPIRED):
		return nil, fmt.Errorf("%w: token %q: PIN locked or expired, the security officer must reset it (%w)", hsm.ErrBadCredentials, t.label, err)
	}
	return nil, fmt.Errorf("%w: couldn't log in to token %q: %w", hsm.ErrUnavailable, t.label, err)
}

// closeConn closes the sessions of c, ignoring errors (the token may be
// gone).
func (t *Token) closeConn(c *conn) {
	for _, sh := range c.all {
		t.ctx.CloseSession(sh)
	}
	c.all = nil
}

// findSlot finds the slot of the token labelled label in m, loaded as
// path, and returns it with the token's information.
func findSlot(m *module, path, label string) (uint, p11.TokenInfo, error) {
	slots, err := m.ctx.GetSlotList(true)
	if err != nil {
		return 0, p11.TokenInfo{}, fmt.Errorf("%w: couldn't list PKCS#11 slots of %s: %w", hsm.ErrUnavailable, path, err)
	}
	var found []uint
	var info p11.TokenInfo
	var seen []string
	for _, s := range slots {
		ti, err := m.ctx.GetTokenInfo(s)
		if err != nil {
			continue
		}
		l := trimField(ti.Label)
		seen = append(seen, fmt.Sprintf("%q", l))
		if l == label {
			found = append(found, s)
			info = ti
		}
	}
	switch len(found) {
	case 0:
		return 0, info, fmt.Errorf("%w: no PKCS#11 token labelled %q in %s (tokens present: %s)", hsm.ErrUnavailable, label, path, strings.Join(seen, ", "))
	case 1:
		return found[0], info, nil
	}
	return 0, info, fmt.Errorf("%d PKCS#11 tokens are labelled %q in %s: relabel all but one", len(found), label, path)
}

// trimField returns a PKCS#11 text field (CK_TOKEN_INFO, CK_SLOT_INFO)
// without the blanks that pad it to its fixed size, nor NULs.
func trimField(s string) string { return strings.TrimRight(s, " \x00") }

// softwareToken reports whether a token, by the manufacturer of its slot
// and its own manufacturer and model (CK_SLOT_INFO.manufacturerID,
// CK_TOKEN_INFO.manufacturerID and model, blank-padded), is known to be
// emulated in software, its keys kept in files on the host: SoftHSM, which
// reports manufacturer "SoftHSM project" and model "SoftHSM v2" (SoftHSM
// 1: "SoftHSM" for both). The rule is any of these fields, trimmed,
// beginning with "SoftHSM".
//
// The slot's CKF_HW_SLOT flag decides nothing: SoftHSM does not set it, but
// neither do many hardware tokens reached through a client library
// (network HSMs, PKCS#11 proxies), which would then count as software, and
// a software token could set it. What a token reports of itself is not
// proof either: a software token this rule does not know, or one that
// claims another name, counts as hardware, so a token's custody must
// still be checked where it is installed.
func softwareToken(fields ...string) bool {
	for _, f := range fields {
		if strings.HasPrefix(trimField(f), "SoftHSM") {
			return true
		}
	}
	return false
}

func (t *Token) hasMechanisms(slot uint, want ...uint) bool {
	ms, err := t.ctx.GetMechanismList(slot)
	if err != nil {
		return false
	}
	have := map[uint]bool{}
	for _, m := range ms {
		have[m.Mechanism] = true
	}
	for _, w := range want {
		if !have[w] {
			return false
		}
	}
	return true
}

// shutdown logs out (if t logged in and loggedIn), closes the sessions of
// every conn, wipes the PIN and releases the module. No call may be
// running.
func (t *Token) shutdown(loggedIn bool) {
	t.state.Lock()
	cur, conns, slot := t.cur, t.stale, t.slot
	t.cur, t.stale = nil, nil
	t.state.Unlock()
	if cur != nil {
		if loggedIn && t.login && len(cur.all) > 0 {
			t.ctx.Logout(cur.all[0])
		}
		conns = append(conns, cur)
	}
	for _, c := range conns {
		t.closeConn(c)
	}
	clear(t.pin)
	t.mod.release(slot, true)
}

// Close logs out, closes the sessions and, with the last token of the
// module, finalises the module. It waits for operations in flight, at most
// about twice Config.CallTimeout (longer during a key generation): if calls are still stuck in the token then,
// Close returns an error wrapping hsm.ErrUnavailable and the sessions and
// the module are released when the last stuck call returns (until then the
// token cannot be opened again in this process).
func (t *Token) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true // no call starts now: t.running only goes down
	idle := make(chan struct{})
	go func() {
		t.running.Wait()
		close(idle)
	}()
	timer := time.NewTimer(t.timeout)
	defer timer.Stop()
	select {
	case <-idle:
	case <-timer.C:
		n := t.stuck.Load()
		t.log.Error("pkcs11: token closed with calls stuck in it: its sessions will be closed when they return",
			"token", t.label, "stuck", n, "waited", t.timeout)
		go func() {
			<-idle
			t.shutdown(true)
			t.log.Info("pkcs11: token closed after its stuck calls returned", "token", t.label)
		}()
		return fmt.Errorf("%w: token %q: %d calls still stuck in the token after %v; its sessions will be closed when they return",
			hsm.ErrUnavailable, t.label, n, t.timeout)
	}
	t.shutdown(true)
	t.log.Info("pkcs11: token closed", "token", t.label)
	return nil
}

// Kind is "pkcs11".
func (t *Token) Kind() string { return "pkcs11" }

// Software reports whether the token is emulated in software, its keys
// files on the host (SoftHSM2: see softwareToken), as it was identified
// when opened. Such a token is for tests and development: rngd announces it
// as software keys and, outside dev mode, runs on it only with
// keys.allow_software. A hardware token reports false.
func (t *Token) Software() bool { return t.soft }

// EdDSA reports whether the token supports Ed25519 keys.
func (t *Token) EdDSA() bool { return t.eddsa }

// call runs f with a session of the pool and returns its result. It waits
// at most timeout in all, for a free session and for f. A PKCS#11 call
// cannot be interrupted, so f runs in its own goroutine: on timeout the
// caller gets an error wrapping hsm.ErrUnavailable and
// context.DeadlineExceeded, and f keeps its session until it returns: a
// session goes back to the pool only once its call has ended. f must share
// nothing with the caller but its result.
func call[T any](t *Token, timeout time.Duration, f func(sh p11.SessionHandle) (T, error)) (T, error) {
	return callIn(t, timeout, func(sh p11.SessionHandle, _ uint64) (T, error) { return f(sh) })
}

// callIn is call, f also given the generation of the conn of sh. An error
// of f that means the token is gone (isLost) marks it lost: the call
// fails, and a later one reopens the token (conn).
func callIn[T any](t *Token, timeout time.Duration, f func(sh p11.SessionHandle, gen uint64) (T, error)) (T, error) {
	var zero T
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.closed {
		return zero, fmt.Errorf("%w: token %q is closed", hsm.ErrUnavailable, t.label)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	c, err := t.conn(timer.C, timeout)
	if err != nil {
		return zero, err
	}
	// Only a reopen holds calls for writing: the token was lost since.
	if !t.calls.TryRLock() {
		return zero, t.unavailable()
	}
	t.state.Lock()
	current := t.cur == c
	t.state.Unlock()
	if !current {
		t.calls.RUnlock()
		return zero, t.unavailable()
	}
	var sh p11.SessionHandle
	select {
	case sh = <-c.sessions:
	case <-timer.C:
		t.calls.RUnlock()
		n := t.stuck.Load()
		t.log.Error("pkcs11: no session free: the token is not answering", "token", t.label, "timeout", timeout, "stuck", n)
		return zero, fmt.Errorf("%w: token %q: no session free within %v (%d calls stuck in the token): %w",
			hsm.ErrUnavailable, t.label, timeout, n, context.DeadlineExceeded)
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	t.running.Add(1)
	go func() {
		v, err := f(sh, c.gen)
		if isLost(err) {
			t.markLost(c, err)
		}
		c.sessions <- sh // never blocks: the channel holds every session of c
		t.calls.RUnlock()
		t.running.Done()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-timer.C:
	}
	t.stuck.Add(1)
	go func() {
		<-done
		t.log.Warn("pkcs11: a stuck token call returned", "token", t.label, "after", time.Since(start).Round(time.Millisecond))
		t.stuck.Add(-1)
	}()
	t.log.Error("pkcs11: token call timed out: the token is not answering", "token", t.label, "timeout", timeout)
	return zero, fmt.Errorf("%w: token %q did not answer within %v: %w", hsm.ErrUnavailable, t.label, timeout, context.DeadlineExceeded)
}

// conn returns the token's current conn. While the token is lost it fails
// at once (unavailable), except once every reopenEvery, when it reopens
// the token, waiting for it until expired.
func (t *Token) conn(expired <-chan time.Time, timeout time.Duration) (*conn, error) {
	t.state.Lock()
	if c := t.cur; c != nil {
		t.state.Unlock()
		return c, nil
	}
	if t.final != nil || t.reopening || t.now().Sub(t.tried) < reopenEvery {
		t.state.Unlock()
		return nil, t.unavailable()
	}
	t.reopening, t.tried = true, t.now()
	t.state.Unlock()
	done := make(chan error, 1)
	t.running.Add(1)
	go func() {
		err := t.reopen()
		t.running.Done()
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return nil, err
		}
	case <-expired:
		t.stuck.Add(1)
		go func() {
			<-done
			t.stuck.Add(-1)
		}()
		t.log.Error("pkcs11: token did not answer while being reopened", "token", t.label, "timeout", timeout)
		return nil, fmt.Errorf("%w: token %q did not answer within %v while being reopened: %w", hsm.ErrUnavailable, t.label, timeout, context.DeadlineExceeded)
	}
	t.state.Lock()
	c := t.cur
	t.state.Unlock()
	if c == nil {
		return nil, t.unavailable()
	}
	return c, nil
}

// unavailable is the error of a call refused while the token is lost.
func (t *Token) unavailable() error {
	t.state.Lock()
	cause, final := t.lost, t.final
	t.state.Unlock()
	switch {
	case final != nil:
		return final
	case cause == nil: // lost and reopened while this call started
		return fmt.Errorf("%w: token %q is being reopened", hsm.ErrUnavailable, t.label)
	}
	return &lostError{label: t.label, cause: cause}
}

// lostError refuses a call while the token is lost; it wraps
// hsm.ErrUnavailable and the cause, and says the first once.
type lostError struct {
	label string
	cause error
}

func (e *lostError) Error() string {
	why := strings.TrimPrefix(e.cause.Error(), hsm.ErrUnavailable.Error()+": ")
	return fmt.Sprintf("%s: token %q lost, reopened at most once every %v by a later call: %s", hsm.ErrUnavailable, e.label, reopenEvery, why)
}

func (e *lostError) Unwrap() []error { return []error{hsm.ErrUnavailable, e.cause} }

// markLost takes the token for lost, because of err in a call on c: every
// call fails until one reopens it (conn). A later loss for the same cause
// is logged at debug level only.
func (t *Token) markLost(c *conn, err error) {
	t.state.Lock()
	if t.cur != c { // already lost, or reopened since
		t.state.Unlock()
		return
	}
	t.cur = nil
	t.stale = append(t.stale, c)
	t.lost, t.lostAt, t.tried = err, t.now(), t.now()
	msg := err.Error()
	warn := msg != t.lostMsg
	t.lostMsg, t.quiet = msg, !warn
	t.state.Unlock()
	level := slog.LevelDebug
	if warn {
		level = slog.LevelWarn
	}
	t.log.Log(context.Background(), level, "pkcs11: token lost: every call refused until it is reopened", "token", t.label,
		"err", err, "retry_every", reopenEvery)
}

// reopen reopens a lost token (see the package doc): with no call in it,
// it re-initialises the library if no other token of this process uses
// it, finds the slot labelled as the token, opens the sessions and logs
// in again. The keys are found again, and checked, by the call that
// first uses them (keyHandle). A PIN the token refuses is not tried again.
func (t *Token) reopen() error {
	err := t.reopenIn()
	t.state.Lock()
	t.reopening = false
	if err != nil {
		t.lost = err
		if errors.Is(err, hsm.ErrBadCredentials) {
			t.final = fmt.Errorf("%w: token %q, reopened: %w; the PIN is not tried again, as retrying it would lock the token: restart rngd",
				hsm.ErrUnavailable, t.label, err)
			err = t.final
		}
	}
	t.state.Unlock()
	if errors.Is(err, hsm.ErrBadCredentials) {
		t.log.Error("pkcs11: token refused the PIN when reopened: not tried again", "token", t.label, "err", err)
	} else if err != nil {
		t.log.Debug("pkcs11: token not reopened", "token", t.label, "err", err)
	}
	return err
}

func (t *Token) reopenIn() error {
	if !t.calls.TryLock() {
		return fmt.Errorf("%w: token %q: calls are still running in it: it is reopened once they have returned", hsm.ErrUnavailable, t.label)
	}
	defer t.calls.Unlock()
	t.state.Lock()
	stale, old := t.stale, t.slot
	t.stale = nil
	t.state.Unlock()
	modules.Lock()
	alone := t.mod.refs == 1
	var initErr error
	if alone {
		// No call is in the library (calls): finalising it drops the
		// stale sessions and makes it look for its tokens again, which
		// some libraries (SoftHSM2) do only when initialised.
		t.ctx.Finalize()
		initErr = t.ctx.Initialize()
	}
	modules.Unlock()
	if initErr != nil {
		return fmt.Errorf("%w: couldn't initialise PKCS#11 module %s again: %w", hsm.ErrUnavailable, t.mod.path, initErr)
	}
	if !alone {
		for _, c := range stale {
			t.closeConn(c)
		}
	}
	slot, ti, err := findSlot(t.mod, t.mod.path, t.label)
	if err != nil {
		return err
	}
	if slot != old {
		modules.Lock()
		busy := t.mod.open[slot]
		if !busy {
			delete(t.mod.open, old)
			t.mod.open[slot] = true
		}
		modules.Unlock()
		if busy {
			return fmt.Errorf("%w: PKCS#11 token %q is back in slot %d, already open in this process", hsm.ErrUnavailable, t.label, slot)
		}
		t.state.Lock()
		t.slot = slot
		t.state.Unlock()
	}
	c, err := t.openConn(slot, true)
	if err != nil {
		return err
	}
	t.state.Lock()
	t.gen++
	c.gen, t.cur = t.gen, c
	cause, lostFor, quiet := t.lost, t.now().Sub(t.lostAt), t.quiet
	t.lost = nil
	t.state.Unlock()
	level := slog.LevelWarn
	if quiet {
		level = slog.LevelDebug
	}
	t.log.Log(context.Background(), level, "pkcs11: token reopened: its keys are checked again before use", "token", t.label,
		"slot", slot, "manufacturer", trimField(ti.ManufacturerID), "model", trimField(ti.Model),
		"lost_for", lostFor.Round(time.Millisecond), "lost_because", cause)
	return nil
}

// session runs f with a session of the pool, bounded by Config.CallTimeout
// (see call).
func (t *Token) session(f func(sh p11.SessionHandle) error) error {
	_, err := call(t, t.timeout, func(sh p11.SessionHandle) (struct{}, error) { return struct{}{}, f(sh) })
	return err
}

// object is a key pair found on the token or, read without login, a public
// key object alone (priv is then zero).
type object struct {
	label   string
	keyType uint
	id      []byte
	priv    p11.ObjectHandle
	pub     p11.ObjectHandle
	pubs    int // objects: the public key objects of its label and ID; pub is set only if it is 1
}

func (t *Token) find(sh p11.SessionHandle, tmpl []*p11.Attribute) ([]p11.ObjectHandle, error) {
	if err := t.ctx.FindObjectsInit(sh, tmpl); err != nil {
		return nil, err
	}
	objs, _, err := t.ctx.FindObjects(sh, maxObjects)
	if ferr := t.ctx.FindObjectsFinal(sh); err == nil {
		err = ferr
	}
	return objs, err
}

func (t *Token) attrs(sh p11.SessionHandle, o p11.ObjectHandle, types ...uint) (map[uint][]byte, error) {
	tmpl := make([]*p11.Attribute, len(types))
	for i, ty := range types {
		tmpl[i] = p11.NewAttribute(ty, nil)
	}
	got, err := t.ctx.GetAttributeValue(sh, o, tmpl)
	if err != nil {
		return nil, err
	}
	out := make(map[uint][]byte, len(got))
	for _, a := range got {
		out[a.Type] = a.Value
	}
	return out, nil
}

// list finds the key objects of class (CKO_PRIVATE_KEY or CKO_PUBLIC_KEY)
// that sh shows, labelled label if it is set, with their label, key type
// and ID; each handle is in priv or pub, as class says.
func (t *Token) list(sh p11.SessionHandle, class uint, label string) ([]object, error) {
	tmpl := []*p11.Attribute{p11.NewAttribute(p11.CKA_CLASS, class)}
	if label != "" {
		tmpl = append(tmpl, p11.NewAttribute(p11.CKA_LABEL, label))
	}
	handles, err := t.find(sh, tmpl)
	if err != nil {
		return nil, err
	}
	out := make([]object, 0, len(handles))
	for _, o := range handles {
		a, err := t.attrs(sh, o, p11.CKA_LABEL, p11.CKA_KEY_TYPE, p11.CKA_ID)
		if err != nil {
			return nil, err
		}
		obj := object{label: string(a[p11.CKA_LABEL]), keyType: ulong(a[p11.CKA_KEY_TYPE]), id: a[p11.CKA_ID]}
		if class == p11.CKO_PRIVATE_KEY {
			obj.priv = o
		} else {
			obj.pub = o
		}
		out = append(out, obj)
	}
	return out, nil
}

// objects lists the private keys (of the label, if set), each with its
// public key object: the one of the same label and ID. Every private key is
// listed, also one without exactly one such public key object (pubs says
// how many there are; pub is then zero): a private key must not drop out of
// sight because someone added or removed a public key object, which anyone
// with access to the token can do without the PIN.
func (t *Token) objects(sh p11.SessionHandle, label string) ([]object, error) {
	privs, err := t.list(sh, p11.CKO_PRIVATE_KEY, label)
	if err != nil {
		return nil, err
	}
	for i, obj := range privs {
		pubs, err := t.find(sh, []*p11.Attribute{
			p11.NewAttribute(p11.CKA_CLASS, p11.CKO_PUBLIC_KEY),
			p11.NewAttribute(p11.CKA_LABEL, obj.label),
			p11.NewAttribute(p11.CKA_ID, obj.id),
		})
		if err != nil {
			return nil, err
		}
		privs[i].pubs = len(pubs)
		if len(pubs) == 1 {
			privs[i].pub = pubs[0]
		}
	}
	return privs, nil
}

// ulong decodes a CK_ULONG attribute (native byte order, 4 or 8 bytes).
func ulong(b []byte) uint {
	switch len(b) {
	case 4:
		return uint(binary.NativeEndian.Uint32(b))
	case 8:
		return uint(binary.NativeEndian.Uint64(b))
	}
	return ^uint(0) // matches no key type
}

// key reads the public half of obj and describes it.
func (t *Token) key(sh p11.SessionHandle, obj object) (hsm.Key, crypto.PublicKey, *vrf.PublicKey, error) {
	k := hsm.Key{Label: obj.label}
	switch obj.keyType {
	case p11.CKK_RSA:
		a, err := t.attrs(sh, obj.pub, p11.CKA_MODULUS, p11.CKA_PUBLIC_EXPONENT)
		if err != nil {
			return k, nil, nil, fmt.Errorf("%w: key %q: %w", hsm.ErrUnavailable, obj.label, err)
		}
		// An RSA key that cannot be an RSA-FDH-VRF key (another
		// application's, on a shared token) is unsupported, like a key on
		// another curve: Keys skips it, lookup refuses it.
		e := new(big.Int).SetBytes(a[p11.CKA_PUBLIC_EXPONENT])
		if !e.IsInt64() || e.Int64() > 1<<31 {
			return k, nil, nil, fmt.Errorf("%w: RSA key %q: public exponent too large", hsm.ErrUnsupported, obj.label)
		}
		der, err := x509.MarshalPKIXPublicKey(&rsa.PublicKey{N: new(big.Int).SetBytes(a[p11.CKA_MODULUS]), E: int(e.Int64())})
		if err != nil {
			return k, nil, nil, fmt.Errorf("%w: RSA key %q: %w", hsm.ErrUnsupported, obj.label, err)
		}
		pk, err := vrf.ParsePublicKey(vrf.SuiteRSAFDH256, der)
		if err != nil {
			return k, nil, nil, fmt.Errorf("%w: RSA key %q is not an RSA-FDH-VRF key: %w", hsm.ErrUnsupported, obj.label, err)
		}
		// The public key object is matched to its private key by label
		// and ID only, and anyone with access to the token may replace a
		// public object without the PIN. An RSA private key shows its
		// modulus: the listed public key must be that key's.
		if obj.priv != 0 {
			pa, err := t.attrs(sh, obj.priv, p11.CKA_MODULUS)
			if err != nil {
				return k, nil, nil, fmt.Errorf("%w: key %q: %w", hsm.ErrUnavailable, obj.label, err)
			}
			if new(big.Int).SetBytes(pa[p11.CKA_MODULUS]).Cmp(new(big.Int).SetBytes(a[p11.CKA_MODULUS])) != 0 {
				return k, nil, nil, fmt.Errorf("RSA key %q: its public key object is not the public half of its private key (another modulus)", obj.label)
			}
		}
		k.Purpose, k.Algorithm, k.Public = hsm.PurposeVRF, string(vrf.SuiteRSAFDH256), pk.Bytes()
		return k, nil, pk, nil
	case p11.CKK_EC, ckkECEdwards:
		a, err := t.attrs(sh, obj.pub, p11.CKA_EC_PARAMS, p11.CKA_EC_POINT)
		if err != nil {
			return k, nil, nil, fmt.Errorf("%w: key %q: %w", hsm.ErrUnavailable, obj.label, err)
		}
		pub, alg, err := ecPublic(obj.keyType, a[p11.CKA_EC_PARAMS], a[p11.CKA_EC_POINT])
		if err != nil {
			return k, nil, nil, fmt.Errorf("key %q: %w", obj.label, err)
		}
		k.Algorithm = alg
		enc, err := hsm.MarshalSignerPublic(pub)
		if err != nil {
			return k, nil, nil, err
		}
		k.Purpose, k.Public = hsm.PurposeSign, enc
		return k, pub, nil, nil
	}
	return k, nil, nil, fmt.Errorf("%w: key %q has key type %#x", hsm.ErrUnsupported, obj.label, obj.keyType)
}

// ecPublic decodes an EC or EC-Edwards public key from its CKA_EC_PARAMS and
// CKA_EC_POINT; it returns the key and its algorithm.
func ecPublic(keyType uint, params, v []byte) (crypto.PublicKey, string, error) {
	switch {
	case keyType == p11.CKK_EC && string(params) == string(oidP256):
		pt, err := ecPoint(v, func(b []byte) bool { return len(b) == 65 && b[0] == 0x04 })
		if err != nil {
			return nil, "", fmt.Errorf("P-256 key: %w", err)
		}
		p, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), pt)
		if err != nil {
			return nil, "", fmt.Errorf("P-256 key: %w", err)
		}
		return p, hsm.ECDSAP256SHA256, nil
	case keyType == ckkECEdwards && string(params) == string(oidEd25519):
		pt, err := ecPoint(v, func(b []byte) bool { return len(b) == ed25519.PublicKeySize })
		if err != nil {
			return nil, "", fmt.Errorf("Ed25519 key: %w", err)
		}
		return ed25519.PublicKey(pt), hsm.Ed25519, nil
	}
	return nil, "", fmt.Errorf("%w: a key on a curve other than P-256 or Ed25519", hsm.ErrUnsupported)
}

// ecPoint returns the point of a CKA_EC_POINT value v, which PKCS#11 makes
// a DER OCTET STRING holding the point and some tokens make the bare point;
// isPoint tells a point of the curve by its size (and prefix). The bare
// form is tried first: a bare point may also read as DER (04 3f … for P-256,
// 04 1e … for Ed25519), and unwrapping it would truncate it. Neither form is
// ambiguous, as the DER form is two bytes longer.
func ecPoint(v []byte, isPoint func([]byte) bool) ([]byte, error) {
	if isPoint(v) {
		return v, nil
	}
	var inner []byte
	if rest, err := asn1.Unmarshal(v, &inner); err == nil && len(rest) == 0 && isPoint(inner) {
		return inner, nil
	}
	return nil, fmt.Errorf("CKA_EC_POINT of %d bytes is neither a point of the curve nor a DER OCTET STRING holding one", len(v))
}

// Keys lists the RSA, P-256 and Ed25519 key pairs of the token that
// VRFProver and Signer would use. A key pair they refuse is left out with a
// warning, not listed unmarked (its pin would be published): one of a label
// held by several private keys, one whose private key has not exactly one
// public key object of its label and ID, and one checkProtected refuses
// (extractable, not sensitive, usable without login, or not generated on
// the token).
func (t *Token) Keys() ([]hsm.Key, error) {
	keys, err := call(t, t.timeout, func(sh p11.SessionHandle) ([]hsm.Key, error) {
		objs, err := t.objects(sh, "")
		if err != nil {
			return nil, err
		}
		// Only key pairs are listed, and only under a label that one
		// private key holds: of two private keys under one label, which
		// one is the key of that label cannot be told, and listing one
		// would show its public key as the label's (lookup refuses them).
		privs := map[string]int{}
		for _, o := range objs {
			privs[o.label]++
		}
		pairs := objs[:0]
		for _, o := range objs {
			switch {
			case privs[o.label] > 1:
				t.log.Warn("pkcs11: key not listed: several private keys share its label", "token", t.label, "label", o.label, "private", privs[o.label])
			case o.pubs != 1:
				t.log.Warn("pkcs11: key not listed: its private key has not one public key object of its label and ID", "token", t.label, "label", o.label, "public", o.pubs)
			default:
				pairs = append(pairs, o)
			}
		}
		return t.describe(sh, pairs, true)
	})
	if err != nil {
		if !errors.Is(err, hsm.ErrUnavailable) {
			err = fmt.Errorf("%w: %w", hsm.ErrUnavailable, err)
		}
		return nil, fmt.Errorf("couldn't list keys of token %q: %w", t.label, err)
	}
	return keys, nil
}

// describe describes the public halves of objs, sorted by label; keys of
// types Tirage does not use are left out. With protected (key pairs, found
// after login), so is a key whose private key checkProtected refuses, with
// a warning: nothing the backend refuses to use is listed as usable.
func (t *Token) describe(sh p11.SessionHandle, objs []object, protected bool) ([]hsm.Key, error) {
	var keys []hsm.Key
	for _, o := range objs {
		k, _, _, err := t.key(sh, o)
		if errors.Is(err, hsm.ErrUnsupported) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if protected {
			if err := t.checkProtected(sh, o); errors.Is(err, hsm.ErrUnavailable) {
				return nil, err
			} else if err != nil {
				t.log.Warn("pkcs11: key not listed: the backend refuses to use it", "token", t.label, "label", o.label, "err", err)
				continue
			}
		}
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Label < keys[j].Label })
	return keys, nil
}

// publicKeys lists the keys of the public key objects the token shows
// without login (see PublicKeys) and checks that each label of want is
// among them.
func (t *Token) publicKeys(want []string) ([]hsm.Key, error) {
	keys, err := call(t, t.timeout, func(sh p11.SessionHandle) ([]hsm.Key, error) {
		objs, err := t.list(sh, p11.CKO_PUBLIC_KEY, "")
		if err != nil {
			return nil, fmt.Errorf("%w: %w", hsm.ErrUnavailable, err)
		}
		for _, o := range objs {
			a, err := t.attrs(sh, o.pub, p11.CKA_PRIVATE)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", hsm.ErrUnavailable, err)
			}
			if isTrue(a[p11.CKA_PRIVATE]) {
				return nil, fmt.Errorf("the public key object %q is marked private (CKA_PRIVATE true), yet shown without login: "+
					"refusing to read keys from a session that sees private objects", o.label)
			}
		}
		keys, err := t.describe(sh, objs, false)
		if err != nil {
			if !errors.Is(err, hsm.ErrUnavailable) {
				err = fmt.Errorf("%w: %w", hsm.ErrUnavailable, err)
			}
			return nil, err
		}
		for i := 1; i < len(keys); i++ {
			if keys[i].Label == keys[i-1].Label {
				return nil, fmt.Errorf("two public key objects are labelled %q: which is the key pair's cannot be told without login", keys[i].Label)
			}
		}
		for _, l := range want {
			switch {
			case slices.ContainsFunc(keys, func(k hsm.Key) bool { return k.Label == l }):
			case slices.ContainsFunc(objs, func(o object) bool { return o.label == l }):
				return nil, fmt.Errorf("%w: the public key object %q is not an RSA-FDH-VRF, P-256 or Ed25519 key", hsm.ErrUnsupported, l)
			default:
				return nil, fmt.Errorf("%w: no public key object labelled %q is shown: "+
					"it is missing, or marked private (CKA_PRIVATE true), which hides it until login", hsm.ErrNotFound, l)
			}
		}
		return keys, nil
	})
	if err != nil {
		return nil, fmt.Errorf("couldn't read the public keys of token %q without login: %w", t.label, err)
	}
	return keys, nil
}

// found is a key pair found by lookup.
type found struct {
	obj  object
	key  hsm.Key
	pub  crypto.PublicKey // signing keys
	vpub *vrf.PublicKey   // VRF keys
}

// keyRef is a key a prover or signer uses: the key pair found under its
// label when the prover or signer was made, and its private key's handle in
// the conn of generation gen. In a later conn (the token was lost and
// reopened), keyHandle finds it again by label and checks it is the same
// key.
type keyRef struct {
	label, purpose string
	id             []byte // CKA_ID
	public         []byte // hsm.Key.Public

	mu   sync.Mutex // guards priv and gen
	priv p11.ObjectHandle
	gen  uint64
}

// forget drops ref's handle in the conn of generation gen, which the token
// no longer knows: the next use finds the key again (keyHandle).
func (ref *keyRef) forget(gen uint64) {
	ref.mu.Lock()
	defer ref.mu.Unlock()
	if ref.gen == gen {
		ref.gen = 0 // no conn's
	}
}

// lookup finds the key pair labelled label with the given purpose and
// checks that its private key is sensitive and not extractable.
func (t *Token) lookup(label, purpose string) (*keyRef, found, error) {
	type res struct {
		ref *keyRef
		f   found
	}
	r, err := callIn(t, t.timeout, func(sh p11.SessionHandle, gen uint64) (res, error) {
		f, err := t.lookupIn(sh, label, purpose)
		if err != nil {
			return res{}, err
		}
		return res{&keyRef{label: label, purpose: purpose, id: f.obj.id, public: f.key.Public, priv: f.obj.priv, gen: gen}, f}, nil
	})
	return r.ref, r.f, err
}

// lookupIn is lookup in session sh.
func (t *Token) lookupIn(sh p11.SessionHandle, label, purpose string) (found, error) {
	objs, err := t.objects(sh, label)
	if err != nil {
		return found{}, fmt.Errorf("%w: %w", hsm.ErrUnavailable, err)
	}
	if len(objs) > 1 {
		return found{}, fmt.Errorf("token %q holds %d private keys labelled %q: remove all but one", t.label, len(objs), label)
	}
	if len(objs) == 0 {
		return found{}, fmt.Errorf("%w: no %s key labelled %q on token %q", hsm.ErrNotFound, purpose, label, t.label)
	}
	if objs[0].pubs != 1 {
		return found{}, fmt.Errorf("key %q on token %q has %d public key objects of its label and ID, want one: refusing to use it",
			label, t.label, objs[0].pubs)
	}
	k, p, vp, err := t.key(sh, objs[0])
	if err != nil {
		return found{}, err
	}
	if k.Purpose != purpose {
		return found{}, fmt.Errorf("%w: key %q on token %q is a %s key, not a %s key", hsm.ErrNotFound, label, t.label, k.Purpose, purpose)
	}
	if err := t.checkProtected(sh, objs[0]); err != nil {
		return found{}, err
	}
	return found{obj: objs[0], key: k, pub: p, vpub: vp}, nil
}

// keyHandle returns the handle of ref's private key in session sh, of
// the conn of generation gen. In a conn newer than ref's, or once the
// token said its handle is invalid (forget), the key is found again by its
// label and must be the same key, its public key and CKA_ID
// those ref was made with: a token that came back with another key under
// the label (a replaced token) fails with ErrKeyChanged. Every failure to
// find it again takes the token for lost (reopenError): tried again at the
// next reopen, never another key.
func (t *Token) keyHandle(sh p11.SessionHandle, gen uint64, ref *keyRef) (p11.ObjectHandle, error) {
	ref.mu.Lock()
	priv, at := ref.priv, ref.gen
	ref.mu.Unlock()
	if at == gen {
		return priv, nil
	}
	f, err := t.lookupIn(sh, ref.label, ref.purpose)
	if err != nil {
		if isLost(err) {
			return 0, err
		}
		return 0, &reopenError{fmt.Errorf("key %q not found again on token %q once reopened: %w", ref.label, t.label, err)}
	}
	if !bytes.Equal(f.key.Public, ref.public) || !bytes.Equal(f.obj.id, ref.id) {
		t.log.Error("pkcs11: token reopened with another key under a label in use: refused", "token", t.label, "label", ref.label)
		return 0, &reopenError{fmt.Errorf("%w: token %q, reopened, holds under label %q a key that is not the one in use "+
			"(its public key or CKA_ID differ: a replaced token?): refusing to use it; put the original token back", ErrKeyChanged, t.label, ref.label)}
	}
	ref.mu.Lock()
	ref.priv, ref.gen = f.obj.priv, gen
	ref.mu.Unlock()
	return f.obj.priv, nil
}

// checkProtected refuses a private key the token would let out, and one
// that has been outside it: a key imported onto the token (C_CreateObject,
// C_UnwrapKey, softhsm2-util --import) may be flagged sensitive and not
// extractable now, but the token then reports CKA_ALWAYS_SENSITIVE or
// CKA_NEVER_EXTRACTABLE false, and whoever imported it may still hold it.
func (t *Token) checkProtected(sh p11.SessionHandle, obj object) error {
	a, err := t.attrs(sh, obj.priv, p11.CKA_SENSITIVE, p11.CKA_EXTRACTABLE, p11.CKA_SIGN,
		p11.CKA_ALWAYS_SENSITIVE, p11.CKA_NEVER_EXTRACTABLE, p11.CKA_PRIVATE)
	if err != nil {
		return fmt.Errorf("%w: %w", hsm.ErrUnavailable, err)
	}
	if !isTrue(a[p11.CKA_SENSITIVE]) || isTrue(a[p11.CKA_EXTRACTABLE]) || !isTrue(a[p11.CKA_SIGN]) {
		return fmt.Errorf("key %q on token %q is extractable, not sensitive or cannot sign: refusing to use it", obj.label, t.label)
	}
	// A private key marked CKA_PRIVATE false can be used by anyone with
	// access to the token, without the PIN: whoever made it so (a key pair
	// can be generated on the token without logging in) can compute every
	// proof and signature it makes.
	if !isTrue(a[p11.CKA_PRIVATE]) {
		return fmt.Errorf("key %q on token %q is usable without login (CKA_PRIVATE false): refusing to use it", obj.label, t.label)
	}
	if !isTrue(a[p11.CKA_ALWAYS_SENSITIVE]) || !isTrue(a[p11.CKA_NEVER_EXTRACTABLE]) {
		return fmt.Errorf("key %q on token %q was not generated on it (imported, or once extractable or not sensitive: "+
			"CKA_ALWAYS_SENSITIVE or CKA_NEVER_EXTRACTABLE is false): refusing to use it; generate keys on the token (rngctl keys init)",
			obj.label, t.label)
	}
	return nil
}

func isTrue(b []byte) bool { return len(b) == 1 && b[0] != 0 }

// VRFProver returns the RSA-FDH-VRF prover of key label.
func (t *Token) VRFProver(label string) (hsm.VRFProver, error) {
	ref, f, err := t.lookup(label, hsm.PurposeVRF)
	if err != nil {
		return nil, err
	}
	return &prover{t: t, label: label, key: ref, pub: f.vpub}, nil
}

// Signer returns the signer of key label.
func (t *Token) Signer(label string) (hsm.Signer, error) {
	ref, f, err := t.lookup(label, hsm.PurposeSign)
	if err != nil {
		return nil, err
	}
	return &signer{t: t, label: label, key: ref, pub: f.pub, alg: f.key.Algorithm}, nil
}

// GenerateVRF makes an RSA-FDH-VRF-SHA256 key pair on the token.
func (t *Token) GenerateVRF(label string, suite vrf.Suite) (hsm.VRFProver, error) {
	if suite != vrf.SuiteRSAFDH256 {
		return nil, fmt.Errorf("%w: a PKCS#11 token holds %s keys only, not %s", hsm.ErrUnsupported, vrf.SuiteRSAFDH256, suite)
	}
	err := t.generate(label, p11.CKM_RSA_PKCS_KEY_PAIR_GEN, p11.CKK_RSA, []*p11.Attribute{
		p11.NewAttribute(p11.CKA_MODULUS_BITS, t.rsaBits),
		p11.NewAttribute(p11.CKA_PUBLIC_EXPONENT, []byte{1, 0, 1}),
	})
	if err != nil {
		return nil, err
	}
	return t.VRFProver(label)
}

// GenerateSigner makes an Ed25519 key pair on the token, or an ECDSA P-256
// one (algorithm ECDSAP256SHA256, or "" on a token without EdDSA).
func (t *Token) GenerateSigner(label, algorithm string) (hsm.Signer, error) {
	if algorithm == "" {
		algorithm = hsm.ECDSAP256SHA256
		if t.eddsa {
			algorithm = hsm.Ed25519
		}
	}
	var err error
	switch algorithm {
	case hsm.Ed25519:
		if !t.eddsa {
			return nil, fmt.Errorf("%w: token %q lacks CKM_EDDSA; use %s", hsm.ErrUnsupported, t.label, hsm.ECDSAP256SHA256)
		}
		err = t.generate(label, ckmECEdwardsKeyPairGen, ckkECEdwards, []*p11.Attribute{p11.NewAttribute(p11.CKA_EC_PARAMS, oidEd25519)})
	case hsm.ECDSAP256SHA256:
		err = t.generate(label, p11.CKM_EC_KEY_PAIR_GEN, p11.CKK_EC, []*p11.Attribute{p11.NewAttribute(p11.CKA_EC_PARAMS, oidP256)})
	default:
		return nil, fmt.Errorf("%w: signature algorithm %q (want %s or %s)", hsm.ErrUnsupported, algorithm, hsm.Ed25519, hsm.ECDSAP256SHA256)
	}
	if err != nil {
		return nil, err
	}
	return t.Signer(label)
}

// generate makes a key pair labelled label; pubExtra go into the public key
// template.
func (t *Token) generate(label string, mech, keyType uint, pubExtra []*p11.Attribute) error {
	if err := hsm.CheckLabel(label); err != nil {
		return err
	}
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return err
	}
	_, err := call(t, max(t.timeout, minGenerateTimeout), func(sh p11.SessionHandle) (struct{}, error) {
		return struct{}{}, t.generateIn(sh, label, id, mech, keyType, pubExtra)
	})
	if err != nil {
		return err
	}
	t.log.Info("pkcs11: key generated on token", "token", t.label, "label", label, "mechanism", fmt.Sprintf("%#x", mech))
	return nil
}

// generateIn is generate with session sh.
func (t *Token) generateIn(sh p11.SessionHandle, label string, id []byte, mech, keyType uint, pubExtra []*p11.Attribute) error {
	// Taken here, not by the caller: a generation stuck in the token holds
	// it until the token returns, whoever timed out.
	t.genMu.Lock()
	defer t.genMu.Unlock()
	taken, err := t.find(sh, []*p11.Attribute{p11.NewAttribute(p11.CKA_LABEL, label)})
	if err != nil {
		return fmt.Errorf("%w: %w", hsm.ErrUnavailable, err)
	}
	if len(taken) > 0 {
		return fmt.Errorf("%w: %q on token %q", hsm.ErrExists, label, t.label)
	}
	common := func(class uint) []*p11.Attribute {
		return []*p11.Attribute{
			p11.NewAttribute(p11.CKA_CLASS, class),
			p11.NewAttribute(p11.CKA_KEY_TYPE, keyType),
			p11.NewAttribute(p11.CKA_TOKEN, true),
			p11.NewAttribute(p11.CKA_LABEL, label),
			p11.NewAttribute(p11.CKA_ID, id),
		}
	}
	pubT := append(common(p11.CKO_PUBLIC_KEY),
		p11.NewAttribute(p11.CKA_PRIVATE, false),
		p11.NewAttribute(p11.CKA_VERIFY, true))
	pubT = append(pubT, pubExtra...)
	privT := append(common(p11.CKO_PRIVATE_KEY),
		p11.NewAttribute(p11.CKA_PRIVATE, true),
		p11.NewAttribute(p11.CKA_SENSITIVE, true),
		p11.NewAttribute(p11.CKA_EXTRACTABLE, false),
		p11.NewAttribute(p11.CKA_SIGN, true))
	if keyType == p11.CKK_RSA {
		pubT = append(pubT, p11.NewAttribute(p11.CKA_ENCRYPT, false), p11.NewAttribute(p11.CKA_WRAP, false))
		privT = append(privT, p11.NewAttribute(p11.CKA_DECRYPT, false), p11.NewAttribute(p11.CKA_UNWRAP, false))
	}
	pub, priv, err := t.ctx.GenerateKeyPair(sh, []*p11.Mechanism{p11.NewMechanism(mech, nil)}, pubT, privT)
	if err != nil {
		return fmt.Errorf("%w: token %q couldn't generate key %q: %w", hsm.ErrUnavailable, t.label, label, err)
	}
	if err := t.checkProtected(sh, object{label: label, priv: priv}); err != nil {
		t.ctx.DestroyObject(sh, priv)
		t.ctx.DestroyObject(sh, pub)
		return err
	}
	return nil
}

// failed wraps err, a failure of the token to do what, in hsm.ErrUnavailable
// unless it already is (closed token, timeout).
func (t *Token) failed(err error, what string) error {
	if errors.Is(err, hsm.ErrUnavailable) {
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%w: token %q: %s: %w", hsm.ErrUnavailable, t.label, what, err)
}

// sign runs C_SignInit + C_Sign with mech and the private key of key.
func (t *Token) sign(mech uint, key *keyRef, data []byte) ([]byte, error) {
	return callIn(t, t.timeout, func(sh p11.SessionHandle, gen uint64) ([]byte, error) {
		priv, err := t.keyHandle(sh, gen, key)
		if err != nil {
			return nil, err
		}
		if t.beforeSign != nil {
			t.beforeSign()
		}
		if err := t.ctx.SignInit(sh, []*p11.Mechanism{p11.NewMechanism(mech, nil)}, priv); err != nil {
			if isCode(err, p11.CKR_KEY_HANDLE_INVALID) || isCode(err, p11.CKR_OBJECT_HANDLE_INVALID) {
				key.forget(gen)
			}
			return nil, err
		}
		return t.ctx.Sign(sh, data)
	})
}

type prover struct {
	t     *Token
	label string
	key   *keyRef
	pub   *vrf.PublicKey
}

func (p *prover) Suite() vrf.Suite          { return vrf.SuiteRSAFDH256 }
func (p *prover) PublicKey() *vrf.PublicKey { return p.pub }

// Prove computes π for alpha (RFC 9381 §4.1), and β as the host check
// before release computes it.
func (p *prover) Prove(alpha []byte) (proof, beta []byte, err error) {
	// 1.–3. EM = MGF1(suite_string || 0x01 || I2OSP(k, 4) || I2OSP(n, k) || alpha, k - 1),
	//       m = OS2IP(EM), left-padded to k bytes for the token.
	em, err := vrf.RSAFDHEncode(p.pub, alpha)
	if err != nil {
		return nil, nil, err
	}
	// 4. s = RSASP1(K, m), on the token (CKM_RSA_X_509 is the raw primitive).
	s, err := p.t.sign(p11.CKM_RSA_X_509, p.key, em)
	if err != nil {
		return nil, nil, p.t.failed(err, fmt.Sprintf("RSA-FDH-VRF prove with key %q", p.label))
	}
	// 5. pi_string = I2OSP(s, k).
	k := len(em)
	if len(s) > k {
		return nil, nil, fmt.Errorf("%w: token %q returned %d bytes for a %d-byte modulus", hsm.ErrUnavailable, p.t.label, len(s), k)
	}
	pi := make([]byte, k)
	copy(pi[k-len(s):], s)
	// Check before release: a faulty result must not leave (see package doc).
	beta, err = vrf.Verify(p.pub, alpha, pi)
	if err != nil {
		p.t.log.Error("pkcs11: token returned an RSA-FDH-VRF proof that does not verify", "token", p.t.label, "label", p.label)
		return nil, nil, fmt.Errorf("%w: token %q returned a proof that does not verify under key %q", hsm.ErrUnavailable, p.t.label, p.label)
	}
	return pi, beta, nil
}

type signer struct {
	t     *Token
	label string
	key   *keyRef
	pub   crypto.PublicKey
	alg   string
}

func (s *signer) Public() crypto.PublicKey { return s.pub }
func (s *signer) Algorithm() string        { return s.alg }

func (s *signer) Sign(msg []byte) ([]byte, error) {
	if s.alg == hsm.ECDSAP256SHA256 {
		h := sha256.Sum256(msg)
		return s.signChecked(h[:], msg)
	}
	return s.signChecked(msg, msg)
}

// SignDigest signs a SHA-256 digest with ECDSA (hsm.DigestSigner).
func (s *signer) SignDigest(digest []byte) ([]byte, error) {
	if s.alg != hsm.ECDSAP256SHA256 || len(digest) != sha256.Size {
		return nil, fmt.Errorf("%w: SignDigest takes a SHA-256 digest and an ECDSA key", hsm.ErrUnsupported)
	}
	return s.signChecked(digest, nil)
}

// signChecked signs data (the message for Ed25519, the digest for ECDSA)
// and verifies the signature before returning it; msg is the message, or
// nil when only the digest is known.
func (s *signer) signChecked(data, msg []byte) ([]byte, error) {
	mech := uint(ckmEdDSA)
	if s.alg == hsm.ECDSAP256SHA256 {
		mech = p11.CKM_ECDSA
	}
	sig, err := s.t.sign(mech, s.key, data)
	if err != nil {
		return nil, s.t.failed(err, fmt.Sprintf("%s sign with key %q", s.alg, s.label))
	}
	ok := false
	switch s.alg {
	case hsm.Ed25519:
		ok = len(sig) == ed25519.SignatureSize && ed25519.Verify(s.pub.(ed25519.PublicKey), data, sig)
	case hsm.ECDSAP256SHA256:
		// The token returns r || s, 32 bytes each; crypto/ecdsa uses DER.
		if len(sig) == 64 {
			der, err := asn1.Marshal(struct{ R, S *big.Int }{new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])})
			if err == nil {
				sig = der
				ok = ecdsa.VerifyASN1(s.pub.(*ecdsa.PublicKey), data, sig)
			}
		}
	}
	if !ok {
		s.t.log.Error("pkcs11: token returned a signature that does not verify", "token", s.t.label, "label", s.label)
		return nil, fmt.Errorf("%w: token %q returned a %s signature that does not verify under key %q", hsm.ErrUnavailable, s.t.label, s.alg, s.label)
	}
	return sig, nil
}
