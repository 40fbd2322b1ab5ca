package attestations

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"tirage.fr/tirage/verifier/record"
)

// The build attestation (docs/attestations.md).
const (
	BuildType    = "https://tirage.fr/attestation/build/v1"
	BuildSubject = "rngd/build"
)

// Settings are the build settings (debug.BuildSetting keys) a build
// attestation copies. Others are left out: flags such as -ldflags may carry
// anything, paths or values nobody should publish.
var Settings = []string{"-buildmode", "-compiler", "-race", "-tags", "-trimpath", "CGO_ENABLED", "GOAMD64", "GOARCH", "GOARM64", "GOEXPERIMENT", "GOOS"}

// Build is the provenance of the running daemon and the digest of its
// configuration. Members are in lexicographic order (canonical JSON).
type Build struct {
	// ConfigSHA256 is the SHA-256 of the configuration file's bytes, in
	// hex: never the configuration itself.
	ConfigSHA256 string   `json:"config_sha256"`
	Deps         []Module `json:"deps"`
	GoVersion    string   `json:"go_version"`
	// Keys are the keys the daemon runs with, as announced.
	Keys     []BuildKey `json:"keys"`
	Main     Module     `json:"main"`
	Path     string     `json:"path"` // the main package
	Settings []Setting  `json:"settings"`
	VCS      VCS        `json:"vcs"`
}

// PredicateType implements Predicate.
func (*Build) PredicateType() string { return BuildType }

// Module is a module of the build. Replace, when the module was replaced,
// is "path version" of the replacement, and Sum the replacement's.
type Module struct {
	Path    string `json:"path"`
	Replace string `json:"replace,omitempty"`
	Sum     string `json:"sum,omitempty"`
	Version string `json:"version"`
}

// BuildKey is one announced key the daemon runs with.
type BuildKey struct {
	Fingerprint string `json:"fingerprint"` // hex SHA-256 of the public key
	ID          string `json:"id"`
	Use         string `json:"use"`
}

// Setting is one build setting.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// VCS is the version control state the binary was built from (empty
// members when it was built outside a checkout or with -buildvcs=false).
type VCS struct {
	Modified bool   `json:"modified"`
	Revision string `json:"revision"`
	System   string `json:"system"`
	Time     string `json:"time"`
}

// BuildInput is what [NewBuildStatement] attests; the caller reads it.
type BuildInput struct {
	Info *debug.BuildInfo // debug.ReadBuildInfo of the running binary
	// Executable is the SHA-256 of the running binary: the subject's digest.
	Executable [32]byte
	// Config is the SHA-256 of the configuration file's bytes
	// (sha256.Sum256 of them).
	Config [32]byte
	Keys   []record.Key // the announced keys the daemon runs with
}

// NewBuildStatement is the build attestation of in: subject [BuildSubject]
// with the executable's digest.
func NewBuildStatement(in BuildInput) (*Statement, error) {
	if in.Info == nil {
		return nil, errors.New("no build information")
	}
	if in.Executable == ([32]byte{}) {
		return nil, errors.New("no executable digest")
	}
	b := &Build{
		ConfigSHA256: hex.EncodeToString(in.Config[:]),
		GoVersion:    in.Info.GoVersion,
		Main:         module(in.Info.Main),
		Path:         in.Info.Path,
		Deps:         []Module{},
		Keys:         []BuildKey{},
		Settings:     []Setting{},
	}
	for _, d := range in.Info.Deps {
		if d != nil {
			b.Deps = append(b.Deps, module(*d))
		}
	}
	for _, s := range in.Info.Settings {
		switch s.Key {
		case "vcs":
			b.VCS.System = s.Value
		case "vcs.revision":
			b.VCS.Revision = s.Value
		case "vcs.time":
			b.VCS.Time = s.Value
		case "vcs.modified":
			b.VCS.Modified = s.Value == "true"
		default:
			if slices.Contains(Settings, s.Key) {
				b.Settings = append(b.Settings, Setting{Key: s.Key, Value: s.Value})
			}
		}
	}
	for _, k := range in.Keys {
		b.Keys = append(b.Keys, BuildKey{ID: k.ID, Use: k.Use, Fingerprint: record.Hex(k.Fingerprint)})
	}
	if err := checkBuild(b); err != nil {
		return nil, err
	}
	return &Statement{Subject: []Subject{{Name: BuildSubject, SHA256: in.Executable}}, Predicate: b}, nil
}

func module(m debug.Module) Module {
	out := Module{Path: m.Path, Version: m.Version, Sum: m.Sum}
	if r := m.Replace; r != nil {
		out.Replace, out.Sum = strings.TrimSpace(r.Path+" "+r.Version), r.Sum
	}
	return out
}

