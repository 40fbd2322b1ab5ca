package rngd

import (
	"crypto"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // Europe/Paris without the system zoneinfo
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"golang.org/x/sys/unix"

	"tirage.fr/tirage/rngd/entropy"
	"tirage.fr/tirage/rngd/entropy/drbg"
	"tirage.fr/tirage/rngd/internal/boundedfile"
	"tirage.fr/tirage/rngd/internal/witnesspolicy"
	"tirage.fr/tirage/transparency"
	"tirage.fr/tirage/transparency/tilelog"
	"tirage.fr/tirage/transparency/trillian"
	"tirage.fr/tirage/verifier/calendar"
	"tirage.fr/tirage/verifier/qod"
)

// Config is the daemon's configuration. Its TOML form is documented field by
// field here and in examples/rngd.toml; durations are Go durations ("10ms").
// Defaults are secure: a production config must name its certificates, its
// keys and its log's origin, and dev mode (like software keys outside it)
// must be asked for explicitly. A negative duration or count is an error
// naming its TOML key; zero, or no key, selects the documented default (but
// for game.refund_grace, where 0 is a value and only no key is the
// default). The whole config is checked before rngd creates or changes
// anything.
type Config struct {
	// DataDir holds everything the daemon keeps: the embedded log (log/),
	// the state store (state.db), the unfinished games' secrets
	// (secrets.db), the software keystore (keys/), imported
	// manifests (manifests/), the admin socket, the newest CRLs of
	// grpc.client_crl_file taken (client-crl-newest), the Trillian log's
	// last checkpoint (trillian-checkpoint) and, in dev mode, the dev PKI
	// (dev/). Default "./data". rngd creates it with mode 0700 and
	// secrets.db with 0600, and refuses to start (and rngctl state rebuild
	// refuses) when either is open to group or others or is not owned by
	// rngd's user.
	DataDir string `toml:"data_dir"`

	// Dev selects dev mode: dev certificates are generated into
	// DataDir/dev, software keys are created with a dev passphrase, and the
	// daemon says so loudly on start, in every health check and in the
	// tirage_dev_mode metric. Only honoured by binaries built with the
	// tirage_dev build tag (make run builds bin/rngd-dev); a production
	// binary refuses a config with dev = true.
	Dev bool `toml:"dev"`

	// LogLevel is the least level of the slog records cmd/rngd writes:
	// "debug", "info" (default), "warn" or "error". At debug each game's
	// start and end are logged too (at peak, thousands of lines a
	// second: the transparency log and the metrics hold them already).
	LogLevel slog.Level `toml:"log_level"`

	// Scheduling is the Linux scheduling policy of the daemon's threads:
	// "batch" (default) puts those under SCHED_OTHER, the default policy,
	// under SCHED_BATCH when the daemon starts, their nice values kept
	// (the threads started later inherit it); "inherit" leaves the policy
	// rngd was started with. Under SCHED_BATCH a thread that wakes does not
	// preempt the running one before its time slice ends: the Go runtime's
	// monitor, which wakes every 20 µs or so while goroutines wait in
	// fsyncs, and the threads woken by the log's and the network's
	// goroutines no longer cut VRF proofs off to resume them on cold
	// caches. On 2 cores it took 14 µs (6 %) off the daemon's CPU a draw
	// and did not raise the p99 at half of peak (docs/rngd.md). Threads
	// under a real-time policy or SCHED_IDLE are left alone. Use "inherit"
	// where rngd shares its CPUs with work whose wake-ups must preempt it.
	Scheduling string `toml:"scheduling"`

	GRPC    GRPCConfig    `toml:"grpc"`
	Audit   AuditConfig   `toml:"audit"`
	HTTP    HTTPConfig    `toml:"http"`
	Admin   AdminConfig   `toml:"admin"`
	Log     LogConfig     `toml:"log"`
	Keys    KeysConfig    `toml:"keys"`
	Entropy EntropyConfig `toml:"entropy"`
	Game    GameConfig    `toml:"game"`

	// Not read from the file.

	// Logger receives the daemon's slog records (JSON in cmd/rngd).
	Logger *slog.Logger `toml:"-"`
	// Clock tells the time of the game rules (deadlines, expiry); tests
	// inject one. Default: the system clock.
	Clock Clock `toml:"-"`
	// Banner receives the start-up banner (version, config summary, key
	// fingerprints, addresses). Default: io.Discard.
	Banner io.Writer `toml:"-"`
	// Version is printed in the banner and served by Admin.Status.
	Version string `toml:"-"`

	// wrapLogSigner, if set, wraps the embedded log's checkpoint signer
	// (tests: a log key that stops signing).
	wrapLogSigner func(crypto.Signer) crypto.Signer

	// crlPoll, if set, is how often grpc.client_crl_file is read again
	// (tests); default crlPollInterval.
	crlPoll time.Duration
	// trustedReadTimeout, if set, is how long a read of
	// grpc.client_crl_file, of a CA bundle (grpc.client_ca_file,
	// audit.client_ca_file), of grpc.cert_file or of grpc.key_file may
	// take (tests); default trustedReadTimeout.
	trustedReadTimeout time.Duration
	// crlRead, if set, reads grpc.client_crl_file at path in readTrusted's
	// place (tests: a read that hangs).
	crlRead func(path string) ([]byte, error)
	// caRead, if set, reads a CA bundle at path in readTrusted's place
	// (tests: a read that hangs).
	caRead func(path string) ([]byte, error)
	// certRead and keyRead, if set, read grpc.cert_file and grpc.key_file
	// at path in readCertFile's and readKeyFile's place (tests: a read that
	// hangs).
	certRead, keyRead func(path string) ([]byte, error)

	// fileSHA256 is the SHA-256 of the configuration file's bytes as
	// LoadConfig read them (ConfigFromFlags without a file: of no bytes,
	// the empty file, which gives the same defaults); nil for a Config made
	// in code. A build attestation names it (LogAttestation).
	fileSHA256 []byte
}

// GRPCConfig is the game servers' listener: mutual TLS only.
type GRPCConfig struct {
	// Listen is the address, default "127.0.0.1:7443".
	Listen string `toml:"listen"`
	// CertFile and KeyFile are the daemon's certificate and key (PEM).
	// KeyFile is refused at start when group or others may access it
	// (chmod 600 it, as keys.pin_file) or another user than root or
	// rngd's owns it: whoever reads it can answer the game servers and
	// auditors as rngd. A read of either that has not answered within
	// trustedReadTimeout, 5s, refuses the start (a network file system
	// that hangs: keep the files on a local disk).
	CertFile string `toml:"cert_file"`
	KeyFile  string `toml:"key_file"`
	// ClientCAFile is the CA bundle that issues game servers' client
	// certificates. A game server's identity is its certificate's first DNS
	// SAN, or its subject CN when it has none. It must be owned by root or
	// rngd's user and writable by neither group nor others (whoever may
	// change it may add a CA of their own): else the start is refused, as
	// it is when its read has not answered within trustedReadTimeout, 5s
	// (a network file system that hangs: keep the file on a local disk).
	ClientCAFile string `toml:"client_ca_file"`
	// ClientCRLFile, when set, revokes game servers' certificates: one or
	// more X.509 CRLs (PEM blocks "X509 CRL", or one DER CRL), each signed
	// by a CA of ClientCAFile (an intermediate's CRL: the intermediate in
	// ClientCAFile), one per CA: a CA is its name and its key, so two CAs
	// of one name (a CA re-keyed) each have their own. A certificate a CRL
	// lists (its issuer, whose key verified it, and its serial
	// number), or one whose verified chain holds a CA certificate a CRL
	// lists, is refused at the TLS handshake, and a connection
	// opened before is closed when the CRL is taken (its calls until then
	// refused UNAUTHENTICATED CERT_REVOKED).
	// Read at start (a CRL that does not parse, that no CA of the bundle
	// signed, or with a critical extension rngd does not process, such as
	// a delta CRL's, refuses the start, as does a read that has not
	// answered within trustedReadTimeout, 5s: keep the file on a local disk), then again every few seconds
	// (crlPollInterval): a replacement is taken without restart, unless it
	// is refused as at start or is older than the CRL in force (a lower
	// CRL number; with the same number or none, an earlier thisUpdate; a
	// CA's CRL left out): then the CRL in force stays, and the refusal is
	// logged and counted (tirage_alarms_total{component="crl"},
	// tirage_client_crl_refused), as is a read that has not answered
	// within trustedReadTimeout. The newest CRL taken of each CA is
	// remembered in DataDir/client-crl-newest: a start on an older one is
	// refused too (delete that file to go back on purpose).
	// A CRL past its nextUpdate stays in force, with an alarm
	// (tirage_client_crl_stale). Owned and writable as ClientCAFile (whoever
	// may change it may drop a revocation). Default: none, nothing is
	// revoked.
	ClientCRLFile string `toml:"client_crl_file"`
	// MaxConcurrentStreams bounds in-flight calls per connection (default 1024).
	MaxConcurrentStreams uint32 `toml:"max_concurrent_streams"`
	// MaxConnections bounds the listener's open connections, TLS
	// handshakes under way included (default 256): a connection beyond it
	// waits to be accepted until one closes. With the bound on a request
	// (tcpMaxRecvMsgSize) and on a connection's calls, it bounds the memory
	// that requests still arriving can hold.
	MaxConnections int `toml:"max_connections"`
}

