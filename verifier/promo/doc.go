// Package promo is the pure core of promotions: operations like Bonus
// Crescendo (docs/promotions.md), from the rules file to the verification of
// a draw certificate. It does no I/O of its own (ReadShareLine reads the
// reader it is given); rngd/promo feeds it files, the log and the keys, and
// rngverify runs the same checks offline.
//
// # API
//
//	r, err := promo.ParseRules(yaml)               // errors: []*RulesError, each with line and field
//	t := promo.NewTally(r)                         // totals per account per participation day
//	s, err := promo.ParseStake(fields)             // one row; *FieldError names the field
//	why, err := t.Add(line, &s)                    // Counts, an Exclusion, or *DuplicateError
//	el := t.Eligibility(closed)                    // participants, e-credits, entrants per draw
//	el.ECredits(func(promo.ECredit) error)         // the e-credit report, by day then account
//	list := &promo.EntrantList{Draw, Key, Accounts} // canonical list + freeze key K
//	tree, err := list.Tree()                       // salted RFC 6962 leaves, root, inclusion proofs
//	c := promo.ShareCommitment(draw, share)        // the bailiff's, before the freeze (with a beacon)
//	f, err := promo.NewFreeze(promo.FreezeInput{…}) // record.PromoFreeze: root, count, H(r), rules hash, c
//	d, err := (&promo.Ceremony{…}).Run()           // record.PromoDraw: α, VRF, ranked winner + reserves
//	c, err := promo.NewCertificate(promo.CertificateInput{…})
//	v, err := promo.Verify(certJSON, list|nil, promo.Anchors{…}) // *CheckError names the failed check
//	fv, err := promo.VerifyFreezeReceipt(receiptJSON, list|nil, promo.Anchors{…}) // the bailiff's freeze receipt
//
// # Days
//
// A participation day is a calendar date in the rules' time zone
// (time.LoadLocation, with tzdata embedded): a stake counts for the day its
// instant falls in there, so days last 23 or 25 hours around daylight-saving
// changes, and 23:59:59 and 00:00:00 fall on different days whatever offset
// the file writes them with.
//
// # Specification
//
// The entrant commitments are specified at EntrantData, the draw's steps at
// the top of ceremony.go (freeze, share, α, VRF, ranked picks), the dates
// of a freeze and a ceremony at the top of schedule.go, the certificate and
// the order of its checks at Certificate and Verify, the freeze receipt's
// at FreezeReceipt and VerifyFreezeReceipt. The
// records and α are those of verifier/record; the ranked sample is
// verifier/draw's RankedSample on the stream of β labelled "promo".
package promo
