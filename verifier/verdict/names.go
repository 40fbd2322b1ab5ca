package verdict

// Check names shared by every kind of material. A verdict names its checks
// with these so that people, scripts and the browser page read one
// vocabulary; promotion certificates add the names of package promo
// (certificate-format, freeze-record, …), catalogued here too.
const (
	CheckFormat     = "format"               // the file is a known document of a supported version
	CheckRecord     = "record"               // every record is a canonical version-1 leaf of the expected kind
	CheckVRFKey     = "vrf-key"              // the VRF key is one the verifier was told to trust
	CheckLogKey     = "log-key"              // the log key is one the verifier was told to trust
	CheckSignature  = "checkpoint-signature" // the checkpoint is signed by a trusted log key
	CheckInclusion  = "inclusion"            // the records are in the signed tree, at their index
	CheckConsistent = "log-consistency"      // the log only grew since the last trusted checkpoint
	CheckAlpha      = "alpha"                // the VRF input α is the one of this record
	CheckVRFProof   = "vrf-proof"            // every VRF proof verifies and gives the recorded β
	CheckOutcome    = "outcome"              // every outcome is the one β gives under the rules
	CheckChain      = "chain"                // the records link by hash, in order, none missing
	CheckCommitment = "commitment"           // the revealed r opens the commitment H(r)
	CheckRules      = "rules"                // the game's events follow the rules (state machine replay)
	CheckEntries    = "entries"              // every log entry matches the authenticated tree
	CheckGames      = "games"                // every game in the log verifies (audit)
	CheckPromotions = "promotions"           // every promotion draw in the log verifies (audit)
	CheckStatistics = "statistics"           // observed frequencies agree with the exact probabilities
	CheckReceipt    = "receipt"              // one receipt of a GetReceipts reply verifies (its own verdict: Verdict.Parts)
	// CheckWitness: the checkpoint carries valid cosignatures of the
	// quorum of the witnesses given (rngverify --witness).
	CheckWitness = "witness-cosignatures"
	// CheckWitnessedBeforeBeacon: the checkpoint that includes a freeze
	// announcing a beacon round was cosigned by the witnesses before the
	// round was published.
	CheckWitnessedBeforeBeacon = "witnessed-before-beacon"
)

type text struct{ en, fr string }