// AuditConfig is the auditors' gRPC listener: the log's audit service
// (tirage.transparency.audit.v1, transparency/auditpb/v1: checkpoints,
// entries, inclusion and consistency proofs), with the standard health
// service and server reflection, and nothing else: no game service, no
// admin service. The game servers' listener does not serve it, so that an
// auditor needs no game server's certificate (which would let them start
// games). TLS 1.3 with the daemon's certificate (grpc.cert_file,
// grpc.key_file); the log is public, so no client certificate is asked
// for unless ClientCAFile is set.
type AuditConfig struct {
	// Listen is the address, default "127.0.0.1:7444"; "off" disables it
	// (the log stays readable over HTTP /log/, http.listen).
	Listen string `toml:"listen"`
	// ClientCAFile, when set, restricts the listener to auditors holding
	// a client certificate issued by this CA bundle (verified, TLS 1.3);
	// owned by root or rngd's user, writable by neither group nor others,
	// as grpc.client_ca_file.
	// Default: none, any client may read the log.
	ClientCAFile string `toml:"client_ca_file"`
	// MaxConnections bounds the listener's open connections, TLS
	// handshakes under way included (default 64), as grpc.max_connections
	// does the game servers'; an auditor's connection holds at most
	// auditMaxConcurrentStreams calls.
	MaxConnections int `toml:"max_connections"`
}

// HTTPConfig is the auditors' and operators' read listener: /metrics,
// /healthz and the log's tiles under /log/. It serves nothing secret.
type HTTPConfig struct {
	// Listen is the address, default "127.0.0.1:7480"; "off" disables it.
	Listen string `toml:"listen"`
	// MaxConnections bounds the listener's open connections (default
	// 256), as grpc.max_connections does the game servers': a connection
	// beyond it waits to be accepted until one closes. With the HTTP
	// server's timeouts (httpTimeouts: an idle keep-alive connection is
	// closed, a request must be read and answered in time), clients of
	// this listener, which anyone who reaches it may be, cannot hold the
	// descriptors the log and the stores need.
	MaxConnections int `toml:"max_connections"`
}

// AdminConfig is the operator's listener, used by rngctl.
type AdminConfig struct {
	// Socket is the Unix socket path, default DataDir/admin.sock. It is
	// created with mode 0600 when AllowedUIDs names only the daemon's own
	// user and root, and with mode 0666 when it names another user: the
	// kernel's peer credentials (SO_PEERCRED), read on every connection as
	// it is accepted, then decide who may call: every call of a uid not in
	// AllowedUIDs is refused PERMISSION_DENIED before any handler runs, and
	// logged (rate-limited) and counted (listenAdmin, peerCredListener say
	// why). Another user must also be able to reach the socket: every
	// directory on its path must be searchable (x) by that user, which
	// the default location, inside data_dir (mode 0700), is not; put the
	// socket in a directory such as /run/tirage (mode 0755, or 0750 with
	// the operators' group). rngd warns at start when a directory on the
	// path is not searchable by others. The socket's own directory must be
	// owned by root or rngd's user and writable by neither group nor
	// others (so not /tmp): rngd refuses to start otherwise, since another
	// user who can write there could replace the socket (listenAdmin).
	Socket string `toml:"socket"`
	// AllowedUIDs are the Unix users (kernel peer credentials) allowed to
	// call; default: only the daemon's own uid. 65534 (the kernel's
	// overflow uid, sysctl kernel.overflowuid, usually "nobody") is
	// refused, and so is the overflow uid the kernel is set to: SO_PEERCRED
	// reports every user with no mapping in rngd's user namespace (in a
	// container: the host's users, root included, and other containers')
	// as that uid, so allowing it would admit all of them.
	AllowedUIDs []int `toml:"allowed_uids"`
	// MaxManifestTickets bounds the tickets of one ImportManifest upload
	// (default 5,000,000; at most 50,000,000). rngd holds an upload whole
	// while it checks it (about 90 bytes a ticket, 450 MB at the default),
	// so a header announcing more is refused before any ticket is read,
	// and so is a ticket beyond the header's count. A larger manifest is
	// imported in parts, each with its own logged root.
	MaxManifestTickets uint64 `toml:"max_manifest_tickets"`
}

