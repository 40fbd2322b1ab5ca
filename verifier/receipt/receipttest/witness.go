package receipttest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"tirage.fr/tirage/verifier/promo"
	"tirage.fr/tirage/verifier/record"
)

// Witness is a test witness (c2sp.org/tlog-witness): it cosigns checkpoints
// with cosignature/v1 (c2sp.org/tlog-cosignature) at the time it is told,
// written here from the spec, independently of the verifier's library.
type Witness struct {
	Name string
	// VKey is its verifier key text: Name+hex(key ID)+base64(0x04 || key).
	VKey string
	ID   uint32
	key  ed25519.PrivateKey
}

// NewWitness makes witness name's key from seed.
func NewWitness(name string, seed byte) *Witness {
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
	pub := key.Public().(ed25519.PublicKey)
	typed := append([]byte{0x04}, pub...)
	id := WitnessKeyID(name, pub)
	return &Witness{Name: name, VKey: fmt.Sprintf("%s+%08x+%s", name, id, base64.StdEncoding.EncodeToString(typed)), ID: id, key: key}
}

// WitnessKeyID is the key ID of witness name's cosignature/v1 key pub:
// SHA-256(name || 0x0A || 0x04 || pub)[:4], big endian.
func WitnessKeyID(name string, pub ed25519.PublicKey) uint32 {
	h := sha256.Sum256(append([]byte(name+"\n"), append([]byte{0x04}, pub...)...))
	return binary.BigEndian.Uint32(h[:4])
}

// Cosign returns the signed note with w's cosignature at t appended:
// Ed25519 over "cosignature/v1\ntime <t>\n" || the note's text, written as
// "— <name> base64(key ID || t (8 bytes, big endian) || signature)".
func (w *Witness) Cosign(signed []byte, t time.Time) []byte {
	text, _, ok := strings.Cut(string(signed), "\n\n")
	if !ok {
		panic("receipttest: not a signed note")
	}
	msg := "cosignature/v1\ntime " + strconv.FormatInt(t.Unix(), 10) + "\n" + text + "\n"
	sig := binary.BigEndian.AppendUint32(nil, w.ID)
	sig = binary.BigEndian.AppendUint64(sig, uint64(t.Unix()))
	sig = append(sig, ed25519.Sign(w.key, []byte(msg))...)
	return append(bytes.Clone(signed), "— "+w.Name+" "+base64.StdEncoding.EncodeToString(sig)+"\n"...)
}

// RuledFreezeReceipt is RuledCertificate's freeze (its rules' draw 1
// announcing quicknet round rulesRound, none when 0; the freeze
// announcing freezeBeacon and holding the bailiff's share commitment when
// it announces one), logged, and its receipt as the appliance hands it to
// the bailiff, with the log's checkpoint just after the freeze (a
// promo.FreezeReceipt: the entrant list is not given).
func (a *Appliance) RuledFreezeReceipt(rules []byte, rulesRound uint64, freezeBeacon string) ([]byte, error) {
	rf, err := a.ruledFreeze(rules, rulesRound, freezeBeacon)
	if err != nil {
		return nil, err
	}
	f, fl := rf.freeze, rf.leaf
	fi := a.Append(fl)
	_, rh, err := promo.FreezeRules(f)
	if err != nil {
		return nil, err
	}
	lh := record.LeafHash(fl)
	listHash := sha256.Sum256(rf.list.Format())
	rc := &promo.FreezeReceipt{V: 1, Draw: f.Draw, Title: "test", RulesHash: rh, Days: []string{"2016-06-16"}, Count: f.Count,
		Root: hex.EncodeToString(f.Root[:]), Commitment: hex.EncodeToString(f.Commit[:]), Reserves: f.Reserves, Beacon: f.Beacon,
		FrozenAt: promo.FormatTime(f.Time), Participants: int(f.Count),
		Freeze:         promo.LoggedRecord{Index: fi, Record: string(fl), Proof: a.Inclusion(fi, a.Size())},
		FreezeLeafHash: hex.EncodeToString(lh[:]), Checkpoint: string(a.Checkpoint()), LogKeys: a.LogKeys,
		EntrantsFile: hex.EncodeToString(listHash[:]), ShareCommitment: promo.ShareCommitmentHex(f)}
	return promo.FreezeReceiptJSON(rc), nil
}

// Alias returns w's key under another name: the same Ed25519 key (another
// key ID, name being hashed into it), and a cosignature line of w turned
// into alias's by anyone: a cosignature/v1 signature does not cover the
// witness's name.
func (w *Witness) Alias(name string) *Witness {
	pub := w.key.Public().(ed25519.PublicKey)
	id := WitnessKeyID(name, pub)
	typed := append([]byte{0x04}, pub...)
	return &Witness{Name: name, VKey: fmt.Sprintf("%s+%08x+%s", name, id, base64.StdEncoding.EncodeToString(typed)), ID: id, key: w.key}
}

// Relabel appends to signed, for each of from's cosignature lines, the
// same signature as alias's line (alias's name and key ID): what a
// document's editor can do without any key.
func Relabel(signed []byte, from, alias *Witness) []byte {
	out := bytes.Clone(signed)
	for _, l := range strings.Split(string(signed), "\n") {
		b64, ok := strings.CutPrefix(l, "— "+from.Name+" ")
		if !ok {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || len(raw) < 4 || binary.BigEndian.Uint32(raw) != from.ID {
			continue
		}
		binary.BigEndian.PutUint32(raw, alias.ID)
		out = append(out, "— "+alias.Name+" "+base64.StdEncoding.EncodeToString(raw)+"\n"...)
	}
	return out
}