// titles: a short title and a plain explanation, for people.
var titles = map[string][2]text{
	CheckFormat: {{"document format", "format du document"},
		{"The file is a Tirage document of a version this verifier reads.", "Le fichier est un document Tirage d'une version que ce vérificateur sait lire."}},
	CheckRecord: {{"records", "enregistrements"},
		{"Each record is written in the one canonical form, so nobody can have two versions of it.", "Chaque enregistrement est écrit sous son unique forme canonique : personne ne peut en avoir deux versions."}},
	CheckVRFKey: {{"draw key trusted", "clé de tirage de confiance"},
		{"The key that proves the draws is one you gave (file or pinned fingerprint), not one taken on the file's word.", "La clé qui prouve les tirages est celle que vous avez fournie (fichier ou empreinte épinglée), pas celle que le fichier affirme."}},
	CheckLogKey: {{"log key trusted", "clé du journal de confiance"},
		{"The key that signs the log is one you gave (file, pinned fingerprint or trust on first use).", "La clé qui signe le journal est celle que vous avez fournie (fichier, empreinte épinglée ou confiance à la première utilisation)."}},
	CheckSignature: {{"checkpoint signature", "signature du point de contrôle"},
		{"The log's checkpoint (its size and root hash) is signed by the trusted log key.", "Le point de contrôle du journal (taille et empreinte racine) est signé par la clé de confiance du journal."}},
	CheckInclusion: {{"in the log", "présent dans le journal"},
		{"A Merkle proof shows that each record is in the signed log at its position: it was sealed and cannot be removed unseen.", "Une preuve de Merkle montre que chaque enregistrement figure dans le journal signé à sa position : il est scellé et ne peut être retiré sans que cela se voie."}},
	CheckConsistent: {{"log consistency", "cohérence du journal"},
		{"The log only grew since the last checkpoint this verifier trusted: nothing was rewritten, there is no second version of it.", "Le journal n'a fait que croître depuis le dernier point de contrôle accepté : rien n'a été réécrit, il n'en existe pas de seconde version."}},
	CheckAlpha: {{"draw input", "entrée du tirage"},
		{"The input of the random function is built from this record (game, pick, number, secret), so the draw cannot be reused or replayed.", "L'entrée de la fonction aléatoire est construite à partir de cet enregistrement (partie, choix, numéro, secret) : le tirage ne peut être réutilisé ni rejoué."}},
	CheckVRFProof: {{"draw proofs", "preuves des tirages"},
		{"Each random value comes with a proof (RFC 9381 VRF) that only the appliance's key could produce, and only that value.", "Chaque valeur aléatoire est accompagnée d'une preuve (VRF, RFC 9381) que seule la clé de l'appareil peut produire, et pour cette seule valeur."}},
	CheckOutcome: {{"outcomes", "résultats"},
		{"Each outcome (multipliers, good or losing number) is recomputed from the proven random value with the exact probabilities of the rules.", "Chaque résultat (multiplicateurs, numéro gagnant ou perdant) est recalculé à partir de la valeur aléatoire prouvée, avec les probabilités exactes du règlement."}},
	CheckChain: {{"record chain", "chaîne des enregistrements"},
		{"Each record names the previous one of the game by its hash: none was dropped, added or reordered.", "Chaque enregistrement désigne le précédent de la partie par son empreinte : aucun n'a été retiré, ajouté ni déplacé."}},
	CheckCommitment: {{"secret commitment", "engagement sur le secret"},
		{"The secret revealed at the end is the one committed to at the start, so it was not chosen afterwards.", "Le secret révélé à la fin est celui sur lequel l'appareil s'était engagé au début : il n'a pas été choisi après coup."}},
	CheckRules: {{"game rules", "règles du jeu"},
		{"Replaying the game step by step follows the rules: tiers, decisions, amounts, deadlines and the final result.", "Rejouer la partie pas à pas respecte le règlement : paliers, décisions, montants, délais et résultat final."}},
	CheckEntries: {{"log entries", "entrées du journal"},
		{"Every entry read from the log matches the signed tree.", "Chaque entrée lue dans le journal correspond à l'arbre signé."}},
	CheckGames: {{"games", "parties"},
		{"Every game in the log was replayed and verified.", "Chaque partie du journal a été rejouée et vérifiée."}},
	CheckPromotions: {{"promotion draws", "tirages promotionnels"},
		{"Every promotion draw in the log was verified against its freeze.", "Chaque tirage promotionnel du journal a été vérifié par rapport à son gel."}},
	CheckStatistics: {{"statistics", "statistiques"},
		{"Observed frequencies agree with the exact probabilities of the rules.", "Les fréquences observées concordent avec les probabilités exactes du règlement."}},
	CheckWitness: {{"witness cosignatures", "cosignatures des témoins"},
		{"Independent witnesses you named saw this checkpoint and cosigned it, each at a time it states: the log showed them, too, this history.", "Des témoins indépendants que vous avez désignés ont vu ce point de contrôle et l'ont cosigné, chacun à une heure qu'il indique : le journal leur a montré, à eux aussi, cet historique."}},
	CheckWitnessedBeforeBeacon: {{"freeze witnessed before the beacon", "gel vu par les témoins avant la balise"},
		{"The witnesses cosigned a checkpoint including the freeze before the beacon round was published: the entrants and the bailiff's share commitment were fixed before anyone knew the beacon, on the witnesses' clocks, not only the appliance's.", "Les témoins ont cosigné un point de contrôle incluant le gel avant la publication de la manche de la balise : les participants et l'engagement sur la part de l'huissier étaient fixés avant que quiconque connaisse la balise, selon l'horloge des témoins et pas seulement celle de l'appareil."}},
	CheckReceipt: {{"receipt", "reçu"},
		{"One receipt of the reply, verified on its own: its checks are listed in its own verdict.", "Un reçu de la réponse, vérifié à part : ses vérifications figurent dans son propre verdict."}},

	// Promotion certificates (package promo).
	"certificate-format": {{"certificate format", "format du certificat"},
		{"The file is a promotion certificate this verifier reads.", "Le fichier est un certificat de tirage promotionnel lisible par ce vérificateur."}},
	"pinned-keys": {{"keys", "clés"},
		{"The draw key is the one announced in the log and, if you pinned one, the one you pinned.", "La clé de tirage est celle annoncée dans le journal et, si vous en avez épinglé une, celle-là."}},
	"freeze-record": {{"freeze record", "enregistrement du gel"},
		{"The record freezing the entrant list is well formed.", "L'enregistrement qui gèle la liste des participants est bien formé."}},
	"freeze-inclusion": {{"freeze in the log", "gel présent dans le journal"},
		{"The freeze record is in the signed log.", "L'enregistrement du gel figure dans le journal signé."}},
	"draw-record": {{"draw record", "enregistrement du tirage"},
		{"The record of the draw is well formed.", "L'enregistrement du tirage est bien formé."}},
	"draw-inclusion": {{"draw in the log", "tirage présent dans le journal"},
		{"The draw record is in the signed log.", "L'enregistrement du tirage figure dans le journal signé."}},
	"rules-hash": {{"rules", "règlement"},
		{"The draw was made under the rules file that was frozen.", "Le tirage a été fait selon le règlement qui avait été gelé."}},
	"freeze-draw-link": {{"freeze then draw", "gel puis tirage"},
		{"The draw is the draw of this freeze, logged after it, with the same list.", "Le tirage est bien celui de ce gel, journalisé après lui, sur la même liste."}},
	"draw-dates": {{"dates", "dates"},
		{"The entrant list was frozen once the participation period was over, and the ceremony held between the draw's date and its latest date, as the rules given set them, by the times sealed in the log.", "La liste des participants a été gelée une fois la période de participation terminée, et la cérémonie tenue entre la date du tirage et sa date limite, telles que les fixe le règlement fourni, selon les heures scellées dans le journal."}},
	"bailiff-share": {{"bailiff's share", "contribution de l'huissier"},
		{"The bailiff's contribution entered at the ceremony is in the draw.", "La contribution saisie par l'huissier lors de la cérémonie entre dans le tirage."}},
	"share-commitment": {{"bailiff's share committed", "contribution de l'huissier engagée"},
		{"The bailiff's share opens the commitment logged at the freeze, before the beacon round was published: it was not chosen once the round was known.", "La contribution de l'huissier ouvre l'engagement journalisé lors du gel, avant la publication de la ronde de la balise : elle n'a pas été choisie une fois la ronde connue."}},
	"beacon-signature": {{"public beacon", "balise publique d'aléa"},
		{"The public beacon value bound into the draw is the one of the drand round announced at the freeze, signed by that beacon.", "La valeur de la balise publique d'aléa intégrée au tirage est celle de la ronde drand annoncée lors du gel, signée par cette balise."}},
	"ranked-picks": {{"winners and reserves", "gagnants et suppléants"},
		{"Winners and reserves are exactly those the proven random value designates.", "Gagnants et suppléants sont exactement ceux que désigne la valeur aléatoire prouvée."}},
	"pick-inclusion": {{"winners in the list", "gagnants dans la liste"},
		{"Each winner and reserve is an entrant of the frozen list.", "Chaque gagnant et suppléant est un participant de la liste gelée."}},
	"entrant-list": {{"entrant list", "liste des participants"},
		{"The entrant list given is the list of this draw, in canonical form.", "La liste des participants fournie est celle de ce tirage, sous forme canonique."}},
	"entrant-root": {{"entrant list frozen", "liste gelée"},
		{"The entrant list hashes to the root and count frozen before the draw.", "La liste des participants donne la racine et le nombre gelés avant le tirage."}},

	// Entrant proofs (promo.VerifyEntrantProof).
	"entrant-scheme": {{"entrant commitments", "engagement des participants"},
		{"The freeze commits each entrant under scheme 2, which gives every entrant an opening of their own: one entry can be proven without revealing any other.", "Le gel engage chaque participant selon le schéma 2, qui donne à chacun une ouverture propre : une participation se prouve sans en révéler aucune autre."}},
	"entrant-inclusion": {{"account in the list", "compte dans la liste"},
		{"The account's leaf, recomputed from the account and its opening, is in the entrant list frozen before the draw.", "La feuille du compte, recalculée à partir du compte et de son ouverture, figure dans la liste des participants gelée avant le tirage."}},
	// Freeze receipts (promo.VerifyFreezeReceipt).
	"receipt-fields": {{"receipt matches the log", "reçu conforme au journal"},
		{"What the freeze receipt shows (count, root, commitment, reserves, beacon, share commitment, time, rules, leaf hash) is what the logged freeze record says.", "Ce qu'affiche le reçu de gel (nombre, racine, engagement, suppléants, balise, engagement sur la contribution, heure, règlement, empreinte de la feuille) est ce que dit l'enregistrement du gel journalisé."}},
	"entrants-sha256": {{"entrant list file", "fichier de la liste"},
		{"The entrant list given is the very file whose SHA-256 the freeze receipt gives.", "La liste des participants fournie est exactement le fichier dont le reçu de gel donne le SHA-256."}},
	"freeze-inputs": {{"input files bound", "fichiers d'entrée engagés"},
		{"The stake and closed-accounts files the receipt lists (their SHA-256s, in order) are those the logged freeze record binds: the appliance committed to these files at the freeze (that the list is what they give is entrants-recomputed).", "Les fichiers de mises et des comptes clos que liste le reçu (leurs SHA-256, dans l'ordre) sont ceux qu'engage l'enregistrement du gel journalisé : l'appareil s'est engagé sur ces fichiers lors du gel (que la liste soit celle qu'ils donnent relève de entrants-recomputed)."}},
	"entrants-recomputed": {{"entrants recomputed", "participants recalculés"},
		{"The entrant list recomputed from the input files given, under the frozen rules and with the code the appliance froze with, is the frozen list: nobody was left out of it or added to it, but for the rows the reader rejects (malformed or duplicate; the facts count them).", "La liste des participants recalculée à partir des fichiers d'entrée fournis, selon le règlement gelé et avec le code avec lequel l'appareil a gelé, est la liste gelée : personne n'en a été retiré ni ajouté, hormis par les lignes que le lecteur rejette (mal formées ou en double ; les faits les comptent)."}},
	"input-files": {{"input files given", "fichiers d'entrée fournis"},
		{"The stake and closed-accounts files you were given are, byte for byte, the files the freeze binds: the operator cannot have swapped or edited them since the freeze. That they are complete is not proven: compare them with a source you trust.", "Les fichiers de mises et des comptes clos qui vous ont été fournis sont, octet pour octet, ceux qu'engage le gel : l'exploitant ne peut les avoir remplacés ni modifiés depuis le gel. Qu'ils soient complets n'est pas prouvé : comparez-les à une source de confiance."}},

	// Attestations (rngverify attestation, docs/attestations.md; "attestations": rngverify audit).
	"envelope": {{"envelope", "enveloppe"},
		{"The record embeds a DSSE envelope of an in-toto statement, read strictly.", "L'enregistrement contient une enveloppe DSSE d'une déclaration in-toto, lue strictement."}},
	"attestation-key": {{"attestation key", "clé d'attestation"},
		{"The envelope is signed by a key the appliance announced for attestations (and pinned, if you pinned one).", "L'enveloppe est signée par une clé que l'appareil a annoncée pour les attestations (et épinglée, si vous en avez épinglé une)."}},
	"attestation-signature": {{"attestation signature", "signature de l'attestation"},
		{"The DSSE signature verifies under that key: the appliance said what the statement says.", "La signature DSSE se vérifie sous cette clé : l'appareil a bien dit ce que dit la déclaration."}},
	"statement": {{"statement", "déclaration"},
		{"The signed payload is a canonical in-toto statement of a type this verifier reads.", "Le contenu signé est une déclaration in-toto canonique d'un type que ce vérificateur sait lire."}},
	"predicate": {{"what is attested", "contenu attesté"},
		{"Paytable: every figure is the one the game's rules give; build: the statement is well formed.", "Barème : chaque chiffre est celui que donne le règlement du jeu ; version : la déclaration est bien formée."}},
	"build-keys": {{"build keys", "clés de la version"},
		{"Every key the build attestation lists is announced, with its use and fingerprint.", "Chaque clé que cite l'attestation de version est annoncée, avec son usage et son empreinte."}},
	"config-digest": {{"configuration file", "fichier de configuration"},
		{"The configuration file given has the SHA-256 the build attestation gives.", "Le fichier de configuration fourni a le SHA-256 que donne l'attestation de version."}},
	"binary-digest": {{"executable", "exécutable"},
		{"The rngd executable given has the SHA-256 the build attestation gives.", "L'exécutable rngd fourni a le SHA-256 que donne l'attestation de version."}},
	"attestations": {{"attestations", "attestations"},
		{"Every attestation in the log is signed by an announced attestation key and says what the rules give.", "Chaque attestation du journal est signée par une clé d'attestation annoncée et dit ce que donne le règlement."}},
}

