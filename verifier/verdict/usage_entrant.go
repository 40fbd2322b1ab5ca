package verdict

// rngverify entrant's usage text (MsgUsageEntrant), in the catalog like the
// other commands' (usage.go).
const (
	usageEntrantEN = `usage: rngverify entrant FILE (trust flags) [--lang fr|en] [--json]

Checks a player's entrant proof (the JSON file rngctl promo entrant-proof
writes for one account of one promotion draw), offline:

  freeze            the freeze receipt it carries, as rngverify freeze checks
                    it: the checkpoint is signed by a trusted log key; the
                    freeze record is a promo_freeze record in the log at its
                    index; the receipt shows what that record says
  entrant-scheme    the freeze commits its entrants under scheme 2 (freezes
                    logged before it cannot prove one entrant alone)
  entrant-inclusion the leaf recomputed from the draw, the account and its
                    opening (salt) is the entrant at the proof's index in the
                    frozen entrants_root and count

and prints the account's pseudonym, the one the certificate and the
procès-verbal print for the winners. The file reveals no other entrant.

The log's keys must be given (trust flags below); the proof's own keys are
never trusted. Without them, rngverify entrant refuses to run (exit 2).
A proof is a file anyone can edit: a check that fails proves nothing
against the appliance (NOT VERIFIED, exit 1).

`
	usageEntrantFR = `utilisation : rngverify entrant FICHIER (options de confiance) [--lang fr|en] [--json]

Vérifie hors ligne la preuve de participation d'un joueur (le fichier JSON
qu'écrit rngctl promo entrant-proof pour un compte d'un tirage promotionnel) :

  gel               le reçu de gel qu'elle contient, comme le vérifie
                    rngverify freeze : le point de contrôle est signé par une
                    clé de journal de confiance ; l'enregistrement du gel est
                    un enregistrement promo_freeze du journal, à son index ;
                    le reçu affiche ce que dit cet enregistrement
  entrant-scheme    le gel engage ses participants selon le schéma 2 (un gel
                    journalisé avant ne peut prouver un participant seul)
  entrant-inclusion la feuille recalculée à partir du tirage, du compte et de
                    son ouverture (salt) est le participant à l'index de la
                    preuve dans la racine entrants_root et le nombre gelés

et affiche le pseudonyme du compte, celui qu'impriment le certificat et le
procès-verbal pour les gagnants. Le fichier ne révèle aucun autre participant.

Les clés du journal doivent être fournies (options de confiance ci-dessous) ;
les propres clés de la preuve ne sont jamais acceptées. Sans elles,
rngverify entrant refuse de s'exécuter (code 2). Une preuve est un fichier que
chacun peut modifier : une vérification en échec ne prouve rien contre
l'appareil (NON VÉRIFIÉ, code 1).

`
)
