package verdict

// rngverify share-commitment's usage text (MsgUsageShareCommitment), in the
// catalog like the other commands' (usage.go).
const (
	usageShareCommitmentEN = `usage: rngverify share-commitment --draw ID [--dice] [--share-file FILE] [--lang fr|en]

Computes, offline and without the appliance, the bailiff's commitment to the
share they will enter at a promotion draw's ceremony, and prints it (64 hex
digits) on stdout. The operator gives it to the freeze (rngctl promo freeze
--share-commitment); the freeze logs it before the drand round announced for
the draw is published, and the ceremony refuses any other share. So the
share cannot be chosen once the round is known, not even by the operator and
the bailiff together.

  --draw ID         the draw, <operation>/<id> (e.g. bonus-crescendo/1): the
                    commitment is bound to it
  --dice            the share is dice rolls (digits 1-6, any separators),
                    else typed text (8 to 256 bytes)
  --share-file FILE read the share from FILE, else one line from standard
                    input (after a prompt on stderr)
  --lang fr|en      language of the messages (default en)

The share is read and refused exactly as rngctl promo draw reads it: type the
same text (or the same rolls) at the ceremony. Keep it secret until then; a
short or guessable text can be found from its commitment: prefer dice (at
least 25 rolls) or a long text.

Exit status:
  0  the commitment is printed on stdout
  1  the share could not be read (no line, a file that cannot be read)
  2  usage error, or a share the ceremony would refuse (one line on stderr)
`
	usageShareCommitmentFR = `utilisation : rngverify share-commitment --draw ID [--dice] [--share-file FICHIER] [--lang fr|en]

Calcule hors ligne, sans l'appareil, l'engagement de l'huissier sur la
contribution qu'il saisira lors de la cérémonie d'un tirage promotionnel, et
l'affiche (64 chiffres hexadécimaux) sur la sortie standard. L'exploitant le
donne au gel (rngctl promo freeze --share-commitment) ; le gel le journalise
avant la publication de la ronde drand annoncée pour le tirage, et la
cérémonie refuse toute autre contribution. Ainsi la contribution ne peut pas
être choisie une fois la ronde connue, pas même par l'exploitant et
l'huissier ensemble.

  --draw ID         le tirage, <opération>/<id> (par exemple
                    bonus-crescendo/1) : l'engagement lui est lié
  --dice            la contribution est une suite de lancers de dés (chiffres
                    1 à 6, séparateurs libres), sinon un texte saisi (8 à 256
                    octets)
  --share-file FICHIER
                    lire la contribution dans FICHIER, sinon une ligne de
                    l'entrée standard (après une invite sur la sortie d'erreur)
  --lang fr|en      langue des messages (en par défaut)

La contribution est lue et refusée exactement comme rngctl promo draw la lit :
saisissez le même texte (ou les mêmes lancers) lors de la cérémonie. Gardez-la
secrète jusque-là ; un texte court ou devinable peut être retrouvé à partir de
son engagement : préférez les dés (au moins 25 lancers) ou un texte long.

Code de sortie :
  0  l'engagement est affiché sur la sortie standard
  1  la contribution n'a pas pu être lue (aucune ligne, un fichier illisible)
  2  erreur d'utilisation, ou une contribution que la cérémonie refuserait
     (une ligne sur la sortie d'erreur)
`
)