// LogConfig selects the transparency log.
type LogConfig struct {
	// Backend is "tessera" (embedded, default, in DataDir/log) or
	// "trillian" (a Trillian v1.8 log server; one rngd per tree for now:
	// the state store follows the log it alone writes).
	Backend string `toml:"backend"`
	// TrillianAddress and TrillianTreeID select the Trillian log; with
	// another backend they (and TrillianCAFile) are refused, not ignored.
	TrillianAddress string `toml:"trillian_address"`
	TrillianTreeID  int64  `toml:"trillian_tree_id"`
	// TrillianCAFile is the CA of the log server's TLS certificate: the
	// connection is TLS. Required with backend "trillian", unless
	// TrillianPlaintext is set (or in dev mode).
	TrillianCAFile string `toml:"trillian_ca_file"`
	// TrillianPlaintext, the explicit opt-in to a plaintext connection to
	// the Trillian log (no trillian_ca_file): allowed only to a loopback IP
	// address (a log server on the same host), and announced at every start
	// (a banner block and a WARN log line). Dev mode allows it without the
	// opt-in (and announces it too). Never with trillian_ca_file.
	TrillianPlaintext bool `toml:"trillian_plaintext"`
	// TrillianAppendTimeout bounds an append to the Trillian log, its
	// QueueLeaf and the wait for its leaf in a signed tree, default 30s
	// (trillian.DefaultAppendTimeout). Past it the draw is refused and
	// the log fails closed: every draw is refused until the log server
	// answers again, every leaf it may hold is integrated and rngd has
	// caught up with it, which rngd does by itself (no restart).
	TrillianAppendTimeout Duration `toml:"trillian_append_timeout"`
	// Origin is the checkpoint origin line, the log's name (no spaces, no
	// '+'): required, and never changed for an existing log. Only dev mode
	// has a default, "tirage.fr/dev-log".
	Origin string `toml:"origin"`
	// BatchMaxAge bounds how long a journaled record waits for its batch to
	// be integrated into the tree (default 1s). Replies do not wait for it
	// (the append is acknowledged once journaled, see transparency/tilelog),
	// only inclusion proofs do: a fresh draw's proof exists within about
	// twice this age plus one checkpoint interval (a batch gathers while the
	// one before waits in tessera). Tessera writes each of a batch's files
	// (its entry bundles and tiles, the partial ones at the tree's edge
	// included) to a new file, synced, with its directory, and later
	// removes the partial ones: per record, a longer batch writes fewer. At
	// peak, 1s and 16,384 records instead of 250ms and 4,096 took 6.6 µs
	// less of the daemon's CPU per draw in eight alternating pairs
	// (docs/rngd.md, "2026-12-06 (stop 42)"); 250ms instead of 50ms had
	// given about 4 µs, and 50ms instead of 10ms 5 % less CPU. 2s and
	// 32,768 records took 3.5 µs less in twelve pairs, but a longer batch
	// writes more files at once, and the unary calls' p99 at half of peak
	// came out higher in fourteen of 23 paced pairs (by 0.7–2.0 ms on
	// average in three sets; stop 46): not kept.
	BatchMaxAge Duration `toml:"batch_max_age"`
	// BatchMaxSize writes a batch as soon as it holds this many records
	// (default 16384, at most 65536: a batch's age, not its size, ends it
	// at this machine's peak, about 10,000 records). The embedded log holds
	// up to twice this many records journaled ahead of the tree in memory.
	BatchMaxSize uint `toml:"batch_max_size"`
	// JournalInterval (embedded log only) is the least time between two
	// fsyncs of the log's journal while draws append concurrently (default
	// 4ms, at most 10ms): the records of the draws arriving meanwhile wait
	// for the next and share it. An fsync costs about the same CPU however
	// few records it syncs: 4ms instead of 1ms took about 6 µs off the
	// daemon's CPU per draw at peak in seven alternating pairs, and about
	// 25 µs at half of peak, whose p50 rose from 1.8 to 4.5 ms and p99
	// from 11–13 to 13–14 ms (docs/rngd.md, "2026-12-06 (stop 39)").
	// Replies wait up to this much longer; a lone caller, appending once
	// answered, is not held back.
	JournalInterval Duration `toml:"journal_interval"`
	// CheckpointInterval is how often a checkpoint is signed (default 100ms,
	// at most 1m).
	CheckpointInterval Duration `toml:"checkpoint_interval"`
	// CheckpointTimeout (embedded log only) bounds how long a record in the
	// tree may wait for a signed checkpoint covering it: past it, or at
	// once when the log key fails to sign one, the log stalls: every draw
	// is refused (LOG_UNAVAILABLE, tirage_alarms_total{component="log"},
	// /healthz names log, tirage_log_checkpoint_stalled 1) until a
	// checkpoint covering the tree is published, which the log retries
	// every checkpoint interval by itself (no restart). 0 or unset: the
	// embedded log's default, 10 × checkpoint_interval and at least 10s;
	// else 1s to 10m, and at least 3 × checkpoint_interval.
	// tirage_log_checkpoint_wait_seconds is how long records have waited.
	CheckpointTimeout Duration `toml:"checkpoint_timeout"`
	// WitnessPolicy is the path of a witness policy file (the Sigsum
	// policy format with C2SP cosignature/v1 keys: "witness NAME VKEY
	// URL", "group NAME N|any|all MEMBER...", "quorum NAME"): every
	// checkpoint is published only once the quorum's witnesses have
	// cosigned it (C2SP tlog-witness), so that the log cannot show two
	// histories and each checkpoint carries the witnesses' times. No
	// fail-open: a quorum not reached leaves checkpoints behind the tree;
	// the embedded log stalls past checkpoint_timeout (every draw refused)
	// until it is reached again, the Trillian backend refuses each new
	// checkpoint (LOG_UNAVAILABLE) and, past trillian_append_timeout, the
	// draws waiting for one. The file must be owned by root or rngd's
	// user and not writable by group or others (whoever may write it may
	// name a witness of their own), nor readable by them when a witness
	// URL holds credentials (a password, a query: mode 0600); the
	// directory holding it likewise owned by root or rngd's user and not
	// writable by group or others (who could swap the file). rngctl promo
	// --witness-policy checks its file the same way. Unset: no witnesses.
	WitnessPolicy string `toml:"witness_policy"`
	// WitnessTimeout bounds how long one checkpoint waits for the quorum
	// (default 2s; 100ms to half of checkpoint_timeout, or with backend
	// "trillian" of trillian_append_timeout).
	WitnessTimeout Duration `toml:"witness_timeout"`
	// witnessPolicy is the policy file's text, read and checked by check.
	witnessPolicy []byte
	// ReceiptWait, when set, makes StartGame, Pick, Decide and Quit wait up to
	// this long for a checkpoint covering their records, so that the reply's
	// receipts carry the signed checkpoint and the inclusion proofs (about
	// one checkpoint interval more latency). Default 0: replies carry the
	// log index; GetReceipts (GetQuit for a Quit) returns the proofs.
	ReceiptWait Duration `toml:"receipt_wait"`
}

// KeysConfig selects the key custody.
type KeysConfig struct {
	// Backend is "pkcs11" (an HSM: Module, TokenLabel, PINFile; VRF keys
	// are RSA-FDH-VRF-SHA256 inside the token), the production custody, or
	// "software" (an encrypted keystore in Dir; the default). Software keys
	// are files on the host: outside dev mode rngd refuses them unless
	// AllowSoftware is set.
	Backend string `toml:"backend"`
	// AllowSoftware lets a daemon outside dev mode run with software keys.
	// Not for production: the keys are files. rngd then says so on every
	// start (a banner block, an ERROR log line and tirage_software_keys 1).
	// With backend "software", and with backend "pkcs11" on a software
	// token (SoftHSM2, whose token files are on this host: refused without
	// it, naming keys.token_label).
	AllowSoftware bool `toml:"allow_software"`
	// Module, TokenLabel, PINFile and Sessions configure the pkcs11
	// backend: the PKCS#11 library, the token's label, a file holding the
	// user PIN (never a flag) and the sessions kept open (default 4).
	Module     string `toml:"module"`
	TokenLabel string `toml:"token_label"`
	PINFile    string `toml:"pin_file"`
	Sessions   int    `toml:"sessions"`
	// CallTimeout bounds each call to the token (a proof, a signature),
	// the wait for a free session included: a token that stops answering
	// fails draws with UNAVAILABLE and the keys alarm; default 10s.
	CallTimeout Duration `toml:"call_timeout"`
	// Dir is the software keystore, default DataDir/keys.
	Dir string `toml:"dir"`
	// PassphraseFile holds the keystore passphrase (never a flag), read as
	// rngctl reads it (ReadSecretFile): mode 0600 or stricter, at most 4096
	// bytes, one trailing newline ignored. Required unless dev mode, which
	// uses a known dev passphrase. PINFile is read the same way.
	PassphraseFile string `toml:"passphrase_file"`
	// AnnouncementFile is the signed key announcement written by rngctl
	// keys init (at most 4 MiB); rngd appends it as the log's first record.
	// Without it rngd makes the announcement itself (hsm.Announce) from the
	// keys below.
	AnnouncementFile string `toml:"announcement_file"`
	// VRFLabel and SignerLabel name the VRF key and the log's signing key
	// (defaults "vrf" and "log").
	VRFLabel    string `toml:"vrf_label"`
	SignerLabel string `toml:"signer_label"`
}

// EntropyConfig selects the entropy sources behind the DRBG (package
// rngd/entropy) that makes each game's secret r and id.
type EntropyConfig struct {
	// Sources are combined for every seed; see entropy.SourceConfig. Default:
	// /dev/hwrng credited with 2 bits per byte (docs/entropy.md's suggested
	// declaration for virtio-rng, whose origin is the host's: 192 bytes per
	// seed), plus getrandom(2) (mixed in, never credited). A health
	// failure refuses draws (fail closed).
	Sources []EntropySource `toml:"source"`
	// ReseedRequests and ReseedInterval schedule DRBG reseeds (defaults
	// 1024 reads, 1m).
	ReseedRequests uint64   `toml:"reseed_requests"`
	ReseedInterval Duration `toml:"reseed_interval"`
	// PredictionResistance reseeds before every read (slow: a full seed
	// from the hardware per game).
	PredictionResistance bool `toml:"prediction_resistance"`
	// ReadTimeout bounds each read from a physical source (default 2s): a
	// source that does not answer in time fails its health for that seed,
	// as a stuck one does, and draws are refused if the others cannot
	// credit the seed; rngctl entropy retest restores it.
	ReadTimeout Duration `toml:"read_timeout"`
}

