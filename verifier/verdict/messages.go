package verdict

// The catalog of messages: every reason, subject and fact value that a
// verdict carries, written once in English and once in French. The English
// text is the one scripts have always read (Check.Detail); the French one is
// for the huissier (commissaire de justice) and the auditors. TestCatalog
// fails when an id lacks a language or when the two disagree on arguments.

// Message ids.
const (
	// Shared: values passed through, prefixes, lists.
	MsgSame       MsgID = "same"
	MsgColon      MsgID = "colon"
	MsgInt        MsgID = "int"
	MsgSha256     MsgID = "sha256"
	MsgCheckpoint MsgID = "checkpoint"
	MsgKindCount  MsgID = "kind-count"
	MsgKeyCount   MsgID = "key-count"
	MsgNotReached MsgID = "not-reached"
	MsgPinned     MsgID = "pinned"

	// Causes: the core's errors (receipt.Cause).
	MsgCauseTechnical           MsgID = "cause-technical"
	MsgCauseDetail              MsgID = "cause-detail"
	MsgCauseInvalidProof        MsgID = "cause-invalid-proof"
	MsgCauseUnknownSuite        MsgID = "cause-unknown-suite"
	MsgCauseRecordMalformed     MsgID = "cause-record-malformed"
	MsgCauseRecordKind          MsgID = "cause-record-kind"
	MsgCauseRecordVersion       MsgID = "cause-record-version"
	MsgCauseCheckpointUntrusted MsgID = "cause-checkpoint-untrusted"
	MsgCauseCheckpointMalformed MsgID = "cause-checkpoint-malformed"
	MsgCauseFork                MsgID = "cause-fork"
	MsgCauseShrunk              MsgID = "cause-shrunk"
	MsgCauseTranscript          MsgID = "cause-transcript"
	MsgCauseStake               MsgID = "cause-stake"
	MsgCauseBeta                MsgID = "cause-beta"
	MsgCauseStartClosed         MsgID = "cause-start-closed"
	MsgCauseNumberRange         MsgID = "cause-number-range"
	MsgCauseNumberPicked        MsgID = "cause-number-picked"
	MsgCauseGameOver            MsgID = "cause-game-over"
	MsgCauseAtTier              MsgID = "cause-at-tier"
	MsgCauseNotAtTier           MsgID = "cause-not-at-tier"
	MsgCauseExpired             MsgID = "cause-expired"
	MsgCauseNotExpired          MsgID = "cause-not-expired"
	MsgCauseRefundClosed        MsgID = "cause-refund-closed"
	MsgCauseTimeOrder           MsgID = "cause-time-order"
	MsgCauseTicketPlayed        MsgID = "cause-ticket-played"
	MsgCauseTicketQuit          MsgID = "cause-ticket-quit"
	MsgCauseTicketStarted       MsgID = "cause-ticket-started"
	MsgCauseEntrantList         MsgID = "cause-entrant-list"
	MsgCauseInclusion           MsgID = "cause-inclusion"

	// Subjects.
	MsgSubjectReceipt       MsgID = "subject-receipt"
	MsgSubjectReceiptOf     MsgID = "subject-receipt-of"
	MsgSubjectReceiptOfGame MsgID = "subject-receipt-of-game"
	MsgSubjectTranscript    MsgID = "subject-transcript"
	MsgSubjectGame          MsgID = "subject-game"
	MsgSubjectCertificate   MsgID = "subject-certificate"
	MsgSubjectPromoDraw     MsgID = "subject-promo-draw"
	MsgSubjectLog           MsgID = "subject-log"
	MsgSubjectLogOrigin     MsgID = "subject-log-origin"
	MsgSubjectLogEntries    MsgID = "subject-log-entries"
	MsgSubjectLogFollowed   MsgID = "subject-log-followed"
	MsgSubjectReceiptsReply MsgID = "subject-receipts-reply"
	MsgSubjectReplyReceipt  MsgID = "subject-reply-receipt"

	// A verdict made of parts (Verdict.Part): one check per part.
	MsgPartPassed       MsgID = "part-passed"
	MsgPartFailed       MsgID = "part-failed"
	MsgPartMisbehaviour MsgID = "part-misbehaviour"
	MsgPartEmpty        MsgID = "part-empty"

	// Documents (receipt, transcript).
	MsgNotReceiptProto     MsgID = "not-receipt-proto"
	MsgNotReceipt          MsgID = "not-receipt"
	MsgNotTranscript       MsgID = "not-transcript"
	MsgNotReceiptsReply    MsgID = "not-receipts-reply"
	MsgNotTranscriptReply  MsgID = "not-transcript-reply"
	MsgReplyNoDocument     MsgID = "reply-no-document"
	MsgReplyNoReceipts     MsgID = "reply-no-receipts"
	MsgReplyNullReceipt    MsgID = "reply-null-receipt"
	MsgReplyMember         MsgID = "reply-member"
	MsgFromTranscriptReply MsgID = "from-transcript-reply"
	MsgFromReceiptsReply   MsgID = "from-receipts-reply"
	MsgWrongVersion        MsgID = "wrong-version"
	MsgNoRecords           MsgID = "no-records"
	MsgNoRecord            MsgID = "no-record"
	MsgDrawsNothing        MsgID = "draws-nothing"
	MsgReceiptNoKey        MsgID = "receipt-no-key"
	MsgKeyMismatch         MsgID = "key-mismatch"
	MsgVRFKeyUntrusted     MsgID = "vrf-key-untrusted"
	MsgVRFKeyBytesOnly     MsgID = "vrf-key-bytes-only"
	MsgVRFKey              MsgID = "vrf-key"
	MsgAlphaFromRecord     MsgID = "alpha-from-record"
	MsgReceiptBeacon       MsgID = "receipt-beacon"
	MsgReceiptBeaconNone   MsgID = "receipt-beacon-none"
	MsgReceiptBeaconTime   MsgID = "receipt-beacon-time"
	MsgReceiptNoBeacon     MsgID = "receipt-no-beacon"
	MsgAlphaNotInReceipt   MsgID = "alpha-not-in-receipt"
	MsgAlphaNotHex         MsgID = "alpha-not-hex"
	MsgAlphaBinds          MsgID = "alpha-binds"
	MsgAlphaBindsStart     MsgID = "alpha-binds-start"
	MsgNoUsableAlpha       MsgID = "no-usable-alpha"
	// A draw's receipt without α (the game not ended): not yet verifiable.
	MsgProofNotYet         MsgID = "proof-not-yet"
	MsgNoUsableKey         MsgID = "no-usable-key"
	MsgProofInvalid        MsgID = "proof-invalid"
	MsgBetaNotOutput       MsgID = "beta-not-output"
	MsgBetaNotOutputOf     MsgID = "beta-not-output-of"
	MsgBeta                MsgID = "beta"
	MsgPickErr             MsgID = "pick-err"
	MsgPickOutcomeWrong    MsgID = "pick-outcome-wrong"
	MsgPickOutcome         MsgID = "pick-outcome"
	MsgStartErr            MsgID = "start-err"
	MsgStartMultipliers    MsgID = "start-multipliers"
	MsgStartAmounts        MsgID = "start-amounts"
	MsgMultipliers         MsgID = "multipliers"
	MsgQuitErr             MsgID = "quit-err"
	MsgQuitKept            MsgID = "quit-kept"
	MsgRanking             MsgID = "ranking"
	MsgRankingWrong        MsgID = "ranking-wrong"
	MsgEmissionNotEmission MsgID = "emission-not-emission"
	MsgKeysNotAnnouncement MsgID = "keys-not-announcement"
	MsgRecordNotOfGame     MsgID = "record-not-of-game"
	MsgCanonicalRecords    MsgID = "canonical-records"
	MsgCanonicalRecordsOf  MsgID = "canonical-records-of"
	MsgGameRecordsN        MsgID = "game-records-n"
	MsgEmissionMismatch    MsgID = "emission-mismatch"
	MsgNameRecord          MsgID = "name-record"
	MsgNameTheRecord       MsgID = "name-the-record"
	MsgNameEmission        MsgID = "name-emission"
	MsgNameKeys            MsgID = "name-keys"
	MsgKeyProblem          MsgID = "key-problem"
	MsgKeyNotAnchored      MsgID = "key-not-anchored"
	MsgKeyNotGiven         MsgID = "key-not-given"
	MsgNoDraw              MsgID = "no-draw"
	MsgGameFact            MsgID = "game-fact"
	MsgRecordTooNew        MsgID = "record-too-new"

	// Errors of the documents' own parsing (verdict.Errorf in receipt).
	MsgAlphaDomain         MsgID = "alpha-domain"
	MsgAlphaTruncatedKind  MsgID = "alpha-truncated-kind"
	MsgAlphaTruncatedField MsgID = "alpha-truncated-field"
	MsgAlphaNotPick        MsgID = "alpha-not-pick"
	MsgAlphaNotStart       MsgID = "alpha-not-start"
	MsgAlphaNoInput        MsgID = "alpha-no-input"
	MsgAlphaNotBound       MsgID = "alpha-not-bound"
	MsgDocTooLarge         MsgID = "doc-too-large"
	MsgDocTrailing         MsgID = "doc-trailing"
	MsgPublicKeyHex        MsgID = "public-key-hex"
	MsgProofHex            MsgID = "proof-hex"
	MsgLogIndexNotInt      MsgID = "log-index-not-int"
	MsgProofNot32          MsgID = "proof-not-32"
	MsgLeafHashWrong       MsgID = "leaf-hash-wrong"
	MsgPickIndexRange      MsgID = "pick-index-range"

	// The log checks of a document.
	MsgNoCheckpoint         MsgID = "no-checkpoint"
	MsgNoCheckpointShort    MsgID = "no-checkpoint-short"
	MsgNoTrustedLogKey      MsgID = "no-trusted-log-key"
	MsgHintNoLogKey         MsgID = "hint-no-log-key"
	MsgHintLogKeys          MsgID = "hint-log-keys"
	MsgHintPinNoLogKey      MsgID = "hint-pin-no-log-key"
	MsgNoTrustedLogKeyShort MsgID = "no-trusted-log-key-short"
	MsgUnauthenticated      MsgID = "unauthenticated"
	MsgForkRoots            MsgID = "fork-roots"
	MsgSameTree             MsgID = "same-tree"
	MsgNotIncludedAt        MsgID = "not-included-at"
	MsgIndexBeyond          MsgID = "index-beyond"
	MsgIncluded             MsgID = "included"
	MsgIncludedOf           MsgID = "included-of"

	// Games (chain, commitment, proofs, outcomes, rules).
	MsgNotGameRecord    MsgID = "not-game-record"
	MsgFirstNotStart    MsgID = "first-not-start"
	MsgChainOtherGame   MsgID = "chain-other-game"
	MsgChainBroken      MsgID = "chain-broken"
	MsgChainOrder       MsgID = "chain-order"
	MsgChainAfterEnd    MsgID = "chain-after-end"
	MsgChainSecondStart MsgID = "chain-second-start"
	MsgChainOK          MsgID = "chain-ok"
	MsgCommitBroken     MsgID = "commit-broken"
	MsgCommitOK         MsgID = "commit-ok"
	MsgNotEnded         MsgID = "not-ended"
	MsgNotEndedAlpha    MsgID = "not-ended-alpha"
	// A transcript without the game's end: its proofs not yet verifiable.
	MsgTranscriptNotYet MsgID = "transcript-not-yet"
	MsgTranscriptNoEnd  MsgID = "transcript-no-end"
	MsgWon              MsgID = "won"
	MsgRulesOK          MsgID = "rules-ok"
	MsgKeyUnknown       MsgID = "key-unknown"
	MsgPickName         MsgID = "pick-name"
	MsgProofs           MsgID = "proofs"
	MsgOutcomeWrong     MsgID = "outcome-wrong"
	MsgOutcomesOK       MsgID = "outcomes-ok"

	// Signed checkpoints (checkpoint.Open, Consistent).
	MsgCPTooLarge       MsgID = "cp-too-large"
	MsgCPNoSignature    MsgID = "cp-no-signature"
	MsgCPNoTrustedKey   MsgID = "cp-no-trusted-key"
	MsgCPBadSignature   MsgID = "cp-bad-signature"
	MsgCPSignedByNone   MsgID = "cp-signed-by-none"
	MsgCPKeyDidNotSign  MsgID = "cp-key-did-not-sign"
	MsgCPFewLines       MsgID = "cp-few-lines"
	MsgCPBlankLine      MsgID = "cp-blank-line"
	MsgCPTreeSize       MsgID = "cp-tree-size"
	MsgCPRootHash       MsgID = "cp-root-hash"
	MsgCPSigEncoding    MsgID = "cp-signature-encoding"
	MsgCPTreeTooLarge   MsgID = "cp-tree-too-large"
	MsgCPTwoLogs        MsgID = "cp-two-logs"
	MsgCPSameSizeFork   MsgID = "cp-same-size-fork"
	MsgCPNotExtend      MsgID = "cp-not-extend"
	MsgLogKeyName       MsgID = "log-key-name"
	MsgLogKeyID         MsgID = "log-key-id"
	MsgLogKeyBase64     MsgID = "log-key-base64"
	MsgLogKeyEd25519    MsgID = "log-key-ed25519"
	MsgLogKeyMLDSA      MsgID = "log-key-mldsa"
	MsgLogKeyType       MsgID = "log-key-type"
	MsgLogKeyWitness    MsgID = "log-key-witness"
	MsgLogKeyMismatch   MsgID = "log-key-mismatch"
	MsgNoLogKeyFound    MsgID = "no-log-key-found"
	MsgStateErr         MsgID = "state-err"
	MsgStateVersion     MsgID = "state-version"
	MsgStateLog         MsgID = "state-log"
	MsgStateNoKey       MsgID = "state-no-key"
	MsgStateKeyOtherLog MsgID = "state-key-other-log"
	MsgStateOtherKeys   MsgID = "state-other-keys"
	MsgStateLast        MsgID = "state-last"
	// The witnesses a log's state requires (checkpoint.LogState.Witnesses).
	MsgStateQuorum         MsgID = "state-quorum"
	MsgStateOtherWitnesses MsgID = "state-other-witnesses"

	// Rejected VRF proofs (vrf.Verify).
	MsgVRFProofLength    MsgID = "vrf-proof-length"
	MsgVRFProofLengthRSA MsgID = "vrf-proof-length-rsa"
	MsgVRFGamma          MsgID = "vrf-gamma"
	MsgVRFScalar         MsgID = "vrf-scalar"
	MsgVRFNoVerify       MsgID = "vrf-no-verify"
	MsgVRFNotBelowN      MsgID = "vrf-not-below-n"

	// Game rules on replay (qod.Replay, verdict.Errorf).
	MsgReplayRecord           MsgID = "replay-record"
	MsgReplayNotGame          MsgID = "replay-not-game"
	MsgReplayFirst            MsgID = "replay-first"
	MsgReplayAt               MsgID = "replay-at"
	MsgReplayAtErr            MsgID = "replay-at-err"
	MsgReplayAtProof          MsgID = "replay-at-proof"
	MsgReplayEmission         MsgID = "replay-emission"
	MsgReplayEmissionDeadline MsgID = "replay-emission-deadline"
	MsgRuleOtherGame          MsgID = "rule-other-game"
	MsgRulePrev               MsgID = "rule-prev"
	MsgRuleSecondStart        MsgID = "rule-second-start"
	MsgRuleAfterEnd           MsgID = "rule-after-end"
	MsgRuleSecret             MsgID = "rule-secret"
	MsgRuleBeta               MsgID = "rule-beta"
	MsgRuleNotDrawn           MsgID = "rule-not-drawn"
	MsgRuleMultipliers        MsgID = "rule-multipliers"
	MsgRuleAmounts            MsgID = "rule-amounts"
	MsgRuleExpires            MsgID = "rule-expires"
	MsgRuleIndex              MsgID = "rule-index"
	MsgRuleOutcome            MsgID = "rule-outcome"
	MsgRuleTier               MsgID = "rule-tier"
	MsgRuleResultPhase        MsgID = "rule-result-phase"
	MsgRuleEndTime            MsgID = "rule-end-time"
	MsgRuleResult             MsgID = "rule-result"
	MsgRuleTierReached        MsgID = "rule-tier-reached"
	MsgRuleWin                MsgID = "rule-win"
	MsgRuleRefund             MsgID = "rule-refund"
	// A draw under another VRF key than the game's (qod.DrawKey).
	MsgRuleKey MsgID = "rule-key"

	// Promotion certificates (receipt, promo, rngverify certificate).
	MsgNoTrustedLogKeyCert MsgID = "no-trusted-log-key-cert"
	// MsgNoTrustedLogKeyCertNamed is MsgNoTrustedLogKeyCert naming the
	// document's keys (MsgHintLogKeys).
	MsgNoTrustedLogKeyCertNamed MsgID = "no-trusted-log-key-cert-named"
	MsgPublicOnly               MsgID = "public-only"
	MsgAnnouncedBeforeFreeze    MsgID = "announced-before-freeze"
	MsgVRFKeyNotAnchored        MsgID = "vrf-key-not-anchored"
	MsgDrawFact                 MsgID = "draw-fact"
	MsgShareFact                MsgID = "share-fact"
	MsgWinner                   MsgID = "winner"
	MsgReserve                  MsgID = "reserve"
	MsgPickFact                 MsgID = "pick-fact"
	MsgPickFactAccount          MsgID = "pick-fact-account"
	MsgNotCertificate           MsgID = "not-certificate"
	MsgListOtherDraw            MsgID = "list-other-draw"
	MsgRulesGiven               MsgID = "rules-given"
	MsgDatesKept                MsgID = "dates-kept"
	MsgTOFU                     MsgID = "tofu"
	MsgPromoNotCertificate      MsgID = "promo-not-certificate"
	MsgPromoVersion             MsgID = "promo-version"
	MsgPromoNoLogKey            MsgID = "promo-no-log-key"
	MsgPromoErr                 MsgID = "promo-err"
	MsgPromoNotFreeze           MsgID = "promo-not-freeze"
	MsgPromoNotDraw             MsgID = "promo-not-draw"
	MsgPromoNotKeys             MsgID = "promo-not-keys"
	MsgPromoKeysErr             MsgID = "promo-keys-err"
	MsgPromoNoVRFKey            MsgID = "promo-no-vrf-key"
	MsgPromoKeyLate             MsgID = "promo-key-late"
	MsgPromoKeyOther            MsgID = "promo-key-other"
	MsgPromoKeyNotPinned        MsgID = "promo-key-not-pinned"
	MsgPromoRulesDiffer         MsgID = "promo-rules-differ"
	MsgPromoRulesFile           MsgID = "promo-rules-file"
	MsgPromoDrawIDs             MsgID = "promo-draw-ids"
	MsgPromoNoLink              MsgID = "promo-no-link"
	MsgPromoLinkFields          MsgID = "promo-link-fields"
	MsgPromoOrder               MsgID = "promo-order"
	MsgPromoDrawnEarly          MsgID = "promo-drawn-before-freeze"
	MsgPromoCommit              MsgID = "promo-commit"
	MsgPromoReserves            MsgID = "promo-reserves"
	MsgPromoPickCount           MsgID = "promo-pick-count"
	MsgPromoRankEntrant         MsgID = "promo-rank-entrant"
	MsgPromoRankLeaf            MsgID = "promo-rank-leaf"
	MsgPromoRankPseudonym       MsgID = "promo-rank-pseudonym"
	MsgPromoRankErr             MsgID = "promo-rank-err"
	MsgPromoListDraw            MsgID = "promo-list-draw"
	MsgPromoListSize            MsgID = "promo-list-size"
	MsgPromoListRoot            MsgID = "promo-list-root"
	// A logged record's kind, index or proof (promo.checkInclusion).
	MsgPromoOtherKind   MsgID = "promo-other-kind"
	MsgPromoIndexBeyond MsgID = "promo-index-beyond"
	MsgPromoProofHex    MsgID = "promo-proof-hex"

	// Audit and rngverify log.
	MsgFollowedCheckpoint     MsgID = "followed-checkpoint"
	MsgFollowedNotAfter       MsgID = "followed-not-after"
	MsgFollowedNotExtend      MsgID = "followed-not-extend"
	MsgFollowedOK             MsgID = "followed-ok"      // up to the last checkpoint followed, from the first one audited
	MsgFollowedExtends        MsgID = "followed-extends" // the same, from the trusted one
	MsgConsistencyUnbuildable MsgID = "consistency-unbuildable"
	MsgRolledBack             MsgID = "rolled-back"
	MsgExtends                MsgID = "extends"
	MsgVRFKeyEntry            MsgID = "vrf-key-entry"
	MsgTicketReplayed         MsgID = "ticket-replayed"
	MsgEmissionUnregistered   MsgID = "emission-unregistered"
	MsgEmissionBad            MsgID = "emission-bad"
	MsgOrphanRecord           MsgID = "orphan-record"
	MsgDrawNoFreeze           MsgID = "draw-no-freeze"
	MsgEntry                  MsgID = "entry"
	MsgEntryKey               MsgID = "entry-key"
	MsgEntryKeyNotPinned      MsgID = "entry-key-not-pinned"
	MsgEntryKeyAgain          MsgID = "entry-key-again"
	MsgEntryKeyOtherSuite     MsgID = "entry-key-other-suite"
	MsgEntryKeyTwoSuites      MsgID = "entry-key-two-suites"
	MsgGameCheck              MsgID = "game-check"
	MsgDrawIssue              MsgID = "draw-issue"
	MsgDrawBeacon             MsgID = "draw-beacon"
	MsgDrawNoLink             MsgID = "draw-no-link"
	MsgDrawFields             MsgID = "draw-fields"
	MsgDrawCommit             MsgID = "draw-commit"
	MsgDrawKeyUnannounced     MsgID = "draw-key-unannounced"
	MsgDrawKeyNotFrozen       MsgID = "draw-key-not-frozen"
	MsgDrawKeyUnbound         MsgID = "draw-key-unbound"
	MsgDrawProof              MsgID = "draw-proof"
	MsgEntriesOK              MsgID = "entries-ok"
	MsgMalformed              MsgID = "malformed"
	MsgTooNew                 MsgID = "too-new"
	MsgKeysAnnouncedPinned    MsgID = "keys-announced-pinned"
	MsgKeysAnnounced          MsgID = "keys-announced"
	MsgNoKeyAnnounced         MsgID = "no-key-announced"
	// MsgNoKeyAnnouncedRefused: none read, and an entry left out may be one.
	MsgNoKeyAnnouncedRefused MsgID = "no-key-announced-refused"
	MsgGamesOK               MsgID = "games-ok"
	MsgDrawsOK               MsgID = "draws-ok"
	// MsgRecordsRefused, MsgGamesRefused and MsgDrawsRefused: a check
	// that checked nothing, every entry (that could be one) left out.
	MsgRecordsRefused MsgID = "records-refused"
	MsgGamesRefused   MsgID = "games-refused"
	MsgDrawsRefused   MsgID = "draws-refused"
	// MsgNotCheckedStopped: the same, the audit stopped before the end.
	MsgNotCheckedStopped     MsgID = "not-checked-stopped"
	MsgFailing               MsgID = "failing"
	MsgCellBad               MsgID = "cell-bad"
	MsgTooFewDraws           MsgID = "too-few-draws"
	MsgStatsOK               MsgID = "stats-ok" // |z| > limit, normal approximation: no longer emitted (see MsgStatsExactOK)
	MsgStatsExactOK          MsgID = "stats-exact-ok"
	MsgCellLosingPick        MsgID = "cell-losing-pick"
	MsgCellTriple            MsgID = "cell-triple"
	MsgMalformedCheckpoint   MsgID = "malformed-checkpoint"
	MsgUnreadableKeys        MsgID = "unreadable-keys"
	MsgNoKeyForLog           MsgID = "no-key-for-log"
	MsgPinMatchesNoServedKey MsgID = "pin-matches-no-served-key"
	MsgLogKeyTrust           MsgID = "log-key-trust"
	MsgFirstCheckpoint       MsgID = "first-checkpoint"
	MsgThroughput            MsgID = "throughput"
	MsgTrustState            MsgID = "trust-state"

	// Audit: an id logged twice (emission, game, promotion freeze or draw).
	MsgGameIDAgain   MsgID = "game-id-again"
	MsgEmissionAgain MsgID = "emission-again"
	MsgFreezeAgain   MsgID = "freeze-again"
	MsgDrawAgain     MsgID = "draw-again"

	// Audit: freezes checked against the operators' rules files (--rules).
	MsgAuditRulesBad       MsgID = "audit-rules-bad"
	MsgAuditFreezeRules    MsgID = "audit-freeze-rules"
	MsgAuditFactRules      MsgID = "audit-fact-rules"
	MsgAuditRulesChecked   MsgID = "audit-rules-checked"
	MsgAuditRulesUnused    MsgID = "audit-rules-unused"
	MsgAuditRulesUnchecked MsgID = "audit-rules-unchecked"
	MsgAuditRulesHash      MsgID = "audit-rules-hash"
	MsgAuditRulesNoHash    MsgID = "audit-rules-no-hash"
	MsgAuditRulesMore      MsgID = "audit-rules-more"
	MsgUsageAuditRules     MsgID = "usage-audit-rules"

	// Errors of the audit's reading (verdict.Errorf in audit).
	MsgAuditCheckpointRead MsgID = "audit-checkpoint-read"
	// MsgAuditCheckpointMissing: the log serves no checkpoint at all.
	MsgAuditCheckpointMissing MsgID = "audit-checkpoint-missing"
	MsgAuditStopped           MsgID = "audit-stopped"
	MsgAuditTilesRead         MsgID = "audit-tiles-read"
	MsgAuditBundleRead        MsgID = "audit-bundle-read"
	MsgAuditBundleTruncated   MsgID = "audit-bundle-truncated"
	MsgAuditBundleCount       MsgID = "audit-bundle-count"
	MsgCLIKeysRead            MsgID = "cli-keys-read"
	MsgCLIError               MsgID = "cli-error"

	// The browser page.
	MsgNotTirageFile MsgID = "not-tirage-file"

	// rngverify's one-line conclusion on stderr.
	MsgCLIUnreadable   MsgID = "cli-unreadable"
	MsgCLIMisbehaviour MsgID = "cli-misbehaviour"
	MsgCLINotVerified  MsgID = "cli-not-verified"
	MsgCLINoCheck      MsgID = "cli-no-check"
	MsgCLITOFULog      MsgID = "cli-tofu-log"
	MsgCLITOFUKey      MsgID = "cli-tofu-key"
	MsgCLITOFUCompare  MsgID = "cli-tofu-compare"
	MsgCLITOFUCert     MsgID = "cli-tofu-cert"
	MsgCLITOFULogKey   MsgID = "cli-tofu-log-key"
	MsgCLITOFUVRFKey   MsgID = "cli-tofu-vrf-key"
	MsgCLITOFUVRFSuite MsgID = "cli-tofu-vrf-suite"
	MsgCLITOFUNone     MsgID = "cli-tofu-none"
	MsgCLIFollowing    MsgID = "cli-following"
	MsgCLIProgress     MsgID = "cli-progress"
	MsgCLICouldntRead  MsgID = "cli-couldnt-read"
	MsgCLIUseGame      MsgID = "cli-use-game"
	MsgCLIUseReceipt   MsgID = "cli-use-receipt"
	MsgCLIUseCert      MsgID = "cli-use-certificate"
	MsgCLIUseFreeze    MsgID = "cli-use-freeze"
	MsgCLIUseAttest    MsgID = "cli-use-attestation"
	// MsgCLIUseLogKeys, MsgCLIUseAnnouncement and MsgCLIUseEntrants name
	// a trust anchor or an entrant list given as the document to check,
	// and the flag that takes it; MsgCLIDocumentNotKeys a document given
	// to a key flag.
	MsgCLIUseLogKeys      MsgID = "cli-use-log-keys"
	MsgCLIUseAnnouncement MsgID = "cli-use-announcement"
	MsgCLIUseEntrants     MsgID = "cli-use-entrants"
	MsgCLIDocumentNotKeys MsgID = "cli-document-not-keys"

	// Entrant lists (promo.ParseEntrantList, verdict.Errorf in promo).
	MsgListHeader       MsgID = "list-header"
	MsgListDrawLine     MsgID = "list-draw-line"
	MsgListKeyLine      MsgID = "list-key-line"
	MsgListCountLine    MsgID = "list-count-line"
	MsgListCountExceeds MsgID = "list-count-exceeds"
	MsgListCountShort   MsgID = "list-count-short"
	MsgListTrailing     MsgID = "list-trailing"
	MsgListEntrant      MsgID = "list-entrant"
	MsgListAccount      MsgID = "list-account"
	MsgListOrder        MsgID = "list-order"

	// The bailiff's share (promo.ParseShare).
	MsgShareText      MsgID = "share-text"
	MsgShareControl   MsgID = "share-control"
	MsgShareInvisible MsgID = "share-invisible"
	MsgShareDiceCount MsgID = "share-dice-count"
	MsgShareDiceRoll  MsgID = "share-dice-roll"
	MsgSharePrefix    MsgID = "share-prefix"

	// Public beacons (promo.VerifyBeacon, package beacon).
	MsgBeaconNoneAnnounced     MsgID = "beacon-none-announced"
	MsgBeaconFreeText          MsgID = "beacon-free-text"
	MsgBeaconChainUnpinned     MsgID = "beacon-chain-unpinned"
	MsgBeaconSignatureRequired MsgID = "beacon-signature-required"
	MsgBeaconNotRound          MsgID = "beacon-not-round"
	MsgBeaconRefForm           MsgID = "beacon-ref-form"
	MsgBeaconRefHash           MsgID = "beacon-ref-hash"
	MsgBeaconRefRound          MsgID = "beacon-ref-round"
	MsgBeaconMalformed         MsgID = "beacon-malformed"
	MsgBeaconInvalid           MsgID = "beacon-invalid"
	MsgBeaconRoundZero         MsgID = "beacon-round-zero"
	MsgBeaconScheme            MsgID = "beacon-scheme"
	MsgBeaconChainKey          MsgID = "beacon-chain-key"
	MsgBeaconChainedLength     MsgID = "beacon-chained-length"
	MsgBeaconGenesis           MsgID = "beacon-genesis"
	MsgBeaconNotAfter          MsgID = "beacon-not-after"

	// x/mod/sumdb/tlog's errors, by their exact text (verdict.Named).
	MsgTlogProofFailed      MsgID = "tlog-proof-failed"
	MsgTlogInconsistentTile MsgID = "tlog-inconsistent-tile"

	// rngverify's reading of its input and its usage.
	MsgJSONSyntax       MsgID = "json-syntax"
	MsgJSONType         MsgID = "json-type"
	MsgJSONField        MsgID = "json-field"
	MsgJSONRoot         MsgID = "json-root"
	MsgJSONTruncated    MsgID = "json-truncated"
	MsgJSONUnknownField MsgID = "json-unknown-field"
	MsgCertNoDraw       MsgID = "cert-no-draw"
	MsgCLIUsage         MsgID = "cli-usage"
	MsgCLIUsageLine     MsgID = "cli-usage-line"
	MsgCLIUnknown       MsgID = "cli-unknown"
	MsgCLIUsageErr      MsgID = "cli-usage-err"
	MsgCLIUnexpected    MsgID = "cli-unexpected"
	MsgCLIMissingFlag   MsgID = "cli-missing-flag"
	MsgCLINotHexByte    MsgID = "cli-not-hex-byte"
	MsgCLINotHexOdd     MsgID = "cli-not-hex-odd"
	MsgCLISuite         MsgID = "cli-suite"
	MsgUnknownSuite     MsgID = "unknown-suite"
	MsgVRFKeyLineSuite  MsgID = "vrf-key-line-suite"
	MsgCLIFlagUnknown   MsgID = "cli-flag-unknown"
	MsgCLIFlagValue     MsgID = "cli-flag-value"
	MsgCLIFlagInvalid   MsgID = "cli-flag-invalid"
	MsgCLIFlagBool      MsgID = "cli-flag-bool"
	MsgCLIFlagParse     MsgID = "cli-flag-parse"
	MsgCLIFlagOutRange  MsgID = "cli-flag-out-of-range"
	MsgVRFRejected      MsgID = "vrf-rejected"
	MsgVRFBetaDiffers   MsgID = "vrf-beta-differs"
	MsgVRFUsage         MsgID = "vrf-usage"
	MsgCLIMissingCert   MsgID = "cli-missing-cert"
	MsgCLINoAnchor      MsgID = "cli-no-anchor"
	MsgCLIReadRules     MsgID = "cli-read-rules"
	MsgCLIReadEntrants  MsgID = "cli-read-entrants"
	MsgCLIReadCert      MsgID = "cli-read-cert"
	MsgCLIOneFile       MsgID = "cli-one-file"
	MsgCLILangBad       MsgID = "cli-lang-bad"
	MsgCLIPinBad        MsgID = "cli-pin-bad"
	MsgCLITZ            MsgID = "cli-tz"
	MsgCLILogKeyNeither MsgID = "cli-log-key-neither"
	MsgCLIFlagFile      MsgID = "cli-flag-file"
	MsgCLIFlagErr       MsgID = "cli-flag-err"
	MsgCLITOFUWithKeys  MsgID = "cli-tofu-with-keys"
	MsgCLIFlagNegative  MsgID = "cli-flag-negative"
	MsgCLIFlagRange     MsgID = "cli-flag-range"
	MsgFileNotExist     MsgID = "file-not-exist"
	MsgFilePermission   MsgID = "file-permission"
	MsgVRFKeyLineForm   MsgID = "vrf-key-line-form"
	MsgLineErr          MsgID = "line-err"
	MsgVRFKeyLineHex    MsgID = "vrf-key-line-hex"
	MsgNoKeyFound       MsgID = "no-key-found"
	MsgCLIURLOrDir      MsgID = "cli-url-or-dir"
	MsgCLIURLBad        MsgID = "cli-url-bad"
	MsgCLIStateFile     MsgID = "cli-state-file"
	MsgCLIFollowBad     MsgID = "cli-follow-bad"
	MsgCLISaveState     MsgID = "cli-save-state"
	MsgUsageReceipt     MsgID = "usage-receipt"
	MsgUsageGame        MsgID = "usage-game"
	MsgUsageExit        MsgID = "usage-exit"
	MsgUsageTrust       MsgID = "usage-trust"
	MsgUsageCertificate MsgID = "usage-certificate"
	MsgUsageLog         MsgID = "usage-log"
	MsgUsageAudit       MsgID = "usage-audit"
	MsgCmdAudit         MsgID = "cmd-audit"
	MsgCmdCertificate   MsgID = "cmd-certificate"
	MsgCmdGame          MsgID = "cmd-game"
	MsgCmdLog           MsgID = "cmd-log"
	MsgCmdReceipt       MsgID = "cmd-receipt"
	MsgCmdVRF           MsgID = "cmd-vrf"

	// Package vrf's refused public keys (vrf.ParsePublicKey), and the
	// x509 and asn1 errors of an RSA key's DER, by their exact text.
	MsgVRFKeyPointLength     MsgID = "vrf-key-point-length"
	MsgVRFKeyUncompressed    MsgID = "vrf-key-uncompressed"
	MsgVRFKeyPointPrefix     MsgID = "vrf-key-point-prefix"
	MsgVRFKeyNotOnCurve      MsgID = "vrf-key-not-on-curve"
	MsgVRFKeyIdentity        MsgID = "vrf-key-identity"
	MsgVRFKeyRSANotDER       MsgID = "vrf-key-rsa-not-der"
	MsgVRFKeyNotRSA          MsgID = "vrf-key-not-rsa"
	MsgVRFKeyRSANotCanonical MsgID = "vrf-key-rsa-not-canonical"
	MsgVRFKeyRSAModulusSign  MsgID = "vrf-key-rsa-modulus-sign"
	MsgVRFKeyRSABits         MsgID = "vrf-key-rsa-bits"
	MsgVRFKeyRSAEven         MsgID = "vrf-key-rsa-even"
	MsgVRFKeyRSAExponent     MsgID = "vrf-key-rsa-exponent"
	MsgX509PKCS1             MsgID = "x509-pkcs1"
	MsgX509Trailing          MsgID = "x509-trailing"
	MsgX509UnknownAlgorithm  MsgID = "x509-unknown-algorithm"
	MsgASN1Syntax            MsgID = "asn1-syntax"
	MsgASN1Structure         MsgID = "asn1-structure"
	MsgASN1Detail            MsgID = "asn1-detail"
	MsgASN1SequenceTruncated MsgID = "asn1-sequence-truncated"
	MsgASN1TagTruncated      MsgID = "asn1-tag-truncated"
	MsgASN1DataTruncated     MsgID = "asn1-data-truncated"
	MsgASN1LengthTooLarge    MsgID = "asn1-length-too-large"
	MsgVRFPrefix             MsgID = "vrf-prefix"
	MsgVRFKeyInvalidFor      MsgID = "vrf-key-invalid-for"
	MsgBase64Corrupt         MsgID = "base64-corrupt"
	MsgJSONBase64            MsgID = "json-base64"

	// Key announcements (package announce).
	MsgAnnounceBadKey           MsgID = "announce-bad-key"
	MsgAnnounceBad              MsgID = "announce-bad"
	MsgAnnounceCheckRecord      MsgID = "announce-check-record"
	MsgAnnounceCheckEnvelope    MsgID = "announce-check-envelope"
	MsgAnnounceCheckPayloadType MsgID = "announce-check-payload-type"
	MsgAnnounceCheckPayload     MsgID = "announce-check-payload"
	MsgAnnounceCheckSignatures  MsgID = "announce-check-signatures"
	MsgAnnounceCheckKeyID       MsgID = "announce-check-keyid"
	MsgAnnounceCheckPossession  MsgID = "announce-check-possession"
	MsgAnnounceEmpty            MsgID = "announce-empty"
	MsgAnnounceTooLarge         MsgID = "announce-too-large"
	MsgAnnounceNotDSSE          MsgID = "announce-not-dsse"
	MsgAnnounceTrailing         MsgID = "announce-trailing"
	MsgAnnouncePayloadType      MsgID = "announce-payload-type"
	MsgAnnounceMissing          MsgID = "announce-missing"
	MsgAnnounceKind             MsgID = "announce-kind"
	MsgAnnounceNotAttached      MsgID = "announce-not-attached"
	MsgAnnounceSigCount         MsgID = "announce-sig-count"
	MsgAnnounceSigNames         MsgID = "announce-sig-names"
	MsgAnnounceKeyTwoSuites     MsgID = "announce-key-two-suites"
	MsgAnnounceVRFProof         MsgID = "announce-vrf-proof"
	MsgAnnouncePublicKey        MsgID = "announce-public-key"
	MsgAnnounceNotEd25519       MsgID = "announce-not-ed25519"
	MsgAnnounceBadEd25519       MsgID = "announce-bad-ed25519"
	MsgAnnounceNotECDSA         MsgID = "announce-not-ecdsa"
	MsgAnnounceECDSACurve       MsgID = "announce-ecdsa-curve"
	MsgAnnounceBadECDSA         MsgID = "announce-bad-ecdsa"
	MsgAnnounceAlgorithm        MsgID = "announce-algorithm"

	// Package record's refusals (record.Parse, record.Format, the
	// decoders): English is the package's text, byte for byte; the field
	// names and the canonical JSON's own tokens stay as they are.
	MsgRecordTooLarge        MsgID = "record-too-large"
	MsgRecordByte            MsgID = "record-byte"
	MsgRecordField           MsgID = "record-field"
	MsgRecordVersion         MsgID = "record-version"
	MsgRecordKind            MsgID = "record-kind"
	MsgRecordInvalid         MsgID = "record-invalid"
	MsgRecordNotEncodable    MsgID = "record-not-encodable"
	MsgRecordNotCanonical    MsgID = "record-not-canonical"
	MsgRecordFormat          MsgID = "record-format"
	MsgRecordFormatNil       MsgID = "record-format-nil"
	MsgRecordFormatPointer   MsgID = "record-format-pointer"
	MsgRecordEncodeField     MsgID = "record-encode-field"
	MsgRecordTimeFraction    MsgID = "record-time-fraction"
	MsgRecordYear            MsgID = "record-year"
	MsgRecordNotPrintable    MsgID = "record-not-printable"
	MsgRecordIntOutside      MsgID = "record-int-outside"
	MsgRecordIntAbove        MsgID = "record-int-above"
	MsgRecordUnsupportedType MsgID = "record-unsupported-type"
	MsgRecordNotObject       MsgID = "record-not-object"
	MsgRecordTrailing        MsgID = "record-trailing"
	MsgRecordTooDeep         MsgID = "record-too-deep"
	MsgRecordEnd             MsgID = "record-end"
	MsgRecordEndWant         MsgID = "record-end-want"
	MsgRecordWhitespace      MsgID = "record-whitespace"
	MsgRecordUnexpected      MsgID = "record-unexpected"
	MsgRecordGotWant         MsgID = "record-got-want"
	MsgRecordKeyNotString    MsgID = "record-key-not-string"
	MsgRecordDuplicateKey    MsgID = "record-duplicate-key"
	MsgRecordKeyOrder        MsgID = "record-key-order"
	MsgRecordUnterminated    MsgID = "record-unterminated"
	MsgRecordEscape          MsgID = "record-escape"
	MsgRecordStringByte      MsgID = "record-string-byte"
	MsgRecordNoDigits        MsgID = "record-no-digits"
	MsgRecordLeadingZero     MsgID = "record-leading-zero"
	MsgRecordMinusZero       MsgID = "record-minus-zero"
	MsgRecordFraction        MsgID = "record-fraction"
	MsgRecordIntRange        MsgID = "record-int-range"
	MsgRecordVersionType     MsgID = "record-version-type"
	MsgRecordKindType        MsgID = "record-kind-type"
	MsgRecordEmptyOptional   MsgID = "record-empty-optional"
	MsgRecordUnknownField    MsgID = "record-unknown-field"
	MsgRecordUnknownFieldIn  MsgID = "record-unknown-field-in"
	MsgRecordMissing         MsgID = "record-missing"
	MsgRecordWantTime        MsgID = "record-want-time"
	MsgRecordBadTime         MsgID = "record-bad-time"
	MsgRecordWantHex         MsgID = "record-want-hex"
	MsgRecordHexDigit        MsgID = "record-hex-digit"
	MsgRecordOddHex          MsgID = "record-odd-hex"
	MsgRecordWantBytes       MsgID = "record-want-bytes"
	MsgRecordWantString      MsgID = "record-want-string"
	MsgRecordWantInteger     MsgID = "record-want-integer"
	MsgRecordIntOutOfRange   MsgID = "record-int-out-of-range"
	MsgRecordWantBool        MsgID = "record-want-bool"
	MsgRecordWantArray       MsgID = "record-want-array"
	MsgRecordWantElements    MsgID = "record-want-elements"
	MsgRecordWantObject      MsgID = "record-want-object"
	MsgRecordEmpty           MsgID = "record-empty"
	MsgRecordNoKeys          MsgID = "record-no-keys"
	MsgRecordKeyTwice        MsgID = "record-key-twice"
	MsgRecordKeyUseSuite     MsgID = "record-key-use-suite"
	MsgRecordFingerprint     MsgID = "record-fingerprint"
	MsgRecordClosure         MsgID = "record-closure"
	MsgRecordNegative        MsgID = "record-negative"
	MsgRecordRequired2       MsgID = "record-required-2"
	MsgRecordRequired3       MsgID = "record-required-3"
	MsgRecordStake           MsgID = "record-stake"
	MsgRecordMultiplier      MsgID = "record-multiplier"
	MsgRecordTogether2       MsgID = "record-together-2"
	MsgRecordTogether3       MsgID = "record-together-3"
	MsgRecordRange           MsgID = "record-range"
	MsgRecordOneOf           MsgID = "record-one-of"
	MsgRecordWinRefund       MsgID = "record-win-refund"
	MsgRecordResultWon       MsgID = "record-result-won"
	MsgRecordResultRefunded  MsgID = "record-result-refunded"
	MsgRecordReasonNotRefund MsgID = "record-reason-not-refund"
	MsgRecordReasonLong      MsgID = "record-reason-long"
	MsgRecordReasonText      MsgID = "record-reason-text"
	MsgRecordResultNoWin     MsgID = "record-result-no-win"
	MsgRecordResult          MsgID = "record-result"
	MsgRecordWinners         MsgID = "record-winners"
	MsgRecordEntrantScheme   MsgID = "record-entrant-scheme"
	MsgRecordBeaconRef       MsgID = "record-beacon-ref"
	MsgRecordBeaconRound     MsgID = "record-beacon-round"
	MsgRecordShare           MsgID = "record-share"
	MsgRecordRanking         MsgID = "record-ranking"
	MsgRecordSecret          MsgID = "record-secret"
	MsgRecordRankingEntry    MsgID = "record-ranking-entry"
	MsgRecordDigest          MsgID = "record-digest"
	MsgRecordMissingTime     MsgID = "record-missing-time"
	MsgTicketCodeChar        MsgID = "ticket-code-char"
	MsgTicketCodeLength      MsgID = "ticket-code-length"
	MsgCauseTicketCode       MsgID = "cause-ticket-code"

	// A public key's DER that crypto/x509 refuses (verdict.X509Error):
	// English is the library's text, byte for byte.
	MsgX509NotSPKI        MsgID = "x509-not-spki"
	MsgX509SPKIStructure  MsgID = "x509-spki-structure"
	MsgX509Unreadable     MsgID = "x509-unreadable"
	MsgX509IllegalParams  MsgID = "x509-illegal-params"
	MsgX509RSANull        MsgID = "x509-rsa-null"
	MsgX509RSAInvalid     MsgID = "x509-rsa-invalid"
	MsgX509RSAModulus     MsgID = "x509-rsa-modulus"
	MsgX509RSAExponent    MsgID = "x509-rsa-exponent"
	MsgX509RSAModulusSign MsgID = "x509-rsa-modulus-sign"
	MsgX509RSAExpSign     MsgID = "x509-rsa-exponent-sign"
	MsgX509ECDSAParams    MsgID = "x509-ecdsa-params"
	MsgX509Curve          MsgID = "x509-curve"
	MsgX509ECUncompressed MsgID = "x509-ec-uncompressed"
	MsgX509ECEncoding     MsgID = "x509-ec-encoding"
	MsgX509PointEncoding  MsgID = "x509-point-encoding"
	MsgX509PointOffCurve  MsgID = "x509-point-off-curve"
	MsgX509Ed25519Size    MsgID = "x509-ed25519-size"
	MsgX509X25519Key      MsgID = "x509-x25519-key"
	MsgX509MLDSAParams    MsgID = "x509-mldsa-params"
	MsgX509MLDSALength    MsgID = "x509-mldsa-length"
	MsgX509DSAKey         MsgID = "x509-dsa-key"
	MsgX509DSAParams      MsgID = "x509-dsa-params"
	MsgX509DSAZero        MsgID = "x509-dsa-zero"

	// Promotion certificates: a certified pick that is not β's.
	MsgPromoRankPick MsgID = "promo-rank-pick"
	MsgPromoPickRank MsgID = "promo-pick-rank"

	// Promotion certificates: the dates of the rules (promo.Rules.CheckSchedule).
	MsgPromoFrozenEarly  MsgID = "promo-frozen-early"
	MsgPromoDrawnOutside MsgID = "promo-drawn-outside"
	MsgPromoRulesNoDraw  MsgID = "promo-rules-no-draw"

	// Promotion certificates: the freeze's beacon against the frozen
	// rules' (promo.Rules.CheckFreezeBeacon).
	MsgPromoBeaconRules   MsgID = "promo-beacon-rules"
	MsgPromoBeaconNone    MsgID = "promo-beacon-none"
	MsgPromoBeaconRound   MsgID = "promo-beacon-round"
	MsgPromoBeaconText    MsgID = "promo-beacon-text"
	MsgBeaconNoneNorRules MsgID = "beacon-none-nor-rules"
	// A freeze ranking another number of winners than the rules it
	// commits to (one per draw); reserves given that are not the rules'.
	MsgPromoWinnersRules     MsgID = "promo-winners-rules"
	MsgPromoReservesNotRules MsgID = "promo-reserves-not-rules"
	// A rules file given that is not the frozen one: of another operation
	// than the certificate (promo.ErrRulesOtherOperation: not checked), or
	// of its operation but not the file its freeze commits to.
	MsgPromoRulesOtherOperation MsgID = "promo-rules-other-operation"
	MsgPromoRulesNotFrozen      MsgID = "promo-rules-not-frozen"

	// GetReceipts replies: one game's receipts, each once, in log order;
	// the reply's one member given once; JSON members given once.
	MsgSubjectReceiptsReplyGame MsgID = "subject-receipts-reply-game"
	MsgReplyGames               MsgID = "reply-games"
	MsgReplyNotGame             MsgID = "reply-not-game"
	MsgReplyOrder               MsgID = "reply-order"
	MsgReplyMemberRepeated      MsgID = "reply-member-repeated"
	MsgJSONRepeatedMember       MsgID = "json-repeated-member"

	// The web page: a dropped key announcement's VRF key of a suite this
	// verifier does not know (no pin trusts it).
	MsgWebVRFSuiteUnknown MsgID = "web-vrf-suite-unknown"
	MsgWebListTwice       MsgID = "web-list-twice"

	// Receipts: α bound to the commitment of the game's start or of the
	// promotion's freeze; transcripts without their emission.
	MsgNameStart          MsgID = "name-start"
	MsgNameFreeze         MsgID = "name-freeze"
	MsgReceiptNoStart     MsgID = "receipt-no-start"
	MsgReceiptNoFreeze    MsgID = "receipt-no-freeze"
	MsgStartNotOfGame     MsgID = "start-not-of-game"
	MsgStartNotBefore     MsgID = "start-not-before"
	MsgFreezeNotFreeze    MsgID = "freeze-not-freeze"
	MsgFreezeOtherDraw    MsgID = "freeze-other-draw"
	MsgAlphaCommitBroken  MsgID = "alpha-commit-broken"
	MsgAlphaUnboundStart  MsgID = "alpha-unbound-start"
	MsgAlphaUnboundFreeze MsgID = "alpha-unbound-freeze"
	MsgEndCommitBroken    MsgID = "end-commit-broken"
	MsgDeadlineNotChecked MsgID = "deadline-not-checked"
	MsgProtoFieldNotInt   MsgID = "proto-field-not-int"
	MsgProtoFieldNotHash  MsgID = "proto-field-not-hash"
	MsgProtoFieldNotRec   MsgID = "proto-field-not-record"

	// Misbehaviour that rests on what is not proven to be the appliance's
	// is a failure, not proof (receipt: VerifyReceipt, VerifyTranscript,
	// VerifyCertificate, CheckGame): MsgNotProof(why, the contradiction).
	MsgNotProof        MsgID = "not-proof"
	MsgWhyNotIncluded  MsgID = "why-not-included"
	MsgWhyNotAdjacent  MsgID = "why-not-adjacent"
	MsgWhyEntryRefused MsgID = "why-entry-refused"
	// MsgWhyRecordRefused: a record missing before an entry (its
	// emission, manifest, freeze) may be an entry refused before it.
	MsgWhyRecordRefused MsgID = "why-record-refused"
	MsgWhyKeyUntrusted  MsgID = "why-key-untrusted"
	MsgWhySuite         MsgID = "why-suite"
	MsgWhyLayout        MsgID = "why-layout"
	MsgWhyReceiptKey    MsgID = "why-receipt-key"
	MsgWhyAlpha         MsgID = "why-alpha"
	MsgWhyCheckpoint    MsgID = "why-checkpoint"
	MsgWhyCertificate   MsgID = "why-certificate"
	// The document's own pairing of a key id with a key, which no key
	// announcement the verifier authenticated proves; relabelled: the
	// proof verifies under another trusted key.
	MsgWhyKeyPairing    MsgID = "why-key-pairing"
	MsgWhyKeyRelabelled MsgID = "why-key-relabelled"
	// A key announcement the verifier authenticated names the document's
	// key id with another key: the document is wrong (vrf-key, and why a
	// failing proof is no proof); MsgAnnouncementGiven and
	// MsgAnnouncementLogged say which announcement.
	MsgVRFKeyIDMismatch   MsgID = "vrf-key-id-mismatch"
	MsgAnnouncementGiven  MsgID = "announcement-given"
	MsgAnnouncementLogged MsgID = "announcement-logged"

	// A game that ended after the appliance lost its secret r
	// (record.GameEnd.SecretLost).
	MsgSecretLost      MsgID = "secret-lost"
	MsgGamesSecretLost MsgID = "games-secret-lost"

	// Audit: records the log must hold by now (a game's end, a manifest
	// before a start), record times against log order, a ticket under
	// two emissions.
	MsgAuditEndMissing        MsgID = "audit-end-missing"
	MsgAuditNeverSealed       MsgID = "audit-never-sealed"
	MsgAuditTimeOrder         MsgID = "audit-time-order"
	MsgAuditTimesBad          MsgID = "audit-times-bad"
	MsgAuditTimeAhead         MsgID = "audit-time-ahead"
	MsgTicketOtherEmission    MsgID = "ticket-other-emission"
	MsgAuditStartUnmanifested MsgID = "audit-start-unmanifested"
	// Audit: the tickets quit (ticket_quit, QUITTER, art. 2.2.3).
	MsgAuditQuitAgain         MsgID = "audit-quit-again"
	MsgAuditQuitAfterStart    MsgID = "audit-quit-after-start"
	MsgAuditStartAfterQuit    MsgID = "audit-start-after-quit"
	MsgAuditQuitBad           MsgID = "audit-quit-bad"
	MsgAuditQuitUnregistered  MsgID = "audit-quit-unregistered"
	MsgAuditPlaysUnmanifested MsgID = "audit-plays-unmanifested"
	// Durations in audit messages, in the largest unit that divides them.
	MsgSpanDay     MsgID = "span-day"
	MsgSpanDays    MsgID = "span-days"
	MsgSpanHour    MsgID = "span-hour"
	MsgSpanHours   MsgID = "span-hours"
	MsgSpanMinute  MsgID = "span-minute"
	MsgSpanMinutes MsgID = "span-minutes"
	MsgSpanSecond  MsgID = "span-second"
	MsgSpanSeconds MsgID = "span-seconds"

	// Audit: game starts checked against the ticket manifests given
	// (--manifest), and the manifest files themselves.
	MsgAuditManifestBad               MsgID = "audit-manifest-bad"
	MsgAuditManifestEmissions         MsgID = "audit-manifest-emissions"
	MsgAuditManifestTwice             MsgID = "audit-manifest-twice"
	MsgAuditManifestEmpty             MsgID = "audit-manifest-empty"
	MsgAuditManifestRecord            MsgID = "audit-manifest-record"
	MsgAuditStartStake                MsgID = "audit-start-stake"
	MsgAuditStartNotInManifest        MsgID = "audit-start-not-in-manifest"
	MsgAuditFactManifests             MsgID = "audit-fact-manifests"
	MsgAuditManifestLogged            MsgID = "audit-manifest-logged"
	MsgAuditManifestUnmatched         MsgID = "audit-manifest-unmatched"
	MsgAuditManifestEmissionChecked   MsgID = "audit-manifest-emission-checked"
	MsgAuditManifestEmissionUnchecked MsgID = "audit-manifest-emission-unchecked"
	MsgAuditQuitStake                 MsgID = "audit-quit-stake"
	MsgAuditQuitNotInManifest         MsgID = "audit-quit-not-in-manifest"
	MsgAuditManifestQuits             MsgID = "audit-manifest-quits"
	MsgCLITimeSkewBad                 MsgID = "cli-time-skew-bad"
	MsgCLIReadManifest                MsgID = "cli-read-manifest"
	MsgUsageAuditManifest             MsgID = "usage-audit-manifest"

	// Audit: a game with more records than the rules allow.
	MsgAuditGameTooLong MsgID = "audit-game-too-long"

	// rngverify: a file larger than the limit for its kind.
	MsgFileTooLarge  MsgID = "file-too-large"
	MsgLimitDocument MsgID = "limit-document"
	MsgLimitConfig   MsgID = "limit-config"
	MsgLimitEntrants MsgID = "limit-entrants"
	MsgLimitKeyFile  MsgID = "limit-key-file"
	MsgLimitRules    MsgID = "limit-rules"
	MsgLimitState    MsgID = "limit-state"
	MsgLimitInput    MsgID = "limit-input"
	// The browser page: a freeze's input files over their limit together.
	MsgInputsTooLarge MsgID = "inputs-too-large"

	// Transcripts whose emission record is not proven in the log.
	MsgDeadlineNotProven MsgID = "deadline-not-proven"

	// receipt and game --log: the online consistency check against the trust state.
	MsgConsistencyNotChecked MsgID = "consistency-not-checked"
	MsgConsistencyOnline     MsgID = "consistency-online"
	MsgConsistencyOnlineFork MsgID = "consistency-online-fork"
	MsgConsistencyOffline    MsgID = "consistency-offline"
	MsgCLILogURLBad          MsgID = "cli-log-url-bad"
	MsgCLILogNeedsState      MsgID = "cli-log-needs-state"
	MsgUsageDocLog           MsgID = "usage-doc-log"
)