// Title is the short title of a check in lang ("fr" or "en"); the name itself
// when the check is not catalogued.
func Title(name, lang string) string {
	t, ok := titles[name]
	if !ok {
		return name
	}
	if lang == "fr" {
		return t[0].fr
	}
	return t[0].en
}

// Explanation is a plain one-sentence explanation of what a check establishes.
func Explanation(name, lang string) string {
	t, ok := titles[name]
	if !ok {
		return ""
	}
	if lang == "fr" {
		return t[1].fr
	}
	return t[1].en
}

// Known reports whether name is a catalogued check.
func Known(name string) bool { _, ok := titles[name]; return ok }

type language string

var words = map[string]text{
	"subject":              {"checked: ", "contrôlé : "},
	"colon":                {": ", " : "},
	"pass":                 {"PASS", "OK"},
	"fail":                 {"FAIL", "ÉCHEC"},
	"misbehaviour":         {"MISBEHAVIOUR", "MANQUEMENT"},
	"skip":                 {"skip", "—"},
	"verdict-pass":         {"VERDICT: every check passed.", "VERDICT : toutes les vérifications sont réussies."},
	"verdict-fail":         {"VERDICT: NOT VERIFIED (nothing proven either way) — failed check", "VERDICT : NON VÉRIFIÉ (rien n'est prouvé) — vérification en échec"},
	"verdict-misbehaviour": {"VERDICT: MISBEHAVIOUR PROVEN — keep these files as evidence — check", "VERDICT : MANQUEMENT PROUVÉ — conservez ces fichiers comme preuve — vérification"},
	"verdict-empty":        {"VERDICT: NOT VERIFIED — no check ran", "VERDICT : NON VÉRIFIÉ — aucune vérification n'a eu lieu"},
}

func (l language) word(k string) string {
	w, ok := words[k]
	if !ok {
		return k
	}
	if l == "fr" {
		return w.fr
	}
	return w.en
}
