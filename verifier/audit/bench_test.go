package audit_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tirage.fr/tirage/verifier/audit"
	"tirage.fr/tirage/verifier/checkpoint"
	"tirage.fr/tirage/verifier/receipt/receipttest"
	"tirage.fr/tirage/verifier/vrf"
)

// benchLog is a log of 200 games (about 1,800 records) shared by the
// benchmarks, so that the audit and the raw VRF verification run over the
// very same proofs in the same run.
var benchLog = sync.OnceValues(func() (*benchData, error) {
	a, err := receipttest.New(50)
	if err != nil {
		return nil, err
	}
	d := &benchData{a: a}
	for i := range 200 {
		g, err := a.PlayGame(receipttest.Play{Game: fmt.Sprintf("g-%04d", i), StopAt: i % 5})
		if err != nil {
			return nil, err
		}
		for k, idx := range g.Indices {
			if g.Alphas[k] != nil {
				d.proofs = append(d.proofs, proofOf(a, idx, g.Alphas[k]))
			}
		}
	}
	d.files = a.Tiles()
	d.keys, err = checkpoint.ParseKeys(string(a.LogKeyFile()))
	return d, err
})

type benchData struct {
	a      *receipttest.Appliance
	files  files
	keys   []*checkpoint.Key
	proofs [][2][]byte // α, π
}

func proofOf(a *receipttest.Appliance, idx uint64, alpha []byte) [2][]byte {
	p, err := a.VRF.Prove(alpha)
	if err != nil {
		panic(err)
	}
	return [2][]byte{alpha, p}
}

// BenchmarkRawVerify is the machine's raw VRF-verify throughput on all
// cores (GOMAXPROCS goroutines), over the proofs of the benchmark log.
func BenchmarkRawVerify(b *testing.B) {
	d, err := benchLog()
	if err != nil {
		b.Fatal(err)
	}
	pk := d.a.VRF.Public()
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p := d.proofs[int(next.Add(1))%len(d.proofs)]
			if _, err := vrf.Verify(pk, p[0], p[1]); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "verifies/s")
	b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "cores")
}

// BenchmarkAudit is a full audit of the benchmark log (tiles in memory):
// entries authenticated, records parsed, every game replayed with its VRF
// proofs, statistics.
func BenchmarkAudit(b *testing.B) {
	d, err := benchLog()
	if err != nil {
		b.Fatal(err)
	}
	var res *audit.Result
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err = audit.Run(context.Background(), audit.Config{Fetch: d.files, LogKeys: d.keys, Location: d.a.Location})
		if err != nil || res.Verdict.Status() != "pass" {
			b.Fatalf("audit: %v\n%s", err, res.Verdict.Text("en"))
		}
	}
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(res.Records)*float64(b.N)/s, "records/s")
	b.ReportMetric(float64(res.Proofs)*float64(b.N)/s, "proofs/s")
}

// BenchmarkAuditVsRaw alternates, in each iteration, a raw parallel
// verification of every proof of the benchmark log and a full audit of it,
// so that both see the same machine load, and reports both throughputs and
// their ratio (the goal: audit records/s ≥ 70 % of raw verifies/s).
func BenchmarkAuditVsRaw(b *testing.B) {
	d, err := benchLog()
	if err != nil {
		b.Fatal(err)
	}
	pk := d.a.VRF.Public()
	workers := runtime.GOMAXPROCS(0)
	var rawTime, auditTime float64
	var records, proofs int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := nowSeconds()
		var wg sync.WaitGroup
		var next atomic.Int64
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					j := int(next.Add(1)) - 1
					if j >= len(d.proofs) {
						return
					}
					if _, err := vrf.Verify(pk, d.proofs[j][0], d.proofs[j][1]); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		t1 := nowSeconds()
		res, err := audit.Run(context.Background(), audit.Config{Fetch: d.files, LogKeys: d.keys, Location: d.a.Location})
		if err != nil || res.Verdict.Status() != "pass" {
			b.Fatalf("audit: %v", err)
		}
		t2 := nowSeconds()
		rawTime += t1 - t0
		auditTime += t2 - t1
		records += res.Records
		proofs += int64(res.Proofs)
	}
	raw := float64(len(d.proofs)*b.N) / rawTime
	b.ReportMetric(raw, "raw-verifies/s")
	b.ReportMetric(float64(records)/auditTime, "audit-records/s")
	b.ReportMetric(float64(proofs)/auditTime, "audit-proofs/s")
	b.ReportMetric(100*float64(records)/auditTime/raw, "records-%-of-raw")
	b.ReportMetric(100*float64(proofs)/auditTime/raw, "proofs-%-of-raw")
}

func nowSeconds() float64 { return float64(time.Now().UnixNano()) / 1e9 }