var messages = map[MsgID]text{
	// Shared: values passed through, prefixes, lists.
	MsgSame: {"%s",
		"%s"},
	MsgColon: {"%s: %s",
		"%s : %s"},
	MsgInt: {"%d",
		"%d"},
	MsgSha256: {"sha256:%s",
		"sha256:%s"},
	MsgCheckpoint: {"%s size %d root %s",
		"%s, taille %d, racine %s"},
	MsgKindCount: {"%s %d",
		"%s : %d"},
	MsgKeyCount: {"%d key(s)",
		"%d clé(s)"},
	MsgNotReached: {"not reached",
		"non atteinte"},
	MsgPinned: {"pinned",
		"épinglée"},

	// Causes: the core's errors (receipt.Cause).
	MsgCauseTechnical: {"%[1]s",
		"erreur technique (en anglais) : « %[1]s »"},
	MsgCauseDetail: {"%[2]s",
		"%[1]s (détail technique, en anglais : « %[2]s »)"},
	MsgCauseInvalidProof: {"invalid proof",
		"preuve invalide"},
	MsgCauseUnknownSuite: {"unknown suite",
		"suite VRF inconnue"},
	MsgCauseRecordMalformed: {"malformed record",
		"enregistrement mal formé"},
	MsgCauseRecordKind: {"unknown record kind",
		"type d'enregistrement inconnu"},
	MsgCauseRecordVersion: {"unsupported record version",
		"version d'enregistrement non prise en charge"},
	MsgCauseCheckpointUntrusted: {"checkpoint not signed by the trusted log keys",
		"point de contrôle non signé par les clés de confiance du journal"},
	MsgCauseCheckpointMalformed: {"malformed checkpoint",
		"point de contrôle mal formé"},
	MsgCauseFork: {"log fork: misbehaviour",
		"bifurcation du journal (manquement)"},
	MsgCauseShrunk: {"<nil>",
		"le journal a diminué de taille"},
	MsgCauseTranscript: {"game transcript violates the rules",
		"la transcription de la partie enfreint le règlement"},
	MsgCauseStake: {"stake out of range",
		"gain de l'étape 1 hors des limites du règlement"},
	MsgCauseBeta: {"vrf output missing or not expected",
		"sortie VRF absente ou inattendue"},
	MsgCauseStartClosed: {"start refused: emission closed +29 days",
		"démarrage refusé : émission close depuis plus de 29 jours"},
	MsgCauseNumberRange: {"number out of range 1..30",
		"numéro hors de la grille 1..30"},
	MsgCauseNumberPicked: {"number already picked",
		"numéro déjà sélectionné"},
	MsgCauseGameOver: {"game over",
		"partie terminée"},
	MsgCauseAtTier: {"tier reached: continue or stop first",
		"palier atteint : il faut d'abord continuer ou s'arrêter"},
	MsgCauseNotAtTier: {"not at a tier",
		"pas à un palier"},
	MsgCauseExpired: {"30-day play window over: expire the game",
		"délai de jeu de 30 jours écoulé : la partie doit expirer"},
	MsgCauseNotExpired: {"play window not over yet",
		"le délai de jeu n'est pas encore écoulé"},
	MsgCauseRefundClosed: {"refund window over: expire the game",
		"délai de remboursement écoulé : la partie doit expirer"},
	MsgCauseTimeOrder: {"event time before the game's last event",
		"événement daté d'avant le dernier événement de la partie"},
	MsgCauseTicketPlayed: {"ticket code already played",
		"code de ticket déjà joué"},
	MsgCauseTicketQuit: {"ticket quit: the player renounced stage 2 and kept S (QUITTER)",
		"ticket abandonné : le joueur a renoncé à l'étape 2 et conservé S (QUITTER)"},
	MsgCauseTicketStarted: {"ticket already started stage 2 (CONTINUER is irrevocable)",
		"ticket ayant déjà commencé l'étape 2 (CONTINUER est irrévocable)"},
	MsgCauseEntrantList: {"invalid entrant list",
		"liste des participants invalide"},
	MsgCauseInclusion: {"invalid transparency proof",
		"la preuve d'inclusion ne mène pas à la racine de l'arbre signé"},

	// Subjects.
	MsgSubjectReceipt: {"receipt",
		"reçu"},
	MsgSubjectReceiptOf: {"receipt of a %s record at log index %d",
		"reçu d'un enregistrement « %s » à l'index %d du journal"},
	MsgSubjectReceiptOfGame: {"receipt of a %s record at log index %d, game %s",
		"reçu d'un enregistrement « %s » à l'index %d du journal, partie %s"},
	MsgSubjectTranscript: {"game transcript",
		"transcription de partie"},
	MsgSubjectGame: {"game %s (%d records)",
		"partie %s (%d enregistrements)"},
	MsgSubjectCertificate: {"promotion certificate",
		"certificat de tirage promotionnel"},
	MsgSubjectPromoDraw: {"promotion draw %s",
		"tirage promotionnel %s"},
	MsgSubjectLog: {"log",
		"journal de transparence"},
	MsgSubjectLogOrigin: {"log %s",
		"journal de transparence %s"},
	MsgSubjectLogEntries: {"log %s, %d entries",
		"journal de transparence %s, %d entrées"},
	MsgSubjectLogFollowed: {"log %s, %d entries (%d checkpoint(s) followed)",
		"journal de transparence %s, %d entrées (%d point(s) de contrôle suivi(s))"},
	MsgSubjectReceiptsReply: {"GetReceipts reply, %d receipt(s)",
		"réponse GetReceipts, %d reçu(s)"},
	MsgSubjectReplyReceipt: {"%s (%d of %d)",
		"%s (%d sur %d)"},

	// A verdict made of parts (Verdict.Part): one check per part.
	MsgPartPassed: {"%s: every check passed",
		"%s : toutes les vérifications sont réussies"},
	MsgPartFailed: {"%s: NOT VERIFIED, check %s: %s",
		"%s : NON VÉRIFIÉ, vérification %s : %s"},
	MsgPartMisbehaviour: {"%s: MISBEHAVIOUR PROVEN, check %s: %s",
		"%s : MANQUEMENT PROUVÉ, vérification %s : %s"},
	MsgPartEmpty: {"%s: NOT VERIFIED: no check ran",
		"%s : NON VÉRIFIÉ : aucune vérification n'a eu lieu"},

	// Documents (receipt, transcript).
	MsgNotReceiptProto: {"not a receipt (protobuf JSON): %s",
		"ce n'est pas un reçu (JSON protobuf) : %s"},
	MsgNotReceipt: {"not a receipt: %s",
		"ce n'est pas un reçu : %s"},
	MsgNotTranscript: {"not a transcript: %s",
		"ce n'est pas une transcription de partie : %s"},
	MsgNotReceiptsReply: {"not a receipt (GetReceipts reply, protobuf JSON): %s",
		"ce n'est pas un reçu (réponse GetReceipts, JSON protobuf) : %s"},
	MsgNotTranscriptReply: {"not a transcript (GetTranscript reply, protobuf JSON): %s",
		"ce n'est pas une transcription de partie (réponse GetTranscript, JSON protobuf) : %s"},
	MsgReplyNoDocument: {"the reply carries no document (field \"document\")",
		"la réponse ne porte aucun document (champ « document »)"},
	MsgReplyNoReceipts: {"the reply carries no receipt (field \"receipts\")",
		"la réponse ne porte aucun reçu (champ « receipts »)"},
	MsgReplyNullReceipt: {"null is not a receipt",
		"null n'est pas un reçu"},
	MsgReplyMember: {"want a JSON object with exactly one member, %q",
		"un objet JSON d'un seul membre, « %s », est attendu"},
	MsgFromTranscriptReply: {"GetTranscript reply (protobuf JSON): the transcript it carries, decoded from base64",
		"réponse GetTranscript (JSON protobuf) : la transcription qu'elle porte, décodée du base64"},
	MsgFromReceiptsReply: {"GetReceipts reply (protobuf JSON): receipts of one game in log order, each verified on its own; that none is missing takes the game's transcript (rngverify game)",
		"réponse GetReceipts (JSON protobuf) : reçus d'une même partie dans l'ordre du journal, chacun vérifié à part ; qu'il n'en manque aucun, seule la transcription de la partie le montre (rngverify game)"},
	MsgWrongVersion: {"version %d type %q, want 1 %q",
		"version %d, type « %s » ; attendu : version 1, type « %s »"},
	MsgNoRecords: {"no records",
		"aucun enregistrement"},
	MsgNoRecord: {"no record",
		"aucun enregistrement"},
	MsgDrawsNothing: {"a %s record draws nothing",
		"un enregistrement « %s » ne comporte aucun tirage"},
	MsgReceiptNoKey: {"the receipt names no VRF key",
		"le reçu ne désigne aucune clé VRF"},
	MsgKeyMismatch: {"the record names key %q, the receipt %q",
		"l'enregistrement désigne la clé « %s », le reçu la clé « %s »"},
	MsgVRFKeyUntrusted: {"key %s (fingerprint %s) is not trusted: give --vrf-key FILE or --pin SUITE:FINGERPRINT",
		"la clé %s (empreinte %s) n'est pas de confiance : fournissez --vrf-key FICHIER ou --pin SUITE:EMPREINTE"},
	MsgVRFKeyIDMismatch: {"key id %s names the %s key of fingerprint %s in %v, but the document gives the %s key of fingerprint %s under that id: the document is wrong",
		"l'identifiant de clé %s désigne la clé %s d'empreinte %s dans %v, mais le document donne sous cet identifiant la clé %s d'empreinte %s : le document est erroné"},
	MsgAnnouncementGiven: {"the key announcement given",
		"l'annonce des clés fournie"},
	MsgAnnouncementLogged: {"the key announcement in the trusted log",
		"l'annonce des clés du journal de confiance"},
	MsgVRFKeyBytesOnly: {"key %s (fingerprint %s) is pinned by fingerprint only, which does not fix its suite (the document names %s): pin SUITE:fingerprint, with the suite the operator publishes",
		"la clé %s (empreinte %s) n'est épinglée que par son empreinte, qui ne fixe pas sa suite (le document indique %s) : épinglez SUITE:empreinte, avec la suite que publie l'exploitant"},
	MsgVRFKey: {"%s %s fingerprint %s",
		"%s %s, empreinte %s"},
	MsgAlphaFromRecord: {"α rebuilt from the record",
		"entrée α reconstruite à partir de l'enregistrement"},
	MsgReceiptBeacon: {"%s round %d: its published signature, published after the freeze (%s)",
		"ronde %[2]d de %[1]s : sa signature publiée, publiée après le gel (%[3]s)"},
	MsgReceiptBeaconNone: {"the freeze announced no beacon round; only the draw's rules show whether one was promised (rngverify certificate --rules FILE checks it)",
		"le gel n'a annoncé aucune ronde de balise ; seul le règlement du tirage montre si une ronde était promise (rngverify certificate --rules FICHIER le vérifie)"},
	MsgReceiptBeaconTime: {"%s round %d: its published signature; its publication after the freeze is not checked without the freeze record (give \"freeze\")",
		"ronde %[2]d de %[1]s : sa signature publiée ; sa publication après le gel n'est pas vérifiée sans l'enregistrement du gel (donnez « freeze »)"},
	MsgReceiptNoBeacon: {"the draw names no beacon round; that its freeze announced none is not checked without the freeze record (give \"freeze\")",
		"le tirage ne nomme aucune ronde de balise ; que son gel n'en ait annoncé aucune n'est pas vérifié sans l'enregistrement du gel (donnez « freeze »)"},
	MsgAlphaNotInReceipt: {"α is not in the receipt (it contains the game's secret r, revealed at the end): verify the game's transcript",
		"l'entrée α ne figure pas dans le reçu (elle contient le secret r de la partie, révélé à la fin) : vérifiez la transcription de la partie"},
	MsgAlphaNotHex: {"alpha is not hex",
		"l'entrée α n'est pas en hexadécimal"},
	MsgAlphaBinds: {"α binds the record's game, pick and number",
		"l'entrée α lie la partie, la sélection et le numéro de l'enregistrement"},
	MsgAlphaBindsStart: {"α binds the start's game, emission, ticket and stake, and the game's secret r",
		"l'entrée α lie la partie, l'émission, le ticket et la mise du début de partie, ainsi que le secret r de la partie"},
	MsgNoUsableAlpha: {"no usable α",
		"aucune entrée α exploitable"},
	MsgProofNotYet: {"not yet verifiable: the proof of this %s needs α, which holds the game's secret r, revealed only by the game's end record; until then its β, and the outcome drawn from it, rest on the appliance's word. Once the game has ended, get its receipts again (GetReceipts: they then carry α) or its transcript, and verify them",
		"pas encore vérifiable : la preuve de cet enregistrement (%s) a besoin de l'entrée α, qui contient le secret r de la partie, révélé seulement par l'enregistrement de fin de partie ; d'ici là, sa valeur β, et le résultat qui en découle, reposent sur la parole de l'appareil. Une fois la partie terminée, obtenez à nouveau ses reçus (GetReceipts : ils contiennent alors α) ou sa transcription, et vérifiez-les"},
	MsgNoUsableKey: {"no usable key",
		"aucune clé exploitable"},
	MsgProofInvalid: {"%s: the proof does not verify under key %s (%s)",
		"%s : la preuve ne se vérifie pas sous la clé %s (%s)"},
	MsgBetaNotOutput: {"β in the record is not the proof's output",
		"le β de l'enregistrement n'est pas la sortie de la preuve"},
	MsgBetaNotOutputOf: {"%s: β in the record is not the proof's output",
		"%s : le β de l'enregistrement n'est pas la sortie de la preuve"},
	MsgBeta: {"β = %x",
		"β = %x"},
	MsgPickErr: {"pick %d: %s",
		"sélection %d : %s"},
	MsgPickOutcomeWrong: {"pick %d (number %d): recorded %s, β gives %s",
		"sélection %d (numéro %d) : enregistré « %s », β donne « %s »"},
	MsgPickOutcome: {"pick %d, number %d: %s (probability of losing %s)",
		"sélection %d, numéro %d : %s (probabilité de perdre %s)"},
	MsgStartErr: {"start: %s",
		"début de partie : %s"},
	MsgStartMultipliers: {"start: multipliers %v, β gives %v",
		"début de partie : multiplicateurs %v, β donne %v"},
	MsgStartAmounts: {"start: amounts %v, the rules give %v",
		"début de partie : montants %v, le règlement donne %v"},
	MsgMultipliers: {"multipliers %v",
		"multiplicateurs %v"},
	MsgQuitErr: {"ticket_quit: %s",
		"renonciation : %s"},
	MsgQuitKept: {"QUITTER (art. 2.2.3): the player renounced stage 2 and keeps S = %d cents, a gain of the prize table; by the rules the ticket can no longer start a game (the audit checks the whole log for it)",
		"QUITTER (art. 2.2.3) : le joueur a renoncé à l'étape 2 et conserve S = %d centimes, un gain du barème ; selon le règlement, le ticket ne peut plus commencer de partie (l'audit le vérifie sur tout le journal)"},
	MsgRanking: {"ranking %v",
		"classement %v"},
	MsgRankingWrong: {"ranking %v, β gives %v",
		"classement %v, β donne %v"},
	MsgEmissionNotEmission: {"emission: not an emission record",
		"émission : ce n'est pas un enregistrement d'émission"},
	MsgKeysNotAnnouncement: {"keys: not a key announcement",
		"clés : ce n'est pas une annonce de clés"},
	MsgRecordNotOfGame: {"record %d: not a record of game %q",
		"enregistrement %d : ce n'est pas un enregistrement de la partie « %s »"},
	MsgCanonicalRecords: {"%d canonical records",
		"%d enregistrements canoniques"},
	MsgCanonicalRecordsOf: {"%d canonical records (%s)",
		"%d enregistrements canoniques (%s)"},
	MsgGameRecordsN: {"the game's %d",
		"les %d de la partie"},
	MsgEmissionMismatch: {"the emission record is for %q, the game for %q",
		"l'enregistrement d'émission concerne « %s », la partie « %s »"},
	MsgNameRecord: {"record %d",
		"l'enregistrement %d"},
	MsgNameTheRecord: {"the record",
		"l'enregistrement"},
	MsgNameEmission: {"the emission record",
		"l'enregistrement d'émission"},
	MsgNameKeys: {"the key announcement",
		"l'annonce de clés"},
	MsgKeyProblem: {"key %q: %s",
		"clé « %s » : %s"},
	MsgKeyNotAnchored: {"key %s (fingerprint %s) is neither given, pinned, nor announced in the trusted log before the game",
		"la clé %s (empreinte %s) n'est ni fournie, ni épinglée, ni annoncée dans le journal de confiance avant la partie"},
	MsgKeyNotGiven: {"the records name key %q, which the transcript does not give",
		"les enregistrements désignent la clé « %s », que la transcription ne fournit pas"},
	MsgNoDraw: {"no record of this game draws",
		"aucun enregistrement de cette partie ne comporte de tirage"},
	MsgGameFact: {"%s: %d picks, tier %d, %s",
		"%s : %d sélections, palier %d, %s"},
	MsgRecordTooNew: {"%s: %s (a newer rngverify may read it)",
		"%s : %s (une version plus récente de rngverify saura peut-être le lire)"},

	// Errors of the documents' own parsing (verdict.Errorf in receipt).
	MsgAlphaDomain: {"α does not start with %q",
		"α ne commence pas par « %s »"},
	MsgAlphaTruncatedKind: {"α: truncated kind",
		"α : type tronqué"},
	MsgAlphaTruncatedField: {"α: truncated field %d",
		"α : champ %d tronqué"},
	MsgAlphaNotPick: {"α is not the α of a pick",
		"α n'est pas l'entrée d'une sélection"},
	MsgAlphaNotStart: {"α is not the α of a game start",
		"α n'est pas l'entrée d'un début de partie"},
	MsgAlphaNoInput: {"a %s record has no VRF input",
		"un enregistrement « %s » n'a pas d'entrée VRF"},
	MsgAlphaNotBound: {"α does not bind this record's fields (game, emission, ticket, index, number)",
		"α ne lie pas les champs de cet enregistrement (partie, émission, ticket, index, numéro)"},
	MsgDocTooLarge: {"%d bytes exceeds %d",
		"%d octets, au-delà de la limite de %d"},
	MsgDocTrailing: {"trailing data after the document",
		"données en trop après le document"},
	MsgPublicKeyHex: {"public_key is not hex",
		"public_key n'est pas en hexadécimal"},
	MsgProofHex: {"inclusion_proof[%d] is not 32 bytes of hex",
		"inclusion_proof[%d] n'est pas de 32 octets en hexadécimal"},
	MsgLogIndexNotInt: {"logIndex %q is not a decimal integer",
		"logIndex « %s » n'est pas un entier décimal"},
	MsgProofNot32: {"inclusionProof[%d] is not 32 bytes",
		"inclusionProof[%d] n'est pas de 32 octets"},
	MsgLeafHashWrong: {"leafHash is not the hash of the record",
		"leafHash n'est pas l'empreinte de l'enregistrement"},
	MsgPickIndexRange: {"index %d out of 0..29",
		"index %d hors de 0..29"},

	// The log checks of a document.
	MsgNoCheckpoint: {"the document carries no checkpoint: the appliance seals (durably appends) a record before it replies, but no signed checkpoint covered it yet when the document was made — ask for the document again once the log has published a newer checkpoint",
		"le document ne comporte aucun point de contrôle : l'appareil scelle (ajoute durablement au journal) un enregistrement avant de répondre, mais aucun point de contrôle signé ne le couvrait encore quand le document a été produit — redemandez le document une fois qu'un point de contrôle plus récent a été publié"},
	MsgNoCheckpointShort: {"no checkpoint",
		"aucun point de contrôle"},
	MsgNoTrustedLogKey: {"no trusted log key: give --log-key FILE or --pin FINGERPRINT (%s)",
		"aucune clé de journal de confiance : fournissez --log-key FICHIER ou --pin EMPREINTE (%s)"},
	MsgHintNoLogKey: {"the document names no log key",
		"le document ne désigne aucune clé de journal"},
	MsgHintLogKeys: {"the document names %s: compare with the appliance's published fingerprints and pin one",
		"le document désigne %s : comparez avec les empreintes publiées de l'appareil et épinglez-en une"},
	MsgHintPinNoLogKey: {"the document names no log key, and a pinned fingerprint (--pin, or a key announcement given to --log-key) is matched only with a key the document names: give the log's verifier key itself with --log-key FILE (as /log/vkey serves it)",
		"le document ne désigne aucune clé de journal, et une empreinte épinglée (--pin, ou une annonce des clés donnée à --log-key) n'est rapprochée que d'une clé que désigne le document : donnez la clé de vérification du journal elle-même avec --log-key FICHIER (telle que la sert /log/vkey)"},
	MsgNoTrustedLogKeyShort: {"no trusted log key",
		"aucune clé de journal de confiance"},
	MsgUnauthenticated: {"checkpoint not authenticated",
		"point de contrôle non authentifié"},
	MsgForkRoots: {"%s (trusted root %s, document root %s)",
		"%s (racine de confiance %s, racine du document %s)"},
	MsgSameTree: {"same tree as the last trusted checkpoint",
		"même arbre que le dernier point de contrôle de confiance"},
	MsgNotIncludedAt: {"%s at index %d: %s",
		"%s, à l'index %d : %s"},
	MsgIndexBeyond: {"index %d is not below the tree size %d",
		"l'index %d n'est pas inférieur à la taille de l'arbre, %d"},
	MsgIncluded: {"%d record(s) in the tree of size %d",
		"%d enregistrement(s) dans l'arbre de taille %d"},
	MsgIncludedOf: {"%d records (%s) in the tree of size %d",
		"%d enregistrements (%s) dans l'arbre de taille %d"},

	// Games (chain, commitment, proofs, outcomes, rules).
	MsgNotGameRecord: {"record %d: a %s record is not a game record",
		"enregistrement %d : un enregistrement « %s » n'est pas un enregistrement de partie"},
	MsgFirstNotStart: {"the first record is a %s, not the game's start: records are missing",
		"le premier enregistrement est « %s » et non le début de la partie : des enregistrements manquent"},
	MsgChainOtherGame: {"record %d (%s) belongs to game %q, not %q",
		"l'enregistrement %d (%s) appartient à la partie « %s », et non à « %s »"},
	MsgChainBroken: {"record %d (%s) does not link to record %d: a record was dropped, added or reordered",
		"l'enregistrement %d (%s) ne se rattache pas à l'enregistrement %d : un enregistrement a été retiré, ajouté ou déplacé"},
	MsgChainOrder: {"record %d (%s) at log index %d is not after record %d (index %d)",
		"l'enregistrement %d (%s), à l'index %d du journal, ne suit pas l'enregistrement %d (index %d)"},
	MsgChainAfterEnd: {"record %d (%s) comes after the game's end",
		"l'enregistrement %d (%s) vient après la fin de la partie"},
	MsgChainSecondStart: {"record %d is a second start",
		"l'enregistrement %d est un second début de partie"},
	MsgChainOK: {"%d records linked by hash",
		"%d enregistrements chaînés par empreinte"},
	MsgCommitBroken: {"the r revealed at the end (record %d) does not open the commitment H(r) of the start",
		"le secret r révélé à la fin (enregistrement %d) ne correspond pas à l'engagement H(r) pris au début de la partie"},
	MsgCommitOK: {"H(r) = %s",
		"H(r) = %s"},
	MsgNotEnded: {"the game has not ended: r is revealed by its end record",
		"la partie n'est pas terminée : r sera révélé par son enregistrement de fin"},
	MsgNotEndedAlpha: {"the game has not ended: α contains r, revealed at the end",
		"la partie n'est pas terminée : α contient r, révélé à la fin"},
	MsgTranscriptNotYet: {"not yet verifiable: the game has not ended, and every proof needs the game's secret r, which only its end record reveals; until then its draws rest on the appliance's word. Once the game has ended, get its transcript again (GetTranscript) and verify it",
		"pas encore vérifiable : la partie n'est pas terminée, et chaque preuve a besoin du secret r de la partie, que seul son enregistrement de fin révèle ; d'ici là, ses tirages reposent sur la parole de l'appareil. Une fois la partie terminée, obtenez à nouveau sa transcription (GetTranscript) et vérifiez-la"},
	MsgTranscriptNoEnd: {"not verifiable: the game is %s, but the transcript holds no end record, which reveals the game's secret r that every proof needs; its draws rest on the appliance's word until the end is logged (an honest appliance logs it with the game's last event). Get its transcript again (GetTranscript) and verify it",
		"non vérifiable : la partie est « %s », mais la transcription ne contient pas d'enregistrement de fin, qui révèle le secret r de la partie dont chaque preuve a besoin ; ses tirages reposent sur la parole de l'appareil tant que la fin n'est pas enregistrée (un appareil honnête l'enregistre avec le dernier événement de la partie). Obtenez à nouveau sa transcription (GetTranscript) et vérifiez-la"},
	MsgWon: {"won %d.%02d € at tier %d",
		"gagnée, %d,%02d € au palier %d"},
	MsgRulesOK: {"%d picks, %s",
		"%d sélections, %s"},
	MsgKeyUnknown: {"%s: key %q is not known",
		"%s : la clé « %s » est inconnue"},
	MsgPickName: {"pick %d (number %d, record %d)",
		"sélection %d (numéro %d, enregistrement %d)"},
	MsgProofs: {"%d proofs",
		"%d preuves"},
	MsgOutcomeWrong: {"%s: recorded %s, β gives %s",
		"%s : enregistré « %s », β donne « %s »"},
	MsgOutcomesOK: {"multipliers %v and %d pick outcomes recomputed from β",
		"multiplicateurs %v et %d résultats de sélection recalculés à partir de β"},

	// Signed checkpoints (checkpoint.Open, Consistent).
	MsgCPTooLarge: {"note of %d bytes exceeds %d",
		"note de %d octets, au-delà de la limite de %d"},
	MsgCPNoSignature: {"no signature block",
		"aucun bloc de signature"},
	MsgCPNoTrustedKey: {"no trusted key for log %q",
		"aucune clé de confiance pour le journal « %s »"},
	MsgCPBadSignature: {"invalid signature by %s+%08x",
		"signature invalide de %s+%08x"},
	MsgCPSignedByNone: {"log %q: signed by none of the trusted keys",
		"journal « %s » : signé par aucune des clés de confiance"},
	MsgCPKeyDidNotSign: {"trusted key %s+%08x did not sign",
		"la clé de confiance %s+%08x n'a pas signé"},
	MsgCPFewLines: {"fewer than three lines",
		"moins de trois lignes"},
	MsgCPBlankLine: {"the signed text has an empty line: not a checkpoint (c2sp.org/tlog-checkpoint), though its first lines read as one",
		"le texte signé a une ligne vide : ce n'est pas un point de contrôle (c2sp.org/tlog-checkpoint), bien que ses premières lignes se lisent comme tel"},
	MsgCPTreeSize: {"tree size %q",
		"taille de l'arbre « %s »"},
	MsgCPRootHash: {"root hash %q",
		"empreinte racine « %s »"},
	MsgCPTreeTooLarge: {"tree size %d beyond %d: no log is that large",
		"taille de l'arbre %d au-delà de %d : aucun journal n'est aussi grand"},
	MsgCPSigEncoding: {"signature line %q: not in canonical base64 (one spelling per signature)",
		"ligne de signature « %s » : pas en base64 canonique (une seule écriture par signature)"},
	MsgCPTwoLogs: {"checkpoints of two logs (%q, %q)",
		"points de contrôle de deux journaux différents (« %s », « %s »)"},
	MsgCPSameSizeFork: {"two checkpoints of size %d with different roots",
		"deux points de contrôle de taille %d avec des racines différentes"},
	MsgCPNotExtend: {"size %d does not extend size %d (%w)",
		"la taille %d ne prolonge pas la taille %d (%v)"},
	MsgLogKeyName: {"log key %q: bad name",
		"clé de journal « %s » : nom invalide"},
	MsgLogKeyID: {"log key %q: bad key id",
		"clé de journal « %s » : identifiant de clé invalide"},
	MsgLogKeyBase64: {"log key %q: bad base64 key",
		"clé de journal « %s » : clé en base64 invalide"},
	MsgLogKeyEd25519: {"log key %q: bad Ed25519 key size",
		"clé de journal « %s » : taille de clé Ed25519 invalide"},
	MsgLogKeyMLDSA: {"log key %q: bad ML-DSA-44 key: %w",
		"clé de journal « %s » : clé ML-DSA-44 invalide : %v"},
	MsgLogKeyType: {"log key %q: unknown signature type 0x%02x",
		"clé de journal « %s » : type de signature 0x%02x inconnu"},
	MsgLogKeyWitness: {"log key %q: a witness's cosignature/v1 key (type 0x04), not a log's signed-note key: give the log's verifier key (its /log/vkey)",
		"clé de journal « %s » : clé cosignature/v1 d'un témoin (type 0x04), pas la clé de note signée d'un journal : donnez la clé de vérification du journal (son « /log/vkey »)"},
	MsgLogKeyMismatch: {"log key %q: key id does not match the key",
		"clé de journal « %s » : l'identifiant ne correspond pas à la clé"},
	MsgNoLogKeyFound: {"no log key found",
		"aucune clé de journal trouvée"},
	MsgStateErr: {"trust state: %w",
		"état de confiance : %v"},
	MsgStateVersion: {"trust state: version %d, want 1",
		"état de confiance : version %d, 1 attendue"},
	MsgStateLog: {"trust state: log %q: %w",
		"état de confiance : journal « %s » : %v"},
	MsgStateNoKey: {"no key",
		"aucune clé"},
	MsgStateKeyOtherLog: {"key %s is for log %q, not %q",
		"la clé %s est celle du journal « %s », et non « %s »"},
	MsgStateOtherKeys: {"log %q is already trusted with other keys (since %s): edit the state file to change them",
		"le journal « %s » est déjà de confiance avec d'autres clés (depuis %s) : modifiez le fichier d'état pour les changer"},
	MsgStateLast: {"last trusted checkpoint: %w",
		"dernier point de contrôle de confiance : %v"},
	MsgStateQuorum: {"witness quorum %d: want 1 to the number of witnesses (%d)",
		"quorum de témoins %d : de 1 au nombre de témoins (%d) attendu"},
	MsgStateOtherWitnesses: {"log %q already requires cosignatures of %d of the witnesses %s (since %s): give these, or edit the state file (its \"witnesses\" and \"quorum\") to change them",
		"le journal « %s » exige déjà les cosignatures de %d des témoins %s (depuis %s) : donnez ceux-là, ou modifiez le fichier d'état (ses « witnesses » et « quorum ») pour les changer"},

	// Rejected VRF proofs (vrf.Verify).
	MsgVRFProofLength: {"proof has %d bytes, want %d",
		"la preuve fait %d octets au lieu de %d"},
	MsgVRFProofLengthRSA: {"proof has %d bytes, want the modulus length (%d to %d)",
		"la preuve fait %d octets au lieu de la longueur du module (%d à %d)"},
	MsgVRFGamma: {"Gamma is not a valid compressed point (%v)",
		"Gamma n'est pas un point compressé valide (%v)"},
	MsgVRFScalar: {"s is not reduced mod q",
		"s n'est pas réduit modulo q"},
	MsgVRFNoVerify: {"proof does not verify under this key",
		"la preuve ne se vérifie pas sous cette clé"},
	MsgVRFNotBelowN: {"proof is not less than the RSA modulus n",
		"la preuve n'est pas inférieure au module RSA n"},

	// Game rules on replay (qod.Replay, verdict.Errorf).
	MsgReplayRecord: {"record %d: %w",
		"enregistrement %d : %[2]v"},
	MsgReplayNotGame: {"record %d: kind %s is not a game record",
		"enregistrement %d : le type « %s » n'est pas un enregistrement de partie"},
	MsgReplayFirst: {"record 0: kind %s, want %s",
		"enregistrement 0 : type « %s », attendu « %s »"},
	MsgReplayAt: {"game %s record %d (%s): %s",
		"partie %s, enregistrement %d (%s) : %s"},
	MsgReplayAtErr: {"game %s record %d (%s): %w",
		"partie %s, enregistrement %d (%s) : %[4]v"},
	MsgReplayAtProof: {"game %s record %d (%s): vrf proof: %w",
		"partie %s, enregistrement %d (%s) : preuve VRF : %[4]v"},
	MsgReplayEmission: {"emission %s: %w",
		"émission %s : %[2]v"},
	MsgReplayEmissionDeadline: {"emission %s: start_deadline %s, closure %s gives %s",
		"émission %s : date limite de démarrage %s, alors que la clôture du %s donne %s"},
	MsgRuleOtherGame: {"game %q",
		"appartient à la partie « %s »"},
	MsgRulePrev: {"prev is not the leaf hash of record %d",
		"le lien prev n'est pas l'empreinte de feuille de l'enregistrement %d"},
	MsgRuleSecondStart: {"second start",
		"second début de partie"},
	MsgRuleAfterEnd: {"record after the game's end",
		"enregistrement postérieur à la fin de la partie"},
	MsgRuleSecret: {"secret does not open the start's commitment",
		"le secret ne correspond pas à l'engagement pris au début de la partie"},
	MsgRuleBeta: {"beta is not the proof's output",
		"β n'est pas la sortie de la preuve"},
	MsgRuleNotDrawn: {"stake 50,000 € is not drawn, but a proof is present",
		"un gain de 50 000 € n'est pas tiré au sort, mais une preuve est présente"},
	MsgRuleMultipliers: {"multipliers %v, β gives %v",
		"multiplicateurs %v, β donne %v"},
	MsgRuleAmounts: {"amounts %v, rules give %v",
		"montants %v, le règlement donne %v"},
	MsgRuleExpires: {"expires %s, rules give %s",
		"expiration le %s, le règlement donne %s"},
	MsgRuleIndex: {"index %d, want %d",
		"index %d, attendu %d"},
	MsgRuleOutcome: {"outcome %s, β gives %s",
		"résultat « %s », β donne « %s »"},
	MsgRuleTier: {"tier %d, the game is at tier %d",
		"palier %d, la partie est au palier %d"},
	MsgRuleResultPhase: {"result %s, but the game is %s",
		"issue « %s », mais la partie est « %s »"},
	MsgRuleEndTime: {"end at %s: %w",
		"fin le %s : %[2]v"},
	MsgRuleResult: {"result %s, the game is %s",
		"issue « %s », la partie est « %s »"},
	MsgRuleTierReached: {"tier %d, the game reached %d",
		"palier %d, la partie a atteint le palier %d"},
	MsgRuleWin: {"win %d cents, the rules give %d",
		"gain de %d centimes, le règlement donne %d"},
	MsgRuleRefund: {"refund %d cents, the rules give %d",
		"remboursement de %d centimes, le règlement donne %d"},
	MsgRuleKey: {"drawn under VRF key %q, but the game's draws are under key %q: every draw of a game is under one key, or the operator could have chosen the key, and so the outcome, draw by draw",
		"tiré sous la clé VRF « %s », alors que les tirages de la partie le sont sous la clé « %s » : tous les tirages d'une partie sont faits sous une même clé, sinon l'exploitant aurait pu choisir la clé, et donc le résultat, tirage par tirage"},

	// Promotion certificates (receipt, promo, rngverify certificate).
	MsgNoTrustedLogKeyCert: {"no trusted log key: give the log's key file or pin its fingerprint",
		"aucune clé de journal de confiance : fournissez le fichier de clé du journal ou épinglez son empreinte"},
	MsgNoTrustedLogKeyCertNamed: {"no trusted log key: give the log's key file or pin its fingerprint (%s)",
		"aucune clé de journal de confiance : fournissez le fichier de clé du journal ou épinglez son empreinte (%s)"},
	MsgPublicOnly: {"no entrant list given: public checks only",
		"aucune liste de participants fournie : vérifications publiques seulement"},
	MsgAnnouncedBeforeFreeze: {"announced in the log before the freeze",
		"annoncée dans le journal avant le gel"},
	MsgVRFKeyNotAnchored: {"the VRF key %s is neither announced in the log nor pinned",
		"la clé VRF %s n'est ni annoncée dans le journal ni épinglée"},
	MsgDrawFact: {"%s, %d entrants",
		"%s, %d participants"},
	MsgShareFact: {"%s (as bound into α: compare it with the share typed at the ceremony)",
		"%s (telle que liée dans α : la comparer à celle saisie à la cérémonie)"},
	MsgWinner: {"winner",
		"gagnant"},
	MsgReserve: {"reserve %d",
		"suppléant %d"},
	MsgPickFact: {"%s (entrant %d)",
		"%s (participant %d)"},
	MsgPickFactAccount: {"%s (entrant %d), account %s",
		"%s (participant %d), compte %s"},
	MsgNotCertificate: {"%s is not a promotion certificate: %s",
		"%s n'est pas un certificat de tirage promotionnel : %s"},
	MsgListOtherDraw: {"the entrant list is of draw %q, the certificate of draw %q",
		"la liste des participants est celle du tirage « %s », le certificat celui du tirage « %s »"},
	MsgRulesGiven: {"the rules file given is the frozen one",
		"le fichier de règlement fourni est bien celui qui a été gelé"},
	MsgDatesKept: {"frozen after the participation period, drawn between the draw's date and its latest date (the records' times, in the rules' time zone)",
		"gelé après la période de participation, tiré entre la date du tirage et sa date limite (heures des enregistrements, dans le fuseau du règlement)"},
	MsgTOFU: {"on first use (--tofu): the certificate's own keys, fingerprints printed on stderr",
		"à la première utilisation (--tofu) : les propres clés du certificat, empreintes affichées sur la sortie d'erreur"},
	MsgPromoNotCertificate: {"not a certificate: %w",
		"ce n'est pas un certificat : %[1]v"},
	MsgPromoVersion: {"unsupported version %d",
		"version %d non prise en charge"},
	MsgPromoNoLogKey: {"no usable log key",
		"aucune clé de journal exploitable"},
	MsgPromoErr: {"%w",
		"%[1]v"},
	MsgPromoNotFreeze: {"not a promo_freeze record: %v",
		"ce n'est pas un enregistrement de gel (promo_freeze) : %v"},
	MsgPromoNotDraw: {"not a promo_draw record: %v",
		"ce n'est pas un enregistrement de tirage (promo_draw) : %v"},
	MsgPromoNotKeys: {"not a key announcement: %v",
		"ce n'est pas une annonce de clés : %v"},
	MsgPromoKeysErr: {"key announcement: %w",
		"annonce de clés : %[1]v"},
	MsgPromoNoVRFKey: {"the key announcement has no VRF key %q",
		"l'annonce de clés ne comporte pas de clé VRF « %s »"},
	MsgPromoKeyLate: {"the VRF key was announced after the freeze",
		"la clé VRF a été annoncée après le gel"},
	MsgPromoKeyOther: {"the certificate's VRF key is not the one the draw record names",
		"la clé VRF du certificat n'est pas celle que désigne l'enregistrement du tirage"},
	MsgPromoKeyNotPinned: {"the draw's VRF key is not the pinned one",
		"la clé VRF du tirage n'est pas celle qui a été épinglée"},
	MsgPromoRulesDiffer: {"certificate says rules %s, the freeze record %s",
		"le certificat indique le règlement %s, l'enregistrement du gel %s"},
	MsgPromoRulesFile: {"the rules file hashes to %x, the freeze record says %s",
		"l'empreinte du fichier de règlement est %x, l'enregistrement du gel indique %s"},
	MsgPromoDrawIDs: {"draw ids differ: certificate %q, freeze %q, draw %q",
		"les identifiants de tirage diffèrent : certificat « %s », gel « %s », tirage « %s »"},
	MsgPromoNoLink: {"the draw record does not link to this freeze record",
		"l'enregistrement du tirage ne se rattache pas à cet enregistrement de gel"},
	MsgPromoLinkFields: {"the draw record's root, count, winners, reserves or beacon differ from the freeze",
		"la racine, le nombre, les gagnants, les suppléants ou la balise publique de l'enregistrement du tirage diffèrent du gel"},
	MsgPromoDrawnEarly: {"the draw record's time %s is before its freeze's, %s: the appliance's clock went back between them",
		"l'heure de l'enregistrement du tirage, %s, précède celle de son gel, %s : l'horloge de l'appareil a reculé entre les deux"},
	MsgPromoOrder: {"the draw record (index %d) was not logged after the freeze (index %d)",
		"l'enregistrement du tirage (index %d) n'a pas été journalisé après le gel (index %d)"},
	MsgPromoCommit: {"the revealed r does not open the commitment logged at the freeze",
		"le secret r révélé ne correspond pas à l'engagement journalisé lors du gel"},
	MsgPromoReserves: {"the freeze ranks %d reserves, the rules ask for %d",
		"le gel classe %d suppléants, le règlement en demande %d"},
	MsgPromoPickCount: {"%d picks recorded, %d certified, %d expected",
		"%d désignations enregistrées, %d certifiées, %d attendues"},
	MsgPromoRankEntrant: {"rank %d: β picks entrant %d, the records say %d",
		"rang %d : β désigne le participant %d, les enregistrements indiquent %d"},
	MsgPromoRankLeaf: {"rank %d: leaf is not 32 bytes of hex",
		"rang %d : la feuille n'est pas de 32 octets en hexadécimal"},
	MsgPromoRankPseudonym: {"rank %d: pseudonym %q is not that of leaf %s",
		"rang %d : le pseudonyme « %s » n'est pas celui de la feuille %s"},
	MsgPromoRankErr: {"rank %d: %w",
		"rang %d : %[2]v"},
	MsgPromoListDraw: {"the list is for draw %q, not %q",
		"la liste concerne le tirage « %s », et non « %s »"},
	MsgPromoListSize: {"the list holds %d entrants, %d were frozen",
		"la liste compte %d participants, %d ont été gelés"},
	MsgPromoListRoot: {"the list does not hash to the frozen root",
		"l'empreinte de la liste n'est pas la racine gelée"},
	MsgPromoOtherKind: {"another kind",
		"un enregistrement d'un autre type"},
	MsgPromoIndexBeyond: {"index %d not below the checkpoint's size %d",
		"l'index %d n'est pas inférieur à la taille %d du point de contrôle"},
	MsgPromoProofHex: {"proof hash %d is not 32 bytes of lowercase hex",
		"l'empreinte %d de la preuve n'est pas de 32 octets en hexadécimal minuscule"},

	// Audit and rngverify log.
	MsgFollowedCheckpoint: {"followed checkpoint: %s",
		"point de contrôle suivi : %s"},
	MsgFollowedNotAfter: {"followed checkpoint of size %d after size %d: %v",
		"point de contrôle suivi de taille %d après la taille %d : %v"},
	MsgFollowedNotExtend: {"followed checkpoint of size %d does not extend size %d: %s",
		"le point de contrôle suivi de taille %d ne prolonge pas celui de taille %d : %s"},
	MsgFollowedOK: {"size %d extends size %d, the first checkpoint audited: each of the %d checkpoint(s) followed extends the one before",
		"la taille %d prolonge la taille %d, le premier point de contrôle audité : chacun des %d point(s) de contrôle suivi(s) prolonge le précédent"},
	MsgFollowedExtends: {"size %d extends the trusted size %d, through size %d, the first checkpoint audited, and each of the %d checkpoint(s) followed after it",
		"la taille %d prolonge la taille de confiance %d, par la taille %d, le premier point de contrôle audité, et chacun des %d point(s) de contrôle suivi(s) après lui"},
	MsgConsistencyUnbuildable: {"couldn't build the consistency proof from size %d: %s",
		"impossible de construire la preuve de cohérence depuis la taille %d : %s"},
	MsgRolledBack: {"the log serves size %d, smaller than the trusted size %d: a stale or rolled-back log",
		"le journal présente la taille %d, inférieure à la taille de confiance %d : journal périmé ou revenu en arrière"},
	MsgExtends: {"size %d extends the trusted size %d",
		"la taille %d prolonge la taille de confiance %d"},
	MsgVRFKeyEntry: {"%s %s fingerprint %s (entry %d)",
		"%s %s, empreinte %s (entrée %d)"},
	MsgTicketReplayed: {"game %s (entry %d): its ticket already played game %s",
		"partie %s (entrée %d) : son ticket a déjà joué la partie %s"},
	MsgEmissionUnregistered: {"game %s (entry %d): emission %q was not registered before",
		"partie %s (entrée %d) : l'émission « %s » n'avait pas été enregistrée auparavant"},
	MsgEmissionBad: {"entry %d: %s",
		"entrée %d : %s"},
	MsgOrphanRecord: {"entry %d: a %s of game %s, which never started (or already ended)",
		"entrée %d : « %s » de la partie %s, qui n'a jamais commencé (ou est déjà terminée)"},
	MsgDrawNoFreeze: {"entry %d: draw %s has no freeze before it",
		"entrée %d : le tirage %s n'est précédé d'aucun gel"},
	MsgEntry: {"entry %d: %s",
		"entrée %d : %s"},
	MsgEntryKey: {"entry %d: key %s: %s",
		"entrée %d : clé %s : %s"},
	MsgEntryKeyNotPinned: {"entry %d: key %s (fingerprint %s) is not pinned",
		"entrée %d : la clé %s (empreinte %s) n'est pas épinglée"},
	MsgEntryKeyAgain: {"entry %d: key %s announced again",
		"entrée %d : la clé %s est annoncée une seconde fois"},
	MsgEntryKeyOtherSuite: {"entry %d: key %s (fingerprint %s) is announced under %s, but is pinned under %s",
		"entrée %d : la clé %s (empreinte %s) est annoncée sous %s, mais épinglée sous %s"},
	MsgEntryKeyTwoSuites: {"entry %d: key %s announces under %s the key bytes (fingerprint %s) that entry %d announced as key %s under %s: one key, two outputs for each α",
		"entrée %d : la clé %s annonce sous %s les octets de clé (empreinte %s) que l'entrée %d a annoncés comme clé %s sous %s : une clé, deux sorties pour chaque α"},
	MsgGameCheck: {"game %s: %s: %s",
		"partie %s : %s : %s"},
	MsgDrawIssue: {"draw %s (entry %d): %s",
		"tirage %s (entrée %d) : %s"},
	MsgDrawBeacon: {"the beacon differs from the freeze's",
		"la balise publique d'aléa diffère de celle annoncée lors du gel"},
	MsgDrawNoLink: {"does not link to its freeze",
		"ne se rattache pas à son gel"},
	MsgDrawFields: {"root, count, winners, reserves or commitment differ from the freeze",
		"la racine, le nombre, les gagnants, les suppléants ou l'engagement diffèrent du gel"},
	MsgDrawCommit: {"r does not open the commitment of the freeze",
		"r ne correspond pas à l'engagement du gel"},
	MsgDrawKeyUnannounced: {"draw %s: key %q was not announced",
		"tirage %s : la clé « %s » n'a pas été annoncée"},
	MsgDrawKeyNotFrozen: {"the draw is proven under VRF key %q, not %q, the key its freeze names: under another key the same α has another β, and the key was bound before the bailiff's share existed",
		"le tirage est prouvé sous la clé VRF « %s », et non « %s », celle que désigne son gel : sous une autre clé, le même α donne un autre β, et la clé était fixée avant que la contribution de l'huissier n'existe"},
	MsgDrawKeyUnbound: {"its freeze names no VRF key (a freeze logged before freezes named theirs) and %d VRF keys were announced before it (%s): the appliance could choose the key once the bailiff's share was known, and keep the ranking it preferred",
		"son gel ne désigne aucune clé VRF (un gel journalisé avant que les gels ne désignent la leur) et %d clés VRF ont été annoncées avant lui (%s) : l'appareil pouvait choisir la clé une fois connue la contribution de l'huissier, et garder le classement qui lui convenait"},
	MsgDrawProof: {"the proof does not verify under key %s",
		"la preuve ne se vérifie pas sous la clé %s"},
	MsgEntriesOK: {"%d entries match the signed tree",
		"%d entrées correspondent à l'arbre signé"},
	MsgMalformed: {"%d malformed: %s",
		"%d mal formé(s) : %s"},
	MsgTooNew: {"%d not readable by this version of rngverify: %s",
		"%d illisible(s) par cette version de rngverify : %s"},
	MsgKeysAnnouncedPinned: {"%d key(s) announced in the log, all pinned",
		"%d clé(s) annoncée(s) dans le journal, toutes épinglées"},
	MsgKeysAnnounced: {"%d key(s) announced in the log (not pinned: compare their fingerprints with the published ones)",
		"%d clé(s) annoncée(s) dans le journal (non épinglées : comparez leurs empreintes avec celles publiées)"},
	MsgNoKeyAnnounced: {"no VRF key announced in the log",
		"aucune clé VRF annoncée dans le journal"},
	MsgNoKeyAnnouncedRefused: {"no VRF key announced in the entries that match the signed tree: entry %d, which may be a key announcement, does not match it and was left out",
		"aucune clé VRF annoncée dans les entrées conformes à l'arbre signé : l'entrée %d, qui peut être une annonce des clés, ne lui correspond pas et a été écartée"},
	MsgGamesOK: {"%d game(s) (%d unfinished), %d VRF proof(s)",
		"%d partie(s) (%d non terminée(s)), %d preuve(s) VRF"},
	MsgDrawsOK: {"%d draw(s)",
		"%d tirage(s)"},
	MsgRecordsRefused: {"no record checked: every entry read (%d) was left out, not matching the signed tree (see entries)",
		"aucun enregistrement vérifié : toutes les entrées lues (%d) ont été écartées, faute de correspondre à l'arbre signé (voir entries)"},
	MsgGamesRefused: {"no game checked: the entries left out (%d, from entry %d), which do not match the signed tree (see entries), may hold games",
		"aucune partie vérifiée : les entrées écartées (%d, à partir de l'entrée %d), qui ne correspondent pas à l'arbre signé (voir entries), peuvent en contenir"},
	MsgNotCheckedStopped: {"none checked: the audit stopped before the end of the log (see entries)",
		"aucune vérification : l'audit s'est arrêté avant la fin du journal (voir entries)"},
	MsgDrawsRefused: {"no promotion draw checked: the entries left out (%d, from entry %d), which do not match the signed tree (see entries), may hold draws",
		"aucun tirage de promotion vérifié : les entrées écartées (%d, à partir de l'entrée %d), qui ne correspondent pas à l'arbre signé (voir entries), peuvent en contenir"},
	MsgFailing: {"%d failing: %s",
		"%d en échec : %s"},
	MsgCellBad: {"%s: %d of %d, expected %s (p = %d/%d), z = %s",
		"%s : %d sur %d, %s attendus (p = %d/%d), z = %s"},
	MsgTooFewDraws: {"too few draws to test (a cell needs 10 expected events)",
		"trop peu de tirages pour tester (il faut 10 événements attendus par case)"},
	MsgStatsOK: {"%d cells tested, largest |z| %s (limit %s, false alarm < 1e-6)",
		"%d cases testées, plus grand |z| %s (limite %s, probabilité de fausse alarme < 10⁻⁶)"},
	MsgStatsExactOK: {"%d cells tested, largest |z| %s (exact binomial test of each cell, false alarm < 1e-6)",
		"%d cases testées, plus grand |z| %s (test binomial exact de chaque case, probabilité de fausse alarme < 10⁻⁶)"},
	MsgCellLosingPick: {"losing pick, %d hidden",
		"numéro perdant, %d cachés"},
	MsgCellTriple: {"x3 at tier %d",
		"x3 au palier %d"},
	MsgMalformedCheckpoint: {"the log serves a malformed checkpoint: %s",
		"le journal présente un point de contrôle mal formé : %s"},
	MsgUnreadableKeys: {"the log serves unreadable keys: %s",
		"le journal présente des clés illisibles : %s"},
	MsgNoKeyForLog: {"no trusted key for log %q: give --log-key FILE, --pin FINGERPRINT, or --tofu to trust it on first use",
		"aucune clé de confiance pour le journal « %s » : fournissez --log-key FICHIER, --pin EMPREINTE, ou --tofu pour lui faire confiance à la première utilisation"},
	MsgPinMatchesNoServedKey: {"no trusted key for log %q: it serves %s, which no fingerprint pinned (--pin, or a key announcement given to --log-key) names: compare with the appliance's published fingerprints",
		"aucune clé de confiance pour le journal « %s » : il présente %s, qu'aucune empreinte épinglée (--pin, ou une annonce des clés donnée à --log-key) ne désigne : comparez avec les empreintes publiées de l'appareil"},
	MsgLogKeyTrust: {"%s (%s since %s)",
		"%s (%s depuis %s)"},
	MsgFirstCheckpoint: {"first checkpoint seen for this log",
		"premier point de contrôle vu pour ce journal"},
	MsgThroughput: {"%.0f records/s (%s)",
		"%.0f enregistrements/s (%s)"},
	MsgTrustState: {"%s: size %d recorded",
		"%s : taille %d enregistrée"},

	// Audit: an id logged twice (emission, game, promotion freeze or draw).
	MsgGameIDAgain: {"game %s started again at entry %d (first started at entry %d)",
		"partie %s démarrée à nouveau à l'entrée %d (premier démarrage à l'entrée %d)"},
	MsgEmissionAgain: {"emission %s registered again at entry %d with closure %s and start deadline %s (first registered at entry %d with closure %s and start deadline %s)",
		"émission %s enregistrée à nouveau à l'entrée %d, avec la clôture du %s et la date limite de démarrage %s (enregistrée d'abord à l'entrée %d, avec la clôture du %s et la date limite de démarrage %s)"},
	MsgFreezeAgain: {"draw %s frozen again at entry %d (first frozen at entry %d)",
		"tirage %s gelé à nouveau à l'entrée %d (premier gel à l'entrée %d)"},
	MsgDrawAgain: {"draw %s drawn again at entry %d (first drawn at entry %d)",
		"tirage %s effectué à nouveau à l'entrée %d (premier tirage à l'entrée %d)"},

	// Audit: freezes checked against the operators' rules files (--rules).
	MsgAuditRulesBad: {"rules file %s: %w",
		"règlement %s : %v"},
	MsgAuditFreezeRules: {"draw %s (freeze, entry %d; rules file %s): %s",
		"tirage %s (gel, entrée %d ; règlement %s) : %s"},
	MsgAuditFactRules: {"rules",
		"règlement"},
	MsgAuditRulesChecked: {"%s (SHA-256 %s): %d freeze(s) committing to it checked against it",
		"%s (SHA-256 %s) : %d gel(s) qui s'y engagent vérifié(s) au regard de ce règlement"},
	MsgAuditRulesUnused: {"%s (SHA-256 %s): no freeze in the log commits to this file (a freeze commits to the SHA-256 of the exact file): the rules of another log's operation, or another version of them?",
		"%s (SHA-256 %s) : aucun gel du journal ne s'engage sur ce fichier (un gel s'engage sur le SHA-256 du fichier exact) : le règlement de l'opération d'un autre journal, ou une autre version de celui-ci ?"},
	MsgAuditRulesUnchecked: {"%d freeze(s) commit to rules files not given (--rules FILE), not checked against them: %s",
		"%d gel(s) s'engagent sur des règlements non fournis (--rules FICHIER), non vérifiés au regard de ceux-ci : %s"},
	MsgAuditRulesHash: {"SHA-256 %s (operation %s): %d freeze(s)",
		"SHA-256 %s (opération %s) : %d gel(s)"},
	MsgAuditRulesNoHash: {"no rules hash: %d freeze(s)",
		"sans empreinte de règlement : %d gel(s)"},
	MsgAuditRulesMore: {"%d more rules hash(es)",
		"%d autre(s) empreinte(s) de règlement"},
	MsgUsageAuditRules: {`Promotion rules (optional):
  --rules FILE  an operation's rules file, repeatable: give every version of
                an operation's rules that its freezes commit to (amended rules
                are another file). Every freeze that commits to a file by its
                SHA-256 is checked against it (dates, with its draw's time when
                logged; beacon round; one winner and the rules' reserves); a
                freeze that contradicts it is MISBEHAVIOUR. A freeze of a given
                file's operation that commits to another hash (a version not
                given, or other rules than the file) FAILs promotions. Freezes
                of operations whose rules are not given, and files no freeze
                commits to, are listed (facts "rules")

`, `Règlements des promotions (facultatif) :
  --rules FICHIER  le règlement d'une opération, répétable : fournir chaque
                   version du règlement d'une opération sur laquelle ses gels
                   s'engagent (un règlement modifié est un autre fichier).
                   Chaque gel qui s'engage sur un fichier par son SHA-256 est
                   vérifié au regard de celui-ci (dates, avec l'heure de son
                   tirage s'il figure au journal ; ronde de balise ; un gagnant
                   et les suppléants du règlement) ; un gel qui le contredit
                   est un MANQUEMENT. Un gel de l'opération d'un fichier fourni
                   qui s'engage sur une autre empreinte (une version non
                   fournie, ou un autre règlement que le fichier) fait échouer
                   la vérification promotions. Les gels des opérations dont le
                   règlement n'est pas fourni, et les fichiers sur lesquels
                   aucun gel ne s'engage, sont listés (faits « règlement »)

`},

	// Errors of the audit's reading (verdict.Errorf in audit).
	MsgAuditCheckpointRead: {"couldn't read the checkpoint: %w",
		"impossible de lire le point de contrôle : %[1]v"},
	MsgAuditCheckpointMissing: {"couldn't read the checkpoint: %w: is --url the log's prefix, under which it serves checkpoint, vkey and tile/ (rngd: http://HOST:PORT/log), or --dir its tile directory (rngd: DATA_DIR/log/tiles)?",
		"impossible de lire le point de contrôle : %[1]v : --url est-il le préfixe du journal, sous lequel il sert checkpoint, vkey et tile/ (rngd : http://HÔTE:PORT/log), ou --dir son répertoire de tuiles (rngd : DATA_DIR/log/tiles) ?"},
	MsgAuditStopped: {"audit stopped after %d of %d entries: %w",
		"audit interrompu après %d entrées sur %d : %v"},
	MsgAuditTilesRead: {"couldn't read the hash tiles of entries %d..%d: %w",
		"impossible de lire les tuiles d'empreintes des entrées %d..%d : %v"},
	MsgAuditBundleRead: {"couldn't read entry bundle %s: %w",
		"impossible de lire le paquet d'entrées %s : %v"},
	MsgAuditBundleTruncated: {"entry bundle %s: truncated entry %d",
		"paquet d'entrées %s : entrée %d tronquée"},
	MsgAuditBundleCount: {"entry bundle %s: %d entries, want %d",
		"paquet d'entrées %s : %d entrées au lieu de %d"},
	MsgCLIKeysRead: {"couldn't read the log's keys at vkey (with --dir, give --log-key FILE): %w",
		"impossible de lire les clés du journal (vkey) (avec --dir, fournissez --log-key FICHIER) : %[1]v"},
	MsgCLIError: {"rngverify %s: %s",
		"rngverify %s : %s"},

	// The browser page.
	MsgNotTirageFile: {"not a Tirage receipt, transcript (or rngd's GetReceipts or GetTranscript reply), certificate, freeze receipt, attestation, entrant list or log key file",
		"ce n'est ni un reçu, ni une transcription (ni une réponse GetReceipts ou GetTranscript de rngd), ni un certificat, ni un reçu de gel, ni une attestation, ni une liste de participants, ni un fichier de clé de journal Tirage"},

	// rngverify's one-line conclusion on stderr.
	MsgCLIUnreadable: {"rngverify %s: unreadable input: %s",
		"rngverify %s : fichier illisible : %s"},
	MsgCLIMisbehaviour: {"rngverify %s: MISBEHAVIOUR PROVEN, check %s: %s",
		"rngverify %s : MANQUEMENT PROUVÉ, vérification %s : %s"},
	MsgCLINotVerified: {"rngverify %s: NOT VERIFIED, check %s: %s",
		"rngverify %s : NON VÉRIFIÉ, vérification %s : %s"},
	MsgCLINoCheck: {"rngverify %s: NOT VERIFIED: no check ran",
		"rngverify %s : NON VÉRIFIÉ : aucune vérification n'a eu lieu"},
	MsgCLITOFULog: {"rngverify %s: TRUST ON FIRST USE: trusting log %q with the keys it serves:",
		"rngverify %s : CONFIANCE À LA PREMIÈRE UTILISATION : le journal « %s » est accepté avec les clés qu'il présente :"},
	MsgCLITOFUKey: {"  %s key  --pin %s",
		"  clé %s  --pin %s"},
	MsgCLITOFUCompare: {"  compare these fingerprints with the appliance's published ones; recorded in %s",
		"  comparez ces empreintes avec celles que l'exploitant publie pour l'appareil ; enregistrées dans %s"},
	MsgCLITOFUCert: {"rngverify certificate: --tofu: trusting the certificate's own keys; compare their fingerprints with the operator's published ones:",
		"rngverify certificate : --tofu : confiance accordée aux propres clés du certificat ; comparez leurs empreintes avec celles que publie l'opérateur :"},
	MsgCLITOFULogKey: {"  log key %s  --pin %s",
		"  clé du journal %s  --pin %s"},
	MsgCLITOFUVRFKey: {"  VRF key %s  --pin %s",
		"  clé VRF %s  --pin %s"},
	MsgCLITOFUVRFSuite: {"  VRF key %s: suite %q unknown, not trusted (SHA-256 %s)",
		"  clé VRF %s : suite « %s » inconnue, pas de confiance (SHA-256 %s)"},
	MsgCLITOFUNone: {"  (none: the certificate carries no readable key)",
		"  (aucune : le certificat ne comporte aucune clé lisible)"},
	MsgCLIFollowing: {"rngverify audit: following the log every %s; Ctrl-C stops and prints the verdict",
		"rngverify audit : suivi du journal toutes les %s ; Ctrl-C l'interrompt et affiche le verdict"},
	MsgCLIProgress: {"\r[%s%s] %d/%d entries %3d%% %s/s",
		"\r[%s%s] %d/%d entrées %3d %% %s/s"},
	MsgCLIUseGame: {"%s is a transcript (or rngd's GetTranscript reply): check it with rngverify game",
		"%s est une transcription de partie (ou une réponse GetTranscript de rngd) : vérifiez-la avec rngverify game"},
	MsgCLIUseReceipt: {"%s is a receipt (or rngd's GetReceipts reply): check it with rngverify receipt",
		"%s est un reçu (ou une réponse GetReceipts de rngd) : vérifiez-le avec rngverify receipt"},
	MsgCLIUseCert: {"%s is a promotion draw certificate: check it with rngverify certificate",
		"%s est un certificat de tirage promotionnel : vérifiez-le avec rngverify certificate"},
	MsgCLIUseFreeze: {"%s is a promotion's freeze receipt: check it with rngverify freeze",
		"%s est le reçu de gel d'une opération promotionnelle : vérifiez-le avec rngverify freeze"},
	MsgCLIUseAttest: {"%s is an attestation (a DSSE envelope or an attestation record): check it with rngverify attestation",
		"%s est une attestation (enveloppe DSSE ou enregistrement d'attestation) : vérifiez-la avec rngverify attestation"},
	MsgCLIUseLogKeys: {"%s is a file of log verifier keys (as /log/vkey serves them), a trust anchor, not a document to check: give it with --log-key FILE, and the document as FILE",
		"%s est un fichier de clés de vérification du journal (tel que le sert /log/vkey), une ancre de confiance, et non un document à vérifier : donnez-le avec --log-key FICHIER, et le document comme FICHIER"},
	MsgCLIUseAnnouncement: {"%s is the log's key announcement record, a trust anchor, not a document to check: give it with --log-key FILE or --vrf-key FILE, and the document as FILE",
		"%s est l'annonce des clés du journal, une ancre de confiance, et non un document à vérifier : donnez-la avec --log-key FICHIER ou --vrf-key FICHIER, et le document comme FICHIER"},
	MsgCLIUseEntrants: {"%s is a promotion's entrant list: give it with --entrants LIST to rngverify freeze or rngverify certificate, with the freeze receipt or certificate of its draw as FILE",
		"%s est une liste de participants d'une opération promotionnelle : donnez-la avec --entrants LISTE à rngverify freeze ou rngverify certificate, avec le reçu de gel ou le certificat de son tirage comme FICHIER"},
	MsgCLIDocumentNotKeys: {"a document to check (rngverify %s reads it), not a key file: give the operator's key file or key announcement here, and the document as FILE",
		"un document à vérifier (rngverify %s le lit), et non un fichier de clés : donnez ici le fichier de clés ou l'annonce des clés de l'exploitant, et le document comme FICHIER"},
	MsgCLICouldntRead: {"rngverify %s: couldn't read %s: %s",
		"rngverify %s : impossible de lire %s : %s"},

	// Entrant lists (promo.ParseEntrantList, verdict.Errorf in promo).
	MsgListHeader: {"%w: line %d: first line must be %q",
		"%[1]v : ligne %[2]d : la première ligne doit être « %[3]s »"},
	MsgListDrawLine: {"%w: line %d: want \"draw <operation/id>\"",
		"%[1]v : ligne %[2]d : « draw <opération/identifiant> » attendu"},
	MsgListKeyLine: {"%w: line %d: want \"key <64 lower-case hex digits>\"",
		"%[1]v : ligne %[2]d : « key <64 chiffres hexadécimaux en minuscules> » attendu"},
	MsgListCountLine: {"%w: line %d: want \"count <n>\"",
		"%[1]v : ligne %[2]d : « count <nombre> » attendu"},
	MsgListCountExceeds: {"%w: line %d: count %d exceeds the lines present",
		"%[1]v : ligne %[2]d : le nombre de participants annoncé (%[3]d) dépasse celui des lignes présentes"},
	MsgListCountShort: {"%w: line %d: count says %d entrants, the file holds %d",
		"%[1]v : ligne %[2]d : %[3]d participants annoncés, le fichier n'en contient que %[4]d"},
	MsgListTrailing: {"%w: line %d: trailing data after %d entrants",
		"%[1]v : ligne %[2]d : données en trop après les %[3]d participants"},
	MsgListEntrant: {"%w: %w",
		"%[1]v : %[2]v"},
	MsgListAccount: {"entrant %d: account must match [A-Za-z0-9._:-]{1,64}, got %q",
		"participant %d : le compte doit être de la forme [A-Za-z0-9._:-]{1,64}, et non « %s »"},
	MsgListOrder: {"entrant %d: list not canonical: %q does not sort strictly after %q",
		"participant %d : liste non canonique : « %s » ne vient pas strictement après « %s » dans l'ordre de tri"},

	// The bailiff's share (promo.ParseShare).
	MsgShareText: {"typed share must be 8 to 256 bytes of UTF-8 without surrounding spaces",
		"la contribution saisie par l'huissier doit compter de 8 à 256 octets UTF-8, sans espace au début ni à la fin"},
	MsgShareControl: {"typed share must not contain control characters",
		"la contribution saisie par l'huissier ne doit pas contenir de caractères de contrôle"},
	MsgShareInvisible: {"typed share must not contain %s: a character that does not print, or a space other than U+0020, reads as another share on paper",
		"la contribution saisie par l'huissier ne doit pas contenir %s : un caractère qui ne s'imprime pas, ou une espace autre que U+0020, se lit sur papier comme une autre contribution"},
	MsgShareDiceCount: {"dice share needs %d to 256 rolls, got %d",
		"une contribution aux dés demande de %d à 256 lancers, et non %d"},
	MsgShareDiceRoll: {"dice roll %q is not 1 to 6",
		"le lancer de dé %q n'est pas un chiffre de 1 à 6"},
	MsgSharePrefix: {"share must start with \"text:\" or \"dice:\"",
		"la contribution de l'huissier doit commencer par « text: » ou « dice: »"},

	// Public beacons (promo.VerifyBeacon, package beacon).
	MsgBeaconNoneAnnounced: {"the freeze announced no beacon round; no value may be bound",
		"le gel n'a annoncé aucune ronde de balise publique d'aléa : aucune valeur ne peut être intégrée au tirage"},
	MsgBeaconFreeText: {"the freeze announced the beacon %q, a free text, not a drand round: no one can verify its value, which the appliance could have chosen to pick the winners",
		"le gel a annoncé la balise publique « %s », un texte libre et non un tour drand : personne ne peut vérifier sa valeur, que l'appareil aurait pu choisir pour désigner les gagnants"},
	MsgBeaconChainUnpinned: {"chain %x is not a drand chain this verifier pins",
		"la chaîne %x n'est pas une chaîne drand connue de ce vérificateur"},
	MsgBeaconSignatureRequired: {"the freeze announced %s round %d; its published signature is required",
		"le gel a annoncé la ronde %[2]d de %[1]s : sa signature publiée est requise"},
	MsgBeaconNotRound: {"not the signature of %s round %d: %w",
		"ce n'est pas la signature de la ronde %[2]d de %[1]s : %[3]v"},
	MsgBeaconRefForm: {"beacon %q is not drand:<chain hash, 64 lowercase hex>:<round>",
		"la balise « %s » n'est pas de la forme drand:<empreinte de la chaîne, 64 chiffres hexadécimaux en minuscules>:<ronde>"},
	MsgBeaconRefHash: {"beacon %q: chain hash: %w",
		"balise « %s » : empreinte de la chaîne : %v"},
	MsgBeaconRefRound: {"beacon %q: the round is not a number from 1 to 2^64-1 in canonical form",
		"balise « %s » : la ronde n'est pas un nombre de 1 à 2^64-1 écrit sous forme canonique"},
	MsgBeaconMalformed: {"not a well-formed signature of this chain's scheme",
		"ce n'est pas une signature bien formée selon le schéma de cette chaîne"},
	MsgBeaconInvalid: {"the signature does not verify for this chain and round",
		"la signature ne se vérifie pas pour cette chaîne et cette ronde"},
	MsgBeaconRoundZero: {"round 0 does not exist",
		"la ronde 0 n'existe pas"},
	MsgBeaconScheme: {"scheme %q is not supported (only %s and %s)",
		"le schéma « %s » n'est pas pris en charge (seulement %s et %s)"},
	MsgBeaconChainKey: {"the chain's public key is not a %s point",
		"la clé publique de la chaîne n'est pas un point de %s"},
	MsgBeaconChainedLength: {"%w: a chained round's value is the previous round's signature (%d bytes) then its signature (%d bytes), got %d bytes",
		"%[1]v : la valeur d'une ronde chaînée est la signature de la ronde précédente (%[2]d octets) suivie de sa propre signature (%[3]d octets), et non %[4]d octets"},
	MsgBeaconGenesis: {"%w: round 1 follows the genesis seed",
		"%[1]v : la ronde 1 suit la graine de genèse de la chaîne"},
	MsgBeaconNotAfter: {"%s round %d was published at %s, not after the freeze (%s)",
		"la ronde %[2]d de %[1]s a été publiée le %[3]s, et non après le gel (%[4]s) : sa valeur pouvait être connue avant le gel"},

	// x/mod/sumdb/tlog's errors, by their exact text (verdict.Named).
	MsgTlogProofFailed: {"invalid transparency proof",
		"la preuve du journal de transparence ne mène pas à la racine signée"},
	MsgTlogInconsistentTile: {"downloaded inconsistent tile",
		"une tuile d'empreintes lue dans le journal contredit l'arbre signé"},

	// rngverify's reading of its input and its usage. The JSON messages
	// print the decoder's own English text in English (byte for byte) and
	// say it in French from the other arguments (TestCatalog's libraryText).
	MsgJSONSyntax: {"%[2]s",
		"ce n'est pas du JSON valide (erreur de syntaxe à l'octet %[1]d)"},
	MsgJSONType: {"%[3]s",
		"%[1]s : une valeur JSON de type « %[2]s » n'est pas du type attendu"},
	MsgJSONField: {"field %q",
		"champ « %s »"},
	MsgJSONRoot: {"the document",
		"le document"},
	MsgJSONTruncated: {"unexpected EOF",
		"le JSON s'arrête avant la fin du document"},
	MsgJSONUnknownField: {"json: unknown field %q",
		"champ JSON « %s » inconnu"},
	MsgCertNoDraw: {"no draw",
		"aucun tirage nommé (le champ « draw » manque)"},
	MsgCLIUsage: {"usage: rngverify COMMAND [ARGS]\n\ncommands:\n",
		"utilisation : rngverify COMMANDE [ARGUMENTS] [--lang fr|en]\n\ncommandes :\n"},
	MsgCLIUsageLine: {"  %-12s %s\n",
		"  %-12s %s\n"},
	MsgCLIUnknown: {"rngverify: unknown command %q (rngverify help lists them)",
		"rngverify : commande « %s » inconnue (rngverify help --lang fr les liste)"},
	MsgCLIUsageErr: {"rngverify %s: %s (rngverify %s -h for usage)",
		"rngverify %s : %s (rngverify %[3]s -h --lang fr pour l'aide)"},
	MsgCLIUnexpected: {"unexpected argument %q",
		"argument inattendu « %s »"},
	MsgCLIMissingFlag: {"missing --%s",
		"--%s manquant"},
	MsgCLINotHexByte: {"--%s is not hex: invalid byte: %s",
		"--%s n'est pas en hexadécimal : caractère invalide %s"},
	MsgCLINotHexOdd: {"--%s is not hex: odd length hex string",
		"--%s n'est pas en hexadécimal : nombre impair de chiffres"},
	MsgCLISuite: {"--suite: %s",
		"--suite : %s"},
	MsgUnknownSuite: {"unknown suite %q (want ECVRF-P256-SHA256-SSWU, ECVRF-P256-SHA256-TAI or RSA-FDH-VRF-SHA256)",
		"suite VRF « %s » inconnue (ECVRF-P256-SHA256-SSWU, ECVRF-P256-SHA256-TAI ou RSA-FDH-VRF-SHA256 attendue)"},
	MsgVRFKeyLineSuite: {"line %d: vrf: %s",
		"ligne %d : %s"},
	MsgCLIFlagUnknown: {"flag provided but not defined: -%s",
		"option inconnue : -%s"},
	MsgCLIFlagValue: {"flag needs an argument: -%s",
		"l'option -%s attend une valeur"},
	// Package flag's refusals of a value, same English text.
	MsgCLIFlagInvalid: {"invalid value %q for flag -%s: %v",
		"valeur « %s » invalide pour l'option -%s : %v"},
	MsgCLIFlagBool: {"invalid boolean value %q for -%s: %v",
		"valeur booléenne « %s » invalide pour l'option -%s : %v"},
	MsgCLIFlagParse: {"parse error",
		"illisible"},
	MsgCLIFlagOutRange: {"value out of range",
		"hors limites"},
	MsgVRFRejected: {"rngverify vrf: %s rejected: %s",
		"rngverify vrf : %s refusé : %s"},
	MsgVRFBetaDiffers: {"rngverify vrf: the proof is valid but its output %x differs from --beta",
		"rngverify vrf : la preuve est valide mais sa sortie %x diffère de --beta"},
	MsgUsageReceipt:     {usageReceiptEN, usageReceiptFR},
	MsgUsageGame:        {usageGameEN, usageGameFR},
	MsgUsageExit:        {usageExitEN, usageExitFR},
	MsgUsageTrust:       {usageTrustEN, usageTrustFR},
	MsgUsageCertificate: {usageCertificateEN, usageCertificateFR},
	MsgUsageLog:         {usageLogEN, usageLogFR},
	MsgUsageAudit:       {usageAuditEN, usageAuditFR},
	MsgCLIMissingCert: {"missing the certificate FILE",
		"il manque le FICHIER du certificat"},
	MsgCLINoAnchor: {"no trust anchor: give the operator's keys (--log-key FILE, --vrf-key FILE or --pin FINGERPRINT), or --tofu to accept the certificate's own keys and see their fingerprints",
		"aucune ancre de confiance : fournissez les clés de l'exploitant (--log-key FICHIER, --vrf-key FICHIER ou --pin EMPREINTE), ou --tofu pour accepter les propres clés du certificat et voir leurs empreintes"},
	MsgCLIReadRules: {"couldn't read the rules: %v",
		"impossible de lire le règlement : %v"},
	MsgCLIReadEntrants: {"couldn't read the entrant list: %v",
		"impossible de lire la liste des participants : %v"},
	MsgCLIReadCert: {"couldn't read the certificate: %v",
		"impossible de lire le certificat : %v"},
	MsgCLIOneFile: {"want exactly one FILE, got %d",
		"un seul FICHIER attendu, %d donné(s)"},
	MsgCLILangBad: {"--lang: %q, want fr or en",
		"--lang : « %s », fr ou en attendu"},
	MsgCLIPinBad: {"--pin %q: want 64 hex digits (a SHA-256 fingerprint, bare or as SHA256:64 hex digits), or SUITE:64 hex digits for a VRF key (SUITE ECVRF-P256-SHA256-SSWU, ECVRF-P256-SHA256-TAI or RSA-FDH-VRF-SHA256)",
		"--pin « %s » : 64 chiffres hexadécimaux attendus (une empreinte SHA-256, seule ou sous la forme SHA256:64 chiffres hexadécimaux), ou SUITE:64 chiffres hexadécimaux pour une clé VRF (SUITE ECVRF-P256-SHA256-SSWU, ECVRF-P256-SHA256-TAI ou RSA-FDH-VRF-SHA256)"},
	MsgCLITZ: {"--tz %q: %w",
		"--tz : fuseau horaire « %[1]s » inconnu ou invalide"},
	MsgCLILogKeyNeither: {"--log-key: neither a key nor a readable file: %w",
		"--log-key : ni une clé ni un fichier lisible : %v"},
	MsgCLIFlagFile: {"%s %s: %w",
		"%s %s : %v"},
	MsgCLITOFUWithKeys: {"--tofu with %s: trust the keys given or, on first use, the keys served, not both",
		"--tofu avec %s : faites confiance aux clés fournies ou, à la première utilisation, aux clés servies, pas aux deux"},
	MsgCLIFlagNegative: {"%s %d: must not be negative",
		"%s %d : ne doit pas être négatif"},
	MsgCLIFlagRange: {"%s %d: want %d to %d",
		"%s %d : de %d à %d attendu"},
	MsgCLIFlagErr: {"%s: %w",
		"%s : %v"},
	MsgFileNotExist: {"%[2]s",
		"le fichier %[1]s n'existe pas"},
	MsgFilePermission: {"%[2]s",
		"accès refusé au fichier %[1]s"},
	MsgVRFKeyLineForm: {"line %d: want \"SUITE HEX\"",
		"ligne %d : « SUITE HEX » attendu"},
	MsgLineErr: {"line %d: %w",
		"ligne %d : %v"},
	MsgVRFKeyLineHex: {"line %d: the key is not hex",
		"ligne %d : la clé n'est pas en hexadécimal"},
	MsgNoKeyFound: {"no key found",
		"aucune clé trouvée"},
	MsgCLIURLOrDir: {"give one of --url or --dir",
		"donnez l'une des options --url ou --dir"},
	MsgCLIURLBad: {"--url %q: want http(s)://host[:port]/prefix",
		"--url « %s » : http(s)://hôte[:port]/préfixe attendu"},
	MsgCLIStateFile: {"state file %s: %s",
		"fichier d'état %s : %s"},
	MsgCLIFollowBad: {"--follow: audit only, at least 1s",
		"--follow : avec audit seulement, au moins 1s"},
	MsgCLISaveState: {"rngverify %s: couldn't save the trust state: %s",
		"rngverify %s : impossible d'enregistrer l'état de confiance : %s"},
	MsgCmdAudit: {"follow the whole log: re-verify every record and game, statistics against the exact probabilities",
		"suivre tout le journal de transparence : revérifier chaque enregistrement et chaque partie, statistiques comparées aux probabilités exactes"},
	MsgCmdCertificate: {"re-check a promotion draw certificate offline (with the entrant list: the bailiff's checks)",
		"revérifier hors ligne le certificat d'un tirage promotionnel (avec la liste des participants : les vérifications de l'huissier)"},
	MsgCmdGame: {"check a whole game transcript: chain, r commitment, every proof and outcome, the rules",
		"vérifier la transcription d'une partie entière : chaîne, engagement sur r, chaque preuve et chaque résultat, le règlement"},
	MsgCmdLog: {"check the log's signed checkpoint and that it only grew since the last one trusted",
		"vérifier le point de contrôle signé du journal et qu'il n'a fait que croître depuis le dernier accepté"},
	MsgCmdReceipt: {"check one draw's receipt: record, log inclusion, VRF proof, outcome",
		"vérifier le reçu d'un tirage : enregistrement, présence dans le journal, preuve VRF, résultat"},
	MsgCmdVRF: {"check one RFC 9381 VRF proof and print its output β",
		"vérifier une preuve VRF (RFC 9381) et afficher sa sortie β"},
	MsgVRFUsage: {`usage: rngverify vrf --suite NAME --pk HEX --alpha HEX --proof HEX [--beta HEX] [--lang fr|en]

Checks one RFC 9381 VRF proof: that --proof is the proof for input --alpha
under public key --pk. When it is, prints the VRF output β in lowercase hex
and exits 0.

  --suite NAME   ECVRF-P256-SHA256-SSWU (Tirage's default), ECVRF-P256-SHA256-TAI
                 or RSA-FDH-VRF-SHA256, written as in RFC 9381
  --pk HEX       P-256 suites: the 33-byte SEC 1 compressed point;
                 RSA-FDH-VRF-SHA256: the DER SubjectPublicKeyInfo
  --alpha HEX    the VRF input α (may be empty: --alpha "")
  --proof HEX    the proof π (81 bytes for P-256, the modulus length for RSA)
  --beta HEX     optional: also require β to equal this value
  --lang fr|en   language of the messages (default en)

Exit status:
  0  the proof is valid (β printed on stdout)
  1  a check failed: the proof is invalid, the key given is hex but not a
     valid key of the suite, or β differs from --beta (one line on stderr)
  2  usage error: unknown or missing flag, a value that is not hex,
     an unknown suite, extra arguments
`, `utilisation : rngverify vrf --suite NOM --pk HEX --alpha HEX --proof HEX [--beta HEX] [--lang fr|en]

Vérifie une preuve VRF (RFC 9381) : que --proof est bien la preuve pour
l'entrée --alpha sous la clé publique --pk. Si c'est le cas, affiche la sortie
β de la VRF en hexadécimal (minuscules) et se termine avec le code 0.

  --suite NOM    ECVRF-P256-SHA256-SSWU (celle de Tirage par défaut), ECVRF-P256-SHA256-TAI
                 ou RSA-FDH-VRF-SHA256, écrites comme dans la RFC 9381
  --pk HEX       suites P-256 : le point compressé SEC 1 de 33 octets ;
                 RSA-FDH-VRF-SHA256 : la SubjectPublicKeyInfo en DER
  --alpha HEX    l'entrée α de la VRF (peut être vide : --alpha "")
  --proof HEX    la preuve π (81 octets pour P-256, la taille du module pour RSA)
  --beta HEX     facultatif : exige aussi que β soit égal à cette valeur
  --lang fr|en   langue des messages (anglais par défaut)

Code de sortie :
  0  la preuve est valide (β affiché sur la sortie standard)
  1  une vérification a échoué : la preuve est invalide, la clé fournie est en
     hexadécimal mais n'est pas une clé valide de la suite, ou β diffère de
     --beta (une ligne sur la sortie d'erreur)
  2  erreur d'utilisation : option inconnue ou manquante, valeur qui n'est pas
     en hexadécimal, suite inconnue, arguments en trop
`},
	// Package vrf's refused public keys: English is vrf's text without its
	// "vrf: " prefix (MsgVRFPrefix adds it back).
	MsgVRFKeyPointLength: {"public key: point has %d bytes, want 33 (compressed)",
		"la clé publique a %d octets au lieu des 33 d'un point compressé"},
	MsgVRFKeyUncompressed: {"public key: uncompressed point, want 33-byte compressed",
		"la clé publique est un point non compressé, alors que la forme compressée de 33 octets est attendue"},
	MsgVRFKeyPointPrefix: {"public key: point prefix %#02x, want 0x02 or 0x03",
		"la clé publique commence par l'octet %#02x au lieu de 0x02 ou 0x03 (point compressé)"},
	MsgVRFKeyNotOnCurve: {"public key: not a point on P-256",
		"la clé publique n'est pas un point de la courbe P-256"},
	MsgVRFKeyIdentity: {"public key: the identity",
		"la clé publique est l'élément neutre de la courbe (point à l'infini)"},
	MsgVRFKeyRSANotDER: {"RSA public key is not a DER SubjectPublicKeyInfo: %v",
		"la clé publique RSA n'est pas une SubjectPublicKeyInfo en DER : %v"},
	MsgVRFKeyNotRSA: {"public key is a %s, want RSA",
		"la clé publique est de type %s, et non une clé RSA"},
	MsgVRFKeyRSANotCanonical: {"RSA public key is not in canonical DER",
		"la clé publique RSA n'est pas dans son encodage DER canonique"},
	MsgVRFKeyRSAModulusSign: {"RSA modulus n is not positive",
		"le module RSA n n'est pas strictement positif"},
	MsgVRFKeyRSABits: {"RSA modulus has %d bits, want %d to %d",
		"le module RSA a %d bits, alors que %d à %d sont attendus"},
	MsgVRFKeyRSAEven: {"RSA modulus n is even",
		"le module RSA n est pair"},
	MsgVRFKeyRSAExponent: {"RSA public exponent %d is not an odd number in [3, 2^31)",
		"l'exposant public RSA %d n'est pas un nombre impair de [3, 2^31["},
	MsgX509PKCS1: {"x509: failed to parse public key (use ParsePKCS1PublicKey instead for this key format)",
		"c'est une clé RSA au format PKCS #1, sans l'enveloppe SubjectPublicKeyInfo"},
	MsgX509Trailing: {"x509: trailing data after ASN.1 of public-key",
		"des données suivent la structure ASN.1 de la clé"},
	MsgX509UnknownAlgorithm: {"x509: unknown public key algorithm",
		"algorithme de clé publique inconnu"},
	MsgASN1Syntax: {"asn1: syntax error: %s",
		"erreur de syntaxe DER : %s"},
	MsgASN1Structure: {"asn1: structure error: %s",
		"erreur de structure DER : %s"},
	MsgASN1Detail: {"%s",
		"détail de l'analyseur ASN.1 : « %s »"},
	MsgASN1SequenceTruncated: {"sequence truncated",
		"séquence tronquée"},
	MsgASN1TagTruncated: {"truncated tag or length",
		"étiquette ou longueur tronquée"},
	MsgASN1DataTruncated: {"data truncated",
		"données tronquées"},
	MsgASN1LengthTooLarge: {"length too large",
		"longueur trop grande"},
	MsgVRFPrefix: {"vrf: %s",
		"%s"},
	MsgVRFKeyInvalidFor: {"%[2]s",
		"%[2]s (suite %[1]s)"},
	MsgBase64Corrupt: {"illegal base64 data at input byte %d",
		"données base64 invalides à l'octet %d"},
	// encoding/json since Go 1.27: a bytes field's base64 error, inside
	// an UnmarshalTypeError.
	MsgJSONBase64: {"%[3]s",
		"%[1]s : données base64 invalides à l'octet %[2]d"},

	// Key announcements (package announce): English is announce.Error's text.
	MsgAnnounceBadKey: {"bad key announcement: keys[%d] %q: %s: %v",
		"annonce des clés invalide : clé n° %[1]d « %[2]s », %[3]s : %[4]v"},
	MsgAnnounceBad: {"bad key announcement: %s: %v",
		"annonce des clés invalide : %s : %v"},
	MsgAnnounceCheckRecord: {"record",
		"enregistrement"},
	MsgAnnounceCheckEnvelope: {"envelope",
		"enveloppe DSSE"},
	MsgAnnounceCheckPayloadType: {"payload-type",
		"type de contenu de l'enveloppe"},
	MsgAnnounceCheckPayload: {"payload",
		"contenu de l'enveloppe"},
	MsgAnnounceCheckSignatures: {"signatures",
		"signatures"},
	MsgAnnounceCheckKeyID: {"keyid",
		"identifiant de clé"},
	MsgAnnounceCheckPossession: {"possession",
		"preuve de possession"},
	MsgAnnounceEmpty: {"the record's attestation is empty: no DSSE envelope, no proof of possession",
		"l'attestation de l'enregistrement est vide : ni enveloppe DSSE, ni preuve de possession"},
	MsgAnnounceTooLarge: {"%d bytes, more than %d",
		"%d octets, plus que les %d permis"},
	MsgAnnounceNotDSSE: {"not a DSSE envelope: %v",
		"ce n'est pas une enveloppe DSSE : %v"},
	MsgAnnounceTrailing: {"data after the envelope",
		"des données suivent l'enveloppe"},
	MsgAnnouncePayloadType: {"%q, want %q",
		"« %s » au lieu de « %s »"},
	MsgAnnounceMissing: {"missing",
		"absent"},
	MsgAnnounceKind: {"record kind %q, want %q",
		"enregistrement de type « %s » au lieu de « %s »"},
	MsgAnnounceNotAttached: {"is not the announcement it is attached to",
		"ce n'est pas l'annonce à laquelle l'enveloppe est jointe"},
	MsgAnnounceSigCount: {"%d, want one per key (%d)",
		"%d, alors qu'il en faut une par clé (%d)"},
	MsgAnnounceKeyTwoSuites: {"VRF key %s announces under %s the key bytes that key %s announces under %s: one key, two outputs for each α",
		"la clé VRF %s annonce sous %s les octets de clé que la clé %s annonce sous %s : une clé, deux sorties pour chaque α"},
	MsgAnnounceSigNames: {"signature %d names %q",
		"la signature %d nomme la clé « %s »"},
	MsgAnnounceVRFProof: {"the VRF proof does not verify: %v",
		"la preuve VRF ne se vérifie pas : %v"},
	MsgAnnouncePublicKey: {"public_key: %v",
		"champ « public_key » : %v"},
	MsgAnnounceNotEd25519: {"public key %s is not an Ed25519 key",
		"la clé publique de type %s n'est pas une clé Ed25519"},
	MsgAnnounceBadEd25519: {"invalid Ed25519 signature",
		"signature Ed25519 invalide"},
	MsgAnnounceNotECDSA: {"public key %s is not an ECDSA P-256 key",
		"la clé publique de type %s n'est pas une clé ECDSA P-256"},
	MsgAnnounceECDSACurve: {"public key %s is not an ECDSA P-256 key (its curve is %s)",
		"la clé publique de type %s n'est pas une clé ECDSA P-256 (sa courbe est %s)"},
	MsgAnnounceBadECDSA: {"invalid ECDSA P-256 signature",
		"signature ECDSA P-256 invalide"},
	MsgAnnounceAlgorithm: {"unsupported signature algorithm %q",
		"algorithme de signature « %s » non pris en charge"},

	// Package record's refusals. The first ones wrap a detail (a Msg) and
	// the sentinel error (record.ErrMalformed …), which French says first.
	MsgRecordTooLarge: {"record: %d bytes exceeds %d: %v",
		"%[3]s : %[1]d octets, plus que les %[2]d permis"},
	MsgRecordByte: {"record: byte %d: %s: %v",
		"%[3]s à l'octet %[1]d : %[2]s"},
	MsgRecordField: {"record: field %s: %s: %v",
		"%[3]s, champ « %[1]s » : %[2]s"},
	MsgRecordVersion: {"record: version %d: %v",
		"%[2]s (version %[1]d)"},
	MsgRecordKind: {"record: kind %q: %v",
		"%[2]s : « %[1]s »"},
	MsgRecordInvalid: {"record %s: %v: %v",
		"%[3]s (%[1]s) : %[2]s"},
	MsgRecordNotEncodable: {"%v: %v",
		"%[2]s : %[1]s"},
	MsgRecordNotCanonical: {"record: not the canonical encoding: %v",
		"%s : ce n'est pas son encodage canonique"},
	MsgRecordFormat: {"record %s: %v",
		"%s invalide : %s"},
	MsgRecordFormatNil: {"record: Format of a nil record",
		"aucun enregistrement à encoder (Format reçoit nil)"},
	MsgRecordFormatPointer: {"record: Format needs a non-nil pointer to a record struct, got %s",
		"Format attend un pointeur non nul vers une structure d'enregistrement, et non %s"},
	MsgRecordEncodeField: {"record: field %s: %s",
		"champ « %s » : %s"},
	MsgRecordTimeFraction: {"time %s is not a whole second",
		"l'heure %s n'est pas à la seconde entière"},
	MsgRecordYear: {"year %d out of range 1970..9999",
		"l'année %d n'est pas comprise entre 1970 et 9999"},
	MsgRecordNotPrintable: {"byte 0x%02x at %d is not printable ASCII",
		"l'octet 0x%02x en position %d n'est pas un caractère ASCII imprimable"},
	MsgRecordIntOutside: {"integer %d outside ±(2^53−1)",
		"l'entier %d sort de l'intervalle ±(2^53−1)"},
	MsgRecordIntAbove: {"integer %d above 2^53−1",
		"l'entier %d dépasse 2^53−1"},
	MsgRecordUnsupportedType: {"unsupported type %s",
		"type Go %s non pris en charge"},
	MsgRecordNotObject: {"a record is a JSON object",
		"un enregistrement est un objet JSON"},
	MsgRecordTrailing: {"trailing bytes after the record",
		"des octets suivent l'enregistrement"},
	MsgRecordTooDeep: {"nested deeper than %d",
		"plus de %d niveaux d'imbrication"},
	MsgRecordEnd: {"unexpected end",
		"fin inattendue"},
	MsgRecordEndWant: {"unexpected end, want %q",
		"fin inattendue, %q attendu"},
	MsgRecordWhitespace: {"whitespace is not canonical",
		"les blancs (espaces, tabulations, fins de ligne) ne sont pas canoniques"},
	MsgRecordUnexpected: {"unexpected %q (null, floats and whitespace are not canonical)",
		"caractère %q inattendu (null, les nombres à virgule et les blancs ne sont pas canoniques)"},
	MsgRecordGotWant: {"got %q, want %q",
		"%q au lieu de %q"},
	MsgRecordKeyNotString: {"object key must be a string",
		"le nom d'un membre d'objet doit être une chaîne"},
	MsgRecordDuplicateKey: {"duplicate key %q",
		"membre « %s » en double"},
	MsgRecordKeyOrder: {"key %q after %q: keys must be sorted",
		"membre « %s » après « %s » : les membres doivent être triés"},
	MsgRecordUnterminated: {"unterminated string",
		"chaîne non terminée"},
	MsgRecordEscape: {`only \" and \\ escapes are canonical`,
		`seuls les échappements \" et \\ sont canoniques`},
	MsgRecordStringByte: {"byte 0x%02x in a string: only printable ASCII is allowed",
		"octet 0x%02x dans une chaîne : seul l'ASCII imprimable est permis"},
	MsgRecordNoDigits: {"a number needs digits",
		"un nombre doit avoir des chiffres"},
	MsgRecordLeadingZero: {"leading zero",
		"zéro en tête d'un nombre"},
	MsgRecordMinusZero: {"-0 is not canonical",
		"-0 n'est pas canonique"},
	MsgRecordFraction: {"only integers are allowed (amounts are integer cents)",
		"seuls les entiers sont permis (les montants sont en centimes entiers)"},
	MsgRecordIntRange: {"integer outside ±(2^53−1)",
		"entier hors de l'intervalle ±(2^53−1)"},
	MsgRecordVersionType: {"missing or not an integer",
		"absent ou pas un entier"},
	MsgRecordKindType: {"missing or not a string",
		"absent ou pas une chaîne"},
	MsgRecordEmptyOptional: {"an empty optional field must be omitted",
		"un champ facultatif vide doit être omis"},
	MsgRecordUnknownField: {"unknown field for the record (version %d)",
		"champ inconnu pour ce type d'enregistrement (version %d)"},
	MsgRecordUnknownFieldIn: {"unknown field for %s (version %d)",
		"champ inconnu dans « %s » (version %d)"},
	MsgRecordMissing: {"missing",
		"absent"},
	MsgRecordWantTime: {"want a time string",
		"une date et heure (chaîne) est attendue"},
	MsgRecordBadTime: {"time %q is not RFC 3339 UTC with seconds (YYYY-MM-DDThh:mm:ssZ)",
		"« %s » n'est pas une date et heure RFC 3339 UTC à la seconde (AAAA-MM-JJThh:mm:ssZ)"},
	MsgRecordWantHex: {"want a lowercase hex string",
		"une chaîne hexadécimale en minuscules est attendue"},
	MsgRecordHexDigit: {"hex must be lowercase 0-9a-f, got %q",
		"l'hexadécimal s'écrit en minuscules 0-9a-f, et non %q"},
	MsgRecordOddHex: {"odd-length hex",
		"hexadécimal de longueur impaire"},
	MsgRecordWantBytes: {"want %d bytes, got %d",
		"%d octets attendus, et non %d"},
	MsgRecordWantString: {"want a string",
		"une chaîne est attendue"},
	MsgRecordWantInteger: {"want an integer",
		"un entier est attendu"},
	MsgRecordIntOutOfRange: {"integer %d out of range",
		"l'entier %d est hors limites"},
	MsgRecordWantBool: {"want true or false",
		"true ou false attendu"},
	MsgRecordWantArray: {"want an array",
		"un tableau est attendu"},
	MsgRecordWantElements: {"want %d elements, got %d",
		"%d éléments attendus, et non %d"},
	MsgRecordWantObject: {"want an object",
		"un objet est attendu"},
	// A kind's rules (the validate methods), inside MsgRecordInvalid or
	// MsgRecordFormat.
	MsgRecordEmpty: {"%s: empty",
		"champ « %s » vide"},
	MsgRecordNoKeys: {"keys: none announced",
		"champ « keys » : aucune clé annoncée"},
	MsgRecordKeyTwice: {"keys[%d].id: %q announced twice",
		"champ « keys[%[1]d].id » : la clé « %[2]s » est annoncée deux fois"},
	MsgRecordKeyUseSuite: {"keys[%d]: use and suite are required",
		"champ « keys[%d] » : les champs « use » et « suite » sont requis"},
	MsgRecordFingerprint: {"keys[%d].fingerprint: not SHA-256 of public_key",
		"champ « keys[%d].fingerprint » : ce n'est pas le SHA-256 de « public_key »"},
	MsgRecordClosure: {"closure: %q is not a YYYY-MM-DD date",
		"champ « closure » : « %s » n'est pas une date AAAA-MM-JJ"},
	MsgRecordNegative: {"%s: negative",
		"champ « %s » négatif"},
	MsgRecordRequired2: {"%s and %s are required",
		"les champs « %s » et « %s » sont requis"},
	MsgRecordRequired3: {"%s, %s and %s are required",
		"les champs « %s », « %s » et « %s » sont requis"},
	MsgRecordStake: {"stake: %d cents, must be positive",
		"champ « stake » : %d centimes, alors que la mise doit être strictement positive"},
	MsgRecordMultiplier: {"multipliers[%d]: %d, must be 2 or 3",
		"champ « multipliers[%d] » : %d, alors qu'un multiplicateur vaut 2 ou 3"},
	MsgRecordTogether2: {"%s and %s go together",
		"les champs « %s » et « %s » vont ensemble : tous deux ou aucun"},
	MsgRecordTogether3: {"%s, %s and %s go together",
		"les champs « %s », « %s » et « %s » vont ensemble : tous les trois ou aucun"},
	MsgRecordRange: {"%s: %d, must be %d..%d",
		"champ « %s » : %d, alors qu'il doit être compris entre %d et %d"},
	MsgRecordOneOf: {"%s: %q, must be %q or %q",
		"champ « %s » : « %s », alors que « %s » ou « %s » est attendu"},
	MsgRecordWinRefund: {"win and refund cannot be negative",
		"les champs « win » et « refund » ne peuvent pas être négatifs"},
	MsgRecordResultWon: {"result won: needs a win, a tier ≥ 1 and no refund",
		"résultat « won » : il faut un gain, un palier ≥ 1 et aucun remboursement"},
	MsgRecordResultRefunded: {"result refunded: needs a refund and no win",
		"résultat « refunded » : il faut un remboursement et aucun gain"},
	MsgRecordReasonNotRefund: {"reason: only a refunded game's end has one, not a %s game's",
		"champ « reason » : seule la fin d'une partie remboursée en a un, pas celle d'une partie « %s »"},
	MsgRecordReasonLong: {"reason: %d bytes, at most %d",
		"champ « reason » : %d octets, au plus %d"},
	MsgRecordReasonText: {"reason: must be one line of UTF-8 text, without control or format characters",
		"champ « reason » : une ligne de texte UTF-8 est attendue, sans caractère de contrôle ni de mise en forme"},
	MsgRecordResultNoWin: {"result %s: no win, no refund",
		"résultat « %s » : ni gain, ni remboursement"},
	MsgRecordResult: {"result: %q, must be won, lost, expired or refunded",
		"champ « result » : « %s », alors que « won », « lost », « expired » ou « refunded » est attendu"},
	MsgRecordWinners: {"winners + reserves (%d + %d) must be 1..count (%d)",
		"gagnants + réserves (%d + %d) doit être compris entre 1 et le nombre de participants (%d)"},
	MsgRecordEntrantScheme: {"entrant_scheme: %d is no entrant commitment scheme this verifier knows (absent: 1; 2)",
		"champ « entrant_scheme » : %d n'est pas un schéma d'engagement des participants connu de ce vérificateur (absent : 1 ; 2)"},
	MsgRecordBeaconRef: {"beacon: %q is not drand:<chain hash, 64 lowercase hex>:<round>",
		"champ « beacon » : « %s » n'est pas de la forme drand:<empreinte de la chaîne, 64 chiffres hexadécimaux en minuscules>:<ronde>"},
	MsgRecordBeaconRound: {"beacon: round out of range",
		"champ « beacon » : numéro de ronde hors limites"},
	MsgRecordShare: {"share: the bailiff's share is required",
		"champ « share » : la contribution de l'huissier est requise"},
	MsgRecordRanking: {"ranking: %d entries, want winners + reserves = %d",
		"champ « ranking » : %d rangs, alors que gagnants + réserves = %d"},
	MsgRecordSecret: {"secret: does not match commit",
		"champ « secret » : ne correspond pas à l'engagement « commit »"},
	MsgRecordRankingEntry: {"ranking[%d]: %d out of range or repeated",
		"champ « ranking[%d] » : %d hors limites ou répété"},
	MsgRecordDigest: {"digest: not SHA-256 of statement",
		"champ « digest » : ce n'est pas le SHA-256 de « statement »"},
	MsgRecordMissingTime: {"%s: missing time",
		"champ « %s » : date et heure absentes"},
	MsgTicketCodeChar: {"ticket code: character %d: %v",
		"code de ticket : caractère %d : %v"},
	MsgTicketCodeLength: {"ticket code: %d characters: %v",
		"code de ticket : %d caractères : %v"},
	MsgCauseTicketCode: {"ticket code must be 18 characters A-Z 0-9",
		"un code de ticket fait 18 caractères A-Z 0-9"},

	// crypto/x509's refusals of a public key (verdict.X509Error). English
	// is the library's text: the fixed ones are their own template, the
	// others print it whole and French says it from the other arguments.
	MsgX509NotSPKI: {"%[2]s",
		"clé publique illisible (SPKI DER invalide : %[1]s)"},
	MsgX509SPKIStructure: {"not the ASN.1 structure of a SubjectPublicKeyInfo",
		"la structure ASN.1 n'est pas celle d'une SubjectPublicKeyInfo"},
	MsgX509Unreadable: {"%s",
		"clé publique illisible (détail technique, en anglais : « %s »)"},
	MsgX509IllegalParams: {"x509: %s key encoded with illegal parameters",
		"clé %s encodée avec des paramètres, qui doivent être absents (RFC 8410)"},
	MsgX509RSANull: {"x509: RSA key missing NULL parameters",
		"clé RSA sans le paramètre NULL exigé (RFC 3279)"},
	MsgX509RSAInvalid: {"x509: invalid RSA public key",
		"clé publique RSA illisible (structure PKCS #1 invalide)"},
	MsgX509RSAModulus: {"x509: invalid RSA modulus",
		"module RSA illisible"},
	MsgX509RSAExponent: {"x509: invalid RSA public exponent",
		"exposant public RSA illisible"},
	MsgX509RSAModulusSign: {"x509: RSA modulus is not a positive number",
		"le module RSA n'est pas strictement positif"},
	MsgX509RSAExpSign: {"x509: RSA public exponent is not a positive number",
		"l'exposant public RSA n'est pas strictement positif"},
	MsgX509ECDSAParams: {"x509: invalid ECDSA parameters",
		"paramètres ECDSA invalides : la courbe n'est pas désignée par son identifiant (OID)"},
	MsgX509Curve: {"x509: unsupported elliptic curve",
		"courbe elliptique non prise en charge"},
	MsgX509ECUncompressed: {"ecdsa: invalid uncompressed public key",
		"la clé publique ECDSA n'est pas un point non compressé (octet 0x04 en tête)"},
	MsgX509ECEncoding: {"ecdsa: invalid public key encoding",
		"encodage de la clé publique ECDSA invalide"},
	MsgX509PointEncoding: {"invalid %s point encoding",
		"le point de la courbe %s est mal encodé (longueur incorrecte)"},
	MsgX509PointOffCurve: {"%s point not on curve",
		"le point n'est pas sur la courbe %s"},
	MsgX509Ed25519Size: {"x509: wrong Ed25519 public key size",
		"la clé publique Ed25519 n'a pas la bonne taille (32 octets)"},
	MsgX509X25519Key: {"crypto/ecdh: invalid public key",
		"clé publique X25519 invalide"},
	MsgX509MLDSAParams: {"x509: unsupported ML-DSA parameters",
		"paramètres ML-DSA non pris en charge"},
	MsgX509MLDSALength: {"mldsa: invalid public key length",
		"la clé publique ML-DSA n'a pas la bonne longueur"},
	MsgX509DSAKey: {"x509: invalid DSA public key",
		"clé publique DSA illisible"},
	MsgX509DSAParams: {"x509: invalid DSA parameters",
		"paramètres DSA illisibles"},
	MsgX509DSAZero: {"x509: zero or negative DSA parameter",
		"un paramètre DSA est nul ou négatif"},

	// Promotion certificates: a certified pick that is not β's.
	MsgPromoRankPick: {"rank %d: β picks entrant %d, the certificate names entrant %d",
		"rang %d : β désigne le participant %d, le certificat nomme le participant %d"},
	MsgPromoPickRank: {"rank %d: the certificate's pick says rank %d",
		"rang %d : la désignation du certificat indique le rang %d"},

	// Promotion certificates: the dates of the rules (promo.Rules.CheckSchedule).
	MsgPromoFrozenEarly: {"draw %s was frozen at %s, before its participation period ended (%s at 24:00, %s time, i.e. %s)",
		"le tirage %s a été gelé le %s, avant la fin de sa période de participation (le %s à 24 h, heure de %s, soit %s)"},
	MsgPromoDrawnOutside: {"draw %s was held at %s (%s, %s time), outside the dates the rules allow (%s to %s)",
		"le tirage %s a eu lieu le %s (le %s, heure de %s), hors des dates que permet le règlement (du %s au %s)"},
	MsgPromoRulesNoDraw: {"the rules file has no draw %s",
		"le règlement ne prévoit pas de tirage %s"},

	// Promotion certificates: the freeze's beacon against the frozen
	// rules' (promo.Rules.CheckFreezeBeacon).
	MsgPromoBeaconRules: {"the freeze announces %s, but the rules it commits to announce %s for draw %s: the freeze contradicts its own rules",
		"le gel annonce : %s ; le règlement auquel il s'engage annonce pour le tirage %[3]s : %[2]s ; le gel contredit son propre règlement"},
	MsgPromoBeaconNone: {"no beacon round",
		"aucune ronde de balise"},
	MsgPromoBeaconRound: {"%s round %d (%s)",
		"la ronde %[2]d de %[1]s (%[3]s)"},
	MsgPromoBeaconText: {"the beacon %q",
		"la balise « %s »"},
	MsgBeaconNoneNorRules: {"neither the freeze nor the rules given (--rules) announce a beacon round",
		"ni le gel ni le règlement fourni (--rules) n'annoncent de ronde de balise"},
	MsgPromoWinnersRules: {"the freeze ranks %d winners, but the rules it commits to give draw %s one winner (rank 1), then its reserves: the freeze contradicts its own rules",
		"le gel classe %d gagnants, mais le règlement auquel il s'engage donne au tirage %s un seul gagnant (rang 1), puis ses suppléants ; le gel contredit son propre règlement"},
	MsgPromoReservesNotRules: {"%d reserves given (--reserves), but the rules file gives draw %s %d: give the rules file alone, or the count it gives",
		"%d suppléants fournis (--reserves), mais le règlement fourni en donne %[3]d au tirage %[2]s : fournir le règlement seul, ou le nombre qu'il donne"},
	MsgPromoRulesOtherOperation: {"the rules file given is for operation %s, this certificate for operation %s: they are not its rules, so it was not checked against them",
		"le règlement fourni est celui de l'opération %s, ce certificat celui de l'opération %s : ce n'est pas son règlement, il n'a donc pas été vérifié contre lui"},
	MsgPromoRulesNotFrozen: {"the rules file given is for operation %s but hashes to %x, and the freeze record commits to rules %s: either the operator froze other rules than this file, or this copy is not the one it froze",
		"le règlement fourni est bien celui de l'opération %s, mais son empreinte est %x et l'enregistrement du gel s'engage sur le règlement %s : soit l'exploitant a gelé un autre règlement que ce fichier, soit cette copie n'est pas celle qu'il a gelée"},

	// GetReceipts replies: one game's receipts, each once, in log order;
	// the reply's one member given once; JSON members given once.
	MsgSubjectReceiptsReplyGame: {"GetReceipts reply for game %s, %d receipt(s)",
		"réponse GetReceipts pour la partie %s, %d reçu(s)"},
	MsgReplyGames: {"receipts of several games: receipts[%d] is of game %q, receipts[%d] of game %q",
		"reçus de plusieurs parties : receipts[%d] est de la partie « %s », receipts[%d] de la partie « %s »"},
	MsgReplyNotGame: {"receipts[%d]: a %s record is no game's receipt",
		"receipts[%d] : un enregistrement « %s » n'est le reçu d'aucune partie"},
	MsgReplyOrder: {"receipt repeated or out of order: receipts[%d] is at log index %d, receipts[%d] at log index %d",
		"reçu répété ou dans le désordre : receipts[%d] est à l'index %d du journal, receipts[%d] à l'index %d"},
	MsgReplyMemberRepeated: {"member %q given %d times, want it once",
		"membre « %s » donné %d fois ; attendu une seule fois"},
	MsgJSONRepeatedMember: {"member %q given twice in %s",
		"membre « %s » donné deux fois dans %s"},

	// The web page: a dropped key announcement's VRF key of a suite this
	// verifier does not know (no pin trusts it).
	MsgWebListTwice: {"two entrant lists of draw %s were given (%s and %s): neither is used; give the one the bailiff holds",
		"deux listes des participants du tirage %s ont été données (%s et %s) : aucune n'est utilisée ; donnez celle que détient l'huissier"},
	MsgWebVRFSuiteUnknown: {"%s %s (suite %q unknown: it cannot be pinned)",
		"%s %s (suite « %s » inconnue : la clé ne peut pas être épinglée)"},

	// Receipts: α bound to the commitment of the game's start or of the
	// promotion's freeze; transcripts without their emission.
	MsgNameStart: {"the game's start record",
		"l'enregistrement de début de partie"},
	MsgNameFreeze: {"the freeze record",
		"l'enregistrement du gel"},
	MsgReceiptNoStart: {"a %s receipt takes no start record (only a later record of the game does)",
		"un reçu « %s » ne prend pas d'enregistrement de début de partie (seul un enregistrement ultérieur de la partie en prend un)"},
	MsgReceiptNoFreeze: {"a %s receipt takes no freeze record (only a promotion draw does)",
		"un reçu « %s » ne prend pas d'enregistrement de gel (seul un tirage promotionnel en prend un)"},
	MsgStartNotOfGame: {"start: not the start record of game %q",
		"début de partie : ce n'est pas l'enregistrement de début de la partie « %s »"},
	MsgStartNotBefore: {"the start record (index %d) was not logged before the record (index %d)",
		"l'enregistrement de début de partie (index %d) n'a pas été journalisé avant l'enregistrement (index %d)"},
	MsgFreezeNotFreeze: {"freeze: not a freeze record",
		"gel : ce n'est pas un enregistrement de gel"},
	MsgFreezeOtherDraw: {"the freeze record is of draw %q, the draw record of draw %q",
		"l'enregistrement du gel concerne le tirage « %s », l'enregistrement du tirage le tirage « %s »"},
	MsgAlphaCommitBroken: {"the r in α does not open the commitment H(r) of the game's start",
		"le secret r contenu dans l'entrée α n'ouvre pas l'engagement H(r) du début de partie"},
	MsgAlphaUnboundStart: {"α not bound to the game's commitment: give the transcript or the start record",
		"l'entrée α n'est pas liée à l'engagement de la partie : fournissez la transcription ou l'enregistrement de début de partie"},
	MsgAlphaUnboundFreeze: {"α not bound to the draw's commitment: give the certificate or the freeze record",
		"l'entrée α n'est pas liée à l'engagement du tirage : fournissez le certificat ou l'enregistrement du gel"},
	MsgEndCommitBroken: {"the r revealed by the end record does not open the commitment H(r) of the game's start",
		"le secret r révélé par l'enregistrement de fin ne correspond pas à l'engagement H(r) du début de partie"},
	MsgDeadlineNotChecked: {"start deadline (art. 2.2.4) not checked: the transcript has no emission record",
		"date limite de début de partie (art. 2.2.4) non vérifiée : la transcription ne contient pas l'enregistrement d'émission"},
	MsgProtoFieldNotInt: {"%s %q is not a decimal integer",
		"%s « %s » n'est pas un entier décimal"},
	MsgProtoFieldNotHash: {"%s[%d] is not 32 bytes",
		"%s[%d] n'est pas de 32 octets"},
	MsgProtoFieldNotRec: {"%s is not the record's %s: the receipt shows another value than the logged record it proves",
		"%s n'est pas le champ %s de l'enregistrement : le reçu montre une autre valeur que celle de l'enregistrement journalisé qu'il prouve"},

	// Misbehaviour that rests on what is not proven to be the appliance's.
	MsgNotProof: {"%v: not proof of misbehaviour: %v",
		"%v : ce n'est pas une preuve de manquement : %v"},
	MsgWhyNotIncluded: {"the records are not proven to be the appliance's (%v is not included under a checkpoint signed by a trusted log key)",
		"rien ne prouve que ces enregistrements soient ceux de l'appareil (%v ne figure pas sous un point de contrôle signé par une clé de journal de confiance)"},
	MsgWhyNotAdjacent: {"the transcript is not proven complete: records %d and %d are not adjacent in the log, and a record between them may have been left out",
		"rien ne prouve que la transcription soit complète : les enregistrements %d et %d ne se suivent pas dans le journal, et un enregistrement a pu être omis entre eux"},
	MsgWhyRecordRefused: {"entry %d, which may be the record missing here, does not match the signed tree and was left out",
		"l'entrée %d, qui peut être l'enregistrement qui manque ici, ne correspond pas à l'arbre signé et a été écartée"},
	MsgWhyEntryRefused: {"entry %d, which may be one of the game's records, does not match the signed tree and was left out: the game's records are not proven complete",
		"l'entrée %d, qui peut être un enregistrement de la partie, ne correspond pas à l'arbre signé et a été écartée : rien ne prouve que les enregistrements de la partie soient complets"},
	MsgWhyKeyUntrusted: {"VRF key %s is not a trusted key",
		"la clé VRF %s n'est pas une clé de confiance"},
	MsgWhySuite: {"the proof verifies under suite %s: the document names another suite, and a pinned fingerprint fixes only the key's bytes",
		"la preuve se vérifie avec la suite %s : le document en indique une autre, et une empreinte épinglée ne fixe que les octets de la clé"},
	MsgWhyLayout: {"the document, not the log, puts these records together",
		"c'est le document, et non le journal, qui réunit ces enregistrements"},
	MsgWhyReceiptKey: {"the receipt's vrf_key is not in the log",
		"la clé vrf_key du reçu ne figure pas dans le journal"},
	MsgWhyAlpha: {"the receipt's α is not in the log, and no valid proof under the trusted key binds it",
		"l'entrée α du reçu ne figure pas dans le journal, et aucune preuve valide sous la clé de confiance ne la lie"},
	MsgWhyCheckpoint: {"the records are not proven to be the appliance's (the checkpoint is not signed by a trusted log key)",
		"rien ne prouve que ces enregistrements soient ceux de l'appareil (le point de contrôle n'est pas signé par une clé de journal de confiance)"},
	MsgWhyCertificate: {"the certificate's own %s member is not in the log",
		"le membre %s du certificat ne figure pas dans le journal"},
	MsgWhyKeyPairing: {"the document pairs key id %s with the %s key of fingerprint %s, and nothing given proves that pairing: give the appliance's key announcement (--vrf-key ANNOUNCEMENT, or among the page's trusted keys), which says which key each id names",
		"le document associe l'identifiant de clé %s à la clé %s d'empreinte %s, et rien de ce qui a été fourni ne prouve cette association : fournissez l'annonce des clés de l'appareil (--vrf-key ANNONCE, ou parmi les clés de confiance de la page), qui dit quelle clé chaque identifiant désigne"},
	MsgWhyKeyRelabelled: {"the document pairs key id %s with the %s key of fingerprint %s, but the proof verifies under the trusted %s key of fingerprint %s: the document relabelled the key, and nothing given proves its pairing (give the appliance's key announcement: --vrf-key ANNOUNCEMENT, or among the page's trusted keys)",
		"le document associe l'identifiant de clé %s à la clé %s d'empreinte %s, mais la preuve se vérifie sous la clé de confiance %s d'empreinte %s : le document a changé l'étiquette de la clé, et rien de ce qui a été fourni ne prouve son association (fournissez l'annonce des clés de l'appareil : --vrf-key ANNONCE, ou parmi les clés de confiance de la page)"},

	// A game that ended after the appliance lost its secret r.
	MsgGamesSecretLost: {"%d games ended (refund or expiry) without revealing r, which the appliance lost: their draws could not be checked",
		"%d parties terminées (remboursement ou expiration) sans révéler r, que l'appareil a perdu : leurs tirages n'ont pas pu être vérifiés"},
	MsgSecretLost: {"the appliance did not reveal r: it lost it (game %s); this game's draws cannot be verified",
		"l'appareil n'a pas révélé le secret r : il l'a perdu (partie %s) ; les tirages de cette partie ne peuvent pas être vérifiés"},

	// Audit: records the log must hold by now, record times, tickets.
	MsgAuditEndMissing: {"game %s is %s since entry %d, but its end, the record revealing r, was not logged within %s of log activity after it: the log went on at entry %d (%s) and holds records up to %s (a silence counts at most %s); the draws that decided the game stay unverified until it is",
		"la partie %s est %s depuis l'entrée %d, mais sa fin, l'enregistrement qui révèle r, n'a pas été journalisée en %s d'activité du journal après elle : le journal s'est poursuivi à l'entrée %d (%s) et contient des enregistrements jusqu'au %s (un silence compte au plus %s) ; les tirages qui ont décidé la partie restent non vérifiés tant qu'elle ne l'est pas"},
	MsgAuditNeverSealed: {"game %s (entry %d) is unfinished: its play window ended %s, and its end (expiry or refund), due once the longest refund grace (%s) had passed, was not logged within %s of log activity after that: the log went on at entry %d (%s) and holds records up to %s (a silence counts at most %s): it was never sealed",
		"la partie %s (entrée %d) n'est pas terminée : sa période de jeu a pris fin le %s, et sa fin (expiration ou remboursement), due une fois passé le plus long délai de remboursement (%s), n'a pas été journalisée en %s d'activité du journal après cela : le journal s'est poursuivi à l'entrée %d (%s) et contient des enregistrements jusqu'au %s (un silence compte au plus %s) : elle n'a jamais été scellée"},
	MsgSpanDay:     {"1 day", "1 jour"},
	MsgSpanDays:    {"%d days", "%d jours"},
	MsgSpanHour:    {"1 hour", "1 heure"},
	MsgSpanHours:   {"%d hours", "%d heures"},
	MsgSpanMinute:  {"1 minute", "1 minute"},
	MsgSpanMinutes: {"%d minutes", "%d minutes"},
	MsgSpanSecond:  {"1 second", "1 seconde"},
	MsgSpanSeconds: {"%d seconds", "%d secondes"},
	MsgAuditTimeOrder: {"entry %d (%s) is timed %s, more than %s before entry %d (%s, timed %s), logged before it: one of the two times is false",
		"l'entrée %d (%s) est datée du %s, plus de %s avant l'entrée %d (%s, datée du %s), journalisée avant elle : l'une des deux dates est fausse"},
	MsgAuditTimeAhead: {"entry %d (%s) is timed %s, more than %s after this audit read the checkpoint that holds it (%s): it was dated ahead",
		"l'entrée %d (%s) est datée du %s, plus de %s après la lecture par cet audit du point de contrôle qui la contient (%s) : elle a été datée en avance"},
	MsgAuditTimesBad: {"%d timed against log order or ahead (tolerance %s): %s",
		"%d datée(s) à rebours de l'ordre du journal ou en avance (tolérance %s) : %s"},
	MsgTicketOtherEmission: {"game %s (entry %d, emission %q): its ticket already played game %s under emission %q, and a ticket's code belongs to one emission",
		"partie %s (entrée %d, émission « %s ») : son ticket a déjà joué la partie %s sous l'émission « %s », or le code d'un ticket appartient à une seule émission"},
	MsgAuditQuitAgain: {"ticket_quit (entry %d): ticket %x was quit already at entry %d, and a ticket is quit once (a retry of the same call gets its first reply, no second record)",
		"renonciation (entrée %d) : le ticket %x avait déjà été abandonné à l'entrée %d, or un ticket n'est abandonné qu'une fois (la même requête rejouée reçoit sa première réponse, sans second enregistrement)"},
	MsgAuditQuitAfterStart: {"ticket_quit (entry %d): ticket %x is quit, but it started game %s at entry %d, and CONTINUER is irrevocable (art. 2.2.3)",
		"renonciation (entrée %d) : le ticket %x est abandonné, mais il a commencé la partie %s à l'entrée %d, or CONTINUER est irrévocable (art. 2.2.3)"},
	MsgAuditStartAfterQuit: {"game %s (entry %d): its ticket was quit at entry %d (QUITTER, art. 2.2.3), and a ticket quit never starts stage 2",
		"partie %s (entrée %d) : son ticket avait été abandonné à l'entrée %d (QUITTER, art. 2.2.3), or un ticket abandonné ne commence jamais l'étape 2"},
	MsgAuditQuitBad: {"ticket_quit (entry %d): %s",
		"renonciation (entrée %d) : %s"},
	MsgAuditQuitUnregistered: {"ticket_quit (entry %d): emission %q was not registered before",
		"renonciation (entrée %d) : l'émission « %s » n'avait pas été enregistrée auparavant"},
	MsgAuditPlaysUnmanifested: {"entry %d (%s): emission %q has %d ticket(s) started or quit so far, more than the %d tickets its manifests logged before hold",
		"entrée %d (%s) : l'émission « %s » compte %d ticket(s) commencé(s) ou abandonné(s) à ce point, plus que les %d tickets de ses manifestes journalisés auparavant"},
	MsgAuditStartUnmanifested: {"game %s (entry %d) is start %d of emission %q, whose manifests logged before it hold %d tickets",
		"la partie %s (entrée %d) est le début de partie n° %d de l'émission « %s », dont les manifestes journalisés avant lui comptent %d tickets"},

	// Audit: game starts checked against the ticket manifests given (--manifest).
	MsgAuditManifestBad: {"manifest %s: %w",
		"manifeste %s : %v"},
	MsgAuditManifestEmissions: {"ticket %d is of emission %q, the first of emission %q: a manifest lists the tickets of one emission",
		"le ticket n° %d est de l'émission « %s », le premier de l'émission « %s » : un manifeste liste les tickets d'une seule émission"},
	MsgAuditManifestTwice: {"ticket %d (%x) is listed twice: rngd imports no such manifest",
		"le ticket n° %d (%x) figure deux fois : rngd n'importe pas un tel manifeste"},
	MsgAuditManifestEmpty: {"no ticket: rngd imports no empty manifest",
		"aucun ticket : rngd n'importe pas de manifeste vide"},
	MsgAuditManifestRecord: {"the manifest record at entry %d has the root of %s, but says emission %q, %d tickets, total %d cents, where the file gives emission %q, %d tickets, total %d cents",
		"l'enregistrement de manifeste de l'entrée %d a la racine de %s, mais indique l'émission « %s », %d tickets, un total de %d centimes, alors que le fichier donne l'émission « %s », %d tickets, un total de %d centimes"},
	MsgAuditStartStake: {"game %s (entry %d) starts ticket %x with S = %d cents, but manifest %s, logged at entry %d, gives that ticket S = %d cents: the appliance signed a start that contradicts the manifest it logged",
		"la partie %s (entrée %d) démarre le ticket %x avec S = %d centimes, mais le manifeste %s, journalisé à l'entrée %d, donne à ce ticket S = %d centimes : l'appareil a signé un début de partie qui contredit le manifeste qu'il a journalisé"},
	MsgAuditStartNotInManifest: {"game %s (entry %d) starts ticket %x, which is in none of the %d manifest(s) of emission %q logged before it, all given (%s): the appliance signed a start of a ticket it never logged",
		"la partie %s (entrée %d) démarre le ticket %x, qui ne figure dans aucun des %d manifeste(s) de l'émission « %s » journalisés avant elle, tous fournis (%s) : l'appareil a signé le début d'une partie d'un ticket qu'il n'a jamais journalisé"},
	MsgAuditGameTooLong: {"entry %d is one record more than the rules allow a game (%d: its start, at most %d picks, a decision at each of %d tiers and its end): its records are not checked further",
		"l'entrée %d est un enregistrement de plus que ce que le règlement permet à une partie (%d : son début, au plus %d sélections, une décision à chacun des %d paliers et sa fin) : ses enregistrements ne sont pas vérifiés plus avant"},
	MsgAuditFactManifests: {"manifests",
		"manifestes"},
	MsgAuditManifestLogged: {"%s (emission %s, %d tickets, root %x): logged at entry %d",
		"%s (émission %s, %d tickets, racine %x) : journalisé à l'entrée %d"},
	MsgAuditManifestUnmatched: {"%s (emission %s, %d tickets, root %x): no manifest record in the log has this root (a manifest's root covers its exact tickets, in order): not the file rngd imported, or another log's emission?",
		"%s (émission %s, %d tickets, racine %x) : aucun enregistrement de manifeste du journal n'a cette racine (la racine d'un manifeste couvre exactement ses tickets, dans l'ordre) : pas le fichier importé par rngd, ou l'émission d'un autre journal ?"},
	MsgAuditManifestEmissionChecked: {"emission %s: its %d logged manifest(s) all given; %d start(s) checked against them (ticket and S)",
		"émission %s : ses %d manifeste(s) journalisé(s) tous fournis ; %d début(s) de partie vérifié(s) au regard de ceux-ci (ticket et S)"},
	MsgAuditManifestEmissionUnchecked: {"emission %s: %d of its %d logged manifest(s) not given (--manifest FILE): %d start(s) checked against the files given, %d not checked (their ticket is in no file given)",
		"émission %s : %d de ses %d manifeste(s) journalisé(s) non fourni(s) (--manifest FICHIER) : %d début(s) de partie vérifié(s) au regard des fichiers fournis, %d non vérifié(s) (leur ticket ne figure dans aucun fichier fourni)"},
	MsgAuditQuitStake: {"ticket_quit (entry %d) keeps ticket %x's S = %d cents, but manifest %s, logged at entry %d, gives that ticket S = %d cents: the appliance signed a quit that contradicts the manifest it logged",
		"la renonciation (entrée %d) conserve pour le ticket %x S = %d centimes, mais le manifeste %s, journalisé à l'entrée %d, donne à ce ticket S = %d centimes : l'appareil a signé une renonciation qui contredit le manifeste qu'il a journalisé"},
	MsgAuditQuitNotInManifest: {"ticket_quit (entry %d) quits ticket %x, which is in none of the %d manifest(s) of emission %q logged before it, all given (%s): the appliance signed a quit of a ticket it never logged",
		"la renonciation (entrée %d) abandonne le ticket %x, qui ne figure dans aucun des %d manifeste(s) de l'émission « %s » journalisés avant elle, tous fournis (%s) : l'appareil a signé la renonciation d'un ticket qu'il n'a jamais journalisé"},
	MsgAuditManifestQuits: {"emission %s: %d ticket_quit record(s) checked against the manifest files given (ticket and S), %d not checked (their ticket is in no file given)",
		"émission %s : %d renonciation(s) vérifiée(s) au regard des manifestes fournis (ticket et S), %d non vérifiée(s) (leur ticket ne figure dans aucun fichier fourni)"},
	MsgCLITimeSkewBad: {"--time-skew %s: want a duration from 1s to 24h (default 10m)",
		"--time-skew %s : durée attendue entre 1s et 24h (par défaut 10m)"},
	MsgCLIReadManifest: {"couldn't read the manifest: %v",
		"impossible de lire le manifeste : %v"},
	MsgUsageAuditManifest: {`Ticket manifests (optional):
  --manifest FILE  an emission's ticket manifest as rngctl emission import read
                   it (emission_id,ticket_hash_hex,stake_cents), repeatable:
                   its root must be that of a manifest record of the log;
                   every game start of its emission must then play a ticket
                   of its manifests logged before it, with the manifest's gain
                   S, else MISBEHAVIOUR. An emission whose manifests were not
                   all given is checked as far as the files given go, and the
                   starts not checked are counted (facts "manifests")

`, `Manifestes de tickets (facultatif) :
  --manifest FICHIER  le manifeste de tickets d'une émission tel que rngctl
                   emission import l'a lu (emission_id,ticket_hash_hex,
                   stake_cents), répétable : sa racine doit être celle d'un
                   enregistrement de manifeste du journal ; chaque début de
                   partie de son émission doit alors jouer un ticket de ses
                   manifestes journalisés avant lui, avec le gain S du
                   manifeste, sinon MANQUEMENT. Une émission dont les
                   manifestes ne sont pas tous fournis est vérifiée dans la
                   mesure des fichiers fournis, et les débuts de partie non
                   vérifiés sont comptés (faits « manifestes »)

`},

	// rngverify: a file larger than the limit for its kind.
	MsgFileTooLarge: {"%s is larger than %d MiB, the limit for %v",
		"%s dépasse %d Mio, la limite pour %v"},
	MsgLimitDocument: {"a document to check (receipt, transcript, certificate, freeze receipt or attestation)",
		"un document à vérifier (reçu, transcription, certificat, reçu de gel ou attestation)"},
	MsgLimitConfig: {"a configuration file",
		"un fichier de configuration"},
	MsgLimitEntrants: {"an entrant list (10 million entrants with 64-character account ids fit in it)",
		"une liste de participants (10 millions de participants aux identifiants de 64 caractères y tiennent)"},
	MsgLimitKeyFile: {"a key file",
		"un fichier de clés"},
	MsgLimitRules: {"a rules file",
		"un règlement"},
	MsgLimitState: {"the trust state",
		"l'état de confiance"},
	MsgLimitInput: {"a freeze's input file on the browser page, which holds it whole (the 10-million-row CSV stake file of docs/bench/promo.md, 710 MB, fits in it; rngverify freeze --stakes, --closed streams it, with no limit)",
		"un fichier d'entrée d'un gel sur la page du navigateur, qui le garde entier en mémoire (le fichier de mises CSV de 10 millions de lignes de docs/bench/promo.md, 710 Mo, y tient ; rngverify freeze --stakes, --closed le lit au fil de l'eau, sans limite)"},
	MsgInputsTooLarge: {"%s takes the freeze's input files over %d MiB in all (%d MiB, %d files), the limit for them together on the browser page, which holds them all in memory at once (rngverify freeze --stakes, --closed streams them, with no limit)",
		"%s porte les fichiers d'entrée du gel au-delà de %d Mio en tout (%d Mio, %d fichiers), la limite pour leur ensemble sur la page du navigateur, qui les garde tous en mémoire à la fois (rngverify freeze --stakes, --closed les lit au fil de l'eau, sans limite)"},
	// Transcripts whose emission record is not proven in the log.
	MsgDeadlineNotProven: {"start deadline (art. 2.2.4) not checked: the emission record is not proven in the log",
		"date limite de début de partie (art. 2.2.4) non vérifiée : rien ne prouve que l'enregistrement d'émission figure dans le journal"},

	// receipt and game --log: the online consistency check against the trust state.
	MsgConsistencyNotChecked: {"checkpoint of size %d, trusted state at %d: consistency not checked (give --log URL, or run rngverify log)",
		"point de contrôle de taille %d, état de confiance à %d : cohérence non vérifiée (donnez --log URL, ou lancez rngverify log)"},
	MsgConsistencyOnline: {"checkpoint of size %d and trusted checkpoint of size %d: the larger extends the smaller (consistency proof read from the log)",
		"point de contrôle de taille %d et point de contrôle de confiance de taille %d : le plus grand prolonge le plus petit (preuve de cohérence lue dans le journal)"},
	MsgConsistencyOnlineFork: {"checkpoint of size %d (root %s) and trusted checkpoint of size %d (root %s), both signed by the log, are two histories: %s",
		"le point de contrôle de taille %d (racine %s) et le point de contrôle de confiance de taille %d (racine %s), tous deux signés par le journal, sont deux historiques : %s"},
	MsgConsistencyOffline: {"could not check consistency online: %s",
		"impossible de vérifier la cohérence en ligne : %s"},
	MsgCLILogURLBad: {"--log %q: want http(s)://host[:port]/prefix",
		"--log « %s » : http(s)://hôte[:port]/préfixe attendu"},
	MsgCLILogNeedsState: {"--log needs --state (the trusted checkpoint to compare with)",
		"--log demande --state (le point de contrôle de confiance auquel comparer)"},
	MsgUsageDocLog: {`Online consistency (optional):
  --log URL        the log's tile API (http(s)://host[:port]/prefix, as rngverify log --url takes it):
                   when the document's checkpoint and the trusted one of --state differ in size,
                   read the consistency proof between them from the log; a fork is misbehaviour,
                   an unreachable log fails the check (needs --state)

`, `Cohérence en ligne (facultatif) :
  --log URL          l'API de tuiles du journal (http(s)://hôte[:port]/préfixe, comme le prend
                     rngverify log --url) : quand le point de contrôle du document et celui de
                     confiance de --state diffèrent en taille, lit dans le journal la preuve de
                     cohérence entre eux ; une bifurcation est un manquement prouvé, un journal
                     injoignable fait échouer la vérification (demande --state)

`},

	// rngverify attestation (package attestations, docs/attestations.md).
	MsgCmdAttestation: {"check a signed attestation (in-toto statement in a DSSE envelope): its signature by the announced attestation key, and the paytable's figures recomputed",
		"vérifier une attestation signée (déclaration in-toto dans une enveloppe DSSE) : sa signature par la clé d'attestation annoncée, et les chiffres du barème recalculés"},
	MsgUsageAttestation: {`usage: rngverify attestation FILE --attestation-key ANNOUNCEMENT [--pin FP]
                            [--config FILE] [--binary FILE] [--lang fr|en] [--json]

Checks a signed attestation of the appliance: an in-toto statement in a DSSE
envelope, or the log's attestation record that embeds one.

  --attestation-key ANNOUNCEMENT
                    the appliance's key announcement record (the log's first
                    record; repeatable), checked first: the envelope must be
                    signed by one of its attestation keys
  --pin FP          also require the signing key's SHA-256 fingerprint
  --config FILE     for a build attestation: the configuration file, whose
                    SHA-256 must be the attested one
  --binary FILE     for a build attestation: the rngd executable, whose
                    SHA-256 must be the attested subject's

A paytable attestation (qod/paytable) is recomputed from the game's rules:
every figure must be the one the rules give, and a signed wrong figure is
MISBEHAVIOUR. A record's digest must be the SHA-256 of the envelope it
embeds. docs/attestations.md describes the formats.
`, `utilisation : rngverify attestation FICHIER --attestation-key ANNONCE [--pin EMPREINTE]
                                    [--config FICHIER] [--binary FICHIER] [--lang fr|en] [--json]

Vérifie une attestation signée par l'appareil : une déclaration in-toto dans
une enveloppe DSSE, ou l'enregistrement d'attestation du journal qui la contient.

  --attestation-key ANNONCE
                    l'enregistrement d'annonce des clés de l'appareil (le
                    premier du journal ; répétable), vérifié d'abord :
                    l'enveloppe doit être signée par l'une de ses clés
                    d'attestation
  --pin EMPREINTE   exige en outre l'empreinte SHA-256 de la clé qui signe
  --config FICHIER  pour une attestation de version : le fichier de
                    configuration, dont le SHA-256 doit être celui attesté
  --binary FICHIER  pour une attestation de version : l'exécutable rngd, dont
                    le SHA-256 doit être celui du sujet attesté

Une attestation de barème (qod/paytable) est recalculée à partir du règlement
du jeu : chaque chiffre doit être celui que donne le règlement, et un chiffre
faux signé est un MANQUEMENT. L'empreinte d'un enregistrement doit être le
SHA-256 de l'enveloppe qu'il contient. docs/attestations.md décrit les formats.
`},
	MsgSubjectAttestation: {"attestation %s",
		"attestation %s"},
	MsgAttestFlagNotHere: {"%s does not apply to attestations: give the key announcement with --attestation-key",
		"%s ne s'applique pas aux attestations : donnez l'annonce des clés avec --attestation-key"},
	MsgAttestNoKey: {"--attestation-key is required: the appliance's key announcement record (the log's first record)",
		"--attestation-key est obligatoire : l'enregistrement d'annonce des clés de l'appareil (le premier du journal)"},
	MsgAttestNoAttKey: {"%s announces no attestation key",
		"%s n'annonce aucune clé d'attestation"},
	MsgAttestNotAttestation: {"%s is not an attestation (a DSSE envelope or an attestation record): %s",
		"%s n'est pas une attestation (enveloppe DSSE ou enregistrement d'attestation) : %s"},
	MsgAttestRecordKind: {"%s is a %s record, not an attestation",
		"%s est un enregistrement « %s », pas une attestation"},
	MsgAttestNoStatement: {"the record logs the envelope's digest %s only: give the envelope itself",
		"l'enregistrement ne porte que l'empreinte %s de l'enveloppe : fournissez l'enveloppe elle-même"},
	MsgAttestRecordOK: {"the record's digest %s is the SHA-256 of the envelope; its subject, type and key are the statement's",
		"l'empreinte %s de l'enregistrement est le SHA-256 de l'enveloppe ; son sujet, son type et sa clé sont ceux de la déclaration"},
	MsgAttestKeyUnknown: {"signed by key %q, which is not an attestation key of the announcements given (%s)",
		"signée par la clé « %s », qui n'est pas une clé d'attestation des annonces fournies (%s)"},
	MsgAttestNoAnnouncement: {"signed by key %q, but no key announcement given announces an attestation key: give the appliance's key announcement record (the log's first record)",
		"signée par la clé « %s », mais aucune annonce de clés fournie n'annonce de clé d'attestation : fournissez l'enregistrement d'annonce des clés de l'appareil (le premier du journal)"},
	MsgAttestKeyNotPinned: {"key %s (fingerprint %s) is not pinned",
		"la clé %s (empreinte %s) n'est pas épinglée"},
	MsgAttestKeyOK: {"key %s, announced for attestations (fingerprint %s)",
		"clé %s, annoncée pour les attestations (empreinte %s)"},
	MsgAttestSigOK: {"the DSSE signature verifies under key %s",
		"la signature DSSE se vérifie sous la clé %s"},
	MsgAttestStatementOK: {"in-toto statement, predicate %s, subject %s",
		"déclaration in-toto, prédicat %s, sujet %s"},
	MsgAttestFigure: {"%s: attested %s, the rules give %s",
		"%s : attesté %s, le règlement donne %s"},
	MsgAttestPaytableOK: {"every figure is the one the game's rules give (%d tiers, %d picks, %d returns)",
		"chaque chiffre est celui que donne le règlement du jeu (%d paliers, %d sélections, %d espérances)"},
	MsgAttestBuildOK: {"build of %s %s with %s, revision %s",
		"version de %s %s compilée avec %s, révision %s"},
	MsgAttestKeysOK: {"%d key(s), each announced with its use and fingerprint",
		"%d clé(s), chacune annoncée avec son usage et son empreinte"},
	MsgAttestNotBuild: {"%s is not a build attestation",
		"%s n'est pas une attestation de version"},
	MsgAttestDigestDiffers: {"%s has SHA-256 %s, the attestation says %s",
		"%s a pour SHA-256 %s, l'attestation indique %s"},
	MsgAttestDigestOK: {"%s has the attested SHA-256 %s",
		"%s a le SHA-256 attesté %s"},
	MsgAttestFactType: {"predicate type",
		"type de prédicat"},
	MsgAttestFactSubject: {"subject",
		"sujet"},
	MsgAttestFactEnvelope: {"envelope",
		"enveloppe"},
	MsgAttestSubjectValue: {"%s sha256:%s",
		"%s sha256:%s"},
	// rngverify audit: the log's attestation records.
	MsgAttestAuditKey: {"attestation signed by key %q, which is not an attestation key the log announced before it",
		"attestation signée par la clé « %s », qui n'est pas une clé d'attestation annoncée plus tôt dans le journal"},
	MsgAttestAuditOK: {"%d attestation records: %d checked in full (key, signature, statement, predicate), %d by their key only (the record embeds no envelope: check the one published beside the log with rngverify attestation)",
		"%d enregistrements d'attestation : %d vérifiés entièrement (clé, signature, déclaration, prédicat), %d par leur clé seulement (l'enregistrement ne contient pas l'enveloppe : vérifiez celle publiée à côté du journal avec rngverify attestation)"},
	// rngverify freeze: a promotion's freeze receipt (promo.VerifyFreezeReceipt).
	MsgFreezeNotReceipt: {"not a freeze receipt: %w",
		"ce n'est pas un reçu de gel : %w"},
	MsgFreezeRulesDiffer: {"the receipt says rules %s, the freeze record %s",
		"le reçu indique le règlement %s, l'enregistrement du gel %s"},
	MsgFreezeField: {"the receipt shows %s %q, the logged freeze record says %q",
		"le reçu affiche %s « %s », l'enregistrement du gel journalisé indique « %s »"},
	MsgFreezeParticipants: {"the receipt shows %d participants, but %d entrants and %d withheld (closed accounts)",
		"le reçu affiche %d participants, mais %d participants retenus et %d écartés (comptes clos)"},
	MsgFreezeListDigest: {"the receipt's entrants_sha256 %q is not a SHA-256 (64 lowercase hex digits)",
		"entrants_sha256 du reçu, « %s », n'est pas un SHA-256 (64 chiffres hexadécimaux minuscules)"},
	MsgFreezeListFile: {"the entrant list's SHA-256 is %s, the receipt says %s",
		"le SHA-256 de la liste des participants est %s, le reçu indique %s"},
	// The input files a freeze binds (promo.InputsDigest, promo_freeze
	// inputs; freeze-inputs and input-files checks).
	MsgFreezeInputsNoStakes: {"no stake file first among the input files: a freeze's entrants are counted from its stake files",
		"aucun fichier de mises en tête des fichiers d'entrée : les participants d'un gel sont comptés à partir de ses fichiers de mises"},
	MsgFreezeInputRole: {"input file %d: role %q is neither stakes nor closed",
		"fichier d'entrée %d : le rôle « %s » n'est ni stakes ni closed"},
	MsgFreezeInputClosedLast: {"input file %d: the closed-accounts file must be the last one",
		"fichier d'entrée %d : le fichier des comptes clos doit être le dernier"},
	MsgFreezeInputDigest: {"input file %d: sha256 %q is not a SHA-256 (64 lowercase hex digits)",
		"fichier d'entrée %d : sha256 « %s » n'est pas un SHA-256 (64 chiffres hexadécimaux minuscules)"},
	MsgFreezeInputsBad: {"the receipt's input files are not a freeze's: %w",
		"les fichiers d'entrée du reçu ne sont pas ceux d'un gel : %w"},
	MsgFreezeInputsDiffer: {"the %d input files the receipt lists encode to %s, the freeze record binds %s: the list was edited, or is not this freeze's",
		"les %d fichiers d'entrée que liste le reçu donnent %s, l'enregistrement du gel engage %s : la liste a été modifiée, ou n'est pas celle de ce gel"},
	MsgFreezeInputsUnbound: {"the receipt lists %d input files, but the freeze record binds none",
		"le reçu liste %d fichiers d'entrée, mais l'enregistrement du gel n'en engage aucun"},
	MsgFreezeInputsOK: {"the freeze binds the %d input files the receipt lists (%s)",
		"le gel engage les %d fichiers d'entrée que liste le reçu (%s)"},
	MsgFreezeInputsNone: {"the freeze binds no input files (logged before freezes did): an entrant left out of the stake files before the freeze cannot be detected from it",
		"le gel n'engage aucun fichier d'entrée (journalisé avant que les gels ne le fassent) : un participant retiré des fichiers de mises avant le gel ne peut pas y être détecté"},
	MsgInputFilesCount: {"number of %s files given: %d, the freeze binds %d",
		"nombre de fichiers %s fournis : %d, le gel en engage %d"},
	MsgInputFileDiffers: {"%s file %q has SHA-256 %s, but the freeze's %s file %d (%q on the receipt) has %s: it is not the file the entrants were computed from",
		"le fichier %s « %s » a pour SHA-256 %s, mais le fichier %s n° %d du gel (« %s » sur le reçu) a %s : ce n'est pas le fichier à partir duquel les participants ont été calculés"},
	MsgInputFilesOK: {"the files given (%d) are the freeze's input files, in order",
		"les fichiers fournis (%d) sont les fichiers d'entrée du gel, dans l'ordre"},
	MsgInputFilesNotGiven: {"no input file given (--stakes, --closed): ask the operator for the stake and closed-accounts files to check that the entrants were computed from them",
		"aucun fichier d'entrée fourni (--stakes, --closed) : demandez à l'exploitant les fichiers de mises et des comptes clos pour vérifier que les participants en ont été calculés"},
	MsgInputFilesUnchecked: {"the files given cannot be checked: the freeze binds no input files",
		"les fichiers fournis ne peuvent pas être vérifiés : le gel n'engage aucun fichier d'entrée"},
	MsgRecomputedOK: {"the %d entrants recomputed from the input files under the frozen rules hash, under the list's key, to the frozen root and count: these files give the frozen list",
		"les %d participants recalculés à partir des fichiers d'entrée selon le règlement gelé donnent, sous la clé de la liste, la racine et le nombre gelés : ces fichiers donnent la liste gelée"},
	MsgRecomputedCount: {"the input files give %d entrants under the frozen rules, the freeze %d: the frozen list is not the one these files give",
		"les fichiers d'entrée donnent %d participants selon le règlement gelé, le gel %d : la liste gelée n'est pas celle que donnent ces fichiers"},
	MsgRecomputedRoot: {"the input files give %d entrants under the frozen rules, as many as frozen, but another list: it does not hash to the frozen root",
		"les fichiers d'entrée donnent %d participants selon le règlement gelé, autant que gelés, mais une autre liste : elle ne donne pas la racine gelée"},
	MsgRecomputedRules: {"the entrants were not recomputed under the rules the freeze binds",
		"les participants n'ont pas été recalculés selon le règlement qu'engage le gel"},
	MsgRecomputedNotAsked: {"list not recomputed (--rules FILE, with --stakes, --closed and --entrants): that the frozen list is what the input files give is not checked",
		"liste non recalculée (--rules FICHIER, avec --stakes, --closed et --entrants) : que la liste gelée soit bien celle que donnent les fichiers d'entrée n'est pas vérifié"},
	MsgRecomputedNoList: {"the entrant list (--entrants LIST) is needed: its key hashes the list",
		"la liste des participants (--entrants LISTE) est nécessaire : sa clé sert au hachage de la liste"},
	MsgCLIFreezeRecompute: {"--rules FILE recomputes the entrant list from the input files: it needs --stakes FILE (and --closed FILE, as at the freeze) and --entrants LIST (the list's key)",
		"--rules FICHIER recalcule la liste des participants à partir des fichiers d'entrée : il demande --stakes FICHIER (et --closed FICHIER, comme lors du gel) et --entrants LISTE (la clé de la liste)"},
	MsgCLIFreezeRules: {"--rules %s: %v",
		"--rules %s : %v"},
	MsgCLIRecompute: {"couldn't read the input files: %v",
		"impossible de lire les fichiers d'entrée : %v"},

	// The stake and closed-accounts files package stakes reads (rngverify
	// freeze --rules); row errors go to rngctl's rejected.txt, in English.
	MsgStakesEmpty: {"stake file: line 1: no header line (the file is empty)",
		"fichier de mises : ligne 1 : pas de ligne d'en-tête (le fichier est vide)"},
	MsgStakesRead: {"stake file: line %d: %v",
		"fichier de mises : ligne %d : %v"},
	MsgStakesRunOn: {"no line end within %d MiB: not a stake file (a row is at most %d KiB)",
		"pas de fin de ligne en %d Mio : ce n'est pas un fichier de mises (une ligne fait au plus %d Kio)"},
	MsgStakesHeaderLong: {"stake file: line %d: header longer than %d bytes",
		"fichier de mises : ligne %d : en-tête de plus de %d octets"},
	MsgStakesHeader: {"stake file: line %d: header: %v",
		"fichier de mises : ligne %d : en-tête : %v"},
	MsgStakesUnknownColumn: {"stake file: line %d: unknown column %q (want %s)",
		"fichier de mises : ligne %d : colonne « %s » inconnue (colonnes possibles : %s)"},
	MsgStakesColumnTwice: {"stake file: line %d: column %q twice",
		"fichier de mises : ligne %d : colonne « %s » en double"},
	MsgStakesMissingColumn: {"stake file: line %d: missing column %q",
		"fichier de mises : ligne %d : colonne « %s » manquante"},
	MsgCSVQuoteNotClosed: {"column %d: quoted field not closed on its line",
		"colonne %d : champ entre guillemets non refermé sur sa ligne"},
	MsgCSVExtraneousQuote: {"column %d: extraneous \" in quoted field",
		"colonne %d : guillemet \" de trop dans un champ entre guillemets"},
	MsgCSVBareQuote: {"column %d: bare \" in non-quoted field",
		"colonne %d : guillemet \" isolé dans un champ sans guillemets"},
	MsgCSVQuote: {"column %d: extraneous or missing \" in quoted field",
		"colonne %d : guillemet \" de trop ou manquant dans un champ entre guillemets"},
	MsgClosedEmpty: {"closed accounts: line 1: no header line (the file is empty)",
		"comptes clos : ligne 1 : pas de ligne d'en-tête (le fichier est vide)"},
	MsgClosedHeader: {"closed accounts: line 1: header must be account or account,closed_at",
		"comptes clos : ligne 1 : l'en-tête doit être account ou account,closed_at"},
	MsgClosedLine: {"closed accounts: line %d: %v",
		"comptes clos : ligne %d : %v"},
	MsgClosedRead: {"closed accounts: %v",
		"comptes clos : %v"},
	MsgClosedFields: {"closed accounts: line %d: not as many fields (%d) as the header (%d)",
		"comptes clos : ligne %d : autre nombre de champs (%d) que l'en-tête (%d)"},
	MsgClosedAccount: {"closed accounts: line %d: account: must match [A-Za-z0-9._:-]{1,64}, got %q",
		"comptes clos : ligne %d : account : doit être de la forme [A-Za-z0-9._:-]{1,64}, et non « %s »"},
	MsgClosedAt: {"closed accounts: line %d: closed_at: want RFC 3339 with an offset, got %q: %v",
		"comptes clos : ligne %d : closed_at : date RFC 3339 avec décalage horaire attendue, et non « %s » : %v"},
	MsgTimeTooShort: {"not an RFC 3339 date-time: too short",
		"pas une date RFC 3339 : trop courte"},
	MsgTimeWant: {"not an RFC 3339 date-time: want %s at byte %d",
		"pas une date RFC 3339 : %s attendu à l'octet %d"},
	MsgTimeFraction: {"not an RFC 3339 date-time: no digit after '.'",
		"pas une date RFC 3339 : aucun chiffre après le « . »"},
	MsgTimeOffsetRange: {"not an RFC 3339 date-time: offset %s out of range (hours 00-23, minutes 00-59)",
		"pas une date RFC 3339 : décalage %s hors limites (heures 00 à 23, minutes 00 à 59)"},
	MsgTimeOffset: {"not an RFC 3339 date-time: want an offset Z or ±hh:mm after the seconds",
		"pas une date RFC 3339 : décalage Z ou ±hh:mm attendu après les secondes"},
	MsgTimeFields: {"not an RFC 3339 date-time: %v",
		"pas une date RFC 3339 : %v"},
	MsgFreezeFactInput: {"%s file %d",
		"fichier %s n° %d"},
	MsgFreezeFactRows: {"stake rows recomputed",
		"lignes de mises recalculées"},
	MsgFreezeFactRowsValue: {"%d read, %d rejected (malformed or duplicate: they count for no one; rngctl's rejected.txt lists them)",
		"%d lues, %d rejetées (mal formées ou en double : elles ne comptent pour personne ; le fichier rejected.txt de rngctl les liste)"},
	MsgFreezeFactInputValue: {"sha256:%s (%s)",
		"sha256:%s (%s)"},
	MsgCLIClosedNoStakes: {"--closed FILE needs the freeze's stake files too (--stakes FILE, in the receipt's order)",
		"--closed FICHIER demande aussi les fichiers de mises du gel (--stakes FICHIER, dans l'ordre du reçu)"},
	MsgCLIStdinTwice: {"standard input (-) given %d times: it is read once, for the receipt or for one input file; give the others as files",
		"entrée standard (-) donnée %d fois : elle n'est lue qu'une fois, pour le reçu ou pour un seul fichier d'entrée ; donnez les autres en fichiers"},
	MsgCLIReadInput: {"couldn't read %s %s: %v",
		"impossible de lire %s %s : %v"},
	MsgSubjectFreezeReceipt: {"promotion freeze receipt",
		"reçu de gel promotionnel"},
	MsgSubjectFreeze: {"freeze of promotion draw %s",
		"gel du tirage promotionnel %s"},
	MsgFreezeFactFrozenAt: {"frozen at",
		"gelé le"},
	MsgFreezeFactLog: {"freeze record at index %d of log %s, checkpoint of size %d",
		"enregistrement du gel à l'index %d du journal %s, point de contrôle de taille %d"},
	MsgFreezeFactList: {"entrant list file",
		"fichier de la liste des participants"},
	MsgFreezeFactReceipt: {"receipt fingerprint",
		"empreinte du reçu"},
	MsgCmdFreeze: {"check a promotion's freeze receipt offline: the freeze is in the log and is what the receipt says (with the entrant list: the bailiff's checks; with the stake and closed-accounts files: they are those the freeze binds)",
		"vérifier hors ligne le reçu de gel d'une opération promotionnelle : le gel figure dans le journal et c'est bien ce que dit le reçu (avec la liste des participants : les vérifications de l'huissier ; avec les fichiers de mises et des comptes clos : ce sont ceux qu'engage le gel)"},
	MsgUsageFreeze: {usageFreezeEN, usageFreezeFR},
	MsgCLIMissingFreeze: {"missing the freeze receipt FILE",
		"il manque le FICHIER du reçu de gel"},
	MsgCLIReadFreeze: {"couldn't read the freeze receipt: %v",
		"impossible de lire le reçu de gel : %v"},
	MsgCLINoAnchorFreeze: {"no trust anchor: give the operator's log key (--log-key FILE, --pin FINGERPRINT, or its key announcement with --log-key) or --state FILE; the receipt's own keys are not trusted",
		"aucune ancre de confiance : fournissez la clé du journal de l'exploitant (--log-key FICHIER, --pin EMPREINTE, ou son annonce de clés avec --log-key) ou --state FICHIER ; les propres clés du reçu ne sont pas acceptées"},
	// rngverify entrant: a player's entrant proof (promo.VerifyEntrantProof).
	MsgEntrantNotProof: {"not an entrant proof: %w",
		"ce n'est pas une preuve de participation : %w"},
	MsgEntrantSalt: {"salt: want 64 lowercase hex digits (the account's opening, 32 bytes)",
		"champ « salt » : 64 chiffres hexadécimaux en minuscules sont attendus (l'ouverture du compte, 32 octets)"},
	MsgEntrantAccount: {"account %q: not an account id ([A-Za-z0-9._:-]{1,64})",
		"champ « account » : « %s » n'est pas un identifiant de compte ([A-Za-z0-9._:-]{1,64})"},
	MsgEntrantSchemeOld: {"the freeze commits its entrants under scheme %d (logged before entrant proofs existed): no entrant can be proven alone",
		"le gel engage ses participants selon le schéma %d (journalisé avant l'existence des preuves de participation) : aucun participant ne peut être prouvé seul"},
	MsgEntrantSchemeOK: {"the freeze commits its entrants under scheme %d: each has an opening of their own",
		"le gel engage ses participants selon le schéma %d : chacun a une ouverture qui lui est propre"},
	MsgEntrantField: {"the proof says %s %s, the logged freeze record %s",
		"la preuve indique %s %s, l'enregistrement du gel journalisé %s"},
	MsgEntrantIndex: {"index %d is beyond the %d frozen entrants",
		"l'index %d dépasse les %d participants gelés"},
	MsgEntrantProofHex: {"proof: hash %d is not 64 lowercase hex digits",
		"champ « proof » : l'empreinte %d ne fait pas 64 chiffres hexadécimaux minuscules"},
	MsgEntrantNotIn: {"the leaf %s recomputed from account %s and its salt is not entrant %d of the %d frozen: its inclusion proof does not verify against the frozen entrants_root %s",
		"la feuille %s recalculée à partir du compte %s et de son sel n'est pas le participant %d des %d gelés : sa preuve d'inclusion ne se vérifie pas avec la racine gelée entrants_root %s"},
	MsgEntrantIn: {"account %s is entrant %d of the %d frozen for %s: its leaf, recomputed from the account and its salt, is in the frozen entrants_root (inclusion proof of %d hashes)",
		"le compte %s est le participant %d des %d gelés pour %s : sa feuille, recalculée à partir du compte et de son sel, figure dans la racine gelée entrants_root (preuve d'inclusion de %d empreintes)"},
	MsgSubjectEntrantProof: {"promotion entrant proof",
		"preuve de participation à un tirage promotionnel"},
	MsgSubjectEntrant: {"entry of account %s in promotion draw %s",
		"participation du compte %s au tirage promotionnel %s"},
	MsgEntrantFactAccount: {"account",
		"compte"},
	MsgEntrantFactValue: {"%s: entrant %d of %d (index %d) of %s",
		"%s : participant %d sur %d (index %d) de %s"},
	MsgEntrantFactPseudo: {"pseudonym (as the certificate and the procès-verbal print it)",
		"pseudonyme (tel que l'impriment le certificat et le procès-verbal)"},
	MsgCmdEntrant: {"check a player's entrant proof offline: the freeze is in the log, and the account, with its own opening, is in the frozen entrant list (no other entrant revealed)",
		"vérifier hors ligne la preuve de participation d'un joueur : le gel figure dans le journal, et le compte, avec son ouverture propre, est dans la liste gelée des participants (aucun autre participant révélé)"},
	MsgUsageEntrant: {usageEntrantEN, usageEntrantFR},
	MsgCLIMissingEntrant: {"missing the entrant proof FILE",
		"il manque le FICHIER de la preuve de participation"},
	MsgCLIReadEntrant: {"couldn't read the entrant proof: %v",
		"impossible de lire la preuve de participation : %v"},
	MsgCLINoAnchorEntrant: {"no trust anchor: give the operator's log key (--log-key FILE, --pin FINGERPRINT, or its key announcement with --log-key) or --state FILE; the proof's own keys are not trusted",
		"aucune ancre de confiance : fournissez la clé du journal de l'exploitant (--log-key FICHIER, --pin EMPREINTE, ou son annonce de clés avec --log-key) ou --state FICHIER ; les propres clés de la preuve ne sont pas acceptées"},
	MsgCLIUseEntrant: {"%s is a player's entrant proof: check it with rngverify entrant",
		"%s est la preuve de participation d'un joueur : vérifiez-la avec rngverify entrant"},
	// A player disputes a draw: one account's answer (rngverify freeze
	// --account; promo.FindEntrant, promo.Eligibility.Standing).
	MsgAccountFact: {"account %s",
		"compte %s"},
	MsgAccountIn: {"in the frozen entrant list of %s: entrant %d of %d (index %d), pseudonym %s",
		"présent dans la liste gelée des participants de %s : participant %d sur %d (index %d), pseudonyme %s"},
	MsgAccountInRoot: {"its leaf %s is in the receipt's entrants_root %s: inclusion proof verified (hashes: %d)",
		"sa feuille %s figure dans la racine entrants_root du reçu, %s : preuve d'inclusion vérifiée (empreintes : %d)"},
	MsgAccountOut: {"not in the frozen entrant list of %s (entrants: %d; the list hashes to the frozen root)",
		"absent de la liste gelée des participants de %s (participants : %d ; la liste donne la racine gelée)"},
	MsgAccountProof: {"entrant %d (pseudonym %s): its leaf's inclusion proof, computed from the list, does not verify against the frozen root and count: the list is not the frozen one",
		"participant %d (pseudonyme %s) : la preuve d'inclusion de sa feuille, calculée à partir de la liste, ne se vérifie pas avec la racine et le nombre gelés : la liste n'est pas celle du gel"},
	MsgAccountAskFiles: {"why: give the freeze's input files and its rules too (--stakes, --closed, --rules) to recompute its stakes",
		"pourquoi : fournissez aussi les fichiers d'entrée du gel et son règlement (--stakes, --closed, --rules) pour recalculer ses mises"},
	MsgAccountDayReached: {"%s: counted (cents): %d, minimum %d: took part",
		"%s : compté (centimes) : %d, minimum %d : a participé"},
	MsgAccountDayBelow: {"%s: counted (cents): %d, minimum %d: below the minimum",
		"%s : compté (centimes) : %d, minimum %d : sous le minimum"},
	MsgAccountRowsCounted: {"stake rows counted: %d, not counted or rejected: %d",
		"lignes de mises comptées : %d, non comptées ou rejetées : %d"},
	MsgAccountRowExcluded: {"%s:%d not counted: %s",
		"%s:%d non comptée : %s"},
	MsgAccountRowRejected: {"%s:%d rejected: %s",
		"%s:%d rejetée (motif, en anglais : « %s »)"},
	MsgAccountRowsMore: {"rows not counted or rejected beyond those listed: %d",
		"lignes non comptées ou rejetées au-delà de celles listées : %d"},
	MsgAccountClosedAt: {"closed at %s, at or before the draw date %s: the closure withholds it from the draw",
		"clos le %s, au plus tard à la date du tirage, %s : la clôture l'écarte du tirage"},
	MsgAccountClosedUnknown: {"closed at an unknown date (counted as before everything), so by the draw date %s: the closure withholds it from the draw",
		"clos à une date inconnue (comptée comme antérieure à tout), donc avant la date du tirage, %s : la clôture l'écarte du tirage"},
	MsgAccountClosedAfter: {"closed at %s, after the draw date %s: the closure does not withhold it",
		"clos le %s, après la date du tirage, %s : la clôture ne l'écarte pas"},
	MsgAccountWhyNoStake: {"why: no stake of it counted on the draw's days",
		"pourquoi : aucune de ses mises n'a compté les jours du tirage"},
	MsgAccountWhyNoRow: {"why: no row of the stake files names this account (is it the id the operator's files use?)",
		"pourquoi : aucune ligne des fichiers de mises ne nomme ce compte (est-ce l'identifiant qu'emploient les fichiers de l'exploitant ?)"},
	MsgAccountWhyBelow: {"why: its counted stakes stayed below the minimum on every day of the draw",
		"pourquoi : ses mises comptées sont restées sous le minimum chacun des jours du tirage"},
	MsgAccountWhyClosed: {"why: it took part, but its account was closed by the draw date",
		"pourquoi : il a participé, mais son compte était clos à la date du tirage"},
	MsgAccountWhyEntrant: {"the input files make it an entrant: it took part, and its account was open on the draw date",
		"les fichiers d'entrée en font un participant : il a participé, et son compte était ouvert à la date du tirage"},
	MsgAccountNotAnswered: {"not answered: a check above did not pass",
		"sans réponse : une vérification ci-dessus a échoué"},
	MsgAccountFilesUnbound: {"why: not answered from these files: the freeze binds no input files (logged before freezes did), so nothing proves they are the ones it was computed from",
		"pourquoi : sans réponse d'après ces fichiers : le gel n'engage aucun fichier d'entrée (enregistré avant que les gels le fassent), rien ne prouve donc qu'ils soient ceux dont il a été calculé"},
	MsgCLIAccountBad: {"--account %q: not an account id ([A-Za-z0-9._:-]{1,64}, as in the stake files)",
		"--account « %s » : ce n'est pas un identifiant de compte ([A-Za-z0-9._:-]{1,64}, comme dans les fichiers de mises)"},
	MsgCLIAccountNoList: {"--account ACCOUNT needs the entrant list (--entrants LIST): its key finds the account's leaf",
		"--account COMPTE demande la liste des participants (--entrants LISTE) : sa clé retrouve la feuille du compte"},
	// The bailiff's share commitment (promo.ShareCommitment, promo_freeze
	// share_commitment; rngverify share-commitment).
	MsgShareCommitmentOpen: {"the share does not open the commitment the freeze holds (%s): it is not the share the bailiff committed to at the freeze, before the beacon round was published",
		"la contribution n'ouvre pas l'engagement que contient le gel (%s) : ce n'est pas la contribution sur laquelle l'huissier s'est engagé lors du gel, avant la publication de la ronde de la balise"},
	MsgShareCommitmentMissing: {"the freeze announces a beacon round but holds no commitment to the bailiff's share, though it was logged at %s, when freezes held one (from %s on): the share was left free until the round was published, so the operator and the bailiff together could have chosen the winners",
		"le gel annonce une ronde de balise mais ne contient aucun engagement sur la contribution de l'huissier, alors qu'il a été journalisé le %s, quand les gels en contenaient un (à partir du %s) : la contribution est restée libre jusqu'à la publication de la ronde, si bien que l'exploitant et l'huissier ensemble ont pu choisir les gagnants"},
	MsgShareCommitmentOK: {"the share opens the commitment the freeze holds (%s): the bailiff committed to it at the freeze",
		"la contribution ouvre l'engagement que contient le gel (%s) : l'huissier s'y est engagé lors du gel"},
	MsgShareUncommitted: {"the freeze holds no commitment to the bailiff's share (it was logged before freezes held one): the share was not fixed before the beacon round was published, so the beacon does not rule out a choice of the winners by the operator and the bailiff together",
		"le gel ne contient aucun engagement sur la contribution de l'huissier (il a été journalisé avant que les gels n'en contiennent) : la contribution n'était pas fixée avant la publication de la ronde de la balise, si bien que la balise n'exclut pas un choix des gagnants par l'exploitant et l'huissier ensemble"},
	MsgShareCommitmentNone: {"the freeze announced no beacon round and holds no share commitment: none is needed without a beacon",
		"le gel n'a annoncé aucune ronde de balise et ne contient aucun engagement sur la contribution : aucun n'est nécessaire sans balise"},
	MsgAuditSharesUncommitted: {"promotion draws whose freeze holds no commitment to the bailiff's share though they bind a beacon round (freezes logged before freezes held one): %d (%s); their share was not fixed before the round was published, so the beacon does not rule out a choice of the winners by the operator and the bailiff together",
		"tirages promotionnels dont le gel ne contient aucun engagement sur la contribution de l'huissier alors qu'ils intègrent une ronde de balise (gels journalisés avant que les gels n'en contiennent) : %d (%s) ; leur contribution n'était pas fixée avant la publication de la ronde, si bien que la balise n'exclut pas un choix des gagnants par l'exploitant et l'huissier ensemble"},
	MsgAuditFreezesUnbound: {"promotion freezes that bind no input files (logged before freezes bound them): %d (%s); whether their entrant lists are what the operator's stake and closed-accounts files give cannot be checked (rngverify freeze --rules)",
		"gels promotionnels qui n'engagent aucun fichier d'entrée (journalisés avant que les gels n'en engagent) : %d (%s) ; on ne peut pas vérifier que leurs listes de participants sont celles que donnent les fichiers de mises et de comptes clos de l'exploitant (rngverify freeze --rules)"},
	MsgShareNone: {"no share entered",
		"aucune contribution saisie"},
	MsgShareLong: {"share longer than %d bytes",
		"contribution de plus de %d octets"},
	MsgCmdShareCommitment: {"compute the bailiff's share commitment for a promotion's freeze, offline: the share is read as the ceremony reads it",
		"calculer hors ligne l'engagement de l'huissier sur sa contribution, pour le gel d'une opération promotionnelle : la contribution est lue comme la cérémonie la lit"},
	MsgUsageShareCommitment: {usageShareCommitmentEN, usageShareCommitmentFR},
	MsgCLIShareDraw: {"--draw %q: not a draw id (<operation>/<id>, e.g. bonus-crescendo/1)",
		"--draw « %s » : ce n'est pas un identifiant de tirage (<opération>/<id>, par exemple bonus-crescendo/1)"},
	MsgCLIReadShare: {"couldn't read the share: %v",
		"impossible de lire la contribution : %v"},
	MsgCLISharePromptText: {"bailiff's share (typed text, 8 to 256 bytes): ",
		"contribution de l'huissier (texte saisi, 8 à 256 octets) : "},
	MsgCLISharePromptDice: {"bailiff's dice rolls (at least %d digits 1-6): ",
		"lancers de dés de l'huissier (au moins %d chiffres de 1 à 6) : "},
	MsgCLIShareBad: {"share: %v",
		"contribution : %v"},
	MsgCLIShareShort: {"warning: a text share of %d characters can be found from its commitment, which the log publishes, by trying texts: the winners could then be known once the beacon round is published, before the ceremony; type at least %d characters, or roll dice (--dice)",
		"attention : une contribution de %d caractères se retrouve à partir de son engagement, que le journal publie, en essayant des textes : les gagnants pourraient alors être connus dès la publication de la ronde de la balise, avant la cérémonie ; tapez au moins %d caractères, ou lancez des dés (--dice)"},
	MsgFreezeFactShareCommitment: {"bailiff's share commitment",
		"engagement de l'huissier sur sa contribution"},
	MsgDrawAt: {"draw %s (entry %d)",
		"tirage %s (entrée %d)"},
	// Witnesses (checkpoint.ParseWitness, Cosignatures; receipt's witness checks; rngverify --witness).
	MsgWitnessKeyName: {"witness key %q: bad name",
		"clé de témoin « %s » : nom invalide"},
	MsgWitnessKeyID: {"witness key %q: bad key id",
		"clé de témoin « %s » : identifiant de clé invalide"},
	MsgWitnessKeyBase64: {"witness key %q: bad base64 key",
		"clé de témoin « %s » : clé en base64 invalide"},
	MsgWitnessKeyNoteKey: {"witness key %q: an Ed25519 signed-note key (type 0x01), not a cosignature/v1 key (type 0x04): ask the witness for its cosignature/v1 verifier key",
		"clé de témoin « %s » : une clé Ed25519 de note signée (type 0x01), pas une clé cosignature/v1 (type 0x04) : demandez au témoin sa clé de vérification cosignature/v1"},
	MsgWitnessKeyType: {"witness key %q: signature type 0x%02x, not cosignature/v1 (0x04)",
		"clé de témoin « %s » : type de signature 0x%02x, pas cosignature/v1 (0x04)"},
	MsgWitnessKeySize: {"witness key %q: bad Ed25519 key size",
		"clé de témoin « %s » : taille de clé Ed25519 invalide"},
	MsgWitnessKeyMismatch: {"witness key %q: the key id is not the key's",
		"clé de témoin « %s » : l'identifiant de clé n'est pas celui de la clé"},
	MsgWitnessKeyTwoNames: {"witness keys %s and %s are one key under two names (a cosignature does not sign the name: it would count twice); give it once",
		"les clés de témoin %s et %s sont une même clé sous deux noms (une cosignature ne signe pas le nom : elle compterait deux fois) ; ne la donner qu'une fois"},
	MsgNoWitnessKeyFound: {"no witness key found",
		"aucune clé de témoin trouvée"},
	MsgCPBadCosignature: {"invalid cosignature by witness %s+%08x",
		"cosignature invalide du témoin %s+%08x"},
	MsgCPCosignatureNote: {"cosignatures unreadable: %w",
		"cosignatures illisibles : %v"},
	MsgCPCosignatureTime: {"cosignature by %s+%08x: no cosignature/v1 timestamp",
		"cosignature de %s+%08x : sans horodatage cosignature/v1"},
	MsgWitnessQuorumOK: {"checkpoint of size %d cosigned by %d of %d witness(es) (quorum %d): %s",
		"point de contrôle de taille %d cosigné par %d des %d témoin(s) (quorum %d) : %s"},
	MsgWitnessAt: {"%s at %s",
		"%s le %s"},
	MsgWitnessMissing: {"checkpoint of size %d: %d valid cosignature(s), %d required (quorum of %d witness(es)); missing: %s",
		"point de contrôle de taille %d : %d cosignature(s) valide(s), %d requise(s) (quorum sur %d témoin(s)) ; manquant : %s"},
	MsgWitnessRefused: {"checkpoint of size %d: %s",
		"point de contrôle de taille %d : %s"},
	MsgBeaconOrderWitnessed: {"the freeze was witnessed at %s, before %s round %d at %s: entrants and share commitment were fixed before the beacon",
		"le gel a été vu par les témoins le %s, avant la publication de %s, manche %d, le %s : participants et engagement sur la part étaient fixés avant la balise"},
	MsgBeaconOrderNotShown: {"the freeze was witnessed at %s, not before %s round %d at %s: that the entrants and share commitment were fixed before the beacon is not shown (no proof of misbehaviour: the witnesses may have cosigned late)",
		"le gel a été vu par les témoins le %s, pas avant la publication de %s, manche %d, le %s : il n'est pas montré que participants et engagement sur la part étaient fixés avant la balise (ce n'est pas une preuve de malveillance : les témoins ont pu cosigner tard)"},
	MsgBeaconOrderCertificate: {"the certificate's checkpoint (size %d), its only one, includes the draw: witnessed at %s, not before %s round %d at %s; the freeze receipt's checkpoint shows the order (rngverify freeze --witness)",
		"le point de contrôle du certificat (taille %d), son seul, inclut le tirage : vu par les témoins le %s, pas avant la publication de %s, manche %d, le %s ; le point de contrôle du reçu de gel montre l'ordre (rngverify freeze --witness)"},
	MsgBeaconOrderClock: {"no witness given (--witness): that the freeze (at %s) was logged before %s round %d at %s rests on the appliance's clock",
		"aucun témoin fourni (--witness) : que le gel (le %s) ait été journalisé avant la publication de %s, manche %d, le %s repose sur l'horloge de l'appareil"},
	MsgCLIWitnessNeither: {"--witness: neither a witness key nor a readable file: %w",
		"--witness : ni une clé de témoin ni un fichier lisible : %v"},
	MsgCLIQuorumNoWitness: {"--witness-quorum %d: no --witness given",
		"--witness-quorum %d : aucun --witness fourni"},
	MsgCLIWitnessRecorded: {"rngverify %s: log %q: witnesses recorded in %s: every later run with this state requires the cosignatures of %d of them (%s), --witness given or not",
		"rngverify %s : journal « %s » : témoins enregistrés dans %s : chaque exécution suivante avec cet état exige les cosignatures de %d d'entre eux (%s), --witness fourni ou non"},
	MsgCLIWitnessesDiffer: {"logs %q and %q require different witnesses: give the --witness (and --witness-quorum) the state records for the document's log",
		"les journaux « %s » et « %s » exigent des témoins différents : donnez les --witness (et --witness-quorum) que l'état enregistre pour le journal du document"},
	// Audit follow-up (2026-12): unsigned served data, receipt key fields.
	MsgLogKeyTrustUnrecorded: {"%s (%s, not recorded: the state file records a log's keys with a checkpoint only once every check passed)",
		"%s (%s, non enregistrée : le fichier d'état n'enregistre les clés d'un journal avec un point de contrôle qu'une fois toutes les vérifications réussies)"},
	MsgVRFKeyLineNotVRF: {"line %d: key %q (%s) is not a VRF key (a line of rngctl keys export-public, which prints the log key too): give the VRF key as \"SUITE HEX\" (its suite, then what rngctl keys export-public --label vrf prints) or the key announcement; a log key goes to --log-key (rngctl keys export-public --label log --format vkey --origin ORIGIN, or the log's /log/vkey)",
		"ligne %d : la clé « %s » (%s) n'est pas une clé VRF (une ligne de rngctl keys export-public, qui affiche aussi la clé du journal) : donnez la clé VRF sous la forme « SUITE HEX » (sa suite, puis ce qu'affiche rngctl keys export-public --label vrf) ou l'annonce des clés ; une clé du journal se donne à --log-key (rngctl keys export-public --label log --format vkey --origin ORIGINE, ou /log/vkey du journal)"},
	MsgVRFKeyLineExport: {"line %d: a line of rngctl keys export-public (key %q): give its suite and key alone, \"%s HEX\", or the key announcement",
		"ligne %d : une ligne de rngctl keys export-public (clé « %s ») : donnez sa suite et sa clé seules, « %s HEX », ou l'annonce des clés"},
	MsgVRFKeyLineLogVKey: {"line %d: the verifier key of log %q (%s, a signed-note key as /log/vkey serves it) is not a VRF key: give it to --log-key; a VRF key is \"SUITE HEX\" or the key announcement",
		"ligne %d : la clé de vérification du journal « %s » (%s, une clé signed-note telle que la sert /log/vkey) n'est pas une clé VRF : donnez-la à --log-key ; une clé VRF s'écrit « SUITE HEX » ou se donne par l'annonce des clés"},
	MsgCLIKeysAnnounced: {"%s %s is a key announcement: it names the log key by its fingerprint only, to be matched with the keys the log serves at vkey, and they couldn't be read (%w): give the log's verifier key itself with --log-key FILE (as /log/vkey serves it, or rngctl keys export-public --label log --format vkey --origin ORIGIN)",
		"%s %s est une annonce des clés : elle ne désigne la clé du journal que par son empreinte, à rapprocher des clés que sert le journal (vkey), qui n'ont pu être lues (%v) : donnez la clé de vérification du journal elle-même avec --log-key FICHIER (telle que la sert /log/vkey, ou rngctl keys export-public --label log --format vkey --origin ORIGINE)"},
	MsgAttestLogVKey: {"--attestation-key %s: the verifier key of log %q (a signed-note key as /log/vkey serves it), not a key announcement: give the appliance's key announcement record (JSON, the log's first record)",
		"--attestation-key %s : la clé de vérification du journal « %s » (une clé signed-note telle que la sert /log/vkey), pas une annonce des clés : donnez l'enregistrement d'annonce des clés de l'appareil (JSON, le premier enregistrement du journal)"},
	MsgReceiptKeyField: {"%s: %s",
		"%s : %s"},
	MsgReceiptKeyMissing: {"%s is missing: the receipt names VRF key %q without its public key",
		"%s est absent : le reçu désigne la clé VRF « %s » sans sa clé publique"},
	MsgServedNotSigned: {"the data the log served does not match its signed checkpoint (entry bundles and hash tiles are not signed: a corrupt mirror, the transport or the log's server may have changed them)",
		"les données servies par le journal ne correspondent pas à son point de contrôle signé (paquets d'entrées et tuiles d'empreintes ne sont pas signés : un miroir corrompu, le transport ou le serveur du journal ont pu les modifier)"},
	MsgServedEntryMismatch: {"entry %d (entry bundle %s): its bytes do not hash to the leaf the signed tree holds",
		"entrée %d (paquet d'entrées %s) : son empreinte n'est pas la feuille que contient l'arbre signé"},
	MsgServedTilesMismatch: {"entries %d..%d: the hash tiles served (%s, with the tiles authenticating it) do not match the signed tree: %s",
		"entrées %d..%d : les tuiles d'empreintes servies (%s, avec les tuiles qui l'authentifient) ne correspondent pas à l'arbre signé : %s"},
}

