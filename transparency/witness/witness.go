// Package witness is a transparency log witness: it cosigns a log's
// checkpoint only once it has checked that the log grew from the last
// checkpoint it cosigned, so that a log cannot show two histories to two
// parties that both check a witness's cosignature, and a cosigned
// checkpoint carries a timestamp the log does not control.
//
// # Protocol
//
// [Witness] is the HTTP handler of c2sp.org/tlog-witness:
//
//	POST /add-checkpoint
//
//	old <size>\n
//	<consistency proof hash, base64>\n   (0 to 63 lines, RFC 6962 §2.1.2)
//	\n
//	<signed checkpoint>                  (c2sp.org/tlog-checkpoint)
//
// It answers, in the spec's order of checks:
//
//   - 413 for a body over [MaxRequestSize], 400 for a malformed body or an
//     old size larger than the checkpoint's;
//   - 404 for an origin the witness is not configured for;
//   - 403 unless every key configured for the origin signed the checkpoint
//     (verifier/checkpoint.Open's rule: a log announcing Ed25519 and
//     ML-DSA-44 keys is witnessed only with both signatures);
//   - 409, Content-Type text/x.tlog.size, body "<size>\n", when old is not
//     the size of the last checkpoint cosigned for the origin (0 if none):
//     the client retries from that size;
//   - 422 when the consistency proof from the cosigned checkpoint does not
//     verify (golang.org/x/mod/sumdb/tlog.CheckTree), or is not empty
//     where it must be (old 0, or old equal to the size);
//   - 409 (text/plain) when the checkpoint has the cosigned size and
//     another root hash: a fork, never cosigned;
//   - 200 and the cosignature line, "— <witness name> base64(key ID ||
//     timestamp || Ed25519 signature)\n", a c2sp.org/tlog-cosignature
//     cosignature/v1 over the checkpoint body. A checkpoint equal to the
//     cosigned one is cosigned again (with a new timestamp).
//
// # State
//
// For each origin the witness keeps the last checkpoint it cosigned, as
// the log signed it, in StateDir/<hex SHA-256 of the origin>.checkpoint.
// The file is replaced with transparency/atomicfile (fsync, rename, fsync
// of the directory) before the cosignature is returned, and the check and
// the write are done under the origin's lock, so that two concurrent calls
// cannot roll the state back (the race the spec describes). StateDir/LOCK
// keeps a second process off the same state.
//
// Everything exchanged is signed, so the protocol runs on plain HTTP.
package witness

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"tirage.fr/tirage/transparency/atomicfile"
	vcheckpoint "tirage.fr/tirage/verifier/checkpoint"
)

// Errors of [Witness.Add]; ServeHTTP answers each with its status code.
var (
	// ErrMalformed: the body is not an add-checkpoint request, or its
	// checkpoint is not one (400). The client is broken.
	ErrMalformed = errors.New("malformed add-checkpoint request")
	// ErrUnknownLog: no key is configured for the checkpoint's origin (404).
	ErrUnknownLog = errors.New("unknown log origin")
	// ErrUntrusted: a key configured for the origin did not sign, or a
	// signature by one does not verify (403).
	ErrUntrusted = errors.New("checkpoint not signed by every key of its log")
	// ErrBadProof: the consistency proof from the cosigned checkpoint does
	// not verify (422). With a valid log signature it may be evidence of
	// misbehaviour: the refusal is logged with both roots.
	ErrBadProof = errors.New("consistency proof does not verify")
	// ErrFork: a checkpoint of the cosigned size with another root (409).
	// It wraps verifier/checkpoint.ErrFork: the log signed two histories.
	ErrFork = fmt.Errorf("checkpoint of the witnessed size with another root: %w", vcheckpoint.ErrFork)
	// ErrState: the state could not be written (500); nothing was cosigned.
	ErrState = errors.New("couldn't persist the witness state")
)

// ConflictError is the answer to an old size that is not the size of the
// last checkpoint cosigned for the origin (409, text/x.tlog.size).
type ConflictError struct {
	// Size is the size of the last cosigned checkpoint (0 if none).
	Size uint64
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("old size does not match the witnessed size %d", e.Size)
}

