package hsmtest

import (
	"fmt"
	"sync/atomic"
	"testing"

	"tirage.fr/tirage/hsm"
)

// Bench benchmarks proving and signing with every key of b, serially and
// in parallel (b.RunParallel: GOMAXPROCS goroutines). Sub-benchmark names
// are "<label>/serial" and "<label>/parallel".
func Bench(b *testing.B, backend hsm.Backend) {
	keys, err := backend.Keys()
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range keys {
		var op func(alpha []byte) error
		switch k.Purpose {
		case hsm.PurposeVRF:
			p, err := backend.VRFProver(k.Label)
			if err != nil {
				b.Fatal(err)
			}
			op = func(alpha []byte) error { _, _, err := p.Prove(alpha); return err }
		case hsm.PurposeSign:
			s, err := backend.Signer(k.Label)
			if err != nil {
				b.Fatal(err)
			}
			op = func(msg []byte) error { _, err := s.Sign(msg); return err }
		}
		b.Run(k.Label+"/serial", func(b *testing.B) {
			var i int
			for b.Loop() {
				if err := op(fmt.Appendf(nil, "alpha %d", i)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run(k.Label+"/parallel", func(b *testing.B) {
			var n atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := op(fmt.Appendf(nil, "alpha %d", n.Add(1))); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