// EntropySource is one [[entropy.source]] table (an entropy.SourceConfig).
// Each kind appears once, at least one source is physical (hwrng, rdseed or
// tpm), and the physical sources together credit the 384 bits each seed
// needs (entropy.New refuses less; the config check refuses it first).
type EntropySource struct {
	// Kind is "hwrng", "rdseed", "tpm" or "getrandom".
	Kind string `toml:"kind"`
	// Path is the device of hwrng (default /dev/hwrng) or tpm (default
	// /dev/tpmrm0); other kinds refuse it. The kernel's /dev/random and
	// /dev/urandom are refused: a DRBG, not a noise source (it is kind
	// getrandom, never credited). Outside dev mode it must be a character
	// device: the bytes of a file or a pipe would be credited as physical
	// entropy, whoever wrote them.
	Path string `toml:"path"`
	// Address is a TPM simulator's TCP command port (swtpm), for tpm only,
	// instead of Path: dev mode only (its bytes are software's, over plain
	// TCP), and announced at every start (banner block, WARN log line).
	Address string `toml:"address"`
	// SampleBits is the width of one raw sample of a physical source, as
	// assessed (SP 800-90B): 8 (0 or unset: each byte is a sample) or 1 (a
	// binary noise source: each bit, most significant first, is a sample;
	// the health tests' APT window is then 1024). It is what rngctl entropy
	// test --sample-bits tests. getrandom refuses it.
	SampleBits int `toml:"sample_bits"`
	// MinEntropy is the declared min-entropy per sample (per byte, or per
	// bit with sample_bits = 1), in bits, from the source's SP 800-90B
	// assessment: 0 < min_entropy ≤ sample_bits. Required for physical
	// sources; getrandom refuses it (never credited). It sets the health
	// tests' cutoffs and the entropy credited: seed_bytes × 8/sample_bits ×
	// min_entropy bits per seed.
	MinEntropy float64 `toml:"min_entropy"`
	// SeedBytes is the raw bytes read from the source for each seed, 1 to
	// 65536. Default (0 or unset): enough for a physical source to credit
	// the seed's 384 bits alone, ⌈384 / (min_entropy × 8/sample_bits)⌉, so
	// with two physical sources one may fail and draws go on; for getrandom,
	// 32 (mixed in, never credited). Smaller values on the physical sources
	// choose the policy that no physical source is trusted alone: together
	// they must still credit 384 bits (else the config is refused), and
	// draws are refused while a failed source leaves the rest short.
	SeedBytes int `toml:"seed_bytes"`
}

// GameConfig holds the Quitte ou Double time settings. The rules themselves
// (29 days to start after closure, 30 days to play, the 3 € refund) are
// those of verifier/qod.
type GameConfig struct {
	// TimeZone of emission closure dates, default "Europe/Paris": stage 2
	// may start until the end of closure date + 29 days in this zone.
	TimeZone string `toml:"time_zone"`
	// SweepInterval is how often expired games are ended, default 1m.
	SweepInterval Duration `toml:"sweep_interval"`
	// RefundGrace is how long after its 30-day deadline an unfinished game
	// waits for the operator's refund (article 2.2.11) before the sweeper
	// seals its expiry (article 2.2.10: no gain, no refund), default 168h
	// (7 days). From the deadline on the game refuses picks and decisions
	// and shows as expired to its player; only RefundGame still ends it
	// otherwise, until deadline + refund_grace (then refused, swept or
	// not). The case article 2.2.11 is for — the operator could not
	// honour the 30 days, e.g. an outage of the appliance or of the game
	// servers ate the end of a player's window — is typically known only
	// after the deadline: 7 days lets an operator notice the incident,
	// list the games it hit and refund them, a weekend or a public holiday
	// included, while each game's end (which reveals r and lets the player
	// verify the game) waits a week at most. A game starts by the end of
	// closure + 29 days and its window ends by closure + 60 days, so its
	// grace ends by closure + 67 days, within the 90 days after closure of
	// article 5 (forclusion: no claim after them); a grace over 30 days
	// (qod.MaxRefundGrace) could let a refund come after them across a
	// change of clock, and is refused. 0 seals the expiry
	// at the deadline, as before this setting: no refund past the 30
	// days. Unlike other durations, 0 is not the default: only an unset
	// key (nil) is.
	RefundGrace *Duration `toml:"refund_grace"`
	// ReplyRetention is how long the reply to a request id is kept for
	// retries, default 2400h (100 days: beyond the 30 days of play and the
	// 90 days of claims after closure, article 5). Older request ids are
	// forgotten: reusing one then starts a new call. It is at least
	// minReplyRetention + refund_grace: a game changes for at most its
	// play window and its grace after its start, and within that a retried
	// call must get its reply (a retried "continue" taken as a new call
	// could continue the game from a later tier).
	ReplyRetention Duration `toml:"reply_retention"`
}

// minReplyRetention is game.reply_retention's floor before
// game.refund_grace: 31 days, longer than a play window (at most 721
// hours, qod.PlayDeadline).
const minReplyRetention = 31 * 24 * time.Hour

// defaultRefundGrace is game.refund_grace's default; its largest value is
// the rules', qod.MaxRefundGrace: see GameConfig.
const defaultRefundGrace = 7 * 24 * time.Hour

// defaultMaxConnections is grpc.max_connections' and http.max_connections'
// default: far more than an operator's game servers or scrapers open (the
// load generator of make bench uses 8).
const defaultMaxConnections = 256

// defaultAuditMaxConnections is audit.max_connections' default: far more
// than auditors open, and what anonymous clients can make rngd hold is
// bounded by it — 64 connections × auditMaxConcurrentStreams (4) answers
// left unread × transparency.MaxEntriesBytes (1 MiB): 256 MiB.
const defaultAuditMaxConnections = 64

// admin.max_manifest_tickets' default and largest value (AdminConfig).
const (
	defaultMaxManifestTickets = 5_000_000
	maxMaxManifestTickets     = 50_000_000
)

// Upper bounds of settings that the audit's tolerances assume of an honest
// log (verifier/audit): the sweeper seals an expiry within
// maxSweepInterval of its due time, well inside audit.EndDelay; a record
// waits at most two Trillian appends between its time and its place in
// the log, within audit.MaxTimeSkew; and audit.MaxActiveGap is
// maxSweepInterval (TestConfigBoundsWithinAudit).
const (
	maxSweepInterval         = 10 * time.Minute
	maxTrillianAppendTimeout = 4 * time.Minute
)

// refundGrace is game.refund_grace, its default when unset.
func (g GameConfig) refundGrace() time.Duration {
	if g.RefundGrace == nil {
		return defaultRefundGrace
	}
	return g.RefundGrace.Duration
}

// Duration is a time.Duration written as a Go duration string in TOML.
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration ("10ms", "720h").
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration as a Go duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Clock tells the time.
type Clock interface{ Now() time.Time }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// maxConfigFile bounds the config file LoadConfig reads: examples/rngd.toml,
// every key documented, is 12 KiB; a damaged or mistaken file (a log, a
// disk image named by --config) is refused, not read whole.
const maxConfigFile = 1 << 20

