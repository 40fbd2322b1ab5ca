package rngd

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"
	_ "time/tzdata" // Europe/Paris without the system zoneinfo

	"github.com/BurntSushi/toml"
)

// Config is the daemon's configuration. Its TOML form is documented field by
// field here and in examples/rngd.toml; durations are Go durations ("10ms").
// Defaults are secure: a production config must name its certificates and
// keys, and dev mode must be asked for explicitly.
type Config struct {
	// DataDir holds everything the daemon keeps: the embedded log (log/),
	// the state store (state.db), the unfinished games' secrets
	// (secrets.db), the software keystore (keys/), imported
	// manifests (manifests/), the admin socket and, in dev mode, the dev PKI
	// (dev/). Default "./data".
	DataDir string `toml:"data_dir"`

	// Dev selects dev mode: dev certificates are generated into
	// DataDir/dev, software keys are created with a dev passphrase, and the
	// daemon says so loudly on start, in every health check and in the
	// tirage_dev_mode metric. Only honoured by binaries built with the
	// tirage_dev build tag (make run builds bin/rngd-dev); a production
	// binary refuses a config with dev = true.
	Dev bool `toml:"dev"`

	GRPC    GRPCConfig    `toml:"grpc"`
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
}

// GRPCConfig is the game servers' listener: mutual TLS only.
type GRPCConfig struct {
	// Listen is the address, default "127.0.0.1:7443".
	Listen string `toml:"listen"`
	// CertFile and KeyFile are the daemon's certificate and key (PEM).
	CertFile string `toml:"cert_file"`
	KeyFile  string `toml:"key_file"`
	// ClientCAFile is the CA bundle that issues game servers' client
	// certificates. A game server's identity is its certificate's first DNS
	// SAN, or its subject CN when it has none.
	ClientCAFile string `toml:"client_ca_file"`
	// MaxConcurrentStreams bounds in-flight calls per connection (default 1024).
	MaxConcurrentStreams uint32 `toml:"max_concurrent_streams"`
}

// HTTPConfig is the auditors' and operators' read listener: /metrics,
// /healthz and the log's tiles under /log/. It serves nothing secret.
type HTTPConfig struct {
	// Listen is the address, default "127.0.0.1:7480"; "off" disables it.
	Listen string `toml:"listen"`
}

// AdminConfig is the operator's listener, used by rngctl.
type AdminConfig struct {
	// Socket is the Unix socket path, default DataDir/admin.sock, created
	// with mode 0600.
	Socket string `toml:"socket"`
	// AllowedUIDs are the Unix users (kernel peer credentials) allowed to
	// call; default: only the daemon's own uid.
	AllowedUIDs []int `toml:"allowed_uids"`
}

// LogConfig selects the transparency log.
type LogConfig struct {
	// Backend is "tessera" (embedded, default, in DataDir/log) or
	// "trillian" (a Trillian v1.8 log server; one rngd per tree for now:
	// the state store follows the log it alone writes).
	Backend string `toml:"backend"`
	// TrillianAddress and TrillianTreeID select the Trillian log.
	TrillianAddress string `toml:"trillian_address"`
	TrillianTreeID  int64  `toml:"trillian_tree_id"`
	// TrillianCAFile is the CA of the log server's TLS certificate. Without
	// it the connection is plaintext, allowed only to a loopback address.
	TrillianCAFile string `toml:"trillian_ca_file"`
	// Origin is the checkpoint origin line, default "tirage.fr/dev-log".
	Origin string `toml:"origin"`
	// BatchMaxAge bounds how long a journaled record waits for its batch to
	// be integrated into the tree (default 50ms). Replies do not wait for it
	// (the append is acknowledged once journaled, see transparency/tilelog),
	// only inclusion proofs do: a fresh draw's proof exists within about
	// this age plus one checkpoint interval. Under load, batches of a whole
	// entry bundle (256 records) cost tessera less per record than the
	// partial bundles it rewrites at every flush of a shorter age: 50ms
	// instead of 10ms gave 5 % less CPU and 7 % more draws per second
	// (docs/rngd.md).
	BatchMaxAge Duration `toml:"batch_max_age"`
	// BatchMaxSize writes a batch as soon as it holds this many records
	// (default: the embedded log's, tilelog.DefaultBatchMaxSize, 1024).
	BatchMaxSize uint `toml:"batch_max_size"`
	// CheckpointInterval is how often a checkpoint is signed (default 100ms).
	CheckpointInterval Duration `toml:"checkpoint_interval"`
	// ReceiptWait, when set, makes StartGame, Pick and Decide wait up to
	// this long for a checkpoint covering their records, so that the reply's
	// receipts carry the signed checkpoint and the inclusion proofs (about
	// one checkpoint interval more latency). Default 0: replies carry the
	// log index; GetReceipts returns the proofs.
	ReceiptWait Duration `toml:"receipt_wait"`
}

