package rngd

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"tirage.fr/tirage/verifier/qod"
)

// A game as state.db keeps it (bucket games). From format 9 it is the
// compact encoding below: about 245 bytes for a game in play, whose JSON,
// as format 8 and older wrote it (its hashes as arrays of numbers), is
// about 820. Every game in play is written again at each of its calls, and
// its JSON made a third of the pages a commit wrote per draw. A game
// stored as JSON is read as it is: its first byte is '{', never a version
// of the encoding below, and it is written again in the compact encoding
// at its next change.
//
// Encoding version 1, in order (uvarint and varint as encoding/binary
// writes them; a string or a time is its length as a uvarint, then its
// bytes; a time's bytes are time.Time's binary encoding):
//
//	version (1 byte, 1)
//	flags (1 byte): 1 HasSecret, 2 Ended, 4 the secret r follows
//	Game: ID, Emission (strings), Ticket (32 bytes), Stake (varint),
//	      Multipliers (4 varints), Amounts (4 varints), Started, Expires,
//	      Last (times), Phase (uvarint), Tier, Picks (varints),
//	      Order (30 varints), Picked (uvarint), Win, RefundAmount (varints)
//	Server (string)
//	Secret (32 bytes, when flag 4)
//	Records (uvarint), LastHash (32 bytes), LastIndex (uvarint)
//	EndedAt (time)
//
// Nothing may follow. A new field of storedGame or qod.Game needs a new
// version (TestGameEncodingRoundTrip fails until it is encoded).
const gameEncoding = 1

const (
	gameHasSecret = 1 << iota
	gameEnded
	gameSecretFollows
)

// maxGameField bounds a string or time in a stored game: an id, an emission
// or a game server's name is far shorter.
const maxGameField = 1 << 12

// getStoredGame reads game id from the store into sg, whatever sg held before.
func getStoredGame(tx *bolt.Tx, id []byte, sg *storedGame) (bool, error) {
	raw := tx.Bucket(bucketGames).Get(id)
	if raw == nil {
		return false, nil
	}
	if err := decodeGame(raw, sg); err != nil {
		return true, fmt.Errorf("corrupt %s entry %x: %w", bucketGames, id, err)
	}
	return true, nil
}

// decodeGame reads a game as the store keeps it: the compact encoding, or
// the JSON of format 8 and older. A value it refuses leaves sg zero, not
// half read.
func decodeGame(raw []byte, sg *storedGame) error {
	*sg = storedGame{}
	err := decodeGameInto(raw, sg)
	if err != nil {
		*sg = storedGame{}
	}
	return err
}

func decodeGameInto(raw []byte, sg *storedGame) error {
	if len(raw) > 0 && raw[0] == '{' {
		return json.Unmarshal(raw, sg)
	}
	d := gameDecoder{b: raw}
	if v := d.byte(); d.err == nil && v != gameEncoding {
		return fmt.Errorf("game encoding %d is not one this rngd reads (up to %d)", v, gameEncoding)
	}
	flags := d.byte()
	if flags&^(gameHasSecret|gameEnded|gameSecretFollows) != 0 {
		d.fail(fmt.Errorf("unknown flags %#x", flags))
	}
	g := &sg.Game
	g.ID, g.Emission = d.string(), d.string()
	d.hash(&g.Ticket)
	g.Stake = d.varint()
	for i := range g.Multipliers {
		g.Multipliers[i] = d.int()
	}
	for i := range g.Amounts {
		g.Amounts[i] = d.varint()
	}
	g.Started, g.Expires, g.Last = d.time(), d.time(), d.time()
	if p := d.uvarint(); p > 0xff {
		d.fail(fmt.Errorf("phase %d", p))
	} else {
		g.Phase = qod.Phase(p)
	}
	g.Tier, g.Picks = d.int(), d.int()
	for i := range g.Order {
		g.Order[i] = d.int()
	}
	if p := d.uvarint(); p > 0xffffffff {
		d.fail(fmt.Errorf("picked %#x", p))
	} else {
		g.Picked = uint32(p)
	}
	g.Win, g.RefundAmount = d.varint(), d.varint()
	sg.Server = d.string()
	sg.HasSecret, sg.Ended = flags&gameHasSecret != 0, flags&gameEnded != 0
	if flags&gameSecretFollows != 0 {
		d.hash(&sg.Secret)
	}
	if r := d.uvarint(); r > 0xffffffff {
		d.fail(fmt.Errorf("records %d", r))
	} else {
		sg.Records = uint32(r)
	}
	d.hash(&sg.LastHash)
	sg.LastIndex = d.uvarint()
	sg.EndedAt = d.time()
	if d.err == nil && len(d.b) > 0 {
		d.fail(fmt.Errorf("%d bytes after the game", len(d.b)))
	}
	return d.err
}