// rngverify attestation's message ids.
const (
	MsgCmdAttestation       MsgID = "cmd-attestation"
	MsgUsageAttestation     MsgID = "usage-attestation"
	MsgSubjectAttestation   MsgID = "subject-attestation"
	MsgAttestFlagNotHere    MsgID = "attest-flag-not-here"
	MsgAttestNoKey          MsgID = "attest-no-key"
	MsgAttestNoAttKey       MsgID = "attest-no-att-key"
	MsgAttestNotAttestation MsgID = "attest-not-attestation"
	MsgAttestRecordKind     MsgID = "attest-record-kind"
	MsgAttestNoStatement    MsgID = "attest-no-statement"
	MsgAttestRecordOK       MsgID = "attest-record-ok"
	MsgAttestKeyUnknown     MsgID = "attest-key-unknown"
	MsgAttestKeyNotPinned   MsgID = "attest-key-not-pinned"
	MsgAttestNoAnnouncement MsgID = "attest-no-announcement"
	MsgAttestKeyOK          MsgID = "attest-key-ok"
	MsgAttestSigOK          MsgID = "attest-sig-ok"
	MsgAttestStatementOK    MsgID = "attest-statement-ok"
	MsgAttestFigure         MsgID = "attest-figure"
	MsgAttestPaytableOK     MsgID = "attest-paytable-ok"
	MsgAttestBuildOK        MsgID = "attest-build-ok"
	MsgAttestKeysOK         MsgID = "attest-keys-ok"
	MsgAttestNotBuild       MsgID = "attest-not-build"
	MsgAttestDigestDiffers  MsgID = "attest-digest-differs"
	MsgAttestDigestOK       MsgID = "attest-digest-ok"
	MsgAttestFactType       MsgID = "attest-fact-type"
	MsgAttestFactSubject    MsgID = "attest-fact-subject"
	MsgAttestFactEnvelope   MsgID = "attest-fact-envelope"
	MsgAttestSubjectValue   MsgID = "attest-subject-value"
	MsgAttestAuditKey       MsgID = "attest-audit-key"
	MsgAttestAuditOK        MsgID = "attest-audit-ok"
)

