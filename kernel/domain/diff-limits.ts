/** The most bytes of a patch one diff request answers (the deck's "more" asks up to this). */
export const MAX_DIFF_BYTES = 4_000_000