// checkBuild checks a build predicate's form: there is nothing in the rules
// to recompute it from.
func checkBuild(b *Build) error {
	if !isHex32(b.ConfigSHA256) {
		return fmt.Errorf("config_sha256 %q is not 64 lower-case hex digits", b.ConfigSHA256)
	}
	if b.GoVersion == "" || b.Path == "" || b.Main.Path == "" {
		return errors.New("go_version, path and main.path are required")
	}
	if len(b.Keys) == 0 {
		return errors.New("no key")
	}
	if b.Deps == nil || b.Settings == nil {
		return errors.New("deps and settings must be arrays (empty: [])")
	}
	seen := map[string]bool{}
	for i, k := range b.Keys {
		switch {
		case k.ID == "" || k.Use == "":
			return fmt.Errorf("keys[%d]: id and use are required", i)
		case seen[k.ID]:
			return fmt.Errorf("keys[%d]: key %q listed twice", i, k.ID)
		case !isHex32(k.Fingerprint):
			return fmt.Errorf("keys[%d].fingerprint %q is not 64 lower-case hex digits", i, k.Fingerprint)
		}
		seen[k.ID] = true
	}
	for i, s := range b.Settings {
		if !slices.Contains(Settings, s.Key) {
			return fmt.Errorf("settings[%d]: %q is not a setting a build attestation carries", i, s.Key)
		}
	}
	return nil
}

func isHex32(s string) bool {
	d, err := hex.DecodeString(s)
	return err == nil && len(d) == 32 && hex.EncodeToString(d) == s
}

// CheckConfig checks that config, a configuration file's bytes, is the one
// the build attestation b names.
func CheckConfig(b *Build, config []byte) error {
	if d := sha256.Sum256(config); hex.EncodeToString(d[:]) != b.ConfigSHA256 {
		return &FigureError{Field: "config_sha256", Attested: b.ConfigSHA256, Want: hex.EncodeToString(d[:])}
	}
	return nil
}

// CheckKeys checks that every key b lists is announced in ann (checked by
// the caller) with the same use and fingerprint.
func CheckKeys(b *Build, ann *record.KeyAnnouncement) error {
	return CheckKeysIn(b, []*record.KeyAnnouncement{ann})
}

// CheckKeysIn checks that every key b lists is announced, with the same use
// and fingerprint, in one of anns (checked by the caller): each key in any
// of them, as the appliance may have announced its keys in several. A key
// none announces fails with what the last one says of it.
func CheckKeysIn(b *Build, anns []*record.KeyAnnouncement) error {
	for i, k := range b.Keys {
		err := fmt.Errorf("%w: keys[%d]: key %q is not announced", ErrBad, i, k.ID)
		for _, ann := range anns {
			if err = checkKey(i, k, ann); err == nil {
				break
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkKey checks that k, the key b.Keys[i], is announced in ann with its
// use and fingerprint.
func checkKey(i int, k BuildKey, ann *record.KeyAnnouncement) error {
	// By use and id (one id may name keys of two uses), else by id
	// alone, to name the use that differs.
	j := slices.IndexFunc(ann.Keys, func(a record.Key) bool { return a.ID == k.ID && a.Use == k.Use })
	if j < 0 {
		j = slices.IndexFunc(ann.Keys, func(a record.Key) bool { return a.ID == k.ID })
	}
	if j < 0 {
		return fmt.Errorf("%w: keys[%d]: key %q is not announced", ErrBad, i, k.ID)
	}
	a := ann.Keys[j]
	if a.Use != k.Use {
		return &FigureError{Field: fmt.Sprintf("keys[%d].use", i), Attested: k.Use, Want: a.Use}
	}
	if fp := record.Hex(a.Fingerprint); fp != k.Fingerprint {
		return &FigureError{Field: fmt.Sprintf("keys[%d].fingerprint", i), Attested: k.Fingerprint, Want: fp}
	}
	return nil
}

// Verify checks statement s against what it claims: for the paytable, every
// figure recomputed from the rules ([*FigureError] names the first that
// differs) and the subject's digest; for the build, its form. Errors wrap
// ErrBad.
func Verify(s *Statement) error {
	var err error
	switch p := s.Predicate.(type) {
	case *Paytable:
		err = verifyPaytable(s, p)
	case *Build:
		if err = checkSubject(s, BuildSubject); err == nil {
			err = checkBuild(p)
		}
	default:
		err = fmt.Errorf("%q: %w", s.Type(), ErrUnknownType)
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrBad, s.Type(), err)
	}
	return nil
}