// rngverify freeze's message ids.
const (
	MsgFreezeNotReceipt     MsgID = "freeze-not-receipt"
	MsgFreezeRulesDiffer    MsgID = "freeze-rules-differ"
	MsgFreezeField          MsgID = "freeze-field"
	MsgFreezeListFile       MsgID = "freeze-list-file"
	MsgFreezeParticipants   MsgID = "freeze-participants"
	MsgFreezeListDigest     MsgID = "freeze-list-digest"
	MsgSubjectFreezeReceipt MsgID = "subject-freeze-receipt"
	MsgSubjectFreeze        MsgID = "subject-freeze"
	MsgFreezeFactFrozenAt   MsgID = "freeze-fact-frozen-at"
	MsgFreezeFactLog        MsgID = "freeze-fact-log"
	MsgFreezeFactList       MsgID = "freeze-fact-list"
	MsgFreezeFactReceipt    MsgID = "freeze-fact-receipt"
	MsgCmdFreeze            MsgID = "cmd-freeze"
	MsgUsageFreeze          MsgID = "usage-freeze"
	MsgCLIMissingFreeze     MsgID = "cli-missing-freeze"
	MsgCLIReadFreeze        MsgID = "cli-read-freeze"
	MsgCLINoAnchorFreeze    MsgID = "cli-no-anchor-freeze"
)

