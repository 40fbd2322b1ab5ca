package drbg

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestHMACCAVP checks HMAC_DRBG against the NIST CAVP vectors in testdata
// (source and layout in the file's header).
func TestHMACCAVP(t *testing.T) {
	f, err := os.Open("testdata/hmac_drbg_sha256.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, ":")
		mode, label := fields[0], fields[1]
		var hx [][]byte
		for _, s := range fields[2:] {
			b, err := hex.DecodeString(s)
			if err != nil {
				t.Fatalf("line %d: %v", line, err)
			}
			hx = append(hx, b)
		}
		got := make([]byte, 128)
		var want []byte
		switch mode {
		case "pr":
			e := hx[0]
			if len(e) != 32+16+32+32 {
				t.Fatalf("line %d: entropy field is %d bytes", line, len(e))
			}
			d, err := NewHMAC(e[:32], e[32:48], hx[1])
			if err != nil {
				t.Fatal(err)
			}
			for i, pr := range [][]byte{e[48:80], e[80:112]} {
				if err := d.Reseed(pr, hx[2+i]); err != nil {
					t.Fatal(err)
				}
				if err := d.Generate(got, nil); err != nil {
					t.Fatal(err)
				}
			}
			want = hx[4]
		case "nopr":
			e := hx[0]
			if len(e) != 32+16+32 {
				t.Fatalf("line %d: entropy field is %d bytes", line, len(e))
			}
			d, err := NewHMAC(e[:32], e[32:48], hx[1])
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Reseed(e[48:], hx[2]); err != nil {
				t.Fatal(err)
			}
			for _, add := range hx[3:5] {
				if err := d.Generate(got, add); err != nil {
					t.Fatal(err)
				}
			}
			want = hx[5]
		case "noreseed":
			d, err := NewHMAC(hx[0], hx[1], hx[2])
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if err := d.Generate(got, nil); err != nil {
					t.Fatal(err)
				}
			}
			want = hx[3]
		default:
			t.Fatalf("line %d: unknown mode %q", line, mode)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("line %d %s %s: ReturnedBits mismatch\n got %x\nwant %x", line, mode, label, got, want)
		}
		counts[mode]++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	// The file must actually load: a parser that skips everything passes nothing.
	for _, m := range []string{"pr", "nopr", "noreseed"} {
		if counts[m] < 5 {
			t.Errorf("only %d %s vectors loaded", counts[m], m)
		}
	}
	t.Logf("vectors checked: %v", counts)
}

func TestHMACLimits(t *testing.T) {
	if _, err := NewHMAC(make([]byte, 31), nil, nil); err == nil {
		t.Error("instantiate with 31-byte entropy input accepted")
	}
	d, err := NewHMAC(make([]byte, 32), make([]byte, 16), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Reseed(make([]byte, 16), nil); err == nil {
		t.Error("reseed with 16-byte entropy input accepted")
	}
	if err := d.Generate(make([]byte, MaxRequest+1), nil); err == nil {
		t.Error("request over 2^19 bits accepted")
	}
	if err := d.Generate(make([]byte, MaxRequest), nil); err != nil {
		t.Errorf("request of exactly 2^19 bits refused: %v", err)
	}
	d.reseedCounter = ReseedLimit + 1
	if err := d.Generate(make([]byte, 32), nil); !errors.Is(err, ErrReseedRequired) {
		t.Errorf("past the reseed interval: got %v, want ErrReseedRequired", err)
	}
	if err := d.Reseed(make([]byte, 32), nil); err != nil {
		t.Fatal(err)
	}
	if err := d.Generate(make([]byte, 32), nil); err != nil {
		t.Errorf("after reseed: %v", err)
	}
	d.Wipe()
	if d.key != [32]byte{} || d.v != [32]byte{} {
		t.Error("Wipe left state behind")
	}
	if err := d.Generate(make([]byte, 32), nil); err == nil {
		t.Error("generate after Wipe accepted")
	}
}

// TestHMACGenerateErrorZeroes: whatever Generate refuses, it leaves out
// zeroed, never holding what the caller had there.
func TestHMACGenerateErrorZeroes(t *testing.T) {
	fresh := func() *HMAC {
		d, err := NewHMAC(make([]byte, 32), make([]byte, 16), nil)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, tc := range []struct {
		name string
		d    func() *HMAC
		n    int
		add  []byte
	}{
		{"after wipe", func() *HMAC { d := fresh(); d.Wipe(); return d }, 32, nil},
		{"too long", fresh, MaxRequest + 1, nil},
		{"additional input too long", fresh, 32, make([]byte, MaxInput+1)},
		{"reseed required", func() *HMAC { d := fresh(); d.reseedCounter = ReseedLimit + 1; return d }, 32, nil},
	} {
		out := bytes.Repeat([]byte{0x5a}, tc.n)
		if err := tc.d().Generate(out, tc.add); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
		if !bytes.Equal(out, make([]byte, tc.n)) {
			t.Errorf("%s: out not zeroed", tc.name)
		}
	}
}

func BenchmarkHMACGenerate(b *testing.B) {
	for _, n := range []int{32, 1024, MaxRequest} {
		b.Run(sizeName(n), func(b *testing.B) {
			d, err := NewHMAC(make([]byte, 32), make([]byte, 16), nil)
			if err != nil {
				b.Fatal(err)
			}
			out := make([]byte, n)
			b.SetBytes(int64(n))
			for b.Loop() {
				if err := d.Generate(out, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func sizeName(n int) string {
	if n >= 1<<10 {
		return strconv.Itoa(n>>10) + "KiB"
	}
	return strconv.Itoa(n) + "B"
}
