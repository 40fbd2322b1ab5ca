package audit

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"maps"
	"strings"
	"testing"

	"tirage.fr/tirage/verifier/manifest"
	"tirage.fr/tirage/verifier/qod"
)

// refRoot is the RFC 6962 Merkle tree hash of leaves (MTH, section 2.1),
// written from the RFC, not with the compact range ReadManifest uses.
func refRoot(leaves [][]byte) [32]byte {
	switch len(leaves) {
	case 0:
		return sha256.Sum256(nil)
	case 1:
		return sha256.Sum256(append([]byte{0}, leaves[0]...))
	}
	k := 1
	for k*2 < len(leaves) {
		k *= 2
	}
	l, r := refRoot(leaves[:k]), refRoot(leaves[k:])
	return sha256.Sum256(append(append([]byte{1}, l[:]...), r[:]...))
}

// refManifest reads a manifest file as the file format and rngd's import
// say, independently of ReadManifest: '#' lines and empty lines skipped,
// every other line a canonical ticket (manifest.ParseTicket), every line
// shorter than manifest.MaxLine bytes; one emission; no ticket twice; at least one.
func refManifest(b []byte) (emission string, lines [][]byte, total int64, stakes map[[32]byte]int64, ok bool) {
	stakes = map[[32]byte]int64{}
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		if len(line) >= manifest.MaxLine { // the reader's buffer holds a line and its newline
			return "", nil, 0, nil, false
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		t, err := manifest.ParseTicket(string(line))
		if err != nil {
			return "", nil, 0, nil, false
		}
		if len(lines) == 0 {
			emission = t.Emission
		}
		if _, dup := stakes[t.TicketHash]; dup || t.Emission != emission {
			return "", nil, 0, nil, false
		}
		stakes[t.TicketHash] = t.StakeCents
		total += t.StakeCents
		lines = append(lines, line)
	}
	return emission, lines, total, stakes, len(lines) > 0
}

// FuzzReadManifest: a manifest file given to rngverify audit --manifest
// (any bytes) is accepted exactly when a reference reader accepts it, with
// the same emission, count, RFC 6962 root, total and gain per ticket; a
// refusal names the file. The file written again from the tickets read,
// without comments, reads the same.
func FuzzReadManifest(f *testing.F) {
	var file strings.Builder
	file.WriteString("# a manifest\n")
	for i := range 9 {
		t := manifest.Ticket{Emission: "E1", TicketHash: sha256.Sum256(fmt.Appendf(nil, "t %d", i)), StakeCents: qod.Stakes[i%len(qod.Stakes)]}
		file.WriteString(t.Line() + "\n")
	}
	good := file.String()
	f.Add([]byte(good))
	f.Add([]byte(strings.ReplaceAll(good, "\n", "\r\n")))
	f.Add([]byte(good + strings.SplitAfter(good, "\n")[2]))                                 // a ticket twice
	f.Add([]byte(good + strings.Replace(strings.SplitAfter(good, "\n")[2], "E1", "E2", 1))) // two emissions
	f.Add([]byte("# only comments\n\n"))
	f.Add([]byte(strings.TrimSuffix(good, "\n")))
	f.Add([]byte(strings.Replace(good, ",", ",0", 1)))
	for _, n := range []int{manifest.MaxLine - 2, manifest.MaxLine - 1, manifest.MaxLine} { // lines of MaxLine-1 to MaxLine+1 bytes
		f.Add([]byte("#" + strings.Repeat("x", n) + "\n" + good))
		f.Add([]byte(good + "#" + strings.Repeat("x", n)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ReadManifest("m.csv", bytes.NewReader(b))
		emission, lines, total, stakes, ok := refManifest(b)
		if err != nil {
			if ok || m != nil || !strings.HasPrefix(err.Error(), "manifest m.csv: ") {
				t.Fatalf("%q refused (reference: %v): %v", b, ok, err)
			}
			return
		}
		if !ok {
			t.Fatalf("%q accepted, the reference refuses it", b)
		}
		if m.Name != "m.csv" || m.Emission != emission || m.Count != uint64(len(lines)) || m.Total != total || m.Root != refRoot(lines) {
			t.Fatalf("%q read as %s %s %d tickets, total %d, root %x; reference: %s %d, %d, %x",
				b, m.Name, m.Emission, m.Count, m.Total, m.Root, emission, len(lines), total, refRoot(lines))
		}
		for h, s := range stakes {
			if got, ok := m.stakeOf(h); !ok || got != s {
				t.Fatalf("ticket %x: gain %d, %v; want %d", h, got, ok, s)
			}
		}
		if len(m.stake) != len(stakes) {
			t.Fatalf("%d tickets known, want %d", len(m.stake), len(stakes))
		}
		var again bytes.Buffer
		for _, l := range lines {
			again.Write(l)
			again.WriteByte('\n')
		}
		m2, err := ReadManifest("m.csv", bufio.NewReader(&again))
		if err != nil || m2.Root != m.Root || m2.Count != m.Count || m2.Total != m.Total || m2.Emission != m.Emission || !maps.Equal(m2.stake, m.stake) {
			t.Fatalf("%q written again as %q: %+v, %v", b, again.Bytes(), m2, err)
		}
	})
}