// LoadConfig reads a TOML config file of at most maxConfigFile bytes.
// Unknown keys are an error (a typo must not silently fall back to a
// default).
func LoadConfig(path string) (Config, error) {
	var c Config
	b, err := boundedfile.Read(path, maxConfigFile)
	if err != nil {
		return c, fmt.Errorf("couldn't read config %s: %w", path, err)
	}
	md, err := toml.Decode(string(b), &c)
	var pe toml.ParseError
	if errors.As(err, &pe) && secretKey(pe.LastKey) {
		if pe.Message == "Key '"+pe.LastKey+"' has already been defined." {
			// The parser's message names the key only.
			return c, fmt.Errorf("couldn't read config %s: line %d, %s: given twice (once only)", path, pe.Position.Line, pe.LastKey)
		}
		// The parser quotes what it found: an operator may have typed
		// the secret itself where its file's path belongs.
		return c, fmt.Errorf("couldn't read config %s: line %d, %s: not a quoted path (what is there is not shown: it may be the secret itself)", path, pe.Position.Line, pe.LastKey)
	}
	if err != nil {
		return c, fmt.Errorf("couldn't read config %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return c, fmt.Errorf("config %s: unknown keys: %s", path, strings.Join(keys, ", "))
	}
	d := sha256.Sum256(b)
	c.fileSHA256 = d[:]
	return c, nil
}

// secretKey reports whether key, the TOML key a parse error stopped at, is
// or is in a key named as those whose value is the path of a secret
// (keys.passphrase_file, keys.pin_file), in whatever table: typed in the
// wrong table ([game] above it) or as an inline table, its value may be
// the secret all the same.
func secretKey(key string) bool {
	for _, k := range strings.Split(key, ".") {
		if k == "passphrase_file" || k == "pin_file" {
			return true
		}
	}
	return false
}

// configUse is what a config is checked for: the checks differ only by
// what the serving daemon alone reads.
type configUse int

const (
	// forServing: the daemon, Start (and ConfigFromFlags).
	forServing configUse = iota
	// forRebuild: Rebuild (and ConfigForRebuild), which opens the keys,
	// the entropy sources, the log and the stores, and no listener.
	forRebuild
)

// withDefaults fills unset fields and checks the rest, for the serving
// daemon. It has no side effect: a config it refuses has changed nothing.
// Errors name the TOML key.
func (c Config) withDefaults() (Config, error) { return c.checkFor(forServing) }

// checkFor is withDefaults for a use. A rebuild's check is the daemon's,
// but for the game servers' TLS files (grpc.cert_file, key_file,
// client_ca_file), which only the game servers' and auditors' listeners
// read: a rebuild may leave them out, in part or whole. Everything else is
// checked alike, the listeners' addresses and the admin socket included:
// they have defaults, so a rebuild's config need not name them, and one it
// names wrongly is a config rngd would refuse, which a rebuild should not
// pass over in silence.
func (c Config) checkFor(use configUse) (Config, error) {
	if c.DataDir == "" {
		c.DataDir = "./data"
	}
	abs, err := filepath.Abs(c.DataDir)
	if err != nil {
		return c, fmt.Errorf("config data_dir: %w", err)
	}
	c.DataDir = abs
	if c.Dev && !devBuild {
		return c, errors.New("config dev = true, but this rngd was built without dev mode (build with -tags tirage_dev, as make run does)")
	}

	if c.GRPC.Listen == "" {
		c.GRPC.Listen = "127.0.0.1:7443"
	}
	if err := checkListen("grpc.listen", c.GRPC.Listen); err != nil {
		return c, err
	}
	if c.GRPC.MaxConcurrentStreams == 0 {
		c.GRPC.MaxConcurrentStreams = 1024
	}
	for _, m := range []struct {
		key string
		n   *int
		def int
	}{{"grpc.max_connections", &c.GRPC.MaxConnections, defaultMaxConnections}, {"audit.max_connections", &c.Audit.MaxConnections, defaultAuditMaxConnections}, {"http.max_connections", &c.HTTP.MaxConnections, defaultMaxConnections}} {
		switch {
		case *m.n == 0:
			*m.n = m.def
		case *m.n < 0:
			return c, fmt.Errorf("config %s = %d: want a positive number of connections; unset: the default, %d", m.key, *m.n, m.def)
		}
	}
	if c.Dev {
		p := DevPKI{Dir: filepath.Join(c.DataDir, "dev")}
		if c.GRPC.CertFile == "" {
			c.GRPC.CertFile, c.GRPC.KeyFile = p.ServerCert(), p.ServerKey()
		}
		if c.GRPC.ClientCAFile == "" {
			c.GRPC.ClientCAFile = p.CA()
		}
	}
	if use == forServing && (c.GRPC.CertFile == "" || c.GRPC.KeyFile == "" || c.GRPC.ClientCAFile == "") {
		return c, errors.New("config grpc: cert_file, key_file and client_ca_file are required (mutual TLS)")
	}

	switch c.Audit.Listen {
	case "":
		c.Audit.Listen = "127.0.0.1:7444"
	case "off":
		c.Audit.Listen = ""
	}
	if c.Audit.Listen != "" {
		if err := checkListen("audit.listen", c.Audit.Listen); err != nil {
			return c, err
		}
	} else if c.Audit.ClientCAFile != "" {
		return c, errors.New("config audit.client_ca_file is set, but audit.listen is \"off\": remove audit.client_ca_file, or turn the listener on")
	}

	switch c.HTTP.Listen {
	case "":
		c.HTTP.Listen = "127.0.0.1:7480"
	case "off":
		c.HTTP.Listen = ""
	}
	if c.HTTP.Listen != "" {
		if err := checkListen("http.listen", c.HTTP.Listen); err != nil {
			return c, err
		}
	}

	if c.Admin.Socket == "" {
		c.Admin.Socket = filepath.Join(c.DataDir, "admin.sock")
	}
	if len(c.Admin.Socket) > maxSocketPath {
		return c, fmt.Errorf("config admin.socket %q: %d bytes, longer than a Unix socket path may be (%d)", c.Admin.Socket, len(c.Admin.Socket), maxSocketPath)
	}
	switch {
	case c.Admin.MaxManifestTickets == 0:
		c.Admin.MaxManifestTickets = defaultMaxManifestTickets
	case c.Admin.MaxManifestTickets > maxMaxManifestTickets:
		return c, fmt.Errorf("config admin.max_manifest_tickets = %d: at most %d (an upload is held whole while it is checked; import a larger manifest in parts); unset: the default, %d", c.Admin.MaxManifestTickets, maxMaxManifestTickets, defaultMaxManifestTickets)
	}
	if len(c.Admin.AllowedUIDs) == 0 {
		c.Admin.AllowedUIDs = []int{os.Getuid()}
	}
	overflowUID := 65534 // the kernel's default
	if b, err := os.ReadFile("/proc/sys/kernel/overflowuid"); err == nil {
		if u, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			overflowUID = u
		}
	}
	for _, u := range c.Admin.AllowedUIDs {
		if u < 0 || u > math.MaxUint32-1 {
			return c, fmt.Errorf("config admin.allowed_uids: %d is not a Unix user id", u)
		}
		if u == 65534 || u == overflowUID {
			return c, fmt.Errorf("config admin.allowed_uids: %d is the kernel's overflow uid, which the peer credentials report for every user outside rngd's user namespace: it would admit all of them; run the operators under another uid", u)
		}
	}

	if err := c.Log.check(c.Dev); err != nil {
		return c, err
	}
	if err := c.checkKeys(); err != nil {
		return c, err
	}
	if err := c.Entropy.check(c.Dev); err != nil {
		return c, err
	}

	switch c.Scheduling {
	case "":
		c.Scheduling = SchedBatch
	case SchedBatch, SchedInherit:
	default:
		return c, fmt.Errorf("config scheduling = %q: want %q (SCHED_BATCH, the default) or %q (the policy rngd was started with)", c.Scheduling, SchedBatch, SchedInherit)
	}

	if c.Game.TimeZone == "" {
		c.Game.TimeZone = "Europe/Paris"
	}
	if !calendar.ZoneName(c.Game.TimeZone) {
		// "Local", "localtime": the deadlines would follow the host's
		// zone, not the configuration's.
		return c, fmt.Errorf("config game.time_zone = %q: want an IANA time zone name such as Europe/Paris (machine-dependent or not a zone name)", c.Game.TimeZone)
	}
	if _, err := time.LoadLocation(c.Game.TimeZone); err != nil {
		return c, fmt.Errorf("config game.time_zone: %w", err)
	}
	if err := positive("game.sweep_interval", &c.Game.SweepInterval, time.Minute); err != nil {
		return c, err
	}
	if err := atMost("game.sweep_interval", c.Game.SweepInterval, maxSweepInterval, "an expiry sealed later than that after its due time fails the audit (audit.EndDelay)"); err != nil {
		return c, err
	}
	if err := positive("game.reply_retention", &c.Game.ReplyRetention, 100*24*time.Hour); err != nil {
		return c, err
	}
	switch g := c.Game.RefundGrace; {
	case g == nil:
		c.Game.RefundGrace = &Duration{defaultRefundGrace}
	case g.Duration < 0:
		return c, fmt.Errorf("config game.refund_grace = %s: want a positive duration, or 0 (expired games are sealed at their deadline: no refund after it); unset: the default, %s", g, Duration{defaultRefundGrace})
	case g.Duration > qod.MaxRefundGrace:
		return c, fmt.Errorf("config game.refund_grace = %s: at most %s, so that every refund comes within the 90 days after the emission's closure (article 5: closure + 29 days to start, 30 to play, then the grace); unset: the default, %s", g, Duration{qod.MaxRefundGrace}, Duration{defaultRefundGrace})
	}
	if least := minReplyRetention + c.Game.RefundGrace.Duration; c.Game.ReplyRetention.Duration < least {
		return c, fmt.Errorf("config game.reply_retention = %s: at least %s (31 days, longer than a game's play window, plus game.refund_grace), so that a call retried while its game can still change gets its reply, not a second call's; unset: the default, %s", c.Game.ReplyRetention, Duration{least}, Duration{100 * 24 * time.Hour})
	}

	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Clock == nil {
		c.Clock = systemClock{}
	}
	if c.Banner == nil {
		c.Banner = io.Discard
	}
	if c.Version == "" {
		c.Version = "devel"
	}
	return c, nil
}

