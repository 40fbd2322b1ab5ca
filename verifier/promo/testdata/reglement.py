#!/usr/bin/env python3
"""Independent re-computation of Bonus Crescendo, written from the operator's règlement alone
(art. 2.1 to 2.4, 3.2; not from the Go code or examples/bonus-crescendo.yaml): reads a stake
CSV and a closed-accounts CSV, prints each day's participants, the e-credits (amounts as exact
fractions of euros) and each draw's entrant count, and writes the e-credit report, which must
be byte for byte rngctl's:

  rngctl promo gen --rules examples/bonus-crescendo.yaml --rows 1000000 --defects --out stakes.csv --closed closed.csv
  rngctl promo eligibility --rules examples/bonus-crescendo.yaml --stakes stakes.csv --closed closed.csv --out dry-run
  python3 verifier/promo/testdata/reglement.py stakes.csv closed.csv e-credits.csv
  cmp e-credits.csv dry-run/e-credits.csv

Readings of the ambiguous points are rngctl's (docs/promotions.md): a day runs to 24:00 Paris
time; closed by the payment deadline (day + 7, that day included): no e-credit; closed by the
draw date (21 June, that day included): no entry; a closure date left empty: before everything."""
import csv, sys, re
from datetime import datetime, date, timedelta, time
from zoneinfo import ZoneInfo
from fractions import Fraction as F
P = ZoneInfo("Europe/Paris")
ILLIKO = {"illiko-grattage", "illiko-express", "illiko-action"}
LOTO = {"loto", "loto-joker-plus", "loto-multi-options", "loto-joker-plus-multi-options"}
EM = {"euromillions-my-million"}
BINGO = {"bingo-live"}
DAYS = {date(2016,6,13): (ILLIKO, F(10), F(5), None), date(2016,6,14): (BINGO, F(10), F(5), None),
        date(2016,6,15): (EM, F(10), F(5), None), date(2016,6,16): (LOTO, F(12), F(6), 1),
        date(2016,6,17): (BINGO, F(12), F(6), 2), date(2016,6,18): (ILLIKO, F(15), F(8), 3),
        date(2016,6,19): (BINGO, F(15), F(8), 4)}
DRAW_DATE = date(2016,6,21)
SUBGAMES = LOTO | EM   # art. 2.2: Loto, JOKER+ (with Loto), Euro Millions
CHANNELS = {"web", "mobile", "tablet", "app"}
RFC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")
def inst(s):
    if not RFC.match(s): raise ValueError(s)
    return datetime.fromisoformat(s.replace("Z", "+00:00"))
def pdate(t): return t.astimezone(P).date()
def start(d): return datetime.combine(d, time(0), P)
seen = set(); tot = {}
for r in csv.DictReader(open(sys.argv[1], newline="")):
    try:
        t = inst(r["time"]); cents = int(r["amount_cents"]); assert r["amount_cents"].isdigit() and cents > 0
        sub = inst(r["subscribed_at"]) if r["kind"] == "subscription" else None
        deb = inst(r["debited_at"]) if r["kind"] == "abo+" else None
    except Exception:
        continue                   # malformed: not a stake (rejected)
    if r["id"] in seen: continue   # the same transaction twice
    seen.add(r["id"])
    d = pdate(t)
    if d not in DAYS or r["channel"] not in CHANNELS or r["game"] not in DAYS[d][0]: continue
    if r["game"] in SUBGAMES:
        if sub is not None and pdate(sub) != d: continue
        if deb is not None and pdate(deb) != d: continue
    tot[(r["account"], d)] = tot.get((r["account"], d), 0) + F(cents, 100)
closed = {}
for r in csv.DictReader(open(sys.argv[2], newline="")):
    at = inst(r["closed_at"]) if r.get("closed_at") else datetime.min.replace(tzinfo=P)
    closed[r["account"]] = min(at, closed.get(r["account"], at))
credits = []; entrants = {k: set() for k in (1,2,3,4)}; part = {d: 0 for d in DAYS}
for (acct, d), s in tot.items():
    games, minimum, credit, draw = DAYS[d]
    if s < minimum: continue
    part[d] += 1
    c = closed.get(acct)
    if c is None or c >= start(d + timedelta(8)):   # valid on the payment date (<= D+7)
        credits.append((acct, d, credit))
    if draw and (c is None or c >= start(DRAW_DATE + timedelta(1))):
        entrants[draw].add(acct)
print("participants", [part[d] for d in sorted(DAYS)])
print("e-credits", len(credits), "total EUR", sum(c for _,_,c in credits))
print("entrants", [len(entrants[k]) for k in (1,2,3,4)])
with open(sys.argv[3], "w") as f:
    f.write("account,day,amount_cents,payment_deadline,validity_end\n")
    for a, d, c in sorted(credits, key=lambda x: (x[1], x[0])):
        f.write(f"{a},{d},{int(c*100)},{d+timedelta(7)},{d+timedelta(14)}\n")