// rngverify entrant: a player's entrant proof (promo.VerifyEntrantProof).
const (
	MsgEntrantNotProof     MsgID = "entrant-not-proof"
	MsgEntrantSalt         MsgID = "entrant-salt"
	MsgEntrantAccount      MsgID = "entrant-account"
	MsgEntrantSchemeOld    MsgID = "entrant-scheme-old"
	MsgEntrantSchemeOK     MsgID = "entrant-scheme-ok"
	MsgEntrantField        MsgID = "entrant-field"
	MsgEntrantIndex        MsgID = "entrant-index"
	MsgEntrantProofHex     MsgID = "entrant-proof-hex"
	MsgEntrantNotIn        MsgID = "entrant-not-in"
	MsgEntrantIn           MsgID = "entrant-in"
	MsgSubjectEntrantProof MsgID = "subject-entrant-proof"
	MsgSubjectEntrant      MsgID = "subject-entrant"
	MsgEntrantFactAccount  MsgID = "entrant-fact-account"
	MsgEntrantFactValue    MsgID = "entrant-fact-value"
	MsgEntrantFactPseudo   MsgID = "entrant-fact-pseudonym"
	MsgCmdEntrant          MsgID = "cmd-entrant"
	MsgUsageEntrant        MsgID = "usage-entrant"
	MsgCLIMissingEntrant   MsgID = "cli-missing-entrant"
	MsgCLIReadEntrant      MsgID = "cli-read-entrant"
	MsgCLINoAnchorEntrant  MsgID = "cli-no-anchor-entrant"
	MsgCLIUseEntrant       MsgID = "cli-use-entrant"
)