// maxSocketPath is the longest Unix socket path (sun_path, less its NUL).
const maxSocketPath = 107

// devOrigin is dev mode's log origin; outside it log.origin is required.
const devOrigin = "tirage.fr/dev-log"

// tesseraMinCheckpointInterval is the embedded log's (tessera's POSIX
// storage's) shortest checkpoint interval.
const tesseraMinCheckpointInterval = 100 * time.Millisecond

// Bounds of log.checkpoint_timeout: shorter, a loaded disk's synced write
// would stall the log (refuse draws) for nothing; longer, records would be
// acknowledged for many minutes that no signed checkpoint commits to.
const (
	minCheckpointTimeout = time.Second
	maxCheckpointTimeout = 10 * time.Minute
)

// The embedded log's batches by default (LogConfig.BatchMaxAge, BatchMaxSize).
const (
	defaultBatchMaxAge     = time.Second
	defaultBatchMaxSize    = 16384
	defaultJournalInterval = 4 * time.Millisecond
)

// maxJournalInterval bounds log.journal_interval: a reply waits for its
// record's fsync, up to the interval longer than the fsync itself.
const maxJournalInterval = 10 * time.Millisecond

// check checks and completes the [log] table.
func (l *LogConfig) check(dev bool) error {
	if l.Backend == "" {
		l.Backend = "tessera"
	}
	switch l.Backend {
	case "tessera":
	case "trillian":
		if l.TrillianAddress == "" || l.TrillianTreeID == 0 {
			return errors.New("config log: backend trillian needs trillian_address and trillian_tree_id")
		}
		if l.TrillianTreeID < 0 {
			return fmt.Errorf("config log.trillian_tree_id = %d: want a positive tree id", l.TrillianTreeID)
		}
		host, _, err := net.SplitHostPort(l.TrillianAddress)
		if err != nil {
			return fmt.Errorf("config log.trillian_address %q: want host:port (%v)", l.TrillianAddress, err)
		}
		switch {
		case l.TrillianCAFile != "" && l.TrillianPlaintext:
			return errors.New("config log.trillian_plaintext = true, but log.trillian_ca_file is set (TLS): remove one of them")
		case l.TrillianCAFile == "" && !l.TrillianPlaintext && !dev:
			// Plaintext is never a silent default: without a CA the
			// operator must say so.
			return fmt.Errorf("config log: backend trillian needs log.trillian_ca_file (TLS to %s), or log.trillian_plaintext = true for a plaintext connection to a loopback address (announced at every start)", l.TrillianAddress)
		case l.TrillianCAFile == "":
			if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
				return fmt.Errorf("config log.trillian_address %q: plaintext (log.trillian_plaintext) is allowed only to a loopback IP address; set log.trillian_ca_file", l.TrillianAddress)
			}
		}
	default:
		return fmt.Errorf("config log.backend %q: want \"tessera\" or \"trillian\"", l.Backend)
	}
	if l.Backend != "trillian" && l.TrillianPlaintext {
		return fmt.Errorf("config log.trillian_plaintext = true, but log.backend is %q: remove log.trillian_plaintext", l.Backend)
	}
	// A Trillian log named without backend = "trillian" would be ignored:
	// rngd would log to an embedded log of its own, not to that one.
	if l.Backend != "trillian" {
		for _, k := range []struct {
			key string
			set bool
		}{{"log.trillian_address", l.TrillianAddress != ""}, {"log.trillian_tree_id", l.TrillianTreeID != 0}, {"log.trillian_ca_file", l.TrillianCAFile != ""}} {
			if k.set {
				return fmt.Errorf("config %s is set, but log.backend is %q: set log.backend = \"trillian\" to use that log, or remove %s", k.key, l.Backend, k.key)
			}
		}
	}
	if l.Origin == "" {
		if !dev {
			return errors.New("config log.origin is required (the log's name in its checkpoints, e.g. \"tirage.fr/log/appliance-1\"; never change it for an existing log: one made by an older rngd without log.origin is \"" + devOrigin + "\")")
		}
		l.Origin = devOrigin
	}
	if !validOrigin(l.Origin) {
		return fmt.Errorf("config log.origin %q: want a name without spaces or '+' (e.g. \"tirage.fr/log/appliance-1\")", l.Origin)
	}
	if err := positive("log.batch_max_age", &l.BatchMaxAge, defaultBatchMaxAge); err != nil {
		return err
	}
	if l.BatchMaxSize == 0 {
		l.BatchMaxSize = defaultBatchMaxSize
	}
	if err := positive("log.journal_interval", &l.JournalInterval, defaultJournalInterval); err != nil {
		return err
	}
	if err := atMost("log.journal_interval", l.JournalInterval, maxJournalInterval, "every draw's reply may wait that much longer for its record's fsync"); err != nil {
		return err
	}
	if l.BatchMaxSize > math.MaxInt64 { // a negative TOML integer, wrapped
		return fmt.Errorf("config log.batch_max_size = %d: want a positive count", int64(l.BatchMaxSize))
	}
	if l.BatchMaxSize > tilelog.MaxBatchSize {
		return fmt.Errorf("config log.batch_max_size = %d: want at most %d records (twice a batch waits in memory)", l.BatchMaxSize, tilelog.MaxBatchSize)
	}
	if err := positive("log.checkpoint_interval", &l.CheckpointInterval, 100*time.Millisecond); err != nil {
		return err
	}
	if err := atMost("log.checkpoint_interval", l.CheckpointInterval, maxCheckpointTimeout/10, "the default log.checkpoint_timeout, 10 × the interval, would pass its own bound ("+Duration{maxCheckpointTimeout}.String()+"), and receipts would wait that long for their checkpoint"); err != nil {
		return err
	}
	if err := positive("log.trillian_append_timeout", &l.TrillianAppendTimeout, trillian.DefaultAppendTimeout); err != nil {
		return err
	}
	if err := atMost("log.trillian_append_timeout", l.TrillianAppendTimeout, maxTrillianAppendTimeout, "a record logged that much after its time, twice, would fail the audit's check of record times against log order (audit.MaxTimeSkew)"); err != nil {
		return err
	}
	if l.Backend == "tessera" && l.CheckpointInterval.Duration < tesseraMinCheckpointInterval {
		return fmt.Errorf("config log.checkpoint_interval = %s: the embedded log's shortest is %s", l.CheckpointInterval, tesseraMinCheckpointInterval)
	}
	if t := l.CheckpointTimeout.Duration; t != 0 {
		switch {
		case l.Backend != "tessera":
			return fmt.Errorf("config log.checkpoint_timeout = %s: it bounds the embedded log's checkpoints, but log.backend is %q (log.trillian_append_timeout bounds Trillian's): remove it", l.CheckpointTimeout, l.Backend)
		case t < minCheckpointTimeout || t > maxCheckpointTimeout:
			return fmt.Errorf("config log.checkpoint_timeout = %s: want %s to %s (0 or unset: the default, 10 × log.checkpoint_interval and at least 10s)", l.CheckpointTimeout, Duration{minCheckpointTimeout}, Duration{maxCheckpointTimeout})
		case t < 3*l.CheckpointInterval.Duration:
			// The log publishes at most one checkpoint per interval, its
			// watcher samples the tree every half interval, and signing
			// takes time too: under 3 intervals a checkpoint merely late
			// would stall the log.
			return fmt.Errorf("config log.checkpoint_timeout = %s: want at least 3 × log.checkpoint_interval (%s): a checkpoint merely late would stall the log", l.CheckpointTimeout, l.CheckpointInterval)
		}
	}
	if err := l.checkWitnesses(); err != nil {
		return err
	}
	if l.ReceiptWait.Duration < 0 {
		return fmt.Errorf("config log.receipt_wait = %s: want a positive duration, or 0 (replies do not wait)", l.ReceiptWait)
	}
	return nil
}

