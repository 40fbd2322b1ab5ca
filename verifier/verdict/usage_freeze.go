package verdict

// rngverify freeze's usage text (MsgUsageFreeze), in the catalog like the
// other commands' (usage.go).
const (
	usageFreezeEN = `usage: rngverify freeze FILE [--entrants LIST] [--account ACCOUNT] [--stakes FILE ... [--closed FILE] [--rules FILE]] (trust flags) [--lang fr|en] [--json]

Checks a promotion's freeze receipt (<draw>-receipt.json, the file whose
SHA-256 the receipt's PDF prints), as the appliance hands it to the bailiff
at the freeze, offline:

  public checks     the checkpoint is signed by a trusted log key; the freeze
                    record is a promo_freeze record in the log at its index;
                    the receipt shows what that record says: draw, count,
                    entrant root, commitment H(r), reserves, beacon, the
                    bailiff's share commitment (shown: compare it with the
                    one rngverify share-commitment printed), time, rules
                    SHA-256 and the record's leaf hash; the input files the
                    receipt lists (role, SHA-256) are those the record binds
                    (a freeze logged before freezes bound them is noted)
  --entrants LIST   the bailiff's checks too: the private entrant list
                    (<draw>-entrants.txt) is this draw's, canonical, hashes
                    under its key to the frozen root and count, and is the
                    file whose SHA-256 the receipt gives
  --stakes FILE     (repeatable, in the receipt's order) and --closed FILE:
                    the operator's stake and closed-accounts files are, byte
                    for byte, the input files the freeze binds; the first
                    that differs is named; - is standard input (once)
  --rules FILE      with --stakes, --closed and --entrants: the entrant list
                    recomputed from those files under the rules (the frozen
                    ones), with the code rngctl froze with, hashes under the
                    list's key to the frozen root and count
  --account ACCOUNT with --entrants: a player disputes the draw. Once every
                    check passed, one line per fact: whether the account is
                    in the frozen list (index, pseudonym, its leaf's inclusion
                    proof verified against the receipt's entrants_root) and,
                    with --stakes, --closed and --rules, why: its total on
                    each day of the draw against the minimum, its closure,
                    its rows not counted or rejected. Not being in the list
                    is a fact (exit 0), not a failure

The log's keys must be given (trust flags below: the operator's published key
file or fingerprint, its key announcement record, or --state); the receipt's
own keys are never trusted. Without them, rngverify freeze refuses to run
(exit 2). A receipt is a file anyone can edit: a check that fails proves
nothing against the appliance (NOT VERIFIED, exit 1).

`
	usageFreezeFR = `utilisation : rngverify freeze FICHIER [--entrants LISTE] [--account COMPTE] [--stakes FICHIER ... [--closed FICHIER] [--rules FICHIER]] (options de confiance) [--lang fr|en] [--json]

Vérifie hors ligne le reçu de gel d'une opération promotionnelle
(<tirage>-receipt.json, le fichier dont le PDF du reçu imprime le SHA-256),
tel que l'appareil le remet à l'huissier lors du gel :

  vérifications publiques
                    le point de contrôle est signé par une clé de journal de
                    confiance ; l'enregistrement du gel est un enregistrement
                    promo_freeze du journal, à son index ; le reçu affiche ce
                    que dit cet enregistrement : tirage, nombre, racine des
                    participants, engagement H(r), suppléants, balise,
                    engagement de l'huissier sur sa contribution (affiché :
                    comparez-le à celui qu'a imprimé rngverify
                    share-commitment), heure, SHA-256 du règlement et
                    empreinte de la feuille ; les fichiers d'entrée que liste
                    le reçu (rôle, SHA-256) sont ceux qu'engage
                    l'enregistrement (un gel journalisé avant que les gels ne
                    les engagent est signalé)
  --entrants LISTE  les vérifications de l'huissier aussi : la liste privée des
                    participants (<tirage>-entrants.txt) est celle de ce
                    tirage, canonique, donne sous sa clé la racine et le nombre
                    gelés, et c'est le fichier dont le reçu donne le SHA-256
  --stakes FICHIER  (répétable, dans l'ordre du reçu) et --closed FICHIER :
                    les fichiers de mises et des comptes clos de l'exploitant
                    sont, octet pour octet, les fichiers d'entrée qu'engage le
                    gel ; le premier qui diffère est nommé ; - est l'entrée
                    standard (une fois)
  --rules FICHIER   avec --stakes, --closed et --entrants : la liste des
                    participants recalculée à partir de ces fichiers selon le
                    règlement (celui du gel), avec le code avec lequel rngctl a
                    gelé, donne sous la clé de la liste la racine et le nombre
                    gelés
  --account COMPTE  avec --entrants : un joueur conteste le tirage. Une fois
                    toutes les vérifications réussies, un fait par ligne : le
                    compte figure-t-il dans la liste gelée (index, pseudonyme,
                    preuve d'inclusion de sa feuille vérifiée avec la racine
                    entrants_root du reçu) et, avec --stakes, --closed et
                    --rules, pourquoi : son total de chaque jour du tirage
                    face au minimum, sa clôture, ses lignes non comptées ou
                    rejetées. Être absent de la liste est un fait (code 0),
                    pas un échec

Les clés du journal doivent être fournies (options de confiance ci-dessous :
le fichier de clés ou l'empreinte publiés par l'exploitant, son annonce de
clés, ou --state) ; les propres clés du reçu ne sont jamais acceptées. Sans
elles, rngverify freeze refuse de s'exécuter (code 2). Un reçu est un fichier
que chacun peut modifier : une vérification en échec ne prouve rien contre
l'appareil (NON VÉRIFIÉ, code 1).

`
)