// KeysConfig selects the key custody.
type KeysConfig struct {
	// Backend is "software" (an encrypted keystore in Dir; default) or
	// "pkcs11" (an HSM: Module, TokenLabel, PINFile; VRF keys are
	// RSA-FDH-VRF-SHA256 inside the token).
	Backend string `toml:"backend"`
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
	// PassphraseFile holds the keystore passphrase (never a flag; trailing
	// newline ignored). Required unless dev mode, which uses a known dev
	// passphrase.
	PassphraseFile string `toml:"passphrase_file"`
	// AnnouncementFile is the signed key announcement written by rngctl
	// keys init; rngd appends it as the log's first record. Without it rngd
	// makes the announcement itself (hsm.Announce) from the keys below.
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
	// /dev/hwrng credited with 4 bits per byte, plus getrandom(2) (mixed in,
	// never credited). A health failure refuses draws (fail closed).
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

// EntropySource is one [[entropy.source]] table.
type EntropySource struct {
	// Kind is "hwrng", "rdseed", "tpm" or "getrandom".
	Kind string `toml:"kind"`
	// Path is the device of hwrng (default /dev/hwrng) or tpm.
	Path string `toml:"path"`
	// Address is a TPM simulator's TCP command port (swtpm).
	Address string `toml:"address"`
	// MinEntropy is the declared min-entropy per raw byte, in bits (0 < H ≤ 8).
	MinEntropy float64 `toml:"min_entropy"`
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
	// ReplyRetention is how long the reply to a request id is kept for
	// retries, default 2400h (100 days: beyond the 30 days of play and the
	// 90 days of claims after closure, article 5). Older request ids are
	// forgotten: reusing one then starts a new call.
	ReplyRetention Duration `toml:"reply_retention"`
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

// LoadConfig reads a TOML config file. Unknown keys are an error (a typo must
// not silently fall back to a default).
func LoadConfig(path string) (Config, error) {
	var c Config
	md, err := toml.DecodeFile(path, &c)
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
	return c, nil
}

// withDefaults fills unset fields and checks the rest.
func (c Config) withDefaults() (Config, error) {
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
	if c.GRPC.MaxConcurrentStreams == 0 {
		c.GRPC.MaxConcurrentStreams = 1024
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
	if c.GRPC.CertFile == "" || c.GRPC.KeyFile == "" || c.GRPC.ClientCAFile == "" {
		return c, errors.New("config grpc: cert_file, key_file and client_ca_file are required (mutual TLS)")
	}
	switch c.HTTP.Listen {
	case "":
		c.HTTP.Listen = "127.0.0.1:7480"
	case "off":
		c.HTTP.Listen = ""
	}
	if c.Admin.Socket == "" {
		c.Admin.Socket = filepath.Join(c.DataDir, "admin.sock")
	}
	if len(c.Admin.AllowedUIDs) == 0 {
		c.Admin.AllowedUIDs = []int{os.Getuid()}
	}
	if c.Log.Backend == "" {
		c.Log.Backend = "tessera"
	}
	switch c.Log.Backend {
	case "tessera":
	case "trillian":
		if c.Log.TrillianAddress == "" || c.Log.TrillianTreeID == 0 {
			return c, errors.New("config log: backend trillian needs trillian_address and trillian_tree_id")
		}
		if c.Log.TrillianCAFile == "" {
			host, _, err := net.SplitHostPort(c.Log.TrillianAddress)
			if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
				return c, fmt.Errorf("config log.trillian_address %q: plaintext is allowed only on loopback; set trillian_ca_file", c.Log.TrillianAddress)
			}
		}
	default:
		return c, fmt.Errorf("config log.backend %q: want \"tessera\" or \"trillian\"", c.Log.Backend)
	}
	if c.Log.Origin == "" {
		c.Log.Origin = "tirage.fr/dev-log"
	}
	if c.Log.BatchMaxAge.Duration == 0 {
		c.Log.BatchMaxAge.Duration = 50 * time.Millisecond
	}
	if c.Log.CheckpointInterval.Duration == 0 {
		c.Log.CheckpointInterval.Duration = 100 * time.Millisecond
	}
	if c.Keys.Backend == "" {
		c.Keys.Backend = "software"
	}
	if c.Keys.Dir == "" {
		c.Keys.Dir = filepath.Join(c.DataDir, "keys")
	}
	if c.Keys.VRFLabel == "" {
		c.Keys.VRFLabel = "vrf"
	}
	if c.Keys.SignerLabel == "" {
		c.Keys.SignerLabel = "log"
	}
	if len(c.Entropy.Sources) == 0 {
		c.Entropy.Sources = []EntropySource{{Kind: "hwrng", MinEntropy: 4}, {Kind: "getrandom"}}
	}
	if c.Game.TimeZone == "" {
		c.Game.TimeZone = "Europe/Paris"
	}
	if _, err := time.LoadLocation(c.Game.TimeZone); err != nil {
		return c, fmt.Errorf("config game.time_zone: %w", err)
	}
	if c.Game.ReplyRetention.Duration == 0 {
		c.Game.ReplyRetention.Duration = 100 * 24 * time.Hour
	}
	if c.Game.SweepInterval.Duration == 0 {
		c.Game.SweepInterval.Duration = time.Minute
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

// ConfigFromFlags is the config rngd's flags select: the file at path (if
// any), with dev mode forced on by dev. With neither, the secure defaults
// apply and the certificates and keys must be named in a file.
func ConfigFromFlags(path string, dev bool) (Config, error) {
	var c Config
	if path != "" {
		var err error
		if c, err = LoadConfig(path); err != nil {
			return c, err
		}
	}
	if dev {
		c.Dev = true
	}
	c.Version = Version()
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
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += "+" + s.Value[:12]
		}
	}
	return v
}