// checkWitnesses reads and checks log.witness_policy and
// log.witness_timeout.
func (l *LogConfig) checkWitnesses() error {
	if l.WitnessPolicy == "" {
		if l.WitnessTimeout.Duration != 0 {
			return fmt.Errorf("config log.witness_timeout = %s, but no log.witness_policy: remove it, or name the witnesses", l.WitnessTimeout)
		}
		return nil
	}
	// Half of the wait a checkpoint's lateness is bounded by: a round of
	// witnesses that do not answer neither stalls the embedded log nor
	// times an append to Trillian out (an append waits for a checkpoint
	// covering its leaf).
	bound, field := l.CheckpointTimeout.Duration, "log.checkpoint_timeout"
	if bound == 0 {
		bound = tilelog.DefaultCheckpointTimeout(l.CheckpointInterval.Duration)
	}
	if l.Backend == "trillian" {
		bound, field = l.TrillianAppendTimeout.Duration, "log.trillian_append_timeout"
	}
	if l.WitnessTimeout.Duration == 0 {
		l.WitnessTimeout.Duration = transparency.DefaultWitnessTimeout
	}
	if w := l.WitnessTimeout.Duration; w < 100*time.Millisecond || 2*w > bound {
		return fmt.Errorf("config log.witness_timeout = %s: want 100ms to half of %s (%s)", l.WitnessTimeout, field, Duration{bound})
	}
	// Read with rngctl promo --witness-policy's checks: owner, mode, and
	// the directory holding it (witnesspolicy.Read).
	b, err := witnesspolicy.Read(l.WitnessPolicy)
	if err != nil {
		return fmt.Errorf("config log.witness_policy %s: %w", l.WitnessPolicy, err)
	}
	l.witnessPolicy = b
	return nil
}

// validOrigin reports whether s can name a log: a checkpoint's origin is its
// signed note's key name (golang.org/x/mod/sumdb/note: no space, no '+').
func validOrigin(s string) bool {
	return s != "" && utf8.ValidString(s) && strings.IndexFunc(s, unicode.IsSpace) < 0 && !strings.Contains(s, "+")
}

// checkKeys checks and completes the [keys] table: outside dev mode,
// software keys need keys.allow_software.
func (c *Config) checkKeys() error {
	k := &c.Keys
	if k.Backend == "" {
		k.Backend = "software"
	}
	switch k.Backend {
	case "software":
		if !c.Dev && !k.AllowSoftware {
			return errors.New("config keys.backend = \"software\" keeps the keys in files on this host: not for production. " +
				"Use keys.backend = \"pkcs11\" (an HSM), or set keys.allow_software = true to run with software keys anyway (announced at every start)")
		}
		if k.PassphraseFile == "" && !c.Dev {
			return errors.New("config keys.passphrase_file is required with keys.backend = \"software\"")
		}
	case "pkcs11":
		// keys.allow_software is the opt-in a software token (SoftHSM2,
		// whose keys are files on this host) needs: the backend tells it
		// once the token is open (openKeys).
		if k.Module == "" || k.TokenLabel == "" || k.PINFile == "" {
			return errors.New("config keys: backend pkcs11 needs keys.module, keys.token_label and keys.pin_file")
		}
	default:
		return fmt.Errorf("config keys.backend %q: want \"pkcs11\" or \"software\"", k.Backend)
	}
	if k.Sessions < 0 {
		return fmt.Errorf("config keys.sessions = %d: want a positive count (0 or unset: the default, 4)", k.Sessions)
	}
	if k.CallTimeout.Duration < 0 {
		return fmt.Errorf("config keys.call_timeout = %s: want a positive duration (0 or unset: the default, 10s)", k.CallTimeout)
	}
	if k.Dir == "" {
		k.Dir = filepath.Join(c.DataDir, "keys")
	}
	if k.VRFLabel == "" {
		k.VRFLabel = "vrf"
	}
	if k.SignerLabel == "" {
		k.SignerLabel = "log"
	}
	return nil
}