// The input files a freeze binds: message ids.
const (
	MsgFreezeInputsNoStakes  MsgID = "freeze-inputs-no-stakes"
	MsgFreezeInputRole       MsgID = "freeze-input-role"
	MsgFreezeInputClosedLast MsgID = "freeze-input-closed-last"
	MsgFreezeInputDigest     MsgID = "freeze-input-digest"
	MsgFreezeInputsBad       MsgID = "freeze-inputs-bad"
	MsgFreezeInputsDiffer    MsgID = "freeze-inputs-differ"
	MsgFreezeInputsUnbound   MsgID = "freeze-inputs-unbound"
	MsgFreezeInputsOK        MsgID = "freeze-inputs-ok"
	MsgFreezeInputsNone      MsgID = "freeze-inputs-none"
	MsgInputFilesCount       MsgID = "input-files-count"
	MsgInputFileDiffers      MsgID = "input-file-differs"
	MsgInputFilesOK          MsgID = "input-files-ok"
	MsgInputFilesNotGiven    MsgID = "input-files-not-given"
	MsgInputFilesUnchecked   MsgID = "input-files-unchecked"
	MsgFreezeFactInput       MsgID = "freeze-fact-input"
	MsgFreezeFactInputValue  MsgID = "freeze-fact-input-value"
	MsgFreezeFactRows        MsgID = "freeze-fact-rows"
	MsgFreezeFactRowsValue   MsgID = "freeze-fact-rows-value"
	MsgCLIReadInput          MsgID = "cli-read-input"
	MsgCLIClosedNoStakes     MsgID = "cli-closed-no-stakes"
	MsgCLIStdinTwice         MsgID = "cli-stdin-twice"
	MsgRecomputedOK          MsgID = "recomputed-ok"
	MsgRecomputedCount       MsgID = "recomputed-count"
	MsgRecomputedRoot        MsgID = "recomputed-root"
	MsgRecomputedRules       MsgID = "recomputed-rules"
	MsgRecomputedNoList      MsgID = "recomputed-no-list"
	MsgRecomputedNotAsked    MsgID = "recomputed-not-asked"
	MsgCLIFreezeRecompute    MsgID = "cli-freeze-recompute"
	MsgCLIFreezeRules        MsgID = "cli-freeze-rules"
	MsgCLIRecompute          MsgID = "cli-recompute"
)