// Config configures a witness.
type Config struct {
	// Signer cosigns checkpoints: a cosignature/v1 signer ([NewSigner]).
	Signer note.Signer
	// Logs are the verifier keys of the witnessed logs, as each log serves
	// them at /log/vkey (verifier/checkpoint.ParseKeys). A log is known by
	// its origin, its keys' name; every key of an origin must sign.
	Logs []*vcheckpoint.Key
	// StateDir holds the witness's state (see the package doc). It is
	// created if missing.
	StateDir string
	// Logger receives one line per call: origin, sizes, outcome. Nil
	// discards.
	Logger *slog.Logger
}

// Witness is an add-checkpoint handler. Close releases its state directory.
type Witness struct {
	signer note.Signer
	dir    string
	logger *slog.Logger
	lock   *os.File
	logs   map[string]*witnessed
}

// witnessed is one log's state.
type witnessed struct {
	keys []*vcheckpoint.Key
	file string

	mu sync.Mutex // held from the check of old to the cosignature
	// size and root are those of the last cosigned checkpoint (0 and the
	// empty tree's root before any); guarded by mu.
	size uint64
	root tlog.Hash
}

// emptyRoot is the RFC 6962 root of the empty tree, SHA-256().
var emptyRoot = tlog.Hash(sha256.Sum256(nil))