// check checks and completes the [entropy] table. A TPM simulator over TCP
// (a tpm source's address) only in dev mode: its bytes are software's, and
// anyone on the path could choose them.
func (e *EntropyConfig) check(dev bool) error {
	if len(e.Sources) == 0 {
		e.Sources = []EntropySource{{Kind: "hwrng", MinEntropy: 2}, {Kind: "getrandom"}}
	}
	physical := false
	seen := map[string]int{}
	// total sums (and credited describes) what entropy.New will credit each
	// physical source per seed (SeedBytes × 8/SampleBits × MinEntropy, with
	// its defaults); New refuses a configuration whose sources credit less
	// than the requirement together, and so does the check, before anything
	// opens.
	var credited []string
	var total float64
	for i, s := range e.Sources {
		key := fmt.Sprintf("entropy.source[%d]", i)
		bits := 0 // sample_bits, of a physical source
		switch s.Kind {
		case "hwrng", "rdseed", "tpm":
			switch s.SampleBits {
			case 0, 8:
				bits = 8
			case 1:
				bits = 1
			default:
				return fmt.Errorf("config %s.sample_bits = %d (kind %q): want 8 (each byte a sample; 0 or unset: the default) or 1 (a binary noise source: each bit a sample)", key, s.SampleBits, s.Kind)
			}
			if !(s.MinEntropy > 0 && s.MinEntropy <= float64(bits)) {
				return fmt.Errorf("config %s.min_entropy = %g (kind %q): want the declared min-entropy per %d-bit sample, 0 < min_entropy ≤ %d (sample_bits)", key, s.MinEntropy, s.Kind, bits, bits)
			}
			// The health tests the generator will run: a declaration too
			// low for its adaptive proportion test to ever fail is refused.
			if _, err := entropy.NewHealthTest(s.Kind, bits, s.MinEntropy, entropy.DefaultAlpha); err != nil {
				return fmt.Errorf("config %s.min_entropy = %g (kind %q): %w", key, s.MinEntropy, s.Kind, err)
			}
			physical = true
		case "getrandom":
			if s.MinEntropy != 0 {
				return fmt.Errorf("config %s.min_entropy: getrandom is never credited; remove min_entropy", key)
			}
			if s.SampleBits != 0 {
				return fmt.Errorf("config %s.sample_bits: getrandom is not a noise source (never credited nor health-tested); remove sample_bits", key)
			}
		case "":
			return fmt.Errorf("config %s.kind is required: \"hwrng\", \"rdseed\", \"tpm\" or \"getrandom\"", key)
		default:
			return fmt.Errorf("config %s.kind %q: want \"hwrng\", \"rdseed\", \"tpm\" or \"getrandom\"", key, s.Kind)
		}
		if s.SeedBytes < 0 || s.SeedBytes > 1<<16 {
			return fmt.Errorf("config %s.seed_bytes = %d: want 1 to 65536 raw bytes per seed (0 or unset: the default)", key, s.SeedBytes)
		}
		// A key the kind does not read would be ignored: a source other
		// than the one the operator meant would be credited.
		if s.Path != "" && s.Kind != "hwrng" && s.Kind != "tpm" {
			return fmt.Errorf("config %s.path: kind %q reads no device (path is for hwrng and tpm); remove path", key, s.Kind)
		}
		if s.Address != "" && s.Kind != "tpm" {
			return fmt.Errorf("config %s.address: kind %q has no address (address is a TPM simulator's, for tpm); remove address", key, s.Kind)
		}
		if s.Path != "" && s.Address != "" {
			return fmt.Errorf("config %s: path and address both set: a tpm is a device (path) or a simulator (address), not both", key)
		}
		device, kernel := sourcePath(s.Path)
		if kernel {
			return fmt.Errorf("config %s.path %q is the kernel's random device, a DRBG, not a noise source: credited as %s it would stand in for the hardware; mix it in with kind \"getrandom\" (never credited)", key, s.Path, s.Kind)
		}
		if s.Path != "" && !dev && !device {
			return fmt.Errorf("config %s.path %q is not a character device: a file or a pipe read as %s would be credited as physical entropy, whoever wrote it; a file as a source is for dev mode only (tests)", key, s.Path, s.Kind)
		}
		if s.Address != "" && !dev {
			return fmt.Errorf("config %s.address %q: a TPM simulator over plain TCP (swtpm) is allowed in dev mode only: its output is generated by software, and anyone on the path could choose the bytes credited as physical entropy; use the TPM's device (path, default /dev/tpmrm0)", key, s.Address)
		}
		if j, dup := seen[s.Kind]; dup {
			return fmt.Errorf("config %s.kind %q: entropy.source[%d] is already a %s source (each kind once)", key, s.Kind, j, s.Kind)
		}
		seen[s.Kind] = i
		if bits != 0 {
			// The same arithmetic as entropy.New's.
			perByte := s.MinEntropy * float64(8/bits)
			n, what := s.SeedBytes, ""
			if n == 0 {
				// Within entropy.MaxSeedBytes: the health tests' check
				// above refuses every min_entropy that would pass it.
				n, what = entropy.DefaultSeedBytes(entropy.DefaultRequiredEntropy, perByte), " (default)"
			}
			c := float64(n) * perByte
			total += c
			credited = append(credited, fmt.Sprintf("%s.seed_bytes = %d%s × %g bits per byte = %.1f", key, n, what, perByte, c))
		}
	}
	if !physical {
		return errors.New("config entropy.source: no physical source (hwrng, rdseed or tpm): getrandom is never credited, and a seed needs credited entropy")
	}
	if total < float64(entropy.DefaultRequiredEntropy) {
		return fmt.Errorf("config entropy.source: the physical sources credit %.1f bits per seed, all of them healthy, and a seed needs %d (credit = seed_bytes × 8/sample_bits × min_entropy): %s; raise seed_bytes, or remove it (the default credits %d bits from each source alone)",
			total, entropy.DefaultRequiredEntropy, strings.Join(credited, ", "), entropy.DefaultRequiredEntropy)
	}
	if e.ReseedRequests > math.MaxInt64 { // a negative TOML integer, wrapped
		return fmt.Errorf("config entropy.reseed_requests = %d: want a positive count", int64(e.ReseedRequests))
	}
	if e.ReseedRequests > drbg.ReseedLimit {
		return fmt.Errorf("config entropy.reseed_requests = %d: want at most 2^48 = %d, HMAC_DRBG's reseed interval (SP 800-90A Table 2)", e.ReseedRequests, uint64(drbg.ReseedLimit))
	}
	if err := positive("entropy.reseed_interval", &e.ReseedInterval, time.Minute); err != nil {
		return err
	}
	return positive("entropy.read_timeout", &e.ReadTimeout, 2*time.Second)
}

// sourcePath reads what an entropy source's path (symlinks followed)
// leads to: whether it is a character device, and whether that device is
// the kernel's /dev/random or /dev/urandom (1:8 or 1:9, Documentation/
// admin-guide/devices.txt). An empty path or one that cannot be read is a
// device, not the kernel's: it is left to the source's open.
func sourcePath(path string) (device, kernelRNG bool) {
	var st unix.Stat_t
	if path == "" || unix.Stat(path, &st) != nil {
		return true, false
	}
	if st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return false, false
	}
	minor := unix.Minor(st.Rdev)
	return true, unix.Major(st.Rdev) == 1 && (minor == 8 || minor == 9)
}

// positive sets an unset duration to its default and refuses a negative one.
func positive(key string, d *Duration, def time.Duration) error {
	switch {
	case d.Duration < 0:
		return fmt.Errorf("config %s = %s: want a positive duration (0 or unset: the default, %s)", key, d, Duration{def})
	case d.Duration == 0:
		d.Duration = def
	}
	return nil
}

// atMost refuses a duration setting above max, saying why.
func atMost(key string, d Duration, max time.Duration, why string) error {
	if d.Duration > max {
		return fmt.Errorf("config %s = %s: at most %s: %s", key, d, Duration{max}, why)
	}
	return nil
}

// checkListen checks a host:port listen address.
func checkListen(key, addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("config %s %q: want host:port (%v)", key, addr, err)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("config %s %q: bad port %q", key, addr, port)
	}
	return nil
}

// ConfigFromFlags is the config rngd's flags select: the file at path (if
// any), with dev mode forced on by dev. With neither, the secure defaults
// apply and the certificates and keys must be named in a file. The config
// is checked whole, as Start checks it: an error here is a usage error
// (cmd/rngd exits 2) and nothing has been created or changed.
func ConfigFromFlags(path string, dev bool) (Config, error) {
	return configFrom(path, dev, forServing)
}

// ConfigForRebuild is the config of a rebuild (Rebuild, rngctl state
// rebuild): the file at path (if any), with dev mode forced on by dev,
// checked as ConfigFromFlags checks it, with one difference: the game
// servers' TLS files (grpc.cert_file, key_file and client_ca_file), which a
// rebuild never reads, may be left out. An unknown key, a bad value, dev
// mode in a binary built without it: all are refused as rngd refuses them,
// naming the file and the key. As with ConfigFromFlags, the config returned
// is the one read, not completed: Rebuild fills in its defaults. A config
// without the TLS files is refused by Start.
func ConfigForRebuild(path string, dev bool) (Config, error) {
	return configFrom(path, dev, forRebuild)
}

// configFrom is ConfigFromFlags, for a use.
func configFrom(path string, dev bool, use configUse) (Config, error) {
	var c Config
	if dev && !devBuild {
		// Named before the file is read: the file need not say dev = true.
		return c, errors.New("--dev: this rngd was built without dev mode (build with -tags tirage_dev, as make run does)")
	}
	if path != "" {
		var err error
		if c, err = LoadConfig(path); err != nil {
			return c, err
		}
	} else {
		d := sha256.Sum256(nil) // no file: the defaults, as an empty file gives them
		c.fileSHA256 = d[:]
	}
	if dev {
		c.Dev = true
	}
	c.Version = Version()
	if _, err := c.checkFor(use); err != nil {
		if path != "" {
			err = fmt.Errorf("%s: %w", path, err)
		}
		return c, err
	}
	return c, nil
}

// Version is the module version of the running binary ("devel" for a
// source build), with the VCS revision when known.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	for _, s := range bi.Settings {
		// A pseudo-version already names the commit (…-4731df51e04a).
		if s.Key == "vcs.revision" && len(s.Value) >= 12 && !strings.Contains(v, s.Value[:12]) {
			v += "+" + s.Value[:12]
		}
	}
	return v
}