// appendGame appends sg in the compact encoding (see gameEncoding).
func appendGame(b []byte, sg *storedGame) ([]byte, error) {
	flags := byte(0)
	if sg.HasSecret {
		flags |= gameHasSecret
	}
	if sg.Ended {
		flags |= gameEnded
	}
	if sg.Secret != ([32]byte{}) {
		flags |= gameSecretFollows
	}
	b = append(b, gameEncoding, flags)
	g := &sg.Game
	b = appendString(appendString(b, g.ID), g.Emission)
	b = append(b, g.Ticket[:]...)
	b = binary.AppendVarint(b, g.Stake)
	for _, m := range g.Multipliers {
		b = binary.AppendVarint(b, int64(m))
	}
	for _, a := range g.Amounts {
		b = binary.AppendVarint(b, a)
	}
	var err error
	for _, t := range [...]time.Time{g.Started, g.Expires, g.Last} {
		if b, err = appendTime(b, t); err != nil {
			return nil, err
		}
	}
	b = binary.AppendUvarint(b, uint64(g.Phase))
	b = binary.AppendVarint(binary.AppendVarint(b, int64(g.Tier)), int64(g.Picks))
	for _, n := range g.Order {
		b = binary.AppendVarint(b, int64(n))
	}
	b = binary.AppendUvarint(b, uint64(g.Picked))
	b = binary.AppendVarint(binary.AppendVarint(b, g.Win), g.RefundAmount)
	b = appendString(b, sg.Server)
	if flags&gameSecretFollows != 0 {
		b = append(b, sg.Secret[:]...)
	}
	b = binary.AppendUvarint(b, uint64(sg.Records))
	b = append(b, sg.LastHash[:]...)
	b = binary.AppendUvarint(b, sg.LastIndex)
	return appendTime(b, sg.EndedAt)
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendTime(b []byte, t time.Time) ([]byte, error) {
	tb, err := t.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return append(binary.AppendUvarint(b, uint64(len(tb))), tb...), nil
}

// gameDecoder reads the compact encoding; its first error stops it, every
// later read then returns zero.
type gameDecoder struct {
	b   []byte
	err error
}

var errGameShort = errors.New("truncated")

func (d *gameDecoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
	d.b = nil
}

func (d *gameDecoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.b) {
		d.fail(errGameShort)
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *gameDecoder) byte() byte {
	if v := d.take(1); v != nil {
		return v[0]
	}
	return 0
}

func (d *gameDecoder) hash(h *[32]byte) {
	copy(h[:], d.take(32))
}

func (d *gameDecoder) uvarint() uint64 { return readVarint(d, binary.Uvarint) }

func (d *gameDecoder) varint() int64 { return readVarint(d, binary.Varint) }

// readVarint reads a uvarint or a varint with binary's read.
func readVarint[T uint64 | int64](d *gameDecoder, read func([]byte) (T, int)) T {
	if d.err != nil {
		return 0
	}
	v, n := read(d.b)
	if n <= 0 {
		d.fail(varintError(n))
		return 0
	}
	d.b = d.b[n:]
	return v
}

// varintError is why binary.Uvarint or Varint read n ≤ 0 bytes.
func varintError(n int) error {
	if n == 0 {
		return errGameShort
	}
	return errors.New("a varint overflows 64 bits")
}

func (d *gameDecoder) int() int {
	v := d.varint()
	if int64(int(v)) != v {
		d.fail(fmt.Errorf("%d overflows an int", v))
		return 0
	}
	return int(v)
}

func (d *gameDecoder) field() []byte {
	n := d.uvarint()
	if n > maxGameField {
		d.fail(fmt.Errorf("a field of %d bytes", n))
		return nil
	}
	return d.take(int(n))
}

func (d *gameDecoder) string() string { return string(d.field()) }

func (d *gameDecoder) time() time.Time {
	var t time.Time
	if b := d.field(); d.err == nil {
		if err := t.UnmarshalBinary(b); err != nil {
			d.fail(err)
		}
	}
	return t
}