// The stake and closed-accounts files package stakes reads: message ids.
const (
	MsgStakesEmpty         MsgID = "stakes-empty"
	MsgStakesRead          MsgID = "stakes-read"
	MsgStakesRunOn         MsgID = "stakes-run-on"
	MsgStakesHeaderLong    MsgID = "stakes-header-long"
	MsgStakesHeader        MsgID = "stakes-header"
	MsgStakesUnknownColumn MsgID = "stakes-unknown-column"
	MsgStakesColumnTwice   MsgID = "stakes-column-twice"
	MsgStakesMissingColumn MsgID = "stakes-missing-column"
	MsgCSVQuoteNotClosed   MsgID = "csv-quote-not-closed"
	MsgCSVExtraneousQuote  MsgID = "csv-extraneous-quote"
	MsgCSVBareQuote        MsgID = "csv-bare-quote"
	MsgCSVQuote            MsgID = "csv-quote"
	MsgClosedEmpty         MsgID = "closed-empty"
	MsgClosedHeader        MsgID = "closed-header"
	MsgClosedLine          MsgID = "closed-line"
	MsgClosedRead          MsgID = "closed-read"
	MsgClosedFields        MsgID = "closed-fields"
	MsgClosedAccount       MsgID = "closed-account"
	MsgClosedAt            MsgID = "closed-at"
	MsgTimeTooShort        MsgID = "time-too-short"
	MsgTimeWant            MsgID = "time-want"
	MsgTimeFraction        MsgID = "time-fraction"
	MsgTimeOffsetRange     MsgID = "time-offset-range"
	MsgTimeOffset          MsgID = "time-offset"
	MsgTimeFields          MsgID = "time-fields"
)

