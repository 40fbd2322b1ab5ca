package promo

import (
	"bufio"
	"io"
	"strconv"

	"tirage.fr/tirage/verifier/promo"
)

// ECreditHeader is the header of the e-credit report.
const ECreditHeader = "account,day,amount_cents,payment_deadline,validity_end\n"

// WriteECredits writes the e-credit report (CSV): one line per e-credit
// owed, by day then account; dates are calendar days in the rules' zone.
// It returns the number of e-credits and their total in cents.
func WriteECredits(w io.Writer, el *promo.Eligibility) (n int64, total int64, err error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := bw.WriteString(ECreditHeader); err != nil {
		return 0, 0, err
	}
	var line []byte
	err = el.ECredits(func(c promo.ECredit) error {
		n++
		total += c.AmountCents
		line = append(line[:0], c.Account...) // account ids hold no comma or quote (promo.CheckAccount)
		line = append(line, ',')
		line = append(line, c.Date...)
		line = append(line, ',')
		line = strconv.AppendInt(line, c.AmountCents, 10)
		line = append(line, ',')
		line = append(line, c.PaymentDeadline...)
		line = append(line, ',')
		line = append(line, c.ValidityEnd...)
		line = append(line, '\n')
		_, err := bw.Write(line)
		return err
	})
	if err != nil {
		return n, total, err
	}
	return n, total, bw.Flush()
}
