package verdict

// vocabulary translates the words a message takes as arguments ([Term]):
// record kinds, outcomes, game phases, trust modes and the names of facts.
// The English word is the one the records and scripts use.
var vocabulary = map[Term]text{
	// Record kinds (record.Kind).
	"key":          {"key", "annonce de clés"},
	"emission":     {"emission", "émission"},
	"manifest":     {"manifest", "manifeste de tickets"},
	"game_start":   {"game_start", "début de partie"},
	"ticket_quit":  {"ticket_quit", "renonciation à l'étape 2 (QUITTER)"},
	"pick":         {"pick", "sélection"},
	"decision":     {"decision", "décision au palier"},
	"game_end":     {"game_end", "fin de partie"},
	"promo_freeze": {"promo_freeze", "gel promotionnel"},
	"promo_draw":   {"promo_draw", "tirage promotionnel"},
	"attestation":  {"attestation", "attestation"},
	"start":        {"start", "début de partie"},

	// Outcomes of a pick (record.Outcome*).
	"good":   {"good", "bon numéro"},
	"losing": {"losing", "numéro perdant"},

	// Game phases (qod.Phase).
	"playing":  {"playing", "en cours"},
	"at-tier":  {"at-tier", "à un palier"},
	"won":      {"won", "gagnée"},
	"lost":     {"lost", "perdue"},
	"expired":  {"expired", "expirée"},
	"refunded": {"refunded", "remboursée"},

	// Roles of a freeze's input files (promo.InputStakes, InputClosed),
	// after "file" ("fichier de mises", "fichier des comptes clos").
	"stakes": {"stakes", "de mises"},
	"closed": {"closed", "des comptes clos"},

	// Trust modes (checkpoint.TrustPinned, TrustFirstUse).
	"pinned":    {"pinned", "épinglée"},
	"first-use": {"first-use", "confiance à la première utilisation"},

	// Names of facts.
	"leaf hash":               {"leaf hash", "empreinte de la feuille"},
	"log":                     {"log", "journal"},
	"vrf key":                 {"vrf key", "clé VRF"},
	"refund reason":           {"refund reason", "motif du remboursement"},
	"secret lost":             {"secret lost", "secret perdu"},
	"game":                    {"game", "partie"},
	"draw":                    {"draw", "tirage"},
	"bailiff's share":         {"bailiff's share", "contribution de l'huissier"},
	"share not committed":     {"share not committed", "contribution non engagée"},
	"inputs not bound":        {"inputs not bound", "fichiers d'entrée non engagés"},
	"certificate fingerprint": {"certificate fingerprint", "empreinte du certificat"},
	"trust":                   {"trust", "confiance"},
	"checkpoint":              {"checkpoint", "point de contrôle"},
	"records":                 {"records", "enregistrements"},
	"games":                   {"games", "parties"},
	"vrf proofs":              {"vrf proofs", "preuves VRF"},
	"throughput":              {"throughput", "débit"},
	"trust state":             {"trust state", "état de confiance"},

	// JSON value kinds (encoding/json's UnmarshalTypeError.Value).
	"number": {"number", "nombre"},
	"array":  {"array", "tableau"},
	"object": {"object", "objet"},
	"bool":   {"bool", "booléen"},
	"string": {"string", "chaîne"},

	// Why a valid stake row does not count (promo.Exclusion's String).
	"outside the participation period":                  {"outside the participation period", "hors de la période de participation"},
	"channel not counted":                               {"channel not counted", "canal non compté"},
	"game not in the day's range":                       {"game not in the day's range", "jeu hors de la gamme du jour"},
	"subscription not taken on the stake's day":         {"subscription not taken on the stake's day", "abonnement non souscrit le jour de la mise"},
	"abo+ stake not debited on the day it was recorded": {"abo+ stake not debited on the day it was recorded", "mise Abo+ non débitée le jour de son enregistrement"},
	"subscription stakes excluded":                      {"subscription stakes excluded", "mises par abonnement exclues"},
	"abo+ stakes excluded":                              {"abo+ stakes excluded", "mises Abo+ exclues"},
}