// The bailiff's share commitment's message ids.
const (
	MsgShareCommitmentOpen       MsgID = "share-commitment-open"
	MsgShareCommitmentMissing    MsgID = "share-commitment-missing"
	MsgShareCommitmentOK         MsgID = "share-commitment-ok"
	MsgShareUncommitted          MsgID = "share-uncommitted"
	MsgShareCommitmentNone       MsgID = "share-commitment-none"
	MsgAuditSharesUncommitted    MsgID = "audit-shares-uncommitted"
	MsgAuditFreezesUnbound       MsgID = "audit-freezes-unbound"
	MsgShareNone                 MsgID = "share-none"
	MsgShareLong                 MsgID = "share-long"
	MsgCmdShareCommitment        MsgID = "cmd-share-commitment"
	MsgUsageShareCommitment      MsgID = "usage-share-commitment"
	MsgCLIShareDraw              MsgID = "cli-share-draw"
	MsgCLIReadShare              MsgID = "cli-read-share"
	MsgCLISharePromptText        MsgID = "cli-share-prompt-text"
	MsgCLISharePromptDice        MsgID = "cli-share-prompt-dice"
	MsgCLIShareBad               MsgID = "cli-share-bad"
	MsgCLIShareShort             MsgID = "cli-share-short"
	MsgFreezeFactShareCommitment MsgID = "freeze-fact-share-commitment"
	MsgDrawAt                    MsgID = "draw-at"
)

// Witnesses' message ids (checkpoint.ParseWitness, Cosignatures; receipt's
// witness-cosignatures and witnessed-before-beacon checks; rngverify --witness).
const (
	MsgWitnessKeyName         MsgID = "witness-key-name"
	MsgWitnessKeyID           MsgID = "witness-key-id"
	MsgWitnessKeyBase64       MsgID = "witness-key-base64"
	MsgWitnessKeyNoteKey      MsgID = "witness-key-note-key"
	MsgWitnessKeyType         MsgID = "witness-key-type"
	MsgWitnessKeySize         MsgID = "witness-key-size"
	MsgWitnessKeyMismatch     MsgID = "witness-key-mismatch"
	MsgWitnessKeyTwoNames     MsgID = "witness-key-two-names"
	MsgNoWitnessKeyFound      MsgID = "no-witness-key-found"
	MsgCPBadCosignature       MsgID = "cp-bad-cosignature"
	MsgCPCosignatureNote      MsgID = "cp-cosignature-note"
	MsgCPCosignatureTime      MsgID = "cp-cosignature-time"
	MsgWitnessQuorumOK        MsgID = "witness-quorum-ok"
	MsgWitnessAt              MsgID = "witness-at"
	MsgWitnessMissing         MsgID = "witness-missing"
	MsgWitnessRefused         MsgID = "witness-refused"
	MsgBeaconOrderWitnessed   MsgID = "beacon-order-witnessed"
	MsgBeaconOrderNotShown    MsgID = "beacon-order-not-shown"
	MsgBeaconOrderCertificate MsgID = "beacon-order-certificate"
	MsgBeaconOrderClock       MsgID = "beacon-order-clock"
	MsgCLIWitnessNeither      MsgID = "cli-witness-neither"
	MsgCLIQuorumNoWitness     MsgID = "cli-quorum-no-witness"
	MsgCLIWitnessRecorded     MsgID = "cli-witness-recorded"
	MsgCLIWitnessesDiffer     MsgID = "cli-witnesses-differ"
)

// A player disputes a draw: one account's answer's message ids (rngverify
// freeze --account).
const (
	MsgAccountFact          MsgID = "account-fact"
	MsgAccountIn            MsgID = "account-in"
	MsgAccountInRoot        MsgID = "account-in-root"
	MsgAccountOut           MsgID = "account-out"
	MsgAccountProof         MsgID = "account-proof"
	MsgAccountAskFiles      MsgID = "account-ask-files"
	MsgAccountDayReached    MsgID = "account-day-reached"
	MsgAccountDayBelow      MsgID = "account-day-below"
	MsgAccountRowsCounted   MsgID = "account-rows-counted"
	MsgAccountRowExcluded   MsgID = "account-row-excluded"
	MsgAccountRowRejected   MsgID = "account-row-rejected"
	MsgAccountRowsMore      MsgID = "account-rows-more"
	MsgAccountClosedAt      MsgID = "account-closed-at"
	MsgAccountClosedUnknown MsgID = "account-closed-unknown"
	MsgAccountClosedAfter   MsgID = "account-closed-after"
	MsgAccountWhyNoStake    MsgID = "account-why-no-stake"
	MsgAccountWhyNoRow      MsgID = "account-why-no-row"
	MsgAccountWhyBelow      MsgID = "account-why-below"
	MsgAccountWhyClosed     MsgID = "account-why-closed"
	MsgAccountWhyEntrant    MsgID = "account-why-entrant"
	MsgAccountNotAnswered   MsgID = "account-not-answered"
	MsgAccountFilesUnbound  MsgID = "account-files-unbound"
	MsgCLIAccountBad        MsgID = "cli-account-bad"
	MsgCLIAccountNoList     MsgID = "cli-account-no-list"
)

// Audit follow-up (2026-12): data the log serves unsigned (entry bundles,
// hash tiles) proves nothing against the appliance; trust-anchor and
// receipt field messages.
const (
	MsgServedNotSigned       MsgID = "served-not-signed"
	MsgServedEntryMismatch   MsgID = "served-entry-mismatch"
	MsgServedTilesMismatch   MsgID = "served-tiles-mismatch"
	MsgReceiptKeyField       MsgID = "receipt-key-field"
	MsgReceiptKeyMissing     MsgID = "receipt-key-missing"
	MsgVRFKeyLineNotVRF      MsgID = "vrf-key-line-not-vrf"
	MsgVRFKeyLineExport      MsgID = "vrf-key-line-export"
	MsgLogKeyTrustUnrecorded MsgID = "log-key-trust-unrecorded"
	MsgVRFKeyLineLogVKey     MsgID = "vrf-key-line-log-vkey"
	MsgCLIKeysAnnounced      MsgID = "cli-keys-announced"
	MsgAttestLogVKey         MsgID = "attest-log-vkey"
)