// New opens the state directory and loads each configured log's state.
// An unreadable or malformed state file fails it: the witness would
// otherwise cosign from size 0 again.
func New(cfg Config) (*Witness, error) {
	if cfg.Signer == nil {
		return nil, errors.New("witness: no signer")
	}
	if len(cfg.Logs) == 0 {
		return nil, errors.New("witness: no log key configured")
	}
	if cfg.StateDir == "" {
		return nil, errors.New("witness: no state directory")
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(cfg.StateDir, 0o755); err != nil {
		return nil, fmt.Errorf("witness: couldn't create the state directory: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(cfg.StateDir, "LOCK"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("witness: couldn't open the state lock: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, fmt.Errorf("witness: state directory %s is in use by another process: %w", cfg.StateDir, err)
	}
	w := &Witness{signer: cfg.Signer, dir: cfg.StateDir, logger: logger, lock: lock, logs: map[string]*witnessed{}}
	for _, k := range cfg.Logs {
		l := w.logs[k.Name]
		if l == nil {
			sum := sha256.Sum256([]byte(k.Name))
			l = &witnessed{file: filepath.Join(cfg.StateDir, hex.EncodeToString(sum[:])+".checkpoint"), root: emptyRoot}
			if err := l.load(k.Name); err != nil {
				lock.Close()
				return nil, err
			}
			w.logs[k.Name] = l
		}
		l.keys = append(l.keys, k)
	}
	return w, nil
}

// load reads the log's state file, if any.
func (l *witnessed) load(origin string) error {
	b, err := os.ReadFile(l.file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("witness: couldn't read the state of %q: %w", origin, err)
	}
	text, _, ok := bytes.Cut(b, []byte("\n\n"))
	if !ok {
		return fmt.Errorf("witness: state file %s of %q is not a signed checkpoint", l.file, origin)
	}
	o, size, root, err := vcheckpoint.ParseText(string(text) + "\n")
	if err != nil {
		return fmt.Errorf("witness: state file %s of %q: %w", l.file, origin, err)
	}
	if o != origin {
		return fmt.Errorf("witness: state file %s holds a checkpoint of %q, not %q", l.file, o, origin)
	}
	l.size, l.root = uint64(size), root
	return nil
}

// Close releases the state directory.
func (w *Witness) Close() error { return w.lock.Close() }

// Add checks a request and, if every check passes, records its checkpoint
// as the origin's state and returns the cosignature line(s). Errors wrap
// the package's sentinels or are a *[ConflictError].
func (w *Witness) Add(req *Request) ([]byte, error) {
	text, _, ok := bytes.Cut(req.Checkpoint, []byte("\n\n"))
	if !ok {
		return nil, fmt.Errorf("%w: checkpoint has no signature", ErrMalformed)
	}
	origin, _, _, err := vcheckpoint.ParseText(string(text) + "\n")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	l := w.logs[origin]
	if l == nil {
		return nil, fmt.Errorf("%w %q", ErrUnknownLog, clip([]byte(origin)))
	}
	cp, err := vcheckpoint.Open(req.Checkpoint, l.keys)
	switch {
	case errors.Is(err, vcheckpoint.ErrUntrusted):
		return nil, fmt.Errorf("%w: %w", ErrUntrusted, err)
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	size := uint64(cp.Size)
	if req.OldSize > size {
		return nil, fmt.Errorf("%w: old size %d exceeds the checkpoint's size %d", ErrMalformed, req.OldSize, size)
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	if req.OldSize != l.size {
		w.logger.Info("witness: old size is not the witnessed size", "origin", origin, "old", req.OldSize, "witnessed", l.size, "size", size)
		return nil, &ConflictError{Size: l.size}
	}
	switch {
	case size == l.size:
		if len(req.Proof) != 0 {
			return nil, fmt.Errorf("%w: %d proof lines between two checkpoints of size %d", ErrBadProof, len(req.Proof), size)
		}
		if cp.Root != l.root {
			w.logger.Warn("witness: refused a fork: same size, another root", "origin", origin, "size", size,
				"witnessed_root", l.root.String(), "root", cp.Root.String())
			return nil, ErrFork
		}
	case l.size == 0:
		if len(req.Proof) != 0 {
			return nil, fmt.Errorf("%w: %d proof lines from size 0", ErrBadProof, len(req.Proof))
		}
	default:
		if err := tlog.CheckTree(req.Proof, cp.Size, cp.Root, int64(l.size), l.root); err != nil {
			w.logger.Warn("witness: refused a checkpoint whose consistency proof fails", "origin", origin,
				"old", l.size, "size", size, "witnessed_root", l.root.String(), "root", cp.Root.String())
			return nil, fmt.Errorf("%w: from %d to %d: %w", ErrBadProof, l.size, size, err)
		}
	}
	if size > l.size {
		if err := atomicfile.Write(l.file, cp.Note, 0o644); err != nil {
			w.logger.Error("witness: couldn't persist the state", "origin", origin, "size", size, "err", err)
			return nil, fmt.Errorf("%w of %q: %w", ErrState, origin, err)
		}
	}
	cosig, err := w.cosign(text)
	if err != nil {
		// The state may have advanced: harmless, the log retries from it.
		return nil, err
	}
	w.logger.Info("witness: cosigned", "origin", origin, "old", l.size, "size", size)
	l.size, l.root = size, cp.Root
	return cosig, nil
}

// cosign returns the witness's signature line over the checkpoint body
// (text without its final newline).
func (w *Witness) cosign(text []byte) ([]byte, error) {
	body := string(text) + "\n"
	signed, err := note.Sign(&note.Note{Text: body}, w.signer)
	if err != nil {
		return nil, fmt.Errorf("witness: couldn't cosign: %w", err)
	}
	// note.Sign returns body, "\n", then the signature lines.
	return signed[len(body)+1:], nil
}

// ServeHTTP serves POST /add-checkpoint (see the package doc).
func (w *Witness) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("Cache-Control", "no-store")
	if r.URL.Path != "/add-checkpoint" {
		http.NotFound(rw, r)
		return
	}
	if r.Method != http.MethodPost {
		rw.Header().Set("Allow", http.MethodPost)
		http.Error(rw, "add-checkpoint takes POST", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(rw, r.Body, int64(MaxRequestSize)))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(rw, fmt.Sprintf("request body exceeds %d bytes", MaxRequestSize), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(rw, "couldn't read the request body", http.StatusBadRequest)
		return
	}
	req, err := ParseRequest(body)
	var cosig []byte
	if err == nil {
		cosig, err = w.Add(req)
	}
	if err != nil {
		var conflict *ConflictError
		code := http.StatusInternalServerError
		switch {
		case errors.As(err, &conflict):
			rw.Header().Set("Content-Type", "text/x.tlog.size")
			rw.WriteHeader(http.StatusConflict)
			io.WriteString(rw, strconv.FormatUint(conflict.Size, 10)+"\n")
			return
		case errors.Is(err, ErrMalformed):
			code = http.StatusBadRequest
		case errors.Is(err, ErrUnknownLog):
			code = http.StatusNotFound
		case errors.Is(err, ErrUntrusted):
			code = http.StatusForbidden
		case errors.Is(err, ErrBadProof):
			code = http.StatusUnprocessableEntity
		case errors.Is(err, ErrFork):
			code = http.StatusConflict
		}
		w.logger.Info("witness: refused", "status", code, "err", err)
		msg := err.Error()
		if code == http.StatusInternalServerError {
			// The witness's own failure (its state file's path, the
			// disk's error): logged above, not the log's business.
			msg = "the witness failed (see its log); nothing was cosigned"
		}
		http.Error(rw, msg, code)
		return
	}
	rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
	rw.Write(cosig)
}
