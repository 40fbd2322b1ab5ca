package verdict

// The usage texts of rngverify's commands (rngverify COMMAND -h, in --lang),
// messages of the catalog like the others (MsgUsage*). English is what the
// commands have always printed; MsgUsageTrust takes the default state file.

const (
	usageReceiptEN = `usage: rngverify receipt FILE [trust flags] [--lang fr|en] [--json]

Checks one receipt (one sealed record, JSON "tirage/receipt"): the record is
canonical; the checkpoint is signed by the trusted log key and the record is
in its tree; for a draw, the VRF key is trusted, α binds the record (when the
receipt carries α), the proof verifies, and the outcome is the one β gives.
FILE may also be grpcurl's output of rngd's GetReceipts (every receipt in it
is checked, each with its own verdict, and the whole passes only if each
does; they must be one game's, each once, in log order) or one protobuf
Receipt as JSON. A GetReceipts reply proves each receipt in it, not that the
game's receipts are all there: rngverify game on the game's transcript does.
FILE "-" reads stdin.

`
	usageReceiptFR = `utilisation : rngverify receipt FICHIER [options de confiance] [--lang fr|en] [--json]

Vérifie un reçu (un enregistrement scellé, JSON « tirage/receipt ») :
l'enregistrement est sous forme canonique ; le point de contrôle est signé par
la clé de confiance du journal et l'enregistrement figure dans son arbre ; pour
un tirage, la clé VRF est de confiance, α est bien celui de l'enregistrement
(quand le reçu porte α), la preuve se vérifie et le résultat est celui que
donne β. FICHIER peut aussi être la sortie de grpcurl pour GetReceipts de
rngd (chaque reçu y est vérifié, avec son propre verdict, et l'ensemble n'est
réussi que si chacun l'est ; ils doivent être d'une même partie, chacun une
fois, dans l'ordre du journal) ou un Receipt protobuf en JSON. Une réponse
GetReceipts prouve chacun de ses reçus, pas que tous ceux de la partie y
sont : rngverify game sur la transcription de la partie le prouve. FICHIER
« - » lit l'entrée standard.

`
	usageGameEN = `usage: rngverify game FILE [trust flags] [--lang fr|en] [--json]

Checks a game transcript (JSON "tirage/transcript", as rngd's game server API
returns it: gRPC tirage.qod.v1.QuitteOuDouble/GetTranscript; rngdemo saves them
in data/transcripts/): every record is canonical and in the signed log; the
records link by hash in order, none missing; the r revealed at the end opens
the start's commitment; every VRF proof verifies under the trusted key; every
outcome is the one β gives; replaying the game follows the rules. A
contradiction is MISBEHAVIOUR only between records proven in the log under a
trusted log key: an edited transcript is NOT VERIFIED. FILE may be the
transcript itself or grpcurl's output of GetTranscript ({"document": "<base64>"}).
FILE "-" reads stdin.

`
	usageGameFR = `utilisation : rngverify game FICHIER [options de confiance] [--lang fr|en] [--json]

Vérifie la transcription d'une partie (JSON « tirage/transcript », telle que
la renvoie l'API des serveurs de jeu de rngd : gRPC
tirage.qod.v1.QuitteOuDouble/GetTranscript ; rngdemo les enregistre dans
data/transcripts/) : chaque enregistrement est sous forme canonique et figure
dans le journal signé ; les enregistrements se suivent par empreinte, dans
l'ordre, sans manque ; le secret r révélé à la fin correspond à l'engagement du
début ; chaque preuve VRF se vérifie sous la clé de confiance ; chaque résultat
est celui que donne β ; rejouer la partie respecte le règlement. Une
contradiction n'est un MANQUEMENT qu'entre des enregistrements dont la présence
dans le journal est prouvée sous une clé de journal de confiance : une
transcription modifiée est NON VÉRIFIÉE. FICHIER peut être la transcription
elle-même ou la sortie de grpcurl pour GetTranscript ({"document": "<base64>"}).
FICHIER « - » lit l'entrée standard.

`
	usageExitEN = `
Exit status:
  0  every check passed
  1  a check failed: "NOT VERIFIED" (nothing proven: a key, a proof is missing)
     or "MISBEHAVIOUR PROVEN" (the material contradicts itself: keep it as evidence)
  2  usage error or unreadable input (the reason on stderr, nothing on stdout)
`
	usageExitFR = `
Code de sortie :
  0  toutes les vérifications sont réussies
  1  une vérification a échoué : « NON VÉRIFIÉ » (rien n'est prouvé : il manque
     une clé, une preuve) ou « MANQUEMENT PROUVÉ » (les pièces se contredisent :
     conservez-les comme preuve)
  2  erreur d'utilisation ou fichier illisible (la raison sur la sortie d'erreur,
     rien sur la sortie standard)
`
	usageTrustEN = `Trust (never taken from the material being verified):
  --log-key FILE   the log's verifier key(s), one per line, as served at /log/vkey, or the key
                   text itself, or the log's key announcement record (JSON; checked as below) (repeatable)
  --vrf-key FILE   the VRF public key: lines "SUITE HEX" (HEX as rngverify vrf --pk takes it),
                   or the log's key announcement record (JSON): every key in it must prove
                   possession (its DSSE signatures), then its keys are all pinned (repeatable)
  --pin SHA256     pin a key by fingerprint: hex SHA-256 of the log's Ed25519 key as DER
                   SubjectPublicKeyInfo (bare, or SHA256:hex as rngctl keys show prints it),
                   or SUITE:SHA256 for a VRF public key (ECVRF-P256-SHA256-SSWU:…): a bare
                   fingerprint fixes a VRF key's bytes, not its suite, and is not enough for
                   a P-256 key (as rngd prints them) (repeatable)
  --state FILE     the trust state kept by rngverify log (default %s):
                   its log keys are trusted and its last checkpoint is compared, and the
                   witnesses it records for a log (with their quorum) are required
  --witness KEY    a witness's cosignature/v1 verifier key (c2sp.org/tlog-cosignature), or a
                   file of them, one per line (repeatable): every checkpoint checked must
                   carry their valid cosignatures (check witness-cosignatures), and a freeze
                   announcing a beacon round must be witnessed before the round is published
                   (check witnessed-before-beacon); log and audit record them in the state
                   the first time, and refuse others later
  --witness-quorum N  how many of the witnesses must cosign (1 to their number; default all)

Output:
  --lang fr|en     language of the verdict (default en)
  --json           print the verdict as JSON
  --tz ZONE        the operator's legal time zone for the game rules (default Europe/Paris)
`
	usageTrustFR = `Confiance (jamais tirée des pièces vérifiées) :
  --log-key FICHIER  la ou les clés de vérification du journal, une par ligne, telles que
                     servies à /log/vkey, ou le texte de la clé lui-même, ou l'annonce de
                     clés du journal (JSON ; vérifiée comme ci-dessous) (répétable)
  --vrf-key FICHIER  la clé publique VRF : lignes « SUITE HEX » (HEX comme le prend
                     rngverify vrf --pk), ou l'annonce de clés du journal (JSON) : chaque
                     clé doit y prouver sa possession (ses signatures DSSE), puis toutes
                     ses clés sont épinglées (répétable)
  --pin SHA256       épingler une clé par son empreinte : SHA-256 en hexadécimal de la
                     clé Ed25519 du journal en DER SubjectPublicKeyInfo (seule, ou
                     SHA256:hex comme l'affiche rngctl keys show), ou
                     SUITE:SHA256 pour une clé publique VRF (ECVRF-P256-SHA256-SSWU:…) :
                     une empreinte seule fixe les octets d'une clé VRF, pas sa suite, et
                     ne suffit pas pour une clé P-256 (telles que rngd les affiche) (répétable)
  --state FICHIER    l'état de confiance tenu par rngverify log (par défaut %s) :
                     ses clés de journal sont de confiance et son dernier point de
                     contrôle sert de comparaison, et les témoins qu'il enregistre pour un
                     journal (avec leur quorum) sont exigés
  --witness CLÉ      la clé de vérification cosignature/v1 d'un témoin
                     (c2sp.org/tlog-cosignature), ou un fichier de telles clés, une par
                     ligne (répétable) : chaque point de contrôle vérifié doit porter leurs
                     cosignatures valides (vérification witness-cosignatures), et un gel
                     annonçant une manche de balise doit avoir été vu par eux avant sa
                     publication (vérification witnessed-before-beacon) ; rngverify log et
                     audit les enregistrent dans l'état la première fois, et en refusent
                     d'autres ensuite
  --witness-quorum N combien de ces témoins doivent cosigner (de 1 à leur nombre ; tous
                     par défaut)

Sortie :
  --lang fr|en       langue du verdict (anglais par défaut)
  --json             afficher le verdict en JSON
  --tz FUSEAU        le fuseau horaire légal de l'exploitant pour le règlement du jeu
                     (Europe/Paris par défaut)
`
	usageCertificateEN = `usage: rngverify certificate FILE [--entrants LIST] [--rules FILE] [--reserves N]
                            (trust flags | --tofu) [--lang fr|en] [--json]

Re-checks a promotion draw certificate (certificate.json) offline:

  public checks     the checkpoint is signed by a trusted log key; the freeze,
                    the draw and the key announcement are in the log; the draw
                    links to the freeze and reveals the r it committed to;
                    the VRF proof is valid for α = (draw, root, count, H(r),
                    r, bailiff's share, beacon) under a trusted or announced
                    key; the winner and reserves are the ranked sample of β;
                    each pick is in the frozen list
  --entrants LIST   the bailiff's checks too: the private entrant list
                    (entrants.txt) is canonical and hashes to the frozen root
                    and count; prints the picked accounts
  --rules FILE      the operation's rules file: its SHA-256 must be the frozen
                    one, the freeze and the draw keep its dates, and the freeze
                    announced the beacon round it announces for the draw (none
                    if none): a freeze that dropped it is MISBEHAVIOUR. Only
                    the rules show whether a round was promised. Another
                    operation's rules are refused (exit 2)
  --reserves N      the number of reserves the rules require

The log's keys must be given (trust flags below: the operator's published
key files or fingerprints, or its key announcement record), or
  --tofu            trust on first use: accept the certificate's own keys and
                    print their fingerprints on stderr, to compare with the
                    operator's published ones
Without either, rngverify certificate refuses to run (exit 2).

`
	usageCertificateFR = `utilisation : rngverify certificate FICHIER [--entrants LISTE] [--rules FICHIER] [--reserves N]
                                    (options de confiance | --tofu) [--lang fr|en] [--json]

Revérifie hors ligne le certificat d'un tirage promotionnel (certificate.json) :

  vérifications publiques
                    le point de contrôle est signé par une clé de journal de
                    confiance ; le gel, le tirage et l'annonce de clés figurent
                    dans le journal ; le tirage se rattache au gel et révèle le
                    secret r sur lequel il s'était engagé ; la preuve VRF est
                    valide pour α = (tirage, racine, nombre, H(r), r,
                    contribution de l'huissier, balise publique) sous une clé de
                    confiance ou annoncée ; le gagnant et les suppléants sont
                    l'échantillon classé que donne β ; chaque désignation figure
                    dans la liste gelée
  --entrants LISTE  les vérifications de l'huissier aussi : la liste privée des
                    participants (entrants.txt) est canonique et donne la racine
                    et le nombre gelés ; affiche les comptes désignés
  --rules FICHIER   le règlement de l'opération : son SHA-256 doit être celui
                    gelé, le gel et le tirage respectent ses dates, et le gel a
                    annoncé la ronde de balise qu'il annonce pour le tirage
                    (aucune s'il n'en annonce pas) : un gel qui l'a omise est un
                    MANQUEMENT. Seul le règlement montre si une ronde était
                    promise. Le règlement d'une autre opération est refusé
                    (code 2)
  --reserves N      le nombre de suppléants qu'exige le règlement

Les clés du journal doivent être fournies (options de confiance ci-dessous :
les fichiers de clés ou empreintes publiés par l'exploitant, ou son annonce de
clés), ou bien
  --tofu            confiance à la première utilisation : accepter les propres
                    clés du certificat et afficher leurs empreintes sur la sortie
                    d'erreur, à comparer avec celles publiées par l'exploitant
Sans l'un ou l'autre, rngverify certificate refuse de s'exécuter (code 2).

`
	usageLogEN = `usage: rngverify log (--url URL | --dir DIR) [--tofu] [trust flags] [--lang fr|en] [--json]

Checks the transparency log's latest signed checkpoint and its consistency
with the last checkpoint this verifier trusted (kept in the state file), then
records it there. Two checkpoints of one size with different roots, or a log
that does not extend the trusted one, are reported as MISBEHAVIOUR (a fork).

  --url URL   the log's tile API, e.g. http://127.0.0.1:7480/log
  --dir DIR   the log's tile directory (C2SP tlog-tiles layout: DIR/checkpoint,
              DIR/tile/...), e.g. rngd's <data dir>/log/tiles
  --tofu      trust on first use: when the state file does not know the log yet
              and no --log-key or --pin is given, trust the keys the log serves
              at URL/vkey (said loudly, recorded as "first-use" in the state)

The log's keys come, in order, from the state file, --log-key files, or the
keys served at URL/vkey whose fingerprint is pinned with --pin.

`
	usageLogFR = `utilisation : rngverify log (--url URL | --dir RÉPERTOIRE) [--tofu] [options de confiance] [--lang fr|en] [--json]

Vérifie le dernier point de contrôle signé du journal de transparence et sa
cohérence avec le dernier point de contrôle accepté par ce vérificateur (tenu
dans le fichier d'état), puis l'y enregistre. Deux points de contrôle de même
taille aux racines différentes, ou un journal qui ne prolonge pas celui de
confiance, sont signalés comme MANQUEMENT (une bifurcation).

  --url URL   l'API de tuiles du journal, par exemple http://127.0.0.1:7480/log
  --dir RÉP   le répertoire de tuiles du journal (organisation C2SP tlog-tiles :
              RÉP/checkpoint, RÉP/tile/...), par exemple <données de rngd>/log/tiles
  --tofu      confiance à la première utilisation : quand le fichier d'état ne
              connaît pas encore le journal et qu'aucune option --log-key ou --pin
              n'est donnée, faire confiance aux clés que le journal sert à URL/vkey
              (annoncé haut et fort, enregistré comme « first-use » dans l'état)

Les clés du journal viennent, dans l'ordre, du fichier d'état, des fichiers
--log-key, ou des clés servies à URL/vkey dont l'empreinte est épinglée par --pin.

`
	usageAuditEN = `usage: rngverify audit (--url URL | --dir DIR) [--tofu] [--follow DURATION] [--time-skew DURATION] [--workers N] [--quiet] [--rules FILE]... [--manifest FILE]... [trust flags] [--lang fr|en] [--json]

Follows the whole log: checks the signed checkpoint and its consistency with
the state file, every entry against the signed tree, every record, every game
(chain, r commitment, VRF proofs, outcomes, rules) and promotion draw, and
compares the observed frequencies of the draws with the exact probabilities
(a progress bar goes to stderr unless --quiet). VRF keys are those announced in
the log; pin them with --pin to require them.

  --follow D    after the first pass, keep following the log: every D (e.g. 30s)
                read the new checkpoint, check that it extends the last one
                (a fork is MISBEHAVIOUR), audit the new entries; Ctrl-C stops
  --time-skew D how much earlier than a record logged before it a game record,
                emission or manifest may be timed (default 10m, 1s to 24h):
                one timed further back fails the record check
  --workers N   games verified in parallel (default: all cores)
  --quiet       no progress bar

`
	usageAuditFR = `utilisation : rngverify audit (--url URL | --dir RÉPERTOIRE) [--tofu] [--follow DURÉE] [--time-skew DURÉE] [--workers N] [--quiet] [--rules FICHIER]... [--manifest FICHIER]... [options de confiance] [--lang fr|en] [--json]

Parcourt tout le journal de transparence : vérifie le point de contrôle signé
et sa cohérence avec le fichier d'état, chaque entrée par rapport à l'arbre
signé, chaque enregistrement, chaque partie (chaîne, engagement sur r, preuves
VRF, résultats, règlement) et chaque tirage promotionnel (dont une ronde de
balise publique publiée après le gel), et compare les fréquences observées des
tirages aux probabilités exactes (une barre de progression s'affiche sur la
sortie d'erreur, sauf avec --quiet). Les clés VRF sont celles annoncées dans le
journal ; épinglez-les avec --pin pour les exiger.

  --follow D    après le premier passage, continuer à suivre le journal : toutes
                les D (par exemple 30s), lire le nouveau point de contrôle, vérifier
                qu'il prolonge le précédent (une bifurcation est un MANQUEMENT),
                auditer les nouvelles entrées ; Ctrl-C arrête
  --time-skew D de combien un enregistrement de partie, d'émission ou de
                manifeste peut être daté avant un enregistrement journalisé
                avant lui (par défaut 10m, de 1s à 24h) : au-delà, la
                vérification des enregistrements échoue
  --workers N   parties vérifiées en parallèle (par défaut : tous les cœurs)
  --quiet       pas de barre de progression

`
)
